/**
 * The HTTP handler as an OAuth resource server (its `auth` option), in process through the Web handler: every 401,
 * 400, 403 and 503 shape with its `WWW-Authenticate`, both well-known forms of the protected resource metadata, the
 * audience rules (RFC 8707), expiry and clock skew, per-tool scopes refused before dispatch in both eras (and the
 * lists filtered), `ctx.authInfo` in the handlers. Tokens are real JWTs signed with `jose` at test time and checked
 * by `jwtVerifier` against a local key set (the remote key set, its rotation and introspection over real sockets:
 * test/auth-resource-server.test.ts).
 */
import { silentLogger } from '@switchboard/jsonrpc';
import { SignJWT, base64url, calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { McpServer } from '../../../../server/index.js';
import { PROTOCOL_VERSION_META_KEY } from '../../../../protocol/envelope.js';
import { createMcpHttpHandler, jwtVerifier, type HttpAuthOptions, type McpHttpHandler, type TokenVerifier } from '../../index.js';

const ISSUER = 'https://auth.example.test';
const RESOURCE = 'http://localhost/mcp';
const PRM_PATH_FORM = 'http://localhost/.well-known/oauth-protected-resource/mcp';
const ACCEPT_BOTH = 'application/json, text/event-stream';
const MODERN = '2026-07-28';
const META = { [PROTOCOL_VERSION_META_KEY]: MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

let signingKey: CryptoKey;
let strangerKey: CryptoKey;
let publicJwk: JWK;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  signingKey = pair.privateKey;
  publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  strangerKey = (await generateKeyPair('ES256')).privateKey;
});

interface Claims {
  readonly aud?: string | string[];
  readonly scope?: string;
  readonly iss?: string;
  readonly exp?: number;
  readonly cnf?: unknown;
  readonly sub?: string;
  /** Signed by a key the authorization server's key set does not hold. */
  readonly stranger?: boolean;
  readonly kid?: string;
}

/** A JWT access token signed now (default: for this resource, scope `tools:read`, one hour). */
async function token(claims: Claims = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload: Record<string, unknown> = { scope: claims.scope ?? 'tools:read', client_id: 'client-1', sub: claims.sub ?? 'user-1' };
  if (claims.cnf !== undefined) payload.cnf = claims.cnf;
  let jwt = new SignJWT(payload)
    .setProtectedHeader({ alg: 'ES256', kid: claims.kid ?? 'k1', typ: 'at+jwt' })
    .setIssuer(claims.iss ?? ISSUER)
    .setIssuedAt(now)
    .setExpirationTime(claims.exp ?? now + 3600);
  if (!('aud' in claims) || claims.aud !== undefined) jwt = jwt.setAudience(claims.aud ?? RESOURCE);
  return jwt.sign(claims.stranger === true ? strangerKey : signingKey);
}

function createServer(): McpServer {
  const server = new McpServer({ name: 'protected', version: '1.0.0' }, { logger: silentLogger, visibility: (item) => item.name !== 'hidden_admin' });
  const who = (_args: unknown, ctx: { authInfo: unknown }): { content: { type: 'text'; text: string }[] } => {
    const info = ctx.authInfo as { clientId: string; scopes: string[]; resource: string; subject: string };
    return { content: [{ type: 'text', text: JSON.stringify({ clientId: info.clientId, scopes: info.scopes, resource: info.resource, subject: info.subject }) }] };
  };
  server.tool('read_notes', {}, who);
  server.tool('delete_notes', { scopes: ['notes:delete'] }, who);
  server.tool('hidden_admin', { scopes: ['notes:delete'] }, who);
  return server;
}

function handlerWith(auth: Partial<HttpAuthOptions> = {}): McpHttpHandler {
  return createMcpHttpHandler({
    server: createServer(),
    auth: {
      verifier: jwtVerifier({ issuer: ISSUER, jwks: { keys: [publicJwk] } }),
      authorizationServers: [ISSUER],
      scopesSupported: ['tools:read'],
      scopeHierarchy: { 'notes:admin': ['notes:delete'] },
      ...auth,
    },
  });
}

interface Answer {
  readonly status: number;
  readonly challenge: string | null;
  readonly body: Record<string, unknown> | undefined;
  readonly headers: Headers;
}

async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  let body: Record<string, unknown> | undefined;
  try {
    const sse = response.headers.get('content-type')?.startsWith('text/event-stream') === true;
    // An SSE answer: the last `data:` line is the response (notifications, if any, come before it).
    const data = sse ? [...text.matchAll(/^data: ?(.*)$/gm)].map((m) => m[1] as string).filter((d) => d.length > 0).pop() : text;
    body = JSON.parse(data ?? 'null') as Record<string, unknown>;
  } catch {
    body = undefined;
  }
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body, headers: response.headers };
}

/** A modern (2026-07-28) request with its metadata headers. */
async function modern(
  handler: McpHttpHandler,
  request: { readonly method: string; readonly params?: Record<string, unknown>; readonly name?: string; readonly authorization?: string; readonly id?: number; readonly dpop?: string },
): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-protocol-version': MODERN, 'mcp-method': request.method };
  if (request.dpop !== undefined) headers.dpop = request.dpop;
  if (request.name !== undefined) headers['mcp-name'] = request.name;
  if (request.authorization !== undefined) headers.authorization = request.authorization;
  const body = { jsonrpc: '2.0', id: request.id ?? 1, method: request.method, params: { ...request.params, _meta: META } };
  return answerOf(await handler.fetch(new Request(RESOURCE, { method: 'POST', headers, body: JSON.stringify(body) })));
}

function callTool(handler: McpHttpHandler, name: string, authorization: string | undefined): Promise<Answer> {
  return modern(handler, { method: 'tools/call', params: { name, arguments: {} }, name, authorization, id: 7 });
}

function bearer(value: string): string {
  return `Bearer ${value}`;
}

describe('401, 400 and 503 before routing', () => {
  it('no token: 401 with resource_metadata (path-inserted form) and scope, no error code (RFC 6750 §3.1), on every path', async () => {
    const handler = handlerWith();
    const noToken = await modern(handler, { method: 'tools/list' });
    expect(noToken.status).toBe(401);
    expect(noToken.challenge).toBe(`Bearer resource_metadata="${PRM_PATH_FORM}", scope="tools:read"`);
    expect(noToken.body).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('Unauthorized') as string } });
    for (const [path, method] of [['/mcp', 'GET'], ['/mcp', 'DELETE'], ['/sse', 'GET'], ['/messages?sessionId=x', 'POST']] as const) {
      const answer = await answerOf(await handler.fetch(new Request(`http://localhost${path}`, { method, headers: { accept: ACCEPT_BOTH } })));
      expect([path, answer.status, answer.challenge]).toEqual([path, 401, `Bearer resource_metadata="${PRM_PATH_FORM}", scope="tools:read"`]);
    }
    // Another scheme is no bearer credentials either.
    expect((await modern(handler, { method: 'tools/list', authorization: 'Basic dTpw' })).challenge).not.toContain('error=');
  });

  it('requiredScopes are the scope of the challenge when set', async () => {
    const answer = await modern(handlerWith({ requiredScopes: ['mcp'] }), { method: 'tools/list' });
    expect(answer.challenge).toBe(`Bearer resource_metadata="${PRM_PATH_FORM}", scope="mcp"`);
  });

  it.each([
    ['Bearer', 'no token'],
    ['Bearer two words', 'not a b64token'],
    ['Bearer tok"en', 'a quote'],
  ])('a malformed Authorization (%s: %s) is 400 invalid_request', async (authorization) => {
    const answer = await modern(handlerWith(), { method: 'tools/list', authorization });
    expect(answer.status).toBe(400);
    expect(answer.challenge).toMatch(/^Bearer error="invalid_request", error_description="[^"]+", resource_metadata="/);
  });

  it('a token in the query string is 400 invalid_request, even a valid one (MCP: MUST NOT be in the query)', async () => {
    const handler = handlerWith();
    const good = await token();
    const response = await handler.fetch(new Request(`${RESOURCE}?access_token=${good}`, { method: 'GET', headers: { accept: 'text/event-stream', authorization: bearer(good) } }));
    expect(response.status).toBe(400);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_request"');
  });

  it('a garbage bearer token is 401 invalid_token, never 200', async () => {
    for (const garbage of ['garbage', 'a.b.c', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', (await token()).slice(0, -4) + 'AAAA']) {
      const answer = await modern(handlerWith(), { method: 'tools/list', authorization: bearer(garbage) });
      expect([garbage, answer.status]).toEqual([garbage, 401]);
      expect(answer.challenge).toMatch(/^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="http:\/\/localhost\/\.well-known\/oauth-protected-resource\/mcp", scope="tools:read"$/);
    }
  });

  it.each<[string, Claims, string]>([
    ['signed by a key the authorization server does not have', { stranger: true, kid: 'k9' }, 'no key'],
    ['signed by another key under the known kid', { stranger: true }, 'signature'],
    ['from another issuer', { iss: 'https://evil.example' }, 'the iss claim'],
    ['expired beyond the clock tolerance', { exp: Math.floor(Date.now() / 1000) - 120 }, 'expired'],
    ['for another resource (RFC 8707)', { aud: 'http://localhost/other-mcp' }, 'audience'],
    ['for a client id (no resource sent) not allow-listed', { aud: 'client-1' }, 'audience'],
    ['without an audience', { aud: undefined }, 'audience'],
    ['DPoP-bound (cnf.jkt), sent as a bearer token', { cnf: { jkt: 'abc' } }, 'DPoP'],
  ])('a token %s is 401 invalid_token', async (_what, claims, reason) => {
    const answer = await modern(handlerWith(), { method: 'tools/list', authorization: bearer(await token(claims)) });
    expect(answer.status).toBe(401);
    expect(answer.challenge).toContain('error="invalid_token"');
    expect(answer.challenge).toContain(reason);
  });

  it('a token expired within the clock tolerance is accepted (skew), and not with tolerance 0', async () => {
    const skewed = await token({ exp: Math.floor(Date.now() / 1000) - 10 });
    expect((await modern(handlerWith(), { method: 'tools/list', authorization: bearer(skewed) })).status).toBe(200);
    const strict = handlerWith({ verifier: jwtVerifier({ issuer: ISSUER, jwks: { keys: [publicJwk] }, clockToleranceSeconds: 0 }), clockToleranceSeconds: 0 });
    expect((await modern(strict, { method: 'tools/list', authorization: bearer(skewed) })).status).toBe(401);
  });

  it('audience: the resource in another case form is this resource; a client id passes only when allow-listed', async () => {
    expect((await modern(handlerWith(), { method: 'tools/list', authorization: bearer(await token({ aud: 'HTTP://LOCALHOST/mcp/' })) })).status).toBe(200);
    expect((await modern(handlerWith(), { method: 'tools/list', authorization: bearer(await token({ aud: ['x', RESOURCE] })) })).status).toBe(200);
    const allowing = handlerWith({ allowedAudiences: ['client-1'] });
    expect((await modern(allowing, { method: 'tools/list', authorization: bearer(await token({ aud: 'client-1' })) })).status).toBe(200);
    expect((await modern(allowing, { method: 'tools/list', authorization: bearer(await token({ aud: 'client-2' })) })).status).toBe(401);
  });

  it('the configured resource is the audience, whatever Host the request names', async () => {
    const handler = handlerWith({ resource: 'https://mcp.example.com/mcp' });
    expect((await modern(handler, { method: 'tools/list', authorization: bearer(await token()) })).status).toBe(401);
    const ok = await modern(handler, { method: 'tools/list', authorization: bearer(await token({ aud: 'https://mcp.example.com/mcp' })) });
    expect(ok.status).toBe(200);
    expect((await modern(handler, { method: 'tools/list' })).challenge).toBe('Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="tools:read"');
  });

  it('without resource the audience comes from a validated Host only: no Host validation is refused at creation (RFC 8707 §2)', async () => {
    const auth = { verifier: jwtVerifier({ issuer: ISSUER, jwks: { keys: [publicJwk] } }), authorizationServers: [ISSUER] };
    // Review finding 1: a token for http://evil.example/mcp sent with `Host: evil.example` passed.
    expect(() => createMcpHttpHandler({ server: createServer(), dnsRebindingProtection: false, auth })).toThrow(TypeError);
    expect(() => createMcpHttpHandler({ server: createServer(), dnsRebindingProtection: false, auth })).toThrow(/set auth\.resource .*or allowedHosts/);
    expect(() => createMcpHttpHandler({ server: createServer(), dnsRebindingProtection: false, auth: { ...auth, resource: 'https://mcp.example.com/mcp' } })).not.toThrow();
    const call = async (handler: McpHttpHandler, url: string, aud: string): Promise<number> => {
      const headers = { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list', authorization: bearer(await token({ aud })) };
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } });
      return (await handler.fetch(new Request(url, { method: 'POST', headers, body }))).status;
    };
    // Host validated (the loopback names by default, or allowedHosts): a foreign Host never reaches the verifier.
    const loopback = createMcpHttpHandler({ server: createServer(), auth });
    expect(await call(loopback, 'http://evil.example/mcp', 'http://evil.example/mcp')).toBe(403);
    expect(await call(loopback, RESOURCE, RESOURCE)).toBe(200);
    const named = createMcpHttpHandler({ server: createServer(), allowedHosts: ['mcp.example.com'], auth });
    expect(await call(named, 'http://evil.example/mcp', 'http://evil.example/mcp')).toBe(403);
    expect(await call(named, 'http://mcp.example.com/mcp', 'http://mcp.example.com/mcp')).toBe(200);
  });

  it('a verifier that throws is 503 with Retry-After (not 401: the token may be good); one that resolves junk is 401', async () => {
    const throwing: TokenVerifier = { verify: () => Promise.reject(new Error('JWKS unreachable')) };
    const unavailable = await modern(handlerWith({ verifier: throwing, retryAfterSeconds: 7 }), { method: 'tools/list', authorization: bearer('abc') });
    expect([unavailable.status, unavailable.headers.get('retry-after'), unavailable.challenge]).toEqual([503, '7', null]);
    const junk: TokenVerifier = { verify: () => ({ token: 'abc', clientId: 'c' }) as never };
    expect((await modern(handlerWith({ verifier: junk }), { method: 'tools/list', authorization: bearer('abc') })).status).toBe(401);
  });

  it('requiredScopes missing from the token: 403 insufficient_scope naming them', async () => {
    const answer = await modern(handlerWith({ requiredScopes: ['mcp'] }), { method: 'tools/list', authorization: bearer(await token()) });
    expect(answer.status).toBe(403);
    expect(answer.challenge).toBe(`Bearer error="insufficient_scope", error_description="the access token lacks a scope this server requires", resource_metadata="${PRM_PATH_FORM}", scope="mcp"`);
  });
});

describe('protected resource metadata (RFC 9728)', () => {
  it('is served at both well-known forms with the path-aware resource, without a token, to any origin', async () => {
    const handler = handlerWith({ metadata: { resource_name: 'Notes' } });
    expect(handler.matches('/.well-known/oauth-protected-resource/mcp')).toBe(true);
    expect(handler.matches('/.well-known/oauth-protected-resource')).toBe(true);
    const expected = { resource_name: 'Notes', resource: RESOURCE, authorization_servers: [ISSUER], scopes_supported: ['tools:read'], bearer_methods_supported: ['header'] };
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const response = await handler.fetch(new Request(`http://localhost${path}`, { headers: { origin: 'https://inspector.example' } }));
      expect([path, response.status, response.headers.get('access-control-allow-origin')]).toEqual([path, 200, '*']);
      expect(await response.json()).toEqual(expected);
    }
    expect((await handler.fetch(new Request('http://localhost/.well-known/oauth-protected-resource', { method: 'POST', body: '{}' }))).status).toBe(405);
    expect((await handler.fetch(new Request('http://localhost/.well-known/oauth-protected-resource/other'))).status).toBe(404);
    // The Host check still applies (DNS rebinding).
    expect((await handler.fetch(new Request('http://evil.example/.well-known/oauth-protected-resource'))).status).toBe(403);
  });

  it('a configured resource with a path names its own path-inserted form', async () => {
    const handler = handlerWith({ resource: 'https://mcp.example.com/tenant/mcp' });
    expect(handler.matches('/.well-known/oauth-protected-resource/tenant/mcp')).toBe(true);
    const doc = (await (await handler.fetch(new Request('http://localhost/.well-known/oauth-protected-resource/tenant/mcp'))).json()) as { resource: string };
    expect(doc.resource).toBe('https://mcp.example.com/tenant/mcp');
  });

  it('without auth no well-known path is served', () => {
    const handler = createMcpHttpHandler({ server: createServer() });
    expect(handler.matches('/.well-known/oauth-protected-resource')).toBe(false);
  });
});

describe('per-tool scopes, before dispatch', () => {
  it('modern: a tools/call lacking the tool scope is 403 insufficient_scope with the id; with it (or a broader scope) the handler sees ctx.authInfo', async () => {
    const handler = handlerWith();
    const refused = await callTool(handler, 'delete_notes', bearer(await token()));
    expect(refused.status).toBe(403);
    expect(refused.challenge).toBe(`Bearer error="insufficient_scope", error_description="the access token lacks a scope this tool requires", resource_metadata="${PRM_PATH_FORM}", scope="notes:delete"`);
    expect(refused.body).toMatchObject({ id: 7, error: { code: -32000 } });
    for (const scope of ['tools:read notes:delete', 'notes:admin']) {
      const allowed = await callTool(handler, 'delete_notes', bearer(await token({ scope })));
      expect(allowed.status).toBe(200);
      const text = ((allowed.body?.result as { content: { text: string }[] }).content[0] as { text: string }).text;
      expect(JSON.parse(text)).toMatchObject({ clientId: 'client-1', subject: 'user-1', resource: RESOURCE, scopes: expect.arrayContaining(['notes:delete']) as string[] });
    }
    // A tool without scopes needs none beyond the token.
    expect((await callTool(handler, 'read_notes', bearer(await token()))).status).toBe(200);
  });

  it('onRefused hears a 401 without authInfo and a 403 with the verified token authInfo', async () => {
    const events: { status: number; authInfo: unknown }[] = [];
    const handler = createMcpHttpHandler({
      server: createServer(),
      onRefused: (event) => events.push({ status: event.status, authInfo: event.authInfo }),
      auth: { verifier: jwtVerifier({ issuer: ISSUER, jwks: { keys: [publicJwk] } }), authorizationServers: [ISSUER] },
    });
    await modern(handler, { method: 'tools/list' });
    await callTool(handler, 'delete_notes', bearer(await token()));
    expect(events.map((e) => [e.status, (e.authInfo as { clientId?: string } | undefined)?.clientId])).toEqual([[401, undefined], [403, 'client-1']]);
  });

  it('modern: a tool hidden by the visibility rule is not revealed by a 403 (answered as unknown)', async () => {
    const answer = await callTool(handlerWith(), 'hidden_admin', bearer(await token()));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ error: { code: -32602 } });
  });

  it('modern: the body names the tool and Mcp-Name must agree (the ladder refuses a mismatch before the scope check)', async () => {
    const answer = await modern(handlerWith(), { method: 'tools/call', params: { name: 'delete_notes', arguments: {} }, name: 'read_notes', authorization: bearer(await token()) });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { code: -32020 } });
  });

  it('modern: tools/list shows only the tools the token may use (private cache scope)', async () => {
    const handler = handlerWith();
    const names = async (scope: string): Promise<unknown> => {
      const answer = await modern(handler, { method: 'tools/list', authorization: bearer(await token({ scope })) });
      const result = answer.body?.result as { tools: { name: string }[]; cacheScope: string };
      return [result.tools.map((t) => t.name), result.cacheScope];
    };
    expect(await names('tools:read')).toEqual([['read_notes'], 'private']);
    expect(await names('tools:read notes:delete')).toEqual([['read_notes', 'delete_notes'], 'private']);
  });

  it('tools/list per scope set: the same set in any order gets the same list; a registration is seen at once', async () => {
    const server = new McpServer({ name: 'scoped', version: '1.0.0' }, { logger: silentLogger });
    server.tool('a', { scopes: ['s1'] }, () => ({ content: [] }));
    server.tool('b', { scopes: ['s1', 's2'] }, () => ({ content: [] }));
    const handler = createMcpHttpHandler({ server, auth: { verifier: jwtVerifier({ issuer: ISSUER, jwks: { keys: [publicJwk] } }), authorizationServers: [ISSUER] } });
    const names = async (scope: string): Promise<string[]> => {
      const answer = await modern(handler, { method: 'tools/list', authorization: bearer(await token({ scope })) });
      return (answer.body?.result as { tools: { name: string }[] }).tools.map((t) => t.name);
    };
    expect(await names('s1')).toEqual(['a']);
    expect(await names('s2 s1')).toEqual(['a', 'b']);
    expect(await names('s1 s2 s1')).toEqual(['a', 'b']);
    expect(await names('s2')).toEqual([]);
    server.tool('c', { scopes: ['s2'] }, () => ({ content: [] }));
    expect(await names('s2')).toEqual(['c']);
    expect(await names('s1 s2')).toEqual(['a', 'b', 'c']);
  });

  it('legacy session (2025-11-25): initialize, tools/list filtered, a tools/call lacking the scope is 403 with its id; with it ctx.authInfo is there', async () => {
    const handler = handlerWith();
    const readOnly = bearer(await token());
    const post = async (body: unknown, headers: Record<string, string>): Promise<Answer> =>
      answerOf(await handler.fetch(new Request(RESOURCE, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers }, body: JSON.stringify(body) })));
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    const init = await handler.fetch(new Request(RESOURCE, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, authorization: readOnly }, body: JSON.stringify(initialize) }));
    expect(init.status).toBe(200);
    const sessionId = init.headers.get('mcp-session-id') as string;
    await init.text();
    const session = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { ...session, authorization: readOnly });
    const list = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { ...session, authorization: readOnly });
    expect((list.body?.result as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(['read_notes']);
    const refused = await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'delete_notes', arguments: {} } }, { ...session, authorization: readOnly });
    expect([refused.status, refused.body?.id]).toEqual([403, 3]);
    expect(refused.challenge).toContain('scope="notes:delete"');
    // The session's next request with a stepped-up token goes through, and the handler sees that token.
    const allowed = await post({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'delete_notes', arguments: {} } }, { ...session, authorization: bearer(await token({ scope: 'tools:read notes:delete' })) });
    expect(allowed.status).toBe(200);
    const text = ((allowed.body?.result as { content: { text: string }[] }).content[0] as { text: string }).text;
    expect(JSON.parse(text)).toMatchObject({ clientId: 'client-1', scopes: ['tools:read', 'notes:delete'] });
    // Without a token the session is not reachable at all; with another user's token it does not exist (404), and
    // its GET stream and DELETE are refused the same way.
    expect((await post({ jsonrpc: '2.0', id: 5, method: 'tools/list' }, session)).status).toBe(401);
    const mallory = bearer(await token({ sub: 'mallory', scope: 'tools:read notes:delete' }));
    const hijack = await post({ jsonrpc: '2.0', id: 6, method: 'tools/list' }, { ...session, authorization: mallory });
    expect([hijack.status, hijack.body?.error]).toEqual([404, { code: -32001, message: 'Session not found' }]);
    for (const method of ['GET', 'DELETE']) {
      const response = await handler.fetch(new Request(RESOURCE, { method, headers: { ...session, accept: 'text/event-stream', authorization: mallory } }));
      expect([method, response.status]).toEqual([method, 404]);
    }
    expect((await post({ jsonrpc: '2.0', id: 7, method: 'tools/list' }, { ...session, authorization: readOnly })).status).toBe(200);
    await handler.close();
  });

  it('a 2025-03-26 batch holding one call the token may not make is refused whole (403, "id": null: JSON-RPC 2.0 §5); without it the batch is served', async () => {
    const handler = handlerWith();
    const readOnly = bearer(await token());
    const headers = { 'content-type': 'application/json', accept: ACCEPT_BOTH, authorization: readOnly };
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    const init = await handler.fetch(new Request(RESOURCE, { method: 'POST', headers, body: JSON.stringify(initialize) }));
    const session = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id') as string, 'mcp-protocol-version': '2025-03-26' };
    await init.text();
    await (await handler.fetch(new Request(RESOURCE, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) }))).text();
    const call = (id: number, name: string): unknown => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
    const refused = await answerOf(await handler.fetch(new Request(RESOURCE, { method: 'POST', headers: session, body: JSON.stringify([call(2, 'read_notes'), call(3, 'delete_notes')]) })));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    expect(refused.body && 'id' in refused.body).toBe(true);
    expect(refused.challenge).toContain('scope="notes:delete"');
    const served = await handler.fetch(new Request(RESOURCE, { method: 'POST', headers: { ...session, accept: 'application/json' }, body: JSON.stringify([call(4, 'read_notes'), call(5, 'read_notes')]) }));
    expect(served.status).toBe(200);
    expect(((await served.json()) as { id: number }[]).map((r) => r.id).sort()).toEqual([4, 5]);
    await handler.close();
  });

  it('without auth, a tool with scopes is served to a caller with no authentication facts (stdio-like)', async () => {
    const handler = createMcpHttpHandler({ server: createServer() });
    const answer = await modern(handler, { method: 'tools/list' });
    expect((answer.body?.result as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(['read_notes', 'delete_notes']);
  });

  it('registration refuses scopes that are not scope tokens', () => {
    const server = new McpServer({ name: 's', version: '1' }, { logger: silentLogger });
    expect(() => server.tool('x', { scopes: ['has space'] }, () => ({ content: [] }))).toThrow(/Invalid scopes of tool "x"/);
    expect(() => server.tool('y', { scopes: 'notes' as never }, () => ({ content: [] }))).toThrow(TypeError);
  });
});

describe('DPoP-bound tokens (RFC 9449)', () => {
  let clientKey: CryptoKey;
  let clientJwk: JWK;
  let otherKey: CryptoKey;
  let otherJwk: JWK;
  let jkt: string;

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    clientKey = pair.privateKey;
    clientJwk = await exportJWK(pair.publicKey);
    jkt = await calculateJwkThumbprint(clientJwk, 'sha256');
    const other = await generateKeyPair('ES256', { extractable: true });
    otherKey = other.privateKey;
    otherJwk = await exportJWK(other.publicKey);
  });

  interface Proof {
    readonly htm?: string;
    readonly htu?: string;
    readonly iat?: number;
    readonly accessToken: string;
    readonly key?: 'client' | 'other';
    readonly jti?: string;
  }

  async function proof(p: Proof): Promise<string> {
    const ath = base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(p.accessToken))));
    const other = p.key === 'other';
    return new SignJWT({ htm: p.htm ?? 'POST', htu: p.htu ?? `${RESOURCE}?ignored=1`, ath, jti: p.jti ?? crypto.randomUUID() })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: other ? otherJwk : clientJwk })
      .setIssuedAt(p.iat ?? Math.floor(Date.now() / 1000))
      .sign(other ? otherKey : clientKey);
  }

  const list = (handler: McpHttpHandler, accessToken: string, dpop: string | undefined, scheme = 'DPoP'): Promise<Answer> =>
    modern(handler, { method: 'tools/list', authorization: `${scheme} ${accessToken}`, dpop });

  it('a valid proof for a bound token passes; the same proof again is a replay (401 invalid_dpop_proof)', async () => {
    const handler = handlerWith({ dpop: {} });
    const bound = await token({ cnf: { jkt } });
    const once = await proof({ accessToken: bound });
    expect((await list(handler, bound, once)).status).toBe(200);
    const replay = await list(handler, bound, once);
    expect(replay.status).toBe(401);
    expect(replay.challenge).toMatch(/^DPoP error="invalid_dpop_proof", error_description="[^"]*replay[^"]*"/);
  });

  it.each<[string, (bound: string) => Promise<string | undefined>, string]>([
    ['no DPoP header', () => Promise.resolve(undefined), 'invalid_dpop_proof'],
    ['a proof for another method', (bound) => proof({ accessToken: bound, htm: 'GET' }), 'method'],
    ['a proof for another URL', (bound) => proof({ accessToken: bound, htu: 'http://localhost/other' }), 'URL'],
    ['an old proof', (bound) => proof({ accessToken: bound, iat: Math.floor(Date.now() / 1000) - 600 }), 'iat'],
    ['a proof for another token', () => proof({ accessToken: 'another-token' }), 'ath'],
    ['a proof by a key the token is not bound to', (bound) => proof({ accessToken: bound, key: 'other' }), 'bound to'],
    ['a garbage proof', () => Promise.resolve('garbage'), 'dpop+jwt'],
  ])('%s is refused (401)', async (_what, make, reason) => {
    const handler = handlerWith({ dpop: {} });
    const bound = await token({ cnf: { jkt } });
    const answer = await list(handler, bound, await make(bound));
    expect(answer.status).toBe(401);
    expect(answer.challenge).toMatch(/^DPoP error="invalid_dpop_proof"/);
    expect(answer.challenge).toContain(reason);
  });

  it('a bound token as a bearer token, and an unbound token with the DPoP scheme, are 401 invalid_token', async () => {
    const handler = handlerWith({ dpop: {} });
    const bound = await token({ cnf: { jkt } });
    expect((await list(handler, bound, undefined, 'Bearer')).challenge).toContain('error="invalid_token"');
    const unbound = await token();
    const answer = await list(handler, unbound, await proof({ accessToken: unbound }));
    expect([answer.status, answer.challenge?.startsWith('DPoP error="invalid_token"')]).toEqual([401, true]);
  });

  it('the 401 without a token names both schemes; required: a bearer token is refused; the metadata says so', async () => {
    const handler = handlerWith({ dpop: { required: true, algorithms: ['ES256'] } });
    expect((await modern(handler, { method: 'tools/list' })).challenge).toBe(
      `Bearer resource_metadata="${PRM_PATH_FORM}", scope="tools:read", DPoP algs="ES256", resource_metadata="${PRM_PATH_FORM}"`,
    );
    expect((await list(handler, await token(), undefined, 'Bearer')).challenge).toMatch(/^DPoP error="invalid_token", error_description="this server accepts DPoP-bound tokens only"/);
    const doc = (await (await handler.fetch(new Request(PRM_PATH_FORM))).json()) as Record<string, unknown>;
    expect(doc).toMatchObject({ dpop_signing_alg_values_supported: ['ES256'], dpop_bound_access_tokens_required: true });
  });

  it('behind a proxy: with a configured resource the proof is for the public URL the client used', async () => {
    const handler = handlerWith({ dpop: {}, resource: 'https://mcp.example.com/mcp' });
    const bound = await token({ cnf: { jkt }, aud: 'https://mcp.example.com/mcp' });
    expect((await list(handler, bound, await proof({ accessToken: bound, htu: 'https://mcp.example.com/mcp' }))).status).toBe(200);
    expect((await list(handler, bound, await proof({ accessToken: bound, htu: RESOURCE }))).status).toBe(401);
  });

  it('without the dpop option the DPoP scheme is no credentials (401 without error)', async () => {
    const bound = await token({ cnf: { jkt } });
    const answer = await list(handlerWith(), bound, await proof({ accessToken: bound }));
    expect([answer.status, answer.challenge]).toEqual([401, `Bearer resource_metadata="${PRM_PATH_FORM}", scope="tools:read"`]);
  });
});

describe('option validation', () => {
  it.each<[string, Partial<HttpAuthOptions>, RegExp]>([
    ['no verifier', { verifier: {} as TokenVerifier }, /auth\.verifier/],
    ['no authorization server', { authorizationServers: [] }, /authorizationServers/],
    ['a resource with a fragment', { resource: 'https://x.example/mcp#f' }, /auth\.resource/],
    ['a scope with a space', { scopesSupported: ['a b'] }, /scopesSupported/],
  ])('refuses %s', (_what, auth, message) => {
    expect(() => handlerWith(auth)).toThrow(message);
  });

  it('jwtVerifier refuses no issuer, both key sources, and discovery over several issuers', () => {
    expect(() => jwtVerifier({ issuer: '', jwks: { keys: [] } })).toThrow(/issuer/);
    expect(() => jwtVerifier({ issuer: [ISSUER, 'https://other.example'] })).toThrow(/one http\(s\) issuer/);
    expect(() => jwtVerifier({ issuer: ISSUER, jwks: { keys: [] }, jwksUrl: 'https://x.example/jwks' })).toThrow(/at most one/);
  });
});
