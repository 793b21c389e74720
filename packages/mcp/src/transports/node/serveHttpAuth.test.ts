/**
 * `serveHttp` with `auth` over real sockets on 127.0.0.1: on loopback (Host validated by default) the resource may
 * be derived from the request; several `Authorization` headers reach the handler all together (Node's
 * `req.headers` keeps only the first), on both paths of the Node adapter.
 */
import net from 'node:net';
import { silentLogger } from '@switchboard/jsonrpc';
import { describe, expect, it } from 'vitest';
import { McpServer } from '../../server/index.js';
import type { TokenVerifier } from '../http/server/auth/authOptions.js';
import { serveHttp } from './serveHttp.js';

/** `good` is a valid token for the resource it is presented to; anything else is refused. */
const oneToken: TokenVerifier = {
  verify: (token, request) => (token === 'good' ? { token, clientId: 'c', scopes: [], audience: [request.resource] } : { refused: 'unknown token' }),
};

function protectedServer(): McpServer {
  const server = new McpServer({ name: 'core', version: '1' }, { logger: silentLogger });
  server.tool('t', {}, () => ({ content: [] }));
  return server;
}

/** The status line of a raw HTTP/1.1 POST to `/mcp` with `authorizations` as separate header lines. */
function rawStatus(port: number, authorizations: readonly string[]): Promise<string> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } });
  const head = [
    'POST /mcp HTTP/1.1',
    `Host: 127.0.0.1:${port}`,
    'Content-Type: application/json',
    'Accept: application/json, text/event-stream',
    'Mcp-Protocol-Version: 2026-07-28',
    'Mcp-Method: tools/list',
    ...authorizations.map((a) => `Authorization: ${a}`),
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ];
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`${head.join('\r\n')}\r\n\r\n${body}`));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => resolve(text.split('\r\n', 1)[0] as string));
    socket.on('error', reject);
  });
}

describe('serveHttp auth on loopback', () => {
  it('without resource it serves (Host validated by default) and the metadata names the loopback resource', async () => {
    const handle = await serveHttp({ server: protectedServer(), port: 0, auth: { authorizationServers: ['https://as.example'], verifier: oneToken } });
    try {
      const doc = (await (await fetch(new URL('/.well-known/oauth-protected-resource/mcp', handle.url))).json()) as { resource: string };
      expect(doc.resource).toBe(`http://127.0.0.1:${handle.port}/mcp`);
    } finally {
      await handle.close();
    }
  });
});

describe('serveHttp: several Authorization headers (RFC 9110 §5.3: one value, comma-joined)', () => {
  it.each(['direct', 'fetch'] as const)('via %s: good then garbage and garbage then good are both 400; one good header is 200', async (via) => {
    const handle = await serveHttp({ server: protectedServer(), port: 0, via, auth: { authorizationServers: ['https://as.example'], verifier: oneToken } });
    try {
      expect(await rawStatus(handle.port, ['Bearer good'])).toBe('HTTP/1.1 200 OK');
      expect(await rawStatus(handle.port, ['Bearer good', 'Bearer garbage'])).toBe('HTTP/1.1 400 Bad Request');
      expect(await rawStatus(handle.port, ['Bearer garbage', 'Bearer good'])).toBe('HTTP/1.1 400 Bad Request');
    } finally {
      await handle.close();
    }
  });
});
