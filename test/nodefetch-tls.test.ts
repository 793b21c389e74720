/**
 * nodeFetch over TLS with a test CA (`openssl`, test/helpers/testPki.ts): the server name a request presents (SNI,
 * and the name the certificate must carry) follows a `Host` field the caller set, on the direct request (header
 * fields handed to node:http as a list) as on `fetch` (an object of fields, where node:http derives it itself).
 * Skips where `openssl` is not on the PATH.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CancellationSource } from '@switchboard/jsonrpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIRECT_REQUEST } from '../packages/mcp/src/transports/http/client/clientHttp.js';
import { createNodeFetch, type NodeFetch } from '../packages/mcp/src/transports/node/nodeFetch.js';
import { hasOpenssl, makeTestPki } from './helpers/testPki.js';

describe.skipIf(!hasOpenssl)('nodeFetch over TLS: the server name follows a Host the caller set', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-nodefetch-tls-'));
  let server: Server;
  let agent: Agent;
  let fetch: NodeFetch;
  let url: string;
  const seen: { servername: unknown; host: string | undefined }[] = [];

  beforeAll(async () => {
    const pki = makeTestPki(dir, 'DNS:mcp.example');
    server = createServer({ key: pki.key, cert: pki.cert }, (req, res) => {
      seen.push({ servername: (req.socket as TLSSocket).servername, host: req.headers.host });
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    agent = new Agent({ keepAlive: true, ca: pki.ca });
    fetch = createNodeFetch({ httpsAgent: agent });
  });

  afterAll(async () => {
    fetch.destroy();
    agent.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const direct = (headers: readonly string[]) =>
    fetch[DIRECT_REQUEST](new URL(url), { method: 'POST', headers, body: '{}', abort: new CancellationSource(), maxJsonBytes: 1024 });

  it('the direct request presents the listed Host as the server name, and the certificate is checked against it', async () => {
    const answer = await direct(['content-type', 'application/json', 'host', 'mcp.example:443']);
    expect([answer.status, answer.json]).toEqual([200, { text: '{"ok":true}', complete: true }]);
    expect(seen.at(-1)).toEqual({ servername: 'mcp.example', host: 'mcp.example:443' });
  });

  it('as fetch does with the same fields as an object', async () => {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', host: 'mcp.example:443' }, body: '{}' });
    expect([response.status, await response.text()]).toEqual([200, '{"ok":true}']);
    expect(seen.at(-1)).toEqual({ servername: 'mcp.example', host: 'mcp.example:443' });
  });

  it('without a listed Host the name is the URL\'s: a certificate for another name is refused', async () => {
    const refused = await direct(['content-type', 'application/json']).catch((error: unknown) => error);
    expect(refused).toMatchObject({ message: 'fetch failed', cause: { code: 'ERR_TLS_CERT_ALTNAME_INVALID' } });
  });
});
