#!/usr/bin/env node
// Switchboard's client (`@switchboard/mcp/client`), used as a user would: `McpClient.connect` with
// `spawnStdio` (it spawns the server) or `streamableHttp` (its default `fetch`: on Node, `nodeFetch`, the node:http
// fetch the `./client` entry installs under Node; `--fetch global`: `globalThis.fetch`, undici, handed in
// explicitly), default options (era `'auto'`: the `server/discover` probe, then `initialize` when the server does
// not know it, as the raw floor does not), then `client.callTool`. The connect-time probe is outside the window.
import process from 'node:process';
import { McpClient, streamableHttp } from '@switchboard/mcp/client';
import { spawnStdio } from '@switchboard/mcp/stdio';
import { runClient } from './_harness.mjs';

await runClient((opts) => {
  let client;
  return {
    async connect() {
      const fetch = opts.fetch === 'global' ? (input, init) => globalThis.fetch(input, init) : undefined;
      const connector = opts.transport === 'stdio' ? spawnStdio({ command: process.execPath, args: [opts.server, '--stdio'] }) : streamableHttp({ url: opts.url, ...(fetch ? { fetch } : {}) });
      client = await McpClient.connect({ connector, clientInfo: { name: 'switchboard-bench-client', version: '1.0.0' } });
      return { server: client.serverInfo?.name, protocolVersion: client.protocolVersion, era: client.era };
    },
    callEcho: (text) => client.callTool({ name: 'echo', arguments: { text } }),
    close: () => client?.close(),
  };
}, { fetch: 'default' });
