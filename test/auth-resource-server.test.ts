/**
 * The resource-server kit over real sockets: a protected `serveHttp` server on 127.0.0.1 whose `jwtVerifier`
 * fetches the key set from an authorization server's JWKS endpoint (a real node:http server on 127.0.0.1, keys made
 * and tokens signed with `jose` at test time): the key set cached, a rotated `kid` fetched again, the cooldown that
 * bounds fetches, an unreachable key set answered 503; `introspectionVerifier` against an RFC 7662 endpoint (its
 * answers cached no longer than the token's `exp`); `ctx.authInfo` reaching the handler on every HTTP path and era
 * (2026-07-28 JSON and SSE, a 2025-11-25 session, the 2024-11-05 HTTP+SSE transport) with our own client.
 * The in-process table of every refusal shape: packages/mcp/src/transports/http/server/auth/resourceServer.test.ts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '@switchboard/jsonrpc';
import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpClient, httpSse, streamableHttp, InMemoryEraVerdictStore } from '../packages/mcp/src/client/index.js';
import { McpServer } from '../packages/mcp/src/server/index.js';
import { introspectionVerifier, jwtVerifier, type HttpAuthOptions } from '../packages/mcp/src/transports/http/index.js';
import { serveHttp, type ServeHttpHandle } from '../packages/mcp/src/transports/node/index.js';

const ACCEPT_BOTH = 'application/json, text/event-stream';

interface Key {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly jwk: JWK;
}

async function makeKey(kid: string): Promise<Key> {
  const pair = await generateKeyPair('ES256', { extractable: true });
  return { kid, privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

/** A stand-in authorization server on 127.0.0.1: its JWKS (changeable) and an RFC 7662 introspection endpoint. */
class AuthorizationServer {
  keys: Key[] = [];
  jwksFetches = 0;
  introspections = 0;
  /** Introspection answers by token. */
  readonly answers = new Map<string, Record<string, unknown>>();
  #server: http.Server | undefined;
  #url = '';

  get issuer(): string {
    return this.#url;
  }

  async start(): Promise<void> {
    this.#server = http.createServer((req, res) => {
      if (req.url === '/jwks') {
        this.jwksFetches++;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: this.keys.map((k) => k.jwk) }));
        return;
      }
      if (req.url === '/introspect' && req.method === 'POST') {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          this.introspections++;
          // RFC 7662 §2.1: the resource server authenticates (client_secret_basic here).
          if (req.headers.authorization !== `Basic ${Buffer.from('rs:s3cret').toString('base64')}`) {
            res.writeHead(401).end();
            return;
          }
          const token = new URLSearchParams(body).get('token') ?? '';
          const answer = this.answers.get(token);
          const expired = typeof answer?.exp === 'number' && answer.exp * 1000 <= Date.now();
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer === undefined || expired ? { active: false } : { active: true, ...answer }));
        });
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve));
    this.#url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async sign(key: Key, claims: { readonly aud: string; readonly scope?: string; readonly expiresInSeconds?: number }): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ scope: claims.scope ?? 'notes:read', client_id: 'cli' })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid })
      .setIssuer(this.issuer)
      .setAudience(claims.aud)
      .setSubject('alice')
      .setIssuedAt(now)
      .setExpirationTime(now + (claims.expiresInSeconds ?? 600))
      .sign(key.privateKey);
  }

  async stop(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function protectedServer(): McpServer {
  const server = new McpServer({ name: 'notes', version: '1.0.0' }, { logger: silentLogger });
  server.tool('whoami', {}, (_args, ctx) => {
    const info = ctx.authInfo as { clientId: string; subject: string; scopes: string[] } | undefined;
    return { content: [{ type: 'text', text: info === undefined ? 'anonymous' : `${info.clientId}/${info.subject}/${info.scopes.join(',')}/${ctx.session === undefined ? 'modern' : 'session'}` }] };
  });
  server.tool('purge', { scopes: ['notes:purge'] }, () => ({ content: [{ type: 'text', text: 'purged' }] }));
  return server;
}

let as: AuthorizationServer;
let mcp: ServeHttpHandle | undefined;
let clients: McpClient[] = [];
let k1: Key;
let k2: Key;

beforeAll(async () => {
  k1 = await makeKey('k1');
  k2 = await makeKey('k2');
});

afterEach(async () => {
  for (const client of clients) await client.close();
  clients = [];
  await mcp?.close({ drainMs: 0 });
  mcp = undefined;
  await as.stop();
});

async function start(auth: (issuer: string) => Partial<HttpAuthOptions> & Pick<HttpAuthOptions, 'verifier'>, responseMode?: 'json' | 'sse'): Promise<string> {
  as = new AuthorizationServer();
  as.keys = [k1];
  await as.start();
  mcp = await serveHttp({ server: protectedServer(), port: 0, responseMode, auth: { authorizationServers: [as.issuer], clockToleranceSeconds: 0, ...auth(as.issuer) } });
  return mcp.url;
}

async function post(url: string, token: string | undefined, body: unknown): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-protocol-version': '2026-07-28', 'mcp-method': (body as { method: string }).method };
  const name = (body as { params?: { name?: string } }).params?.name;
  if (name !== undefined) headers['mcp-name'] = name;
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
}

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } };

describe('jwtVerifier against a remote JWKS', () => {
  it('fetches the key set once and keeps it; a token of another resource and a garbage token are refused', async () => {
    const url = await start((issuer) => ({ verifier: jwtVerifier({ issuer, jwksUrl: `${issuer}/jwks` }) }));
    for (let i = 0; i < 3; i++) {
      const response = await post(url, await as.sign(k1, { aud: url }), LIST);
      expect(response.status).toBe(200);
      await response.text();
    }
    expect(as.jwksFetches).toBe(1);
    const other = await post(url, await as.sign(k1, { aud: 'http://127.0.0.1:1/mcp' }), LIST);
    expect(other.status).toBe(401);
    expect(other.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((await post(url, 'garbage', LIST)).status).toBe(401);
  });

  it('a rotated key (new kid) is fetched again; a kid gone from the set is refused', async () => {
    const url = await start((issuer) => ({ verifier: jwtVerifier({ issuer, jwksUrl: `${issuer}/jwks`, jwksCooldownMs: 0 }) }));
    expect((await post(url, await as.sign(k1, { aud: url }), LIST)).status).toBe(200);
    as.keys = [k2];
    const rotated = await post(url, await as.sign(k2, { aud: url }), LIST);
    expect(rotated.status).toBe(200);
    expect(as.jwksFetches).toBe(2);
    const old = await post(url, await as.sign(k1, { aud: url }), LIST);
    expect(old.status).toBe(401);
    expect(old.headers.get('www-authenticate')).toContain('no key');
  });

  it('within the cooldown an unknown kid fetches nothing (a flood of made-up kids costs one fetch at most)', async () => {
    const url = await start((issuer) => ({ verifier: jwtVerifier({ issuer, jwksUrl: `${issuer}/jwks`, jwksCooldownMs: 60_000 }) }));
    expect((await post(url, await as.sign(k1, { aud: url }), LIST)).status).toBe(200);
    as.keys = [k1, k2];
    for (let i = 0; i < 5; i++) expect((await post(url, await as.sign(k2, { aud: url }), LIST)).status).toBe(401);
    expect(as.jwksFetches).toBe(1);
  });

  it('a key set that cannot be fetched is 503 with Retry-After, never 200 or 401', async () => {
    const url = await start((issuer) => ({ verifier: jwtVerifier({ issuer, jwksUrl: `${issuer}/missing-jwks` }), retryAfterSeconds: 3 }));
    const response = await post(url, await as.sign(k1, { aud: url }), LIST);
    expect([response.status, response.headers.get('retry-after')]).toEqual([503, '3']);
  });

  it('an expired token is refused (401 invalid_token "expired")', async () => {
    const url = await start((issuer) => ({ verifier: jwtVerifier({ issuer, jwksUrl: `${issuer}/jwks`, clockToleranceSeconds: 0 }) }));
    const response = await post(url, await as.sign(k1, { aud: url, expiresInSeconds: -5 }), LIST);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('expired');
  });
});

describe('introspectionVerifier (RFC 7662)', () => {
  it('an active token passes and its answer is kept, but never past its exp; inactive and garbage tokens are 401', async () => {
    const url = await start((issuer) => ({ verifier: introspectionVerifier({ endpoint: `${issuer}/introspect`, clientId: 'rs', clientSecret: 's3cret' }) }));
    const exp = Math.floor(Date.now() / 1000) + 2;
    as.answers.set('opaque-1', { scope: 'notes:read', client_id: 'cli', sub: 'bob', aud: url, exp });
    as.answers.set('opaque-other', { scope: 'notes:read', client_id: 'cli', aud: 'https://elsewhere.example/mcp', exp: exp + 600 });
    for (let i = 0; i < 3; i++) {
      const response = await post(url, 'opaque-1', LIST);
      expect(response.status).toBe(200);
      await response.text();
    }
    expect(as.introspections).toBe(1);
    expect((await post(url, 'opaque-other', LIST)).status).toBe(401);
    expect((await post(url, 'never-issued', LIST)).status).toBe(401);
    const before = as.introspections;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, exp * 1000 - Date.now()) + 100));
    const expired = await post(url, 'opaque-1', LIST);
    expect(expired.status).toBe(401);
    expect(as.introspections).toBe(before + 1);
  });
});

describe('ctx.authInfo on every HTTP path and era', () => {
  for (const responseMode of ['json', 'sse'] as const) {
    it(`2026-07-28 (${responseMode}), a 2025-11-25 session and the 2024-11-05 HTTP+SSE transport: the handler sees the verified token; a tool scope is a 403 the client reports`, async () => {
      const url = await start((issuer) => ({ verifier: jwtVerifier({ issuer, jwksUrl: `${issuer}/jwks` }) }), responseMode);
      const token = await as.sign(k1, { aud: url, scope: 'notes:read' });
      const headers = { authorization: `Bearer ${token}` };
      const base = new URL(url);
      const connectors = [
        { era: 'modern' as const, connector: streamableHttp({ url, headers }) },
        { era: 'legacy' as const, connector: streamableHttp({ url, headers }) },
        { era: 'legacy' as const, connector: httpSse({ url: new URL('/sse', base), headers }) },
      ];
      const seen: string[] = [];
      for (const { era, connector } of connectors) {
        const client = await McpClient.connect({ connector, era, verdictStore: new InMemoryEraVerdictStore(), clientInfo: { name: 'auth-test', version: '1.0.0' } });
        clients.push(client);
        const result = await client.callTool({ name: 'whoami', arguments: {} });
        seen.push((result.content[0] as { text: string }).text);
        const tools = await client.listTools();
        expect(tools.tools.map((t) => t.name)).toEqual(['whoami']);
        // The 403's JSON-RPC body carries the request's id: the client settles the call with it.
        await expect(client.callTool({ name: 'purge', arguments: {} })).rejects.toThrow(/insufficient scope/);
      }
      expect(seen).toEqual(['cli/alice/notes:read/modern', 'cli/alice/notes:read/session', 'cli/alice/notes:read/session']);
    });
  }
});
