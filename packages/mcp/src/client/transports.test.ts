/**
 * McpClient over the real transports against our own server: a stdio child process (spawnStdio, the built
 * `dist/`) and Streamable HTTP / the 2024-11-05 HTTP+SSE fallback on 127.0.0.1 (serveHttp), both eras; a killed
 * process is a ConnectionClosedError with its exit code and stderr, then respawned on the next call; a restarted
 * HTTP server's 404 re-initializes the session.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Logger } from '@switchboard/jsonrpc';
import { ConnectionClosedError, SpawnError } from '../protocol/clientErrors.js';
import { McpServer } from '../server/mcpServer.js';
import { serveHttp } from '../transports/node/index.js';
import { httpSse, streamableHttp } from '../transports/http/client/clientConnectors.js';
import { spawnStdio } from '../transports/stdio/stdioClientTransport.js';
import { McpClient } from './mcpClient.js';
import { InMemoryEraVerdictStore } from './verdicts.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'switchboard-client-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SERVER_JS = join(dir, 'server.mjs');
writeFileSync(
  SERVER_JS,
  `import { McpServer } from ${JSON.stringify(join(DIST, 'server.js'))};
import { serveStdio } from ${JSON.stringify(join(DIST, 'stdio.js'))};
const server = new McpServer({ name: 'stdio-own', version: '1' });
server.tool('add', { inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } }, ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
server.tool('progressing', {}, async (_args, ctx) => {
  for (let i = 1; i <= 4; i++) { await new Promise((r) => setTimeout(r, 60)); await ctx.progress(i, 4); }
  return { content: [{ type: 'text', text: 'done' }] };
});
server.tool('die', {}, () => { process.stderr.write('fatal: giving up\\n'); setTimeout(() => process.exit(7), 10); return new Promise(() => {}); });
await serveStdio(server);
`,
);

function ownServer(name: string): McpServer {
  const server = new McpServer({ name, version: '1' }, { logger: silent });
  server.tool('whoami', {}, () => ({ content: [{ type: 'text', text: name }] }));
  return server;
}

const store = () => new InMemoryEraVerdictStore();

describe.each(['legacy', 'modern'] as const)('stdio (%s era)', (era) => {
  it('calls tools, progress resets the timeout; a killed process is a ConnectionClosedError, then respawned', async () => {
    const connector = spawnStdio({ command: process.execPath, args: [SERVER_JS] });
    const client = await McpClient.connect({ connector, era, logger: silent, verdictStore: store() });
    expect([client.era, client.transportKind, client.serverInfo?.name]).toEqual([era, 'stdio', 'stdio-own']);
    expect((await client.callTool({ name: 'add', arguments: { a: 2, b: 5 } })).content).toEqual([{ type: 'text', text: '7' }]);
    // 4 × 60 ms of work, never 150 ms without progress.
    await expect(client.callTool({ name: 'progressing' }, { timeoutMs: 150 })).resolves.toMatchObject({ content: [{ type: 'text', text: 'done' }] });
    const error = await client.callTool({ name: 'die' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error).toMatchObject({ code: 'connection_closed', exitCode: 7, stderrTail: expect.arrayContaining(['fatal: giving up']) as string[] });
    expect((await client.callTool({ name: 'add', arguments: { a: 1, b: 1 } })).content).toEqual([{ type: 'text', text: '2' }]);
    await client.close();
  });
});

describe('stdio failures', () => {
  it('a server that exits at once is a SpawnError exited with its exit code and stderr, spawned once', async () => {
    const marker = join(dir, 'spawned.log');
    const script = `require('node:fs').appendFileSync(${JSON.stringify(marker)}, 'x'); process.stderr.write('bad config\\n'); process.exit(2);`;
    const error = await McpClient.connect({ connector: spawnStdio({ command: process.execPath, args: ['-e', script] }), logger: silent, verdictStore: store() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpawnError);
    expect(error).toMatchObject({ failure: 'exited', exitCode: 2, stderrTail: ['bad config'] });
    expect(readFileSync(marker, 'utf8')).toBe('x');
  });

  it('a command that is not found is a SpawnError not_found', async () => {
    const error = await McpClient.connect({ connector: spawnStdio({ command: join(dir, 'no-such-server') }), logger: silent, verdictStore: store() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpawnError);
    expect(error).toMatchObject({ code: 'spawn_failed', failure: 'not_found' });
  });
});

describe.each(['legacy', 'modern'] as const)('Streamable HTTP (%s era)', (era) => {
  it('connects and calls; after a server restart the session is re-initialized and the call succeeds', async () => {
    const first = ownServer('first');
    let http = await serveHttp({ server: first, port: 0 });
    const port = Number(new URL(http.url).port);
    const client = await McpClient.connect({ connector: streamableHttp({ url: http.url }), era, logger: silent, verdictStore: store() });
    try {
      expect([client.era, client.transportKind]).toEqual([era, 'streamable-http']);
      expect((await client.callTool({ name: 'whoami' })).content).toEqual([{ type: 'text', text: 'first' }]);
      await http.close({ drainMs: 0 });
      await first.close();
      const second = ownServer('second');
      http = await serveHttp({ server: second, port });
      // A call may still meet one of the old server's keep-alive sockets (the POST's, the GET stream's): it then fails
      // typed, and a later one reaches the new server.
      let after: unknown;
      for (let attempt = 0; attempt < 3; attempt++) {
        after = await client.callTool({ name: 'whoami' }).catch((e: unknown) => e);
        if (!(after instanceof Error)) break;
        expect(after).toBeInstanceOf(ConnectionClosedError);
      }
      expect(after).toMatchObject({ content: [{ type: 'text', text: 'second' }] });
      await client.close();
      await second.close();
    } finally {
      await client.close();
      await http.close({ drainMs: 0 });
    }
  });
});

describe('the 2024-11-05 HTTP+SSE transport', () => {
  it('httpSse connects to /sse with a legacy session', async () => {
    const server = ownServer('sse');
    const http = await serveHttp({ server, port: 0 });
    try {
      const client = await McpClient.connect({ connector: httpSse({ url: new URL('/sse', http.url).href }), logger: silent, verdictStore: store() });
      expect([client.era, client.transportKind]).toEqual(['legacy', 'http-sse']);
      expect((await client.callTool({ name: 'whoami' })).content).toEqual([{ type: 'text', text: 'sse' }]);
      await client.close();
    } finally {
      await http.close({ drainMs: 0 });
      await server.close();
    }
  });

  it('streamableHttp on the /sse URL falls back to HTTP+SSE after Streamable HTTP refuses initialize', async () => {
    const server = ownServer('fallback');
    const http = await serveHttp({ server, port: 0 });
    try {
      const client = await McpClient.connect({ connector: streamableHttp({ url: new URL('/sse', http.url).href }), logger: silent, verdictStore: store() });
      expect([client.era, client.transportKind]).toEqual(['legacy', 'http-sse']);
      expect((await client.callTool({ name: 'whoami' })).content).toEqual([{ type: 'text', text: 'fallback' }]);
      await client.close();
    } finally {
      await http.close({ drainMs: 0 });
      await server.close();
    }
  });
});
