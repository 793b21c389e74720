/**
 * `switchboard gateway --config FILE` with an `auth` block: the gateway's own endpoint requires a bearer JWT of the
 * configured issuer for its own resource (MCP 2025-11-25 basic/authorization; RFC 8707, RFC 9728), independent of
 * its stdio upstream (a real child process, which never sees a token). The key set is served by a real node:http
 * server on 127.0.0.1; the tokens are signed at test time with jose.
 */
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { captureIo } from '../packages/cli/src/cliIo.js';
import { run } from '../packages/cli/src/run.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const dir = mkdtempSync(path.join(os.tmpdir(), 'switchboard-gateway-auth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ISSUER = 'https://as.example';

describe('switchboard gateway with an auth block', () => {
  it('refuses a missing, foreign or garbage token (401 with the metadata URL), serves the metadata, and a valid token reaches the upstream', async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    const jwks = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`;
    const port = await new Promise<number>((resolve) => {
      const probe = http.createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as AddressInfo).port;
        probe.close(() => resolve(p));
      });
    });
    const resource = `http://127.0.0.1:${port}/mcp`;
    const token = (audience: string) =>
      new SignJWT({ scope: 'tools', client_id: 'host-app' }).setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'at+jwt' }).setIssuer(ISSUER).setSubject('alice').setAudience(audience).setIssuedAt().setExpirationTime('5m').sign(privateKey);
    writeFileSync(
      path.join(dir, 'gateway.json'),
      JSON.stringify({
        upstreams: { one: { command: process.execPath, args: [path.join(ROOT, 'test', 'fixtures', 'stdio-server.mjs')] } },
        auth: { resource, authorizationServers: [ISSUER], jwksUrl },
      }),
    );
    const stop = new AbortController();
    const io = captureIo({ cwd: dir, signal: stop.signal });
    const done = run(['gateway', '--config', 'gateway.json', '--port', String(port)], io);
    try {
      await expect.poll(() => io.err(), { timeout: 15_000 }).toMatch(/upstream "one" ready \(/);
      const post = (authorization?: string) =>
        fetch(resource, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list', ...(authorization === undefined ? {} : { authorization }) },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/list',
            params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' } } },
          }),
        });
      const none = await post();
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toContain(`resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp"`);
      for (const bad of [`Bearer ${await token('http://elsewhere.example/mcp')}`, 'Bearer garbage']) {
        const refused = await post(bad);
        expect(refused.status).toBe(401);
        expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
      }
      const metadata = await fetch(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`);
      expect(await metadata.json()).toMatchObject({ resource, authorization_servers: [ISSUER] });
      const ok = await post(`Bearer ${await token(resource)}`);
      expect(ok.status).toBe(200);
      const body = (await ok.json()) as { result: { tools: { name: string }[] } };
      expect(body.result.tools.map((t) => t.name)).toContain('one_echo');
    } finally {
      stop.abort();
      await done;
      await new Promise<void>((resolve) => jwks.close(() => resolve()));
    }
  });

  it('refuses an auth block without its resource, naming the field', async () => {
    writeFileSync(path.join(dir, 'bad.json'), JSON.stringify({ upstreams: {}, auth: { authorizationServers: [ISSUER] } }));
    const io = captureIo({ cwd: dir });
    expect(await run(['gateway', '--config', 'bad.json', '--port', '0'], io)).toBe(2);
    expect(io.err()).toMatch(/auth/);
  });
});
