/**
 * End to end against a real authorization server: `oidc-provider` (panva's certified OpenID Connect / OAuth 2.0
 * server) run in process on 127.0.0.1 issues JWT access tokens through the client credentials grant with an RFC
 * 8707 resource indicator; our protected server (`serveHttp` with `auth: { verifier: jwtVerifier(…) }`, the key set
 * fetched from the provider's `jwks_uri`) accepts a token minted for it, refuses one minted for another resource,
 * answers a per-tool scope with 403 `insufficient_scope` until the client gets a token with that scope (step-up),
 * and refuses a garbage token; our client reaches it with the token in both eras. With `dpop: { required: true }`,
 * a DPoP-bound token the provider issued (RFC 9449: a proof at the token endpoint) passes with a fresh proof per
 * request, and a replayed proof, another key's proof or the token sent as a bearer token are refused.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '@switchboard/jsonrpc';
import { SignJWT, base64url, exportJWK, generateKeyPair } from 'jose';
import Provider, { errors } from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryEraVerdictStore, McpClient, streamableHttp } from '../packages/mcp/src/client/index.js';
import { McpServer } from '../packages/mcp/src/server/index.js';
import { jwtVerifier } from '../packages/mcp/src/transports/http/index.js';
import { serveHttp, type ServeHttpHandle } from '../packages/mcp/src/transports/node/index.js';

const OTHER_RESOURCE = 'https://other.example.com/mcp';
const CLIENT = { id: 'notes-agent', secret: 'notes-agent-secret-0123456789abcdef' };

let asServer: http.Server;
let issuer: string;
let mcp: ServeHttpHandle;
/** The same server, accepting DPoP-bound tokens only. */
let dpopMcp: ServeHttpHandle;

beforeAll(async () => {
  asServer = http.createServer();
  await new Promise<void>((resolve) => asServer.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(asServer.address() as AddressInfo).port}`;
  const server = new McpServer({ name: 'notes', version: '1.0.0' }, { logger: silentLogger });
  server.tool('whoami', {}, (_args, ctx) => ({ content: [{ type: 'text', text: (ctx.authInfo as { clientId: string }).clientId }] }));
  server.tool('purge', { scopes: ['notes:purge'] }, () => ({ content: [{ type: 'text', text: 'purged' }] }));
  mcp = await serveHttp({
    server,
    port: 0,
    // No jwksUrl: the key set is found from the provider's metadata (it serves OpenID Connect Discovery only).
    auth: { authorizationServers: [issuer], scopesSupported: ['notes:read'], verifier: jwtVerifier({ issuer }) },
  });
  dpopMcp = await serveHttp({
    server,
    port: 0,
    auth: { authorizationServers: [issuer], dpop: { required: true }, verifier: jwtVerifier({ issuer, jwksUrl: `${issuer}/jwks` }) },
  });
  const signing = await generateKeyPair('ES256', { extractable: true });
  const provider = new Provider(issuer, {
    clients: [{ client_id: CLIENT.id, client_secret: CLIENT.secret, grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: 'notes:read notes:purge', id_token_signed_response_alg: 'ES256' }],
    scopes: ['notes:read', 'notes:purge'],
    jwks: { keys: [{ ...(await exportJWK(signing.privateKey)), kid: 'as-key-1', alg: 'ES256', use: 'sig' }] },
    ttl: { ClientCredentials: 300 },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      dPoP: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // RFC 8707: a token is minted for the resource the client names; this server knows two.
        getResourceServerInfo: (_ctx: unknown, resource: string) => {
          if (resource !== mcp.url && resource !== dpopMcp.url && resource !== OTHER_RESOURCE) throw new errors.InvalidTarget();
          return { scope: 'notes:read notes:purge', audience: resource, accessTokenTTL: 300, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } };
        },
      },
    },
  });
  asServer.on('request', provider.callback());
});

afterAll(async () => {
  await mcp.close({ drainMs: 0 });
  await dpopMcp.close({ drainMs: 0 });
  asServer.closeAllConnections();
  await new Promise<void>((resolve) => asServer.close(() => resolve()));
});

/** A DPoP key of the client and the proofs it makes (RFC 9449 §4.2). */
interface DpopKey {
  proof(htm: string, htu: string, accessToken?: string): Promise<string>;
}

async function dpopKey(): Promise<DpopKey> {
  const pair = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(pair.publicKey);
  return {
    proof: async (htm, htu, accessToken) => {
      const claims: Record<string, unknown> = { htm, htu, jti: crypto.randomUUID() };
      if (accessToken !== undefined) claims.ath = base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(accessToken))));
      return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk }).setIssuedAt().sign(pair.privateKey);
    },
  };
}

/** A client credentials token from the provider for `resource` with `scope` (DPoP-bound when `dpop` is given). */
async function tokenFor(resource: string, scope: string, dpop?: DpopKey): Promise<string> {
  const response = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString('base64')}`,
      ...(dpop === undefined ? {} : { dpop: await dpop.proof('POST', `${issuer}/token`) }),
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource }).toString(),
  });
  const body = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
  if (body.access_token === undefined) throw new Error(`token request failed: ${JSON.stringify(body)}`);
  return body.access_token;
}

async function connect(token: string, era: 'modern' | 'legacy'): Promise<McpClient> {
  return McpClient.connect({ connector: streamableHttp({ url: mcp.url, headers: { authorization: `Bearer ${token}` } }), era, verdictStore: new InMemoryEraVerdictStore() });
}

describe('oidc-provider issues, our resource server verifies', () => {
  it('the metadata names the provider; a request without a token is challenged toward it', async () => {
    const challenge = await fetch(mcp.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(challenge.status).toBe(401);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge.headers.get('www-authenticate') ?? '')?.[1] as string;
    const metadata = (await (await fetch(metadataUrl)).json()) as { resource: string; authorization_servers: string[] };
    expect(metadata).toMatchObject({ resource: mcp.url, authorization_servers: [issuer] });
    // The authorization server's own metadata is where a client goes next.
    const asMetadata = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as { issuer: string; jwks_uri: string };
    expect(asMetadata).toMatchObject({ issuer, jwks_uri: `${issuer}/jwks` });
  });

  for (const era of ['modern', 'legacy'] as const) {
    it(`${era}: a token minted for this resource works; a per-tool scope is a 403 until the client steps up`, async () => {
      const readOnly = await connect(await tokenFor(mcp.url, 'notes:read'), era);
      try {
        const who = await readOnly.callTool({ name: 'whoami', arguments: {} });
        expect(who.content).toEqual([{ type: 'text', text: CLIENT.id }]);
        expect((await readOnly.listTools()).tools.map((t) => t.name)).toEqual(['whoami']);
        await expect(readOnly.callTool({ name: 'purge', arguments: {} })).rejects.toThrow(/insufficient scope/);
      } finally {
        await readOnly.close();
      }
      const steppedUp = await connect(await tokenFor(mcp.url, 'notes:read notes:purge'), era);
      try {
        expect((await steppedUp.callTool({ name: 'purge', arguments: {} })).content).toEqual([{ type: 'text', text: 'purged' }]);
      } finally {
        await steppedUp.close();
      }
    });
  }

  it('the 403 names the scope to step up to', async () => {
    const token = await tokenFor(mcp.url, 'notes:read');
    const response = await fetch(mcp.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'purge' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'purge', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }),
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="insufficient_scope", .*scope="notes:purge"$/);
  });

  it('a token minted for another resource is refused (401 invalid_token), and so is a garbage token', async () => {
    const foreign = await tokenFor(OTHER_RESOURCE, 'notes:read notes:purge');
    for (const token of [foreign, 'garbage.token.value']) {
      const response = await fetch(mcp.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
  });

  it('DPoP: a DPoP-bound token from the provider passes with a fresh proof each request; a replayed proof, a proof of another key and the token as a bearer token are refused', async () => {
    const key = await dpopKey();
    const token = await tokenFor(dpopMcp.url, 'notes:read', key);
    const list = async (authorization: string, proof: string | undefined): Promise<Response> => {
      const headers: Record<string, string> = {
        'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization,
        'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list',
      };
      if (proof !== undefined) headers.dpop = proof;
      return fetch(dpopMcp.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }) });
    };
    const proof = await key.proof('POST', dpopMcp.url, token);
    expect((await list(`DPoP ${token}`, proof)).status).toBe(200);
    expect((await list(`DPoP ${token}`, await key.proof('POST', dpopMcp.url, token))).status).toBe(200);
    const replay = await list(`DPoP ${token}`, proof);
    expect([replay.status, replay.headers.get('www-authenticate')?.startsWith('DPoP error="invalid_dpop_proof"')]).toEqual([401, true]);
    const stranger = await dpopKey();
    expect((await list(`DPoP ${token}`, await stranger.proof('POST', dpopMcp.url, token))).status).toBe(401);
    expect((await list(`Bearer ${token}`, undefined)).status).toBe(401);
  });
});
