/**
 * The first failure a new user meets: a URL where nothing listens (the server is not started yet, or another port).
 * McpClient reports it as a typed `ConnectionRefusedError` (code `connection_refused`, with the URL) over both HTTP
 * transports and both fetch paths (the platform's fetch and `nodeFetch`), in every era choice, without falling back
 * from the modern probe to `initialize`; `list` and `call` print "Nothing listens at <url>" and exit with 2.
 * Before, all of them said "Connection closed … the server ended the connection".
 */
import { createServer } from 'node:net';
import { ConnectionRefusedError, McpClient, httpSse, streamableHttp } from '@switchboard/mcp/client';
import { nodeFetch } from '@switchboard/mcp/node';
import { describe, expect, it } from 'vitest';
import { runCli, type CliRun } from './helpers/process.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** A loopback port nothing listens on: bound by the system, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const cli = (args: readonly string[]): Promise<CliRun> => runCli(args);

describe('a URL where nothing listens', () => {
  it.each([
    ['Streamable HTTP, platform fetch', (url: string) => streamableHttp({ url })],
    ['Streamable HTTP, nodeFetch', (url: string) => streamableHttp({ url, fetch: nodeFetch })],
    ['HTTP+SSE (2024-11-05), platform fetch', (url: string) => httpSse({ url })],
    ['HTTP+SSE (2024-11-05), nodeFetch', (url: string) => httpSse({ url, fetch: nodeFetch })],
  ] as const)('McpClient over %s: ConnectionRefusedError with the URL', async (_name, connector) => {
    const url = `http://127.0.0.1:${await closedPort()}/mcp`;
    for (const era of ['auto', 'legacy', 'modern'] as const) {
      if (era === 'modern' && connector(url).kind === 'http-sse') continue; // HTTP+SSE carries the legacy era only
      const failure = await McpClient.connect({ connector: connector(url), era, logger: silent }).then(() => undefined, (error: unknown) => error);
      expect(failure, era).toBeInstanceOf(ConnectionRefusedError);
      expect(failure, era).toMatchObject({ code: 'connection_refused', url, message: `Nothing listens at ${url} (connection refused)` });
    }
  }, 20_000);

  it('localhost (::1 then 127.0.0.1, both refused) is refused too', async () => {
    const url = `http://localhost:${await closedPort()}/mcp`;
    const failure = await McpClient.connect({ connector: streamableHttp({ url }), logger: silent }).then(() => undefined, (error: unknown) => error);
    expect(failure).toMatchObject({ code: 'connection_refused', url });
  });

  it('switchboard list and call say "Nothing listens at <url>" and exit with 2', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/mcp`;
    for (const args of [['list', url], ['call', url, 'echo'], ['call', 'echo', '--args', '{}', url]]) {
      const { code, stdout, stderr } = await cli(args);
      expect({ code, stdout, first: stderr.split('\n')[0] }, args.join(' ')).toEqual({ code: 2, stdout: '', first: `switchboard: Nothing listens at ${url} (connection refused)` });
      expect(stderr, args.join(' ')).not.toContain('ended the connection');
    }
  }, 60_000);
});
