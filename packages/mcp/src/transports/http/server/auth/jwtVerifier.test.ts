/**
 * `jwtVerifier` rules beyond the signature (the refusal table: resourceServer.test.ts): explicit typing of a token
 * let in only by `allowedAudiences` (RFC 9068 §2.1; RFC 8725 §3.11); `jose` (an optional peer dependency) absent.
 * Real JWTs signed with `jose` at test time, through the Web handler in process.
 */
import { silentLogger, type Logger } from '@switchboard/jsonrpc';
import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setJoseImporter } from './joseLoader.js';
import { McpServer } from '../../../../server/index.js';
import { PROTOCOL_VERSION_META_KEY } from '../../../../protocol/envelope.js';
import { createMcpHttpHandler, jwtVerifier, type McpHttpHandler } from '../../index.js';

const ISSUER = 'https://auth.example.test';
const RESOURCE = 'http://localhost/mcp';
const CLIENT_ID = 'my-client-id';
const MODERN = '2026-07-28';

let signingKey: CryptoKey;
let publicJwk: JWK;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  signingKey = pair.privateKey;
  publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
});

/** A JWT from the authorization server's key: `typ` and `aud` as given; an ID token's claims when `idToken`. */
async function jwt(typ: string, aud: string, idToken = false): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = idToken ? { nonce: 'n-0S6_WzA2Mj', azp: CLIENT_ID, sub: 'user-1' } : { scope: 'tools:read', client_id: CLIENT_ID, sub: 'user-1' };
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'k1', typ }).setIssuer(ISSUER).setIssuedAt(now).setExpirationTime(now + 3600).setAudience(aud).sign(signingKey);
}

function handlerWith(options: { readonly allowedAudiences?: readonly string[]; readonly typ?: string; readonly logger?: Logger } = {}): McpHttpHandler {
  const server = new McpServer({ name: 'protected', version: '1.0.0' }, { logger: silentLogger });
  server.tool('read_notes', {}, () => ({ content: [{ type: 'text', text: 'notes' }] }));
  return createMcpHttpHandler({
    server,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    auth: {
      verifier: jwtVerifier({ issuer: ISSUER, jwks: { keys: [publicJwk] }, ...(options.typ === undefined ? {} : { typ: options.typ }) }),
      authorizationServers: [ISSUER],
      ...(options.allowedAudiences === undefined ? {} : { allowedAudiences: options.allowedAudiences }),
    },
  });
}

/** The status of a modern tools/list sent with `token`. */
async function statusWith(handler: McpHttpHandler, token: string): Promise<number> {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list', authorization: `Bearer ${token}` };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { [PROTOCOL_VERSION_META_KEY]: MODERN, 'io.modelcontextprotocol/clientCapabilities': {} } } });
  const response = await handler.fetch(new Request(RESOURCE, { method: 'POST', headers, body }));
  await response.body?.cancel();
  return response.status;
}

describe('jwtVerifier: explicit typing of tokens let in by allowedAudiences (RFC 9068 §2.1, RFC 8725 §3.11)', () => {
  it('an ID token (typ JWT, aud the client id) is refused even with the client id allowed, each time (cached or not); an at+jwt for it passes', async () => {
    const handler = handlerWith({ allowedAudiences: [CLIENT_ID] });
    const idToken = await jwt('JWT', CLIENT_ID, true);
    expect(await statusWith(handler, idToken)).toBe(401);
    expect(await statusWith(handler, idToken)).toBe(401);
    expect(await statusWith(handler, await jwt('JWT-id', CLIENT_ID))).toBe(401);
    const accessToken = await jwt('at+jwt', CLIENT_ID);
    expect(await statusWith(handler, accessToken)).toBe(200);
    expect(await statusWith(handler, accessToken)).toBe(200);
    expect(await statusWith(handler, await jwt('application/AT+JWT', CLIENT_ID))).toBe(200);
  });

  it('a token bound to this resource passes whatever its typ, unless the typ option says otherwise', async () => {
    const handler = handlerWith({ allowedAudiences: [CLIENT_ID] });
    expect(await statusWith(handler, await jwt('JWT', RESOURCE))).toBe(200);
    expect(await statusWith(handler, await jwt('JWT-id', RESOURCE))).toBe(200);
    const strict = handlerWith({ typ: 'at+jwt' });
    expect(await statusWith(strict, await jwt('JWT', RESOURCE))).toBe(401);
    expect(await statusWith(strict, await jwt('at+jwt', RESOURCE))).toBe(200);
  });
});

describe('jwtVerifier without jose installed (an optional peer dependency)', () => {
  afterEach(() => setJoseImporter(undefined));

  it('answers 503 and logs one line naming the package to install; with jose back, the token passes', async () => {
    // The import fails as Node's loader fails when the package is absent (the seam replaces only the import).
    setJoseImporter(() => Promise.reject(Object.assign(new Error("Cannot find package 'jose' imported from /srv/app/node_modules/@switchboard/mcp/dist/http.js"), { code: 'ERR_MODULE_NOT_FOUND' })));
    const errors: string[] = [];
    const logger: Logger = { ...silentLogger, error: (message, fields) => errors.push(fields === undefined ? message : `${message} ${JSON.stringify(Object.keys(fields))}`) };
    const handler = handlerWith({ logger });
    const accessToken = await jwt('at+jwt', RESOURCE);
    expect(await statusWith(handler, accessToken)).toBe(503);
    expect(await statusWith(handler, accessToken)).toBe(503);
    expect(errors).toEqual([
      'MCP HTTP auth: jwtVerifier needs the package jose, an optional peer dependency of @switchboard/mcp that is not installed: npm install jose (every request needing it is answered 503 until then)',
    ]);
    setJoseImporter(undefined);
    expect(await statusWith(handler, accessToken)).toBe(200);
  });
});
