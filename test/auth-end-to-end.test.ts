/**
 * Both sides of OAuth against each other and a real authorization server, no mock: `oidc-provider` run in process on
 * 127.0.0.1 (dynamic registration, PKCE required, RFC 8707 resource indicators minting JWT access tokens, refresh
 * tokens, its development login and consent pages filled in over HTTP), a Switchboard server protected by the
 * library's own `auth` option (`jwtVerifier` against the provider's key set, `resource` set, a tool with `scopes`),
 * our client (`oauth()` on `streamableHttp`) and the CLI (`switchboard login --no-browser`, then `call`, and
 * `doctor` with a foreign token: its auth checks pass against a real protected server).
 * Sign-in with PKCE, a refresh, a step-up from the per-tool 403 `insufficient_scope`, a token minted for another
 * resource refused (401) and a garbage token refused, in both eras; DPoP-bound tokens (RFC 9449) between our client
 * and a server with `dpop: { required: true }`. And the official SDK v2 client
 * (`@modelcontextprotocol/client`, its `OAuthClientProvider` on `StreamableHTTPClientTransport`, as its docs show)
 * signs in to the same server at the same provider and calls a tool.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as SdkClient, StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientMetadata, type OAuthClientProvider, type OAuthDiscoveryState, type StoredOAuthClientInformation, type StoredOAuthTokens } from '@modelcontextprotocol/client';
import { silentLogger } from '@switchboard/jsonrpc';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthInfo } from '../packages/mcp/src/index.js';
import { InMemoryEraVerdictStore, InMemoryOAuthStore, McpClient, oauth, streamableHttp } from '../packages/mcp/src/client/index.js';
import { McpServer } from '../packages/mcp/src/server/index.js';
import { createMcpHttpHandler, jwtVerifier, type McpHttpHandler } from '../packages/mcp/src/transports/http/index.js';
import { toNodeListener } from '../packages/mcp/src/transports/node/index.js';
import { signInAtOidcProvider } from './helpers/oidcUserAgent.js';
import { exitWithin, runCli, stopByPid } from './helpers/process.js';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const SDK_CLIENT_ID = 'sdk-v2-preregistered';
const SDK_REDIRECT = 'http://127.0.0.1:9/callback';
const asServer = createServer();
const front = createServer();
/** A second protected server at another resource URL, same authorization server. */
const otherFront = createServer();
/** A third one that takes DPoP-bound tokens only (`dpop: { required: true }`). */
const dpopFront = createServer();
let issuer = '';
let resource = '';
let otherResource = '';
let dpopResource = '';
const handlers: McpHttpHandler[] = [];
/** `grant_type` of every token request our client made, in order. */
const grants: string[] = [];
/** The `scope` of every authorization request our client sent to the provider. */
const authorizationScopes: string[] = [];

function protectedServer(): McpServer {
  const server = new McpServer({ name: 'notes', version: '1.0.0' }, { logger: silentLogger });
  server.tool('whoami', { description: 'Who the caller is.', inputSchema: { type: 'object' } }, (_args, ctx) => ({ content: [{ type: 'text', text: `hello ${String((ctx.authInfo as AuthInfo | undefined)?.subject)}` }] }));
  server.tool('purge', { description: 'Purges the notes.', inputSchema: { type: 'object' }, scopes: ['notes:purge'] }, () => ({ content: [{ type: 'text', text: 'purged' }] }));
  return server;
}

beforeAll(async () => {
  issuer = await listen(asServer);
  resource = `${await listen(front)}/mcp`;
  otherResource = `${await listen(otherFront)}/mcp`;
  dpopResource = `${await listen(dpopFront)}/mcp`;
  const provider = new Provider(issuer, {
    features: {
      registration: { enabled: true },
      devInteractions: { enabled: true },
      dPoP: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        // A 1 s lifetime: our client refreshes ahead of expiry (30 s), so every request after sign-in refreshes.
        getResourceServerInfo: (_ctx: unknown, audience: string) => ({ scope: 'notes:read notes:purge', audience, accessTokenFormat: 'jwt', accessTokenTTL: 1 }),
      },
    },
    scopes: ['openid', 'offline_access', 'notes:read', 'notes:purge'],
    // A pre-registered public client (no `scope`: every scope the provider knows), for the SDK's step-up.
    clients: [{ client_id: SDK_CLIENT_ID, token_endpoint_auth_method: 'none', application_type: 'native', redirect_uris: [SDK_REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }],
    pkce: { required: () => true },
    issueRefreshToken: () => true,
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none' },
  });
  asServer.on('request', provider.callback());
  for (const [server, url] of [[front, resource], [otherFront, otherResource], [dpopFront, dpopResource]] as const) {
    const handler = createMcpHttpHandler({
      server: protectedServer(),
      auth: { resource: url, authorizationServers: [issuer], scopesSupported: ['notes:read'], verifier: jwtVerifier({ issuer }), ...(server === dpopFront ? { dpop: { required: true } } : {}) },
    });
    handlers.push(handler);
    server.on('request', toNodeListener(handler));
  }
});

afterAll(async () => {
  for (const handler of handlers) await handler.close();
  for (const server of [asServer, front, otherFront, dpopFront]) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** A `fetch` that records the grants and authorization scopes our client asks for. */
const observed: typeof fetch = async (input, init) => {
  const target = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  if (target === `${issuer}/token`) grants.push(new URLSearchParams(typeof init?.body === 'string' ? init.body : '').get('grant_type') ?? '');
  return fetch(input, init);
};

function signIn(store = new InMemoryOAuthStore()): ReturnType<typeof oauth> {
  return oauth({
    redirectUri: 'http://127.0.0.1:9/callback',
    // The provider's tokens live 1 s: with a 30 s margin each is refreshed before it is used, so every run refreshes.
    refreshMarginMs: 30_000,
    store,
    fetch: observed,
    authorize: async ({ authorizationUrl, redirectUri }) => {
      authorizationScopes.push(authorizationUrl.searchParams.get('scope') ?? '');
      expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authorizationUrl.searchParams.get('resource')).toBe(resource);
      return signInAtOidcProvider(authorizationUrl, redirectUri);
    },
  });
}

/** A token our client got from the provider for the other protected server (its `aud` is that server's URL). */
async function foreignToken(): Promise<string> {
  const store = new InMemoryOAuthStore();
  const auth = oauth({ redirectUri: 'http://127.0.0.1:9/callback', store, authorize: async ({ authorizationUrl, redirectUri }) => signInAtOidcProvider(authorizationUrl, redirectUri) });
  await auth.signIn(otherResource);
  const token = store.loadTokens(otherResource)?.accessToken;
  if (token === undefined) throw new Error('no token for the other resource');
  return token;
}

async function postRaw(url: string, token: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
}

describe('oauth() + auth: { jwtVerifier } + oidc-provider, end to end', () => {
  for (const era of ['modern', 'legacy'] as const) {
    it(`${era}: signs in with PKCE, refreshes, steps up from the per-tool 403, and the server sees the subject`, async () => {
      grants.length = 0;
      authorizationScopes.length = 0;
      const store = new InMemoryOAuthStore();
      const auth = signIn(store);
      await auth.signIn(resource);
      const client = await McpClient.connect({ connector: streamableHttp({ url: resource, auth }), era, verdictStore: new InMemoryEraVerdictStore(), clientInfo: { name: 't', version: '1' } });
      try {
        expect(client.era).toBe(era);
        expect((await client.callTool({ name: 'whoami', arguments: {} })).content).toEqual([{ type: 'text', text: 'hello alice' }]);
        // The token has notes:read only: purge is hidden from the list.
        expect((await client.listAllTools()).map((t) => t.name)).toEqual(['whoami']);
        expect(grants).toContain('refresh_token');
        expect((await client.callTool({ name: 'purge', arguments: {} })).content).toEqual([{ type: 'text', text: 'purged' }]);
        expect(grants.filter((g) => g === 'authorization_code')).toHaveLength(2);
        expect(authorizationScopes[0]?.split(' ')).toContain('notes:read');
        expect(authorizationScopes.at(-1)?.split(' ')).toEqual(expect.arrayContaining(['notes:read', 'notes:purge']));
        expect((await client.listAllTools()).map((t) => t.name).sort()).toEqual(['purge', 'whoami']);
        expect(store.loadTokens(resource)?.scope?.split(' ')).toEqual(expect.arrayContaining(['notes:purge']));
      } finally {
        await client.close();
      }
    }, 60_000);
  }

  it('DPoP: against a server that requires it, oauth() gets a DPoP-bound token from the provider and proves it per request', async () => {
    grants.length = 0;
    const store = new InMemoryOAuthStore();
    const auth = oauth({ redirectUri: 'http://127.0.0.1:9/callback', refreshMarginMs: 30_000, store, fetch: observed, authorize: async ({ authorizationUrl, redirectUri }) => signInAtOidcProvider(authorizationUrl, redirectUri) });
    await auth.signIn(dpopResource);
    const bound = store.loadTokens(dpopResource)!;
    // Bound to the client's key (RFC 9449 §6.1: the token's cnf.jkt), and typed DPoP.
    expect(bound.tokenType).toBe('DPoP');
    expect((JSON.parse(Buffer.from(bound.accessToken.split('.')[1] ?? '', 'base64url').toString()) as { cnf?: { jkt?: string } }).cnf?.jkt).toMatch(/^[\w-]{43}$/);
    // The server refuses it as a bearer token (RFC 9449 §7.2) …
    expect((await postRaw(dpopResource, bound.accessToken)).status).toBe(401);
    for (const era of ['modern', 'legacy'] as const) {
      const client = await McpClient.connect({ connector: streamableHttp({ url: dpopResource, auth }), era, verdictStore: new InMemoryEraVerdictStore(), clientInfo: { name: 't', version: '1' } });
      try {
        // … and takes it with our client's proofs, refreshed (1 s tokens) with DPoP at the token endpoint too.
        expect((await client.callTool({ name: 'whoami', arguments: {} })).content).toEqual([{ type: 'text', text: 'hello alice' }]);
      } finally {
        await client.close();
      }
    }
    expect(grants).toContain('refresh_token');
    expect(store.loadTokens(dpopResource)?.tokenType).toBe('DPoP');
  }, 60_000);

  it('DPoP: a nonce the resource server hands out on a success goes in the next proof, not first refused (RFC 9449 §8.2, §9)', async () => {
    const auth = oauth({ redirectUri: 'http://127.0.0.1:9/callback', store: new InMemoryOAuthStore(), authorize: async ({ authorizationUrl, redirectUri }) => signInAtOidcProvider(authorizationUrl, redirectUri) });
    await auth.signIn(dpopResource);
    // Each answer of the MCP endpoint carries the next nonce (as a server rotating them would); each proof is read.
    let handed = 0;
    const sent: { readonly nonce: unknown; readonly expected: string | undefined }[] = [];
    const rotating: typeof fetch = async (input, init) => {
      const proof = new Headers(init?.headers).get('dpop');
      if (proof !== null) sent.push({ nonce: (JSON.parse(Buffer.from(proof.split('.')[1] ?? '', 'base64url').toString()) as { nonce?: unknown }).nonce, expected: handed === 0 ? undefined : `n-${handed}` });
      const response = await fetch(input, init);
      const headers = new Headers(response.headers);
      headers.set('DPoP-Nonce', `n-${++handed}`);
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    };
    const client = await McpClient.connect({ connector: streamableHttp({ url: dpopResource, auth, fetch: rotating }), era: 'modern', verdictStore: new InMemoryEraVerdictStore(), clientInfo: { name: 't', version: '1' } });
    try {
      for (let i = 0; i < 3; i++) expect((await client.callTool({ name: 'whoami', arguments: {} })).content).toEqual([{ type: 'text', text: 'hello alice' }]);
    } finally {
      await client.close();
    }
    expect(sent.length).toBeGreaterThanOrEqual(4);
    for (const proof of sent) expect(proof.nonce).toBe(proof.expected);
  }, 60_000);

  it('a token minted for another resource is refused (401 invalid_token), and so is a garbage token', async () => {
    const foreign = await foreignToken();
    // It works where it was minted for …
    expect((await postRaw(otherResource, foreign)).status).toBe(200);
    // … and nowhere else; neither does a garbage token.
    for (const token of [foreign, 'garbage.token.value']) {
      const response = await postRaw(resource, token);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
  }, 60_000);

  it('switchboard login --no-browser signs in (tokens stored 0600); call and doctor use them; a scoped tool needs login --scope', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-e2e-auth-'));
    const file = join(dir, 'credentials.json');
    try {
      await cliLogin(file, []);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const stored = JSON.parse(readFileSync(file, 'utf8')) as { tokens: Record<string, { issuer: string }> };
      expect(stored.tokens[resource]?.issuer).toBe(issuer);
      for (const era of ['modern', 'legacy']) {
        const who = await runCli(['call', resource, 'whoami', '--era', era, '--json'], { env: { SWITCHBOARD_CREDENTIALS: file } });
        expect(who.code, who.stderr).toBe(0);
        expect(who.stdout).toContain('hello alice');
      }
      const doc = await runCli(['doctor', resource, '--json', '--foreign-token', await foreignToken()], { env: { SWITCHBOARD_CREDENTIALS: file } });
      // The doctor's auth checks against a real protected server: all pass (no false finding), the audience one too.
      expect(doc.code, doc.stderr).toBe(0);
      const report = JSON.parse(doc.stdout) as { checks: { id: string; status: string }[]; summary: { errors: number; warnings: number } };
      expect(report.checks.filter((c) => c.id.startsWith('http.auth')).map((c) => [c.id, c.status])).toEqual([['http.auth', 'passed'], ['http.auth-audience', 'passed'], ['http.auth-server', 'passed']]);
      expect(report.summary).toMatchObject({ errors: 0, warnings: 0 });
      // The stored token lacks notes:purge: the server's per-tool 403 reaches the user (no browser to step up in).
      const refused = await runCli(['call', resource, 'purge', '--json'], { env: { SWITCHBOARD_CREDENTIALS: file } });
      expect([refused.code, refused.stderr]).toEqual([1, expect.stringMatching(/insufficient scope/)]);
      // Its hint is the sign-in that helps: the scope of the 403 challenge (not `switchboard explain -32000`).
      expect(refused.stderr).toContain(`switchboard login ${resource} --scope "notes:purge"`);
      await cliLogin(file, ['--scope', 'notes:read notes:purge']);
      for (const era of ['modern', 'legacy']) {
        const purge = await runCli(['call', resource, 'purge', '--era', era, '--json'], { env: { SWITCHBOARD_CREDENTIALS: file } });
        expect(purge.code, purge.stderr).toBe(0);
        expect(purge.stdout).toContain('purged');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

/**
 * The official SDK v2 client's OAuth provider, as its docs show (`OAuthClientProvider`): everything in memory, the
 * redirect kept so that the test, playing the user agent, signs in at the provider.
 */
class MemoryOAuthProvider implements OAuthClientProvider {
  #client: StoredOAuthClientInformation | undefined;
  #tokens: StoredOAuthTokens | undefined;
  #verifier = '';
  #state = '';
  #discovery: OAuthDiscoveryState | undefined;
  authorizationUrl: URL | undefined;

  /** @param preregistered - a client registered with the provider beforehand (and its issuer); else the SDK registers (RFC 7591). */
  constructor(readonly redirectUrl: string, preregistered?: { readonly clientId: string; readonly issuer: string }) {
    if (preregistered !== undefined) this.#client = { client_id: preregistered.clientId, issuer: preregistered.issuer };
  }

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'sdk-v2-e2e', redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }

  state(): string {
    this.#state = crypto.randomUUID();
    return this.#state;
  }

  get expectedState(): string {
    return this.#state;
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.#client;
  }

  saveClientInformation(client: StoredOAuthClientInformation): void {
    this.#client = client;
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.#tokens;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.#tokens = tokens;
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrl = authorizationUrl;
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    return this.#verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }
}

/** The SDK's first sign-in: a 401, its `auth()` redirect, the user agent at the provider, `finishAuth`, a new transport. */
async function sdkSignIn(provider: MemoryOAuthProvider): Promise<{ client: SdkClient; transport: StreamableHTTPClientTransport }> {
  const first = new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider });
  await expect(new SdkClient({ name: 'sdk-v2-e2e', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  const authorizationUrl = provider.authorizationUrl!;
  expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorizationUrl.searchParams.get('resource')).toBe(resource);
  const callback = new URL(await signInAtOidcProvider(authorizationUrl, provider.redirectUrl));
  expect(callback.searchParams.get('state')).toBe(provider.expectedState);
  await first.finishAuth(callback.searchParams);
  expect(provider.tokens()?.access_token).toBeDefined();
  const client = new SdkClient({ name: 'sdk-v2-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider });
  await client.connect(transport);
  return { client, transport };
}

/** A `tools/call` of purge answered by our per-tool 403: the SDK asks to re-authorize (its step-up); the URL it built. */
async function sdkStepUpUrl(client: SdkClient, provider: MemoryOAuthProvider): Promise<URL> {
  provider.authorizationUrl = undefined;
  await expect(client.callTool({ name: 'purge', arguments: {} })).rejects.toBeInstanceOf(UnauthorizedError);
  const stepUp = provider.authorizationUrl as URL | undefined;
  expect(stepUp?.searchParams.get('scope')?.split(' ')).toEqual(expect.arrayContaining(['notes:read', 'notes:purge']));
  return stepUp!;
}

describe('the official SDK v2 client signs in to our protected server at oidc-provider', () => {
  it('dynamic registration: 401 → discovery → registration → PKCE sign-in → finishAuth → reconnect → tools/call', async () => {
    const provider = new MemoryOAuthProvider(SDK_REDIRECT);
    const { client, transport } = await sdkSignIn(provider);
    try {
      // SDK v2 2.4.0 negotiates 2025-11-25 with our dual-era server: the session era, each request authorized.
      expect(transport.protocolVersion).toBe('2025-11-25');
      expect(await client.callTool({ name: 'whoami', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'hello alice' }] });
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['whoami']);
      // The SDK registered the first challenge's scope as the client's `scope` (RFC 7591 §2), so oidc-provider
      // refuses its step-up to notes:purge for that client (an SDK limitation, seen here; not ours).
      expect(provider.clientInformation()).toMatchObject({ scope: 'notes:read offline_access' });
      const refused = new URL(await signInAtOidcProvider(await sdkStepUpUrl(client, provider), provider.redirectUrl));
      expect(refused.searchParams.get('error')).toBe('invalid_scope');
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a pre-registered client steps up from our per-tool 403 insufficient_scope and calls the tool', async () => {
    const provider = new MemoryOAuthProvider(SDK_REDIRECT, { clientId: SDK_CLIENT_ID, issuer });
    const { client, transport } = await sdkSignIn(provider);
    try {
      expect(await client.callTool({ name: 'whoami', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'hello alice' }] });
      const stepUp = await sdkStepUpUrl(client, provider);
      await transport.finishAuth(new URL(await signInAtOidcProvider(stepUp, provider.redirectUrl)).searchParams);
      expect(await client.callTool({ name: 'purge', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'purged' }] });
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['purge', 'whoami']);
    } finally {
      await client.close();
    }
  }, 60_000);
});

/** `switchboard login <resource> --no-browser …`: the printed URL is signed in at the provider, the CLI exits 0. */
async function cliLogin(file: string, extra: readonly string[]): Promise<void> {
  const bin = new URL('../packages/cli/bin/switchboard.js', import.meta.url).pathname;
  const child = spawn(process.execPath, [bin, 'login', resource, '--no-browser', '--timeout-ms', '30000', ...extra], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', SWITCHBOARD_CREDENTIALS: file } });
  try {
    let stderr = '';
    const printed = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no sign-in URL printed: ${stderr}`)), 20_000);
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const url = /Open this URL in a browser to sign in:\n\s+(\S+)/.exec(stderr)?.[1];
        if (url !== undefined) {
          clearTimeout(timer);
          resolve(url);
        }
      });
    });
    const authorizationUrl = new URL(printed);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(resource);
    const redirectUri = authorizationUrl.searchParams.get('redirect_uri') ?? '';
    expect(redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect((await fetch(await signInAtOidcProvider(authorizationUrl, redirectUri))).status).toBe(200);
    expect(await exitWithin(child, 20_000)).toBe(0);
  } finally {
    stopByPid(child);
  }
}
