/**
 * The CLI follows the spec's session rule as McpClient does (MCP 2025-11-25 basic/transports.mdx "Session
 * Management"): when a request carrying its Mcp-Session-Id gets HTTP 404, the client starts a new session with a
 * new initialize and sends the request again. Here a real server behind a front that answers 404 to the first
 * `tools/list` of a session (as a server that restarted, or `switchboard dev` after a reload, does). Before, the
 * CLI (reconnect off) failed with "session expired … run the command again".
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createMcpHttpHandler } from '@switchboard/mcp/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from './helpers/process.js';
import server from './fixtures/cli-server-module.mjs';

const cli = (args: readonly string[]): Promise<CliRun> => runCli(args);

describe('switchboard list over a Streamable HTTP session that the server forgets', () => {
  const handler = createMcpHttpHandler({ server });
  const forgotten = new Set<string>();
  const seen: string[] = [];
  let url = '';
  const front = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const session = req.headers['mcp-session-id'];
        const method = req.method === 'POST' ? (JSON.parse(body.toString('utf8')) as { method?: string }).method : req.method;
        seen.push(`${String(method)}${typeof session === 'string' ? ' (session)' : ''}`);
        if (typeof session === 'string' && method === 'tools/list' && !forgotten.has(session) && forgotten.size === 0) {
          forgotten.add(session);
          res.writeHead(404).end();
          return;
        }
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
        const response = await handler.fetch(new Request(`http://${req.headers.host!}${req.url!}`, { method: req.method!, headers, ...(req.method === 'POST' ? { body } : {}) }));
        const out: Record<string, string> = {};
        response.headers.forEach((value, name) => { out[name] = value; });
        res.writeHead(response.status, out);
        if (response.body === null) res.end();
        else Readable.fromWeb(response.body as WebReadableStream).pipe(res);
      })();
    });
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(front.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    front.closeAllConnections();
    await new Promise<void>((resolve) => front.close(() => resolve()));
    await handler.close();
  });

  it('starts a new session with initialize and lists the tools (--era legacy)', async () => {
    const { code, stdout, stderr } = await cli(['list', url, '--era', 'legacy']);
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/\necho\s+Echoes its text/);
    expect(forgotten.size).toBe(1);
    // The 404, then a second initialize without a session id, then tools/list again on the new session.
    const after = seen.slice(seen.indexOf('tools/list (session)') + 1);
    expect(after).toContain('initialize');
    expect(after.filter((m) => m === 'tools/list (session)')).toHaveLength(1);
  }, 30_000);
});
