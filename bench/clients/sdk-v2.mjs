#!/usr/bin/env node
// The official SDK v2 client (`@modelcontextprotocol/client` 2.4.0), used the way its docs show: a `Client`,
// `connect(transport)` with `StdioClientTransport` (`@modelcontextprotocol/client/stdio`, it spawns the
// server) or `StreamableHTTPClientTransport`, then `client.callTool`. Default options: its default era
// negotiation is `'legacy'` (a plain `initialize`, no `server/discover` probe), which is also the only era the
// raw floor server can be found in by a probe.
import process from 'node:process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { runClient } from './_harness.mjs';

await runClient((opts) => {
  const client = new Client({ name: 'sdk-v2-bench-client', version: '1.0.0' });
  return {
    async connect() {
      const transport =
        opts.transport === 'stdio'
          ? new StdioClientTransport({ command: process.execPath, args: [opts.server, '--stdio'], stderr: 'inherit' })
          : new StreamableHTTPClientTransport(new URL(opts.url));
      await client.connect(transport);
      return { server: client.getServerVersion()?.name, protocolVersion: client.getNegotiatedProtocolVersion() };
    },
    callEcho: (text) => client.callTool({ name: 'echo', arguments: { text } }),
    close: () => client.close(),
  };
});
