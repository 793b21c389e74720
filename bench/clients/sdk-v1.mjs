#!/usr/bin/env node
// The official SDK v1 client (`@modelcontextprotocol/sdk` 1.32.2), used the way its README shows: a `Client`,
// `connect(transport)` with `StdioClientTransport` (it spawns the server) or `StreamableHTTPClientTransport`,
// then `client.callTool`. Default options everywhere (legacy era: v1 speaks only the session-based revisions).
import process from 'node:process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { runClient } from './_harness.mjs';

await runClient((opts) => {
  const client = new Client({ name: 'sdk-v1-bench-client', version: '1.0.0' });
  return {
    async connect() {
      const transport =
        opts.transport === 'stdio'
          ? new StdioClientTransport({ command: process.execPath, args: [opts.server, '--stdio'], stderr: 'inherit' })
          : new StreamableHTTPClientTransport(new URL(opts.url));
      await client.connect(transport);
      return { server: client.getServerVersion()?.name, protocolVersion: transport.protocolVersion, era: 'legacy' };
    },
    callEcho: (text) => client.callTool({ name: 'echo', arguments: { text } }),
    close: () => client.close(),
  };
});
