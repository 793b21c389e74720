/**
 * The OAuth client end to end on 127.0.0.1: a real Switchboard server (createMcpHttpHandler) behind a bearer check
 * that serves RFC 9728 metadata and answers 401/403 the way MCP says, a small authorization server in this file that
 * checks what a client must send (PKCE S256 verifier against the challenge, RFC 8707 `resource` on both requests,
 * `state`), our `McpClient` with `oauth()`, and the `switchboard login` bin with `--no-browser`, its sign-in URL driven
 * by an HTTP client that follows the redirects (no browser). The authorization server is ours and minimal on purpose
 * (it asks nothing interactively); the official conformance suite's client auth scenarios (scripts/conformance.mjs)
 * cover the flows against the suite's own servers.
 */
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { AuthorizationError, InMemoryOAuthStore, McpClient, oauth, streamableHttp, type OAuthAuthorizeRequest, type OAuthClientInformation, type OAuthStore, type OAuthTokens } from '@switchboard/mcp/client';
import { createMcpHttpHandler } from '@switchboard/mcp/http';
import { McpServer } from '@switchboard/mcp/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitWithin, runCli, stopByPid } from './helpers/process.js';

interface Issued {
  readonly scope: string;
  readonly resource: string;
}

/** What the authorization server saw. */
interface AsLog {
  authorizations: { scope: string | null; resource: string | null; clientId: string | null }[];
  tokens: { grant: string; resource: string | null }[];
  registrations: number;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(value));
}

/**
 * A minimal authorization server: RFC 8414 metadata (with `metadata(issuer)`'s fields over it), RFC 7591 registration,
 * code + PKCE, refresh; tokens expire in `expiresIn` s.
 */
function authorizationServer(expiresIn: number, metadata: (issuer: string) => Record<string, unknown> = () => ({})): { server: Server; log: AsLog; issued: Map<string, Issued>; issuer: () => string; start(): Promise<void> } {
  let issuer = '';
  const log: AsLog = { authorizations: [], tokens: [], registrations: 0 };
  const issued = new Map<string, Issued>();
  const codes = new Map<string, { challenge: string; scope: string; resource: string; redirectUri: string }>();
  const refresh = new Map<string, Issued>();
  const mint = (grant: Issued): Record<string, unknown> => {
    const accessToken = `at-${randomUUID()}`;
    const refreshToken = `rt-${randomUUID()}`;
    issued.set(accessToken, grant);
    refresh.set(refreshToken, grant);
    return { access_token: accessToken, token_type: 'Bearer', expires_in: expiresIn, refresh_token: refreshToken, scope: grant.scope };
  };
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', issuer);
      if (req.method === 'GET' && url.pathname === '/.well-known/oauth-authorization-server') {
        json(res, 200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          registration_endpoint: `${issuer}/register`,
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['none'],
          scopes_supported: ['mcp:tools', 'mcp:admin', 'offline_access'],
          authorization_response_iss_parameter_supported: true,
          ...metadata(issuer),
        });
      } else if (req.method === 'POST' && url.pathname === '/register') {
        log.registrations++;
        const meta = JSON.parse(await body(req)) as Record<string, unknown>;
        json(res, 201, { ...meta, client_id: `client-${log.registrations}` });
      } else if (req.method === 'GET' && url.pathname === '/authorize') {
        const p = url.searchParams;
        log.authorizations.push({ scope: p.get('scope'), resource: p.get('resource'), clientId: p.get('client_id') });
        const code = randomUUID();
        if (p.get('code_challenge_method') !== 'S256' || !p.get('resource')) return json(res, 400, { error: 'invalid_request' });
        codes.set(code, { challenge: p.get('code_challenge') ?? '', scope: p.get('scope') ?? '', resource: p.get('resource') ?? '', redirectUri: p.get('redirect_uri') ?? '' });
        const back = new URL(p.get('redirect_uri') ?? '');
        back.searchParams.set('code', code);
        back.searchParams.set('state', p.get('state') ?? '');
        back.searchParams.set('iss', issuer);
        res.writeHead(302, { Location: back.href }).end();
      } else if (req.method === 'POST' && url.pathname === '/token') {
        const p = new URLSearchParams(await body(req));
        log.tokens.push({ grant: p.get('grant_type') ?? '', resource: p.get('resource') });
        if (p.get('grant_type') === 'authorization_code') {
          const code = codes.get(p.get('code') ?? '');
          codes.delete(p.get('code') ?? '');
          const verifier = p.get('code_verifier') ?? '';
          const s256 = createHash('sha256').update(verifier).digest('base64url');
          if (code === undefined || s256 !== code.challenge || p.get('resource') !== code.resource || p.get('redirect_uri') !== code.redirectUri) return json(res, 400, { error: 'invalid_grant' });
          return json(res, 200, mint({ scope: code.scope, resource: code.resource }));
        }
        if (p.get('grant_type') === 'refresh_token') {
          const grant = refresh.get(p.get('refresh_token') ?? '');
          refresh.delete(p.get('refresh_token') ?? '');
          if (grant === undefined || p.get('resource') !== grant.resource) return json(res, 400, { error: 'invalid_grant' });
          return json(res, 200, mint(grant));
        }
        json(res, 400, { error: 'unsupported_grant_type' });
      } else json(res, 404, { error: 'not_found' });
    })();
  });
  return {
    server,
    log,
    issued,
    issuer: () => issuer,
    start: async () => {
      issuer = await listen(server);
    },
  };
}

/** A Switchboard server behind a bearer check: `admin` needs the `mcp:admin` scope (403 insufficient_scope). */
function protectedServer(options: { issued: Map<string, Issued>; issuer: () => string; resourceOverride?: string }): { front: Server; start(): Promise<void>; close(): Promise<void>; url: () => string; seen: string[] } {
  const mcp = new McpServer({ name: 'protected', version: '1.0.0' });
  mcp.tool('whoami', { description: 'Says hello', inputSchema: { type: 'object' } }, () => ({ content: [{ type: 'text', text: 'hello' }] }));
  mcp.tool('admin', { description: 'Needs mcp:admin', inputSchema: { type: 'object' } }, () => ({ content: [{ type: 'text', text: 'admin done' }] }));
  const handler = createMcpHttpHandler({ server: mcp });
  let base = '';
  const seen: string[] = [];
  const prm = (): string => `${base}/.well-known/oauth-protected-resource/mcp`;
  const front = createServer((req, res) => {
    void (async () => {
      const raw = await body(req);
      const url = new URL(req.url ?? '/', base);
      if (req.method === 'GET' && url.pathname === '/.well-known/oauth-protected-resource/mcp') {
        return json(res, 200, { resource: options.resourceOverride ?? `${base}/mcp`, authorization_servers: [options.issuer()], scopes_supported: ['mcp:tools'] });
      }
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const grant = token === undefined ? undefined : options.issued.get(token);
      seen.push(`${req.method} ${token === undefined ? 'no token' : grant === undefined ? 'bad token' : 'token'}`);
      if (grant === undefined || grant.resource !== `${base}/mcp`) {
        return json(res, 401, { error: 'invalid_token' }, { 'WWW-Authenticate': `Bearer resource_metadata="${prm()}", scope="mcp:tools"` });
      }
      const message = req.method === 'POST' ? (JSON.parse(raw) as { method?: string; params?: { name?: string } }) : {};
      if (message.method === 'tools/call' && message.params?.name === 'admin' && !grant.scope.split(' ').includes('mcp:admin')) {
        return json(res, 403, { error: 'insufficient_scope' }, { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="mcp:admin", resource_metadata="${prm()}"` });
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const response = await handler.fetch(new Request(url, { method: req.method!, headers, ...(req.method === 'POST' ? { body: raw } : {}) }));
      const out: Record<string, string> = {};
      response.headers.forEach((value, name) => { out[name] = value; });
      res.writeHead(response.status, out);
      if (response.body === null) res.end();
      else Readable.fromWeb(response.body as WebReadableStream).pipe(res);
    })();
  });
  return {
    front,
    seen,
    url: () => `${base}/mcp`,
    start: async () => {
      base = await listen(front);
    },
    close: async () => {
      await stop(front);
      await handler.close();
    },
  };
}

/** A token endpoint's refusal of a refresh token (RFC 6749 §5.2). */
function json400(): Response {
  return new Response(JSON.stringify({ error: 'invalid_grant' }), { status: 400, headers: { 'Content-Type': 'application/json' } });
}

/** Where a `fetch` call goes. */
function targetOf(input: Parameters<typeof fetch>[0]): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}

/** Whether a `fetch` call is a refresh (RFC 6749 §6) at the token endpoint of `issuer`. */
function isRefreshAt(issuer: string, input: Parameters<typeof fetch>[0], init: RequestInit | undefined): boolean {
  return targetOf(input) === `${issuer}/token` && typeof init?.body === 'string' && init.body.includes('grant_type=refresh_token');
}

/** An authorization server minting `expiresIn`-second tokens and a protected server that trusts it, both started. */
async function protectedPair(expiresIn: number): Promise<{ as: ReturnType<typeof authorizationServer>; rs: ReturnType<typeof protectedServer>; close: () => Promise<void> }> {
  const as = authorizationServer(expiresIn);
  await as.start();
  const rs = protectedServer({ issued: as.issued, issuer: as.issuer });
  await rs.start();
  return {
    as,
    rs,
    close: async () => {
      await rs.close();
      await stop(as.server);
    },
  };
}

/**
 * A `fetch` that holds the refreshes at `issuer` while armed: `arm()` resolves once one is held, `release(answer)`
 * lets it go with `answer` (a Response, or an Error thrown) or, without one, to the real token endpoint.
 */
function refreshGate(issuer: () => string): { fetch: typeof fetch; arm(): Promise<void>; release(answer?: Response | Error): void } {
  let reached: (() => void) | undefined;
  let release: (answer: Response | Error | undefined) => void = () => undefined;
  return {
    fetch: async (input, init) => {
      if (reached !== undefined && isRefreshAt(issuer(), input, init)) {
        const answer = await new Promise<Response | Error | undefined>((resolve) => {
          release = resolve;
          reached?.();
          reached = undefined;
        });
        if (answer instanceof Error) throw answer;
        if (answer !== undefined) return answer;
      }
      return fetch(input, init);
    },
    arm: () => new Promise<void>((resolve) => (reached = resolve)),
    release: (answer) => release(answer),
  };
}

/** The user-agent step without a browser: GET the authorization URL, resolve where it redirects. */
async function follow({ authorizationUrl }: OAuthAuthorizeRequest): Promise<string> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  await response.body?.cancel();
  return response.headers.get('location') ?? '';
}

describe('oauth(): our client signs in to a protected Switchboard server', () => {
  const as = authorizationServer(3600);
  const rs = protectedServer({ issued: as.issued, issuer: as.issuer });
  beforeAll(async () => {
    await as.start();
    await rs.start();
  });
  afterAll(async () => {
    await stop(as.server);
    await rs.close();
  });

  it('signs in on the first 401 (DCR, PKCE S256, resource, iss), then steps up on a per-tool 403 with the union of scopes', async () => {
    const auth = oauth({ redirectUri: 'http://127.0.0.1:1/callback', authorize: follow });
    const client = await McpClient.connect({ connector: streamableHttp({ url: rs.url(), auth }), clientInfo: { name: 't', version: '1' } });
    try {
      expect((await client.listAllTools()).map((t) => t.name).sort()).toEqual(['admin', 'whoami']);
      expect(as.log.registrations).toBe(1);
      expect(as.log.authorizations[0]).toEqual({ scope: 'mcp:tools offline_access', resource: rs.url(), clientId: 'client-1' });
      const result = await client.callTool({ name: 'admin', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'admin done' }]);
      expect(as.log.authorizations[1]?.scope?.split(' ').sort()).toEqual(['mcp:admin', 'mcp:tools', 'offline_access']);
      expect(as.log.tokens.every((t) => t.resource === rs.url())).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('a stepped-up token refused with a 401 before its first use: the sign-in that follows keeps the stepped-up scope', async () => {
    // What a 1-second token does on a loaded machine: it expires between the step-up and the request sent with it.
    // The 401 names only `mcp:tools`; signing in for that alone would lose `mcp:admin` and meet the 403 again.
    let expireOnce = true;
    const expiring: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (expireOnce && targetOf(input).endsWith('/token') && response.ok) {
        const minted = (await response.clone().json()) as { access_token: string; scope?: string };
        if (minted.scope?.split(' ').includes('mcp:admin') === true) {
          expireOnce = false;
          as.issued.delete(minted.access_token);
        }
      }
      return response;
    };
    const auth = oauth({ redirectUri: 'http://127.0.0.1:1/callback', authorize: follow, fetch: expiring });
    const client = await McpClient.connect({ connector: streamableHttp({ url: rs.url(), auth }), clientInfo: { name: 't', version: '1' } });
    try {
      const before = as.log.authorizations.length;
      expect((await client.callTool({ name: 'admin', arguments: {} })).content).toEqual([{ type: 'text', text: 'admin done' }]);
      expect(expireOnce).toBe(false);
      const after = as.log.authorizations.slice(before).map((a) => a.scope?.split(' ').sort());
      expect(after).toEqual([['mcp:admin', 'mcp:tools', 'offline_access'], ['mcp:admin', 'mcp:tools', 'offline_access']]);
    } finally {
      await client.close();
    }
  });

  it('forget() starts the scope over; after a restart a sign-in that follows a 401 keeps the stored token\'s scope', async () => {
    const keys: string[] = [];
    const store = new (class extends InMemoryOAuthStore {
      override saveTokens(resource: string, tokens: OAuthTokens | undefined): void {
        keys.push(resource);
        super.saveTokens(resource, tokens);
      }
    })();
    const auth = oauth({ redirectUri: 'http://127.0.0.1:1/callback', authorize: follow, store });
    const client = await McpClient.connect({ connector: streamableHttp({ url: rs.url(), auth }), clientInfo: { name: 't', version: '1' } });
    const asked = (from: number): (string[] | undefined)[] => as.log.authorizations.slice(from).map((a) => a.scope?.split(' ').sort());
    try {
      await client.callTool({ name: 'admin', arguments: {} });
      // Signed out: the 401 that follows names mcp:tools, and the sign-in asks for that alone (not the admin scope).
      await auth.forget(rs.url());
      let before = as.log.authorizations.length;
      await client.callTool({ name: 'whoami', arguments: {} });
      expect(asked(before)).toEqual([['mcp:tools', 'offline_access']]);
      // Another process with the same store: the stepped-up tokens, not refreshable, and refused (401) or expired
      // (refreshed before the request is sent, which is refused: the refresh token is dropped, the access token goes
      // out and is refused).
      await client.callTool({ name: 'admin', arguments: {} });
      const key = keys.at(-1)!;
      const stored = store.loadTokens(key)!;
      expect(stored.scope?.split(' ')).toContain('mcp:admin');
      for (const expiresAt of [stored.expiresAt, Date.now() - 1000]) {
        store.saveTokens(key, { ...stored, accessToken: 'revoked', refreshToken: 'rt-unknown', expiresAt });
        const restarted = oauth({ redirectUri: 'http://127.0.0.1:1/callback', authorize: follow, store });
        before = as.log.authorizations.length;
        const again = await McpClient.connect({ connector: streamableHttp({ url: rs.url(), auth: restarted }), clientInfo: { name: 't', version: '1' } });
        try {
          expect((await again.callTool({ name: 'admin', arguments: {} })).content).toEqual([{ type: 'text', text: 'admin done' }]);
          expect(asked(before)).toEqual([['mcp:admin', 'mcp:tools', 'offline_access']]);
        } finally {
          await again.close();
        }
      }
    } finally {
      await client.close();
    }
  });

  it('a resource that moves to another authorization server: what was asked of the first is not asked of the second', async () => {
    // 10 s tokens at the first server, 30 s refresh margin: refreshed before every request, so a refused refresh drops the
    // refresh token before the 401 that makes the client discover the second server.
    const first = authorizationServer(10);
    const second = authorizationServer(3600);
    await first.start();
    await second.start();
    let moved = false;
    const issued = new (class extends Map<string, Issued> {
      override get(token: string): Issued | undefined {
        return (moved ? second.issued : first.issued).get(token);
      }
    })();
    const moving = protectedServer({ issued, issuer: () => (moved ? second.issuer() : first.issuer()) });
    await moving.start();
    const refusing: typeof fetch = async (input, init) => {
      if (moved && targetOf(input) === `${first.issuer()}/token`) return json400();
      return fetch(input, init);
    };
    const auth = oauth({ refreshMarginMs: 30_000, redirectUri: 'http://127.0.0.1:1/callback', authorize: follow, fetch: refusing });
    const client = await McpClient.connect({ connector: streamableHttp({ url: moving.url(), auth }), clientInfo: { name: 't', version: '1' } });
    try {
      await client.callTool({ name: 'admin', arguments: {} });
      expect(first.log.authorizations.at(-1)?.scope?.split(' ').sort()).toEqual(['mcp:admin', 'mcp:tools', 'offline_access']);
      moved = true;
      await client.callTool({ name: 'whoami', arguments: {} });
      expect(second.log.authorizations.map((a) => a.scope?.split(' ').sort())).toEqual([['mcp:tools', 'offline_access']]);
    } finally {
      await client.close();
      await moving.close();
      await stop(first.server);
      await stop(second.server);
    }
  });

  it('a refresh that fails: unreached, the tokens stay and no sign-in is tried; failing or refused, a 401 signs in again', async () => {
    // 10 s tokens and a 30 s refresh margin: refreshed before every request.
    const { as: short, rs: guarded, close } = await protectedPair(10);
    type Failure = 'unreachable' | 'unavailable' | 'refresh broken' | 'refused once';
    let failure: Failure | undefined;
    const flaky: typeof fetch = async (input, init) => {
      const refresh = isRefreshAt(short.issuer(), input, init);
      if (failure !== undefined && targetOf(input) === `${short.issuer()}/token`) {
        if (failure === 'unreachable') throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
        // An outage: every grant, the sign-in's code exchange too.
        if (failure === 'unavailable') return new Response(JSON.stringify({ error: 'temporarily_unavailable' }), { status: 503, headers: { 'Content-Type': 'application/json' } });
        // A server that cannot refresh (an error page), for good; its code exchange works.
        if (failure === 'refresh broken' && refresh) return new Response('<html>Internal Server Error</html>', { status: 500 });
        // A refusal whatever its body (a proxy's page, say), once.
        if (failure === 'refused once' && refresh) {
          failure = undefined;
          return new Response('<html>Bad Request</html>', { status: 400 });
        }
      }
      return fetch(input, init);
    };
    const revoke = (): void => short.issued.clear();
    const whoami = (): Promise<unknown> => client.callTool({ name: 'whoami', arguments: {} }).then((result) => result.content, (error: unknown) => error);
    const hello = [{ type: 'text', text: 'hello' }];
    const auth = oauth({ refreshMarginMs: 30_000, redirectUri: 'http://127.0.0.1:1/callback', authorize: follow, fetch: flaky });
    const client = await McpClient.connect({ connector: streamableHttp({ url: guarded.url(), auth }), clientInfo: { name: 't', version: '1' } });
    try {
      let signIns = 1;
      expect(short.log.authorizations).toHaveLength(signIns);
      for (const kind of ['unreachable', 'unavailable', 'refresh broken'] as const) {
        // Before the request: the refresh fails, the access token (still valid) goes out as it is.
        failure = kind;
        expect(await whoami()).toEqual(hello);
        expect(short.log.authorizations).toHaveLength(signIns);
        // After a 401 (the access token revoked), the refresh fails again. Unreached: the call fails with that, no
        // sign-in is tried. Failing: a sign-in is tried, which fails the same way in an outage and works when only
        // refreshing is broken.
        revoke();
        const after = await whoami();
        if (kind === 'refresh broken') expect(after).toEqual(hello);
        else {
          expect(after).toBeInstanceOf(AuthorizationError);
          expect((after as AuthorizationError).oauthError).toBe(kind === 'unavailable' ? 'temporarily_unavailable' : undefined);
        }
        if (kind !== 'unreachable') signIns++;
        expect(short.log.authorizations).toHaveLength(signIns);
        // Back to normal: the refresh token kept (or the new one) works, without another sign-in.
        failure = undefined;
        revoke();
        expect(await whoami()).toEqual(hello);
        expect(short.log.authorizations).toHaveLength(signIns);
      }
      // Refused (a 400, even one without an OAuth error body): the refresh token is dropped and the 401 signs in again.
      failure = 'refused once';
      revoke();
      expect(await whoami()).toEqual(hello);
      expect(short.log.authorizations).toHaveLength(signIns + 1);
    } finally {
      await client.close();
      await close();
    }
  });

  it('forget() while a refresh runs, before a request or after its 401: neither its tokens nor the scope asked before come back', async () => {
    // 10 s tokens with a 30 s refresh margin are refreshed before every request; 3600 s ones after a 401 (revoked here).
    for (const lifetime of [10, 3600]) {
      const { as: server, rs: guarded, close } = await protectedPair(lifetime);
      const gate = refreshGate(server.issuer);
      const auth = oauth({ refreshMarginMs: 30_000, redirectUri: 'http://127.0.0.1:1/callback', authorize: follow, fetch: gate.fetch });
      const client = await McpClient.connect({ connector: streamableHttp({ url: guarded.url(), auth }), clientInfo: { name: 't', version: '1' } });
      try {
        for (const refuse of [true, false]) {
          await client.callTool({ name: 'admin', arguments: {} });
          if (lifetime === 3600) server.issued.clear();
          const before = server.log.authorizations.length;
          const reached = gate.arm();
          const call = client.callTool({ name: 'whoami', arguments: {} });
          await reached;
          await auth.forget(guarded.url());
          gate.release(refuse ? json400() : undefined);
          expect((await call).content).toEqual([{ type: 'text', text: 'hello' }]);
          // Signed out: the call needed a new sign-in, for the 401's scope alone.
          expect(server.log.authorizations.slice(before).map((a) => a.scope?.split(' ').sort()), `${lifetime} s, refused: ${refuse}`).toEqual([['mcp:tools', 'offline_access']]);
        }
        // signIn() after forget() while a refresh runs: it lets the refresh finish, then signs in itself.
        if (lifetime === 10) {
          const reached = gate.arm();
          const call = client.callTool({ name: 'whoami', arguments: {} });
          await reached;
          await auth.forget(guarded.url());
          const signedIn = auth.signIn(guarded.url());
          gate.release();
          expect((await signedIn).accessToken).toMatch(/^at-/);
          expect((await call).content).toEqual([{ type: 'text', text: 'hello' }]);
        }
      } finally {
        await client.close();
        await close();
      }
    }
  });

  it('by default a token is refreshed at most half its lifetime ahead: 10 s tokens are not refreshed before every request', async () => {
    const { as: server, rs: guarded, close } = await protectedPair(10);
    let refreshes = 0;
    const counting: typeof fetch = async (input, init) => {
      if (isRefreshAt(server.issuer(), input, init)) refreshes++;
      return fetch(input, init);
    };
    const keys: string[] = [];
    const store = new (class extends InMemoryOAuthStore {
      override saveTokens(resource: string, tokens: OAuthTokens | undefined): void {
        keys.push(resource);
        super.saveTokens(resource, tokens);
      }
    })();
    const auth = oauth({ redirectUri: 'http://127.0.0.1:1/callback', authorize: follow, fetch: counting, store });
    const client = await McpClient.connect({ connector: streamableHttp({ url: guarded.url(), auth }), clientInfo: { name: 't', version: '1' } });
    try {
      for (let i = 0; i < 5; i++) expect((await client.callTool({ name: 'whoami', arguments: {} })).content).toEqual([{ type: 'text', text: 'hello' }]);
      expect(refreshes).toBe(0);
      const key = keys.at(-1)!;
      const stored = store.loadTokens(key)!;
      expect(stored.expiresAt! - stored.issuedAt!).toBe(10_000);
      // 4 s left of 10: within the 5 s margin, refreshed before the request (a process that starts on this store).
      store.saveTokens(key, { ...stored, issuedAt: stored.issuedAt! - 6_000, expiresAt: stored.expiresAt! - 6_000 });
      const restarted = oauth({ redirectUri: 'http://127.0.0.1:1/callback', authorize: follow, fetch: counting, store });
      const again = await McpClient.connect({ connector: streamableHttp({ url: guarded.url(), auth: restarted }), clientInfo: { name: 't', version: '1' } });
      try {
        expect((await again.callTool({ name: 'whoami', arguments: {} })).content).toEqual([{ type: 'text', text: 'hello' }]);
        expect(refreshes).toBe(1);
      } finally {
        await again.close();
      }
      // An issue time that makes no lifetime (a hand-edited file): the 30 s margin, refreshed 20 s before expiry.
      const fresh = store.loadTokens(key)!;
      store.saveTokens(key, { ...fresh, issuedAt: Date.now() + 3_600_000, expiresAt: Date.now() + 20_000 });
      const edited = await McpClient.connect({ connector: streamableHttp({ url: guarded.url(), auth: oauth({ redirectUri: 'http://127.0.0.1:1/callback', authorize: follow, fetch: counting, store }) }), clientInfo: { name: 't', version: '1' } });
      try {
        expect((await edited.callTool({ name: 'whoami', arguments: {} })).content).toEqual([{ type: 'text', text: 'hello' }]);
        expect(refreshes).toBe(2);
      } finally {
        await edited.close();
      }
    } finally {
      await client.close();
      await close();
    }
    expect(() => oauth({ refreshMarginMs: -1 })).toThrow(new RangeError('Invalid option refreshMarginMs: expected a number of milliseconds from 0 to 2147483647, got -1'));
    expect(() => oauth({ refreshMarginMs: Number.NaN })).toThrow(RangeError);
    expect(() => oauth({ refreshMarginMs: Infinity })).toThrow(RangeError);
    expect(() => oauth({ refreshMarginMs: '5000' as never })).toThrow(new TypeError('Invalid option refreshMarginMs: expected a number of milliseconds, got "5000"'));
    expect(() => oauth({ timeoutMs: 0 })).toThrow(new RangeError('Invalid option timeoutMs: expected a number of milliseconds above 0, at most 2147483647, got 0'));
    expect(() => oauth({ maxStepUps: -1 })).toThrow(new RangeError('Invalid option maxStepUps: expected an integer of 0 or more, got -1'));
    expect(() => oauth({ maxStepUps: 'two' as never })).toThrow(TypeError);
  });

  it('tokens that live under the refresh margin, from a server that refuses every refresh: one sign-in, then the access token is used', async () => {
    // 10 s tokens with a 30 s refresh margin are refreshed before every request. Dropping the whole token on a refused refresh sent
    // every request without one: a 401, a sign-in whose token was again refreshed and refused, until the resends ran out.
    const { as: server, rs: guarded, close } = await protectedPair(10);
    let refreshes = 0;
    const refusing: typeof fetch = async (input, init) => {
      if (isRefreshAt(server.issuer(), input, init)) {
        refreshes++;
        return json400();
      }
      return fetch(input, init);
    };
    const auth = oauth({ refreshMarginMs: 30_000, redirectUri: 'http://127.0.0.1:1/callback', authorize: follow, fetch: refusing });
    const client = await McpClient.connect({ connector: streamableHttp({ url: guarded.url(), auth }), clientInfo: { name: 't', version: '1' } });
    try {
      for (let i = 0; i < 3; i++) expect((await client.callTool({ name: 'whoami', arguments: {} })).content).toEqual([{ type: 'text', text: 'hello' }]);
      expect(server.log.authorizations).toHaveLength(1);
      // Refused once, and the refresh token dropped with it: not presented again.
      expect(refreshes).toBe(1);
    } finally {
      await client.close();
      await close();
    }
  });

  it('an authorization server that never grants the step-up scope: a sign-in and maxStepUps step-ups, then step_up_limit', async () => {
    const { as: server, rs: guarded, close } = await protectedPair(3600);
    // The token endpoint grants everything asked but mcp:admin (RFC 6749 §3.3: it may issue less, and says so).
    const withholding: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (targetOf(input) !== `${server.issuer()}/token` || !response.ok) return response;
      const minted = (await response.json()) as { access_token: string; scope: string };
      const scope = minted.scope.split(' ').filter((s) => s !== 'mcp:admin').join(' ');
      server.issued.set(minted.access_token, { scope, resource: guarded.url() });
      return new Response(JSON.stringify({ ...minted, scope }), { status: 200, headers: { 'Content-Type': 'application/json' } });
    };
    const auth = oauth({ redirectUri: 'http://127.0.0.1:1/callback', authorize: follow, fetch: withholding });
    const client = await McpClient.connect({ connector: streamableHttp({ url: guarded.url(), auth }), clientInfo: { name: 't', version: '1' } });
    try {
      // Signed out: the call meets a 401 first, then the 403s.
      await auth.forget(guarded.url());
      const before = server.log.authorizations.length;
      const failed = await client.callTool({ name: 'admin', arguments: {} }).then(() => undefined, (error: unknown) => error);
      expect(failed).toBeInstanceOf(AuthorizationError);
      expect((failed as AuthorizationError).reason).toBe('step_up_limit');
      // The sign-in of the 401 (not a step-up), then two step-ups (the default maxStepUps) asking for mcp:admin.
      expect(server.log.authorizations.slice(before).map((a) => a.scope?.split(' ').includes('mcp:admin'))).toEqual([false, true, true]);
    } finally {
      await client.close();
      await close();
    }
  });

  it('a server that refuses every token it is given: one sign-in, then token_refused (no prompt after prompt)', async () => {
    const server = authorizationServer(3600);
    await server.start();
    // The protected server trusts nothing the authorization server issues (another audience, say).
    const refusing = protectedServer({ issued: new Map(), issuer: server.issuer });
    await refusing.start();
    let prompts = 0;
    const auth = oauth({ redirectUri: 'http://127.0.0.1:1/callback', authorize: (request) => (prompts++, follow(request)) });
    try {
      const failed = await McpClient.connect({ connector: streamableHttp({ url: refusing.url(), auth }), clientInfo: { name: 't', version: '1' } }).then(
        async (client) => client.close(),
        (error: unknown) => error,
      );
      expect(failed).toBeInstanceOf(AuthorizationError);
      expect((failed as AuthorizationError).reason).toBe('token_refused');
      // The era probe's sign-in alone: no second prompt for that request, and no fallback to `initialize` to sign in again.
      expect(prompts).toBe(1);
    } finally {
      await refusing.close();
      await stop(server.server);
    }
  });

  it('token_refused only for a token new to the request: the one it was first sent with (after a DPoP nonce retry) still signs in', async () => {
    const { as: server, rs: guarded, close } = await protectedPair(3600);
    let prompts = 0;
    const auth = oauth({ redirectUri: 'http://127.0.0.1:1/callback', authorize: (request) => (prompts++, follow(request)), offlineAccess: false });
    const url = new URL(guarded.url());
    const unauthorized = (): Response => new Response('', { status: 401, headers: { 'WWW-Authenticate': `Bearer resource_metadata="${url.origin}/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"` } });
    try {
      const token = (await auth.signIn(url)).accessToken;
      expect(prompts).toBe(1);
      // The token from that sign-in, the request's first, sent again after a 401 that was no refusal of it (a nonce to
      // add): refused now (revoked meanwhile), it is no token "just obtained for this request", and a sign-in follows.
      server.issued.clear();
      const again = { url, method: 'POST', resent: 1, unauthorized: 1, authorization: `Bearer ${token}`, firstAuthorization: `Bearer ${token}` };
      expect(await auth.challenged(again, unauthorized())).toBe(true);
      expect(prompts).toBe(2);
      // A request first sent with no token, now with the one the sign-in its 401 led to obtained, refused: token_refused
      // (after a nonce retry of that token too, which sends it a second time).
      const fresh = (await auth.headers({ url, method: 'POST', resent: 0 })).Authorization!;
      const refused = await auth.challenged({ url, method: 'POST', resent: 1, unauthorized: 1, authorization: fresh }, unauthorized()).catch((error: unknown) => error);
      expect(refused).toMatchObject({ reason: 'token_refused' });
      expect(prompts).toBe(2);
    } finally {
      await close();
    }
  });

  it('forget() while a sign-in gets ready (the client\'s identity loading): it asks for what is needed then, not for what was asked before', async () => {
    const { as: server, rs: guarded, close } = await protectedPair(3600);
    let refusing = false;
    let holdNext = false;
    let held: () => void = () => undefined;
    let release: () => void = () => undefined;
    const memory = new InMemoryOAuthStore();
    // A store whose next client lookup waits while armed: the sign-in's, after the refused refresh arms it.
    const store: OAuthStore = {
      loadTokens: (resource) => memory.loadTokens(resource),
      saveTokens: (resource, tokens) => memory.saveTokens(resource, tokens),
      saveClient: (issuer, client) => memory.saveClient(issuer, client),
      loadClient: async (issuer): Promise<OAuthClientInformation | undefined> => {
        if (holdNext) {
          holdNext = false;
          await new Promise<void>((resolve) => {
            release = resolve;
            held();
          });
        }
        return memory.loadClient(issuer);
      },
    };
    const refusingFetch: typeof fetch = async (input, init) => {
      if (refusing && isRefreshAt(server.issuer(), input, init)) {
        holdNext = true;
        return json400();
      }
      return fetch(input, init);
    };
    const auth = oauth({ redirectUri: 'http://127.0.0.1:1/callback', authorize: follow, fetch: refusingFetch, store });
    const client = await McpClient.connect({ connector: streamableHttp({ url: guarded.url(), auth }), clientInfo: { name: 't', version: '1' } });
    try {
      await client.callTool({ name: 'admin', arguments: {} });
      // Revoked, and the refresh refused: the 401 needs a sign-in, which would widen to mcp:admin as asked before.
      server.issued.clear();
      refusing = true;
      const reached = new Promise<void>((resolve) => (held = resolve));
      const before = server.log.authorizations.length;
      const call = client.callTool({ name: 'whoami', arguments: {} });
      await reached;
      await auth.forget(guarded.url());
      release();
      expect((await call).content).toEqual([{ type: 'text', text: 'hello' }]);
      expect(server.log.authorizations.slice(before).map((a) => a.scope?.split(' ').sort())).toEqual([['mcp:tools', 'offline_access']]);
    } finally {
      await client.close();
      await close();
    }
  });

  it('a 401 during a refresh before another request is decided by what the refresh left; without a sign-in, a failed refresh says why', async () => {
    // 10 s tokens with a 30 s refresh margin: refreshed before every request.
    const { as: short, rs: guarded, close } = await protectedPair(10);
    const gate = refreshGate(short.issuer);
    let unavailable = false;
    let refusing = false;
    const controlled: typeof fetch = async (input, init) => {
      const atToken = targetOf(input) === `${short.issuer()}/token`;
      if (atToken && unavailable) return new Response('{}', { status: 503 });
      if (atToken && refusing) return json400();
      return gate.fetch(input, init);
    };
    const store = new InMemoryOAuthStore();
    const auth = oauth({ refreshMarginMs: 30_000, redirectUri: 'http://127.0.0.1:1/callback', authorize: follow, fetch: controlled, store });
    const client = await McpClient.connect({ connector: streamableHttp({ url: guarded.url(), auth }), clientInfo: { name: 't', version: '1' } });
    const url = new URL(guarded.url());
    const unauthorized = (): Response => new Response('', { status: 401, headers: { 'WWW-Authenticate': `Bearer resource_metadata="${url.origin}/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"` } });
    try {
      // A request that went out with `sent` is answered 401 while the next request's refresh runs, and ends so. The
      // 401 is then decided by what it left: resent with the new token; after a failure (an answer or none) one
      // more refresh, which works here; after a refusal a sign-in. The next request, whose token was not refused,
      // sends it as it is unless the refresh gave a new one (a refusal drops the refresh token only).
      const outcomes = { succeeds: undefined, fails: () => new Response('{}', { status: 503 }), 'is not reached': () => new TypeError('fetch failed'), 'is refused': json400 };
      for (const [outcome, answer] of Object.entries(outcomes)) {
        const sent = (await auth.headers({ url, method: 'POST', resent: 0 })).Authorization;
        const reached = gate.arm();
        const next = auth.headers({ url, method: 'POST', resent: 0 });
        await reached;
        const before = short.log.authorizations.length;
        const decided = auth.challenged({ url, method: 'POST', authorization: sent, resent: 0 }, unauthorized());
        gate.release(answer?.());
        const nextHeader = (await next).Authorization;
        if (outcome === 'succeeds') expect(nextHeader, outcome).not.toBe(sent);
        else expect(nextHeader, outcome).toBe(sent);
        expect(await decided, outcome).toBe(true);
        expect(short.log.authorizations, outcome).toHaveLength(before + (outcome === 'is refused' ? 1 : 0));
      }
      // Another process on the same store without an authorize callback, the token endpoint failing: the 401's
      // refresh fails and its error is what the call reports (not "needs a sign-in").
      const headless = oauth({ refreshMarginMs: 30_000, fetch: controlled, store });
      const other = await McpClient.connect({ connector: streamableHttp({ url: guarded.url(), auth: headless }), clientInfo: { name: 't', version: '1' } });
      try {
        unavailable = true;
        short.issued.clear();
        const failed = await other.callTool({ name: 'whoami', arguments: {} }).then(() => undefined, (error: unknown) => error);
        expect(failed).toBeInstanceOf(AuthorizationError);
        expect((failed as AuthorizationError).status).toBe(503);
        // Refused (before the request: 10 s tokens): the refresh token is dropped, the access token (revoked here)
        // goes out, and with no way to sign in its 401 is answered as it is.
        unavailable = false;
        refusing = true;
        const refused = await other.callTool({ name: 'whoami', arguments: {} }).then(() => undefined, (error: unknown) => error);
        expect((refused as Error).name).toBe('HttpStatusError');
        expect((refused as { status?: number }).status).toBe(401);
      } finally {
        unavailable = false;
        refusing = false;
        await other.close();
      }
    } finally {
      await client.close();
      await close();
    }
  });

  it('requests refused at once with 401 share one refresh; without an authorize callback a 401 is answered as it is', async () => {
    const auth = oauth({ redirectUri: 'http://127.0.0.1:1/callback', authorize: follow });
    const client = await McpClient.connect({ connector: streamableHttp({ url: rs.url(), auth }), clientInfo: { name: 't', version: '1' } });
    try {
      const signIns = as.log.authorizations.length;
      const refreshes = (): number => as.log.tokens.filter((t) => t.grant === 'refresh_token').length;
      const before = refreshes();
      as.issued.clear(); // the server now refuses every token it had accepted
      const results = await Promise.all([client.listAllTools(), client.callTool({ name: 'whoami', arguments: {} }), client.callTool({ name: 'whoami', arguments: {} })]);
      expect(results[1].content).toEqual([{ type: 'text', text: 'hello' }]);
      expect(refreshes() - before).toBe(1);
      expect(as.log.authorizations.length).toBe(signIns);
    } finally {
      await client.close();
    }
    const anonymous = await McpClient.connect({ connector: streamableHttp({ url: rs.url(), auth: oauth() }), pin: '2025-11-25' }).catch((e: unknown) => e);
    expect((anonymous as { code?: string; status?: number }).code).toBe('http_status');
    expect((anonymous as { status?: number }).status).toBe(401);
  });

  it('refuses protected resource metadata that names another resource, before any authorization request', async () => {
    const other = protectedServer({ issued: as.issued, issuer: as.issuer, resourceOverride: 'https://evil.example.com/mcp' });
    await other.start();
    const before = as.log.authorizations.length;
    try {
      const error = await McpClient.connect({ connector: streamableHttp({ url: other.url(), auth: oauth({ redirectUri: 'http://127.0.0.1:1/cb', authorize: follow }) }) }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuthorizationError);
      expect((error as AuthorizationError).reason).toBe('resource_mismatch');
      expect(as.log.authorizations.length).toBe(before);
    } finally {
      await other.close();
    }
  });
});

describe('switchboard login <url> --no-browser, then list with the stored credentials', () => {
  const as = authorizationServer(1);
  const rs = protectedServer({ issued: as.issued, issuer: as.issuer });
  const dir = mkdtempSync(join(tmpdir(), 'sb-login-'));
  const file = join(dir, 'credentials.json');
  beforeAll(async () => {
    await as.start();
    await rs.start();
  });
  afterAll(async () => {
    await stop(as.server);
    await rs.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints the sign-in URL, receives the redirect on 127.0.0.1, stores the tokens with mode 0600; list then refreshes and uses them', async () => {
    const bin = new URL('../packages/cli/bin/switchboard.js', import.meta.url).pathname;
    const child = spawn(process.execPath, [bin, 'login', rs.url(), '--no-browser', '--timeout-ms', '20000'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', SWITCHBOARD_CREDENTIALS: file } });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    try {
      const signInUrl = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no sign-in URL printed: ${stderr}`)), 15_000);
        child.stderr.on('data', (c: Buffer) => {
          stderr += c.toString();
          const m = /Open this URL in a browser to sign in:\n\s+(\S+)/.exec(stderr);
          if (m?.[1]) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
      });
      // The browser's part: the authorization server redirects to the loopback listener, which answers the page.
      const redirect = await fetch(signInUrl, { redirect: 'manual' });
      const location = redirect.headers.get('location') ?? '';
      expect(location).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?code=/);
      const page = await fetch(location);
      expect(page.status).toBe(200);
      expect(await exitWithin(child, 15_000)).toBe(0);
    } finally {
      stopByPid(child);
    }
    expect(stdout).toContain(`Signed in to ${rs.url()}`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { tokens: Record<string, { issuer: string; refreshToken?: string }> };
    expect(stored.tokens[rs.url()]?.issuer).toBe(as.issuer());
    expect(stored.tokens[rs.url()]?.refreshToken).toMatch(/^rt-/);

    // The token expires in 1 s: list refreshes it (a refresh_token grant with the same resource) and lists the tools.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const listed = await runCli(['list', rs.url(), '--json'], { env: { SWITCHBOARD_CREDENTIALS: file } });
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name).sort()).toEqual(['admin', 'whoami']);
    expect(as.log.tokens.map((t) => t.grant)).toContain('refresh_token');
    expect(as.log.tokens.every((t) => t.resource === rs.url())).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    // call and doctor reach the server with the same stored credentials.
    const called = await runCli(['call', rs.url(), 'whoami'], { env: { SWITCHBOARD_CREDENTIALS: file } });
    expect(called.code, called.stderr).toBe(0);
    expect(called.stdout).toContain('hello');
    // A tool the stored token's scope does not cover: the server's 403 challenge names the scope, and so does the hint.
    const refused = await runCli(['call', rs.url(), 'admin'], { env: { SWITCHBOARD_CREDENTIALS: file } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`switchboard login ${rs.url()} --scope "mcp:admin"`);
    const doctor = await runCli(['doctor', rs.url(), '--json', '--timeout-ms', '20000'], { env: { SWITCHBOARD_CREDENTIALS: file } });
    const report = JSON.parse(doctor.stdout) as { connected: boolean; server?: { name?: string } | null; findings: { id: string; message: string }[] };
    expect(report.connected).toBe(true);
    expect(report.server?.name).toBe('protected');
    // The raw probes carried the (refreshed) token too: none of them was answered 401 (a status, not the digits of a
    // port: a message naming http://127.0.0.1:40181 once failed this check).
    expect(report.findings.filter((f) => /(?<![\d:])401(?!\d)/.test(f.message))).toEqual([]);
  }, 90_000);

  it('without stored credentials, list reports the 401 with a hint to sign in', async () => {
    const listed = await runCli(['list', rs.url()], { env: { SWITCHBOARD_CREDENTIALS: join(dir, 'none.json') } });
    expect(listed.code).toBe(2);
    expect(listed.stderr).toContain('switchboard login');
  });
});

describe('oauth(): authorization servers only over https, or http on a loopback host (MCP 2025-11-25 "Communication Security")', () => {
  /** A fetch that records every URL and reaches 127.0.0.1 only (a refused host fails at once, no DNS). */
  function recordingFetch(): { fetch: (input: string | URL, init?: RequestInit) => Promise<Response>; urls: string[] } {
    const urls: string[] = [];
    return {
      urls,
      fetch: (input, init) => {
        urls.push(String(input));
        return new URL(input).hostname === '127.0.0.1' ? fetch(input, init) : Promise.reject(new TypeError('fetch failed (test: not loopback)'));
      },
    };
  }

  it('refuses protected resource metadata naming a plain-http authorization server on another host, before any request to it', async () => {
    const rs = protectedServer({ issued: new Map(), issuer: () => 'http://as.example.test' });
    await rs.start();
    const calls = recordingFetch();
    let authorized = 0;
    try {
      const auth = oauth({ fetch: calls.fetch, redirectUri: 'http://127.0.0.1:1/cb', authorize: async (request) => (authorized++, follow(request)) });
      const error = await McpClient.connect({ connector: streamableHttp({ url: rs.url(), auth }) }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuthorizationError);
      expect((error as AuthorizationError).reason).toBe('insecure_endpoint');
      expect((error as AuthorizationError).message).toContain('http://as.example.test');
      expect(calls.urls.filter((u) => u.includes('as.example.test'))).toEqual([]);
      expect(authorized).toBe(0);
    } finally {
      await rs.close();
    }
  });

  it('refuses a loopback authorization server whose metadata sends registration and tokens to plain http elsewhere', async () => {
    for (const field of ['token_endpoint', 'registration_endpoint', 'jwks_uri']) {
      const as = authorizationServer(3600, () => ({ [field]: 'http://as.example.test/endpoint' }));
      await as.start();
      const rs = protectedServer({ issued: as.issued, issuer: as.issuer });
      await rs.start();
      const calls = recordingFetch();
      try {
        const auth = oauth({ fetch: calls.fetch, redirectUri: 'http://127.0.0.1:1/cb', authorize: follow });
        const error = await McpClient.connect({ connector: streamableHttp({ url: rs.url(), auth }) }).catch((e: unknown) => e);
        expect((error as AuthorizationError).reason, field).toBe('insecure_endpoint');
        expect((error as AuthorizationError).message).toContain(field);
        expect(calls.urls.filter((u) => u.includes('as.example.test'))).toEqual([]);
        expect(as.log.registrations + as.log.authorizations.length + as.log.tokens.length).toBe(0);
      } finally {
        await stop(as.server);
        await rs.close();
      }
    }
  });

  it('never hands a file:, javascript: or remote plain-http authorization_endpoint to the authorize callback', async () => {
    for (const endpoint of ['file:///etc/passwd', 'javascript:alert(1)//', 'http://as.example.test/authorize']) {
      const as = authorizationServer(3600, () => ({ authorization_endpoint: endpoint }));
      await as.start();
      const rs = protectedServer({ issued: as.issued, issuer: as.issuer });
      await rs.start();
      const opened: string[] = [];
      try {
        const auth = oauth({ redirectUri: 'http://127.0.0.1:1/cb', authorize: ({ authorizationUrl }) => (opened.push(authorizationUrl.href), Promise.resolve('http://127.0.0.1:1/cb?error=access_denied')) });
        const error = await McpClient.connect({ connector: streamableHttp({ url: rs.url(), auth }) }).catch((e: unknown) => e);
        expect((error as AuthorizationError).reason, endpoint).toBe('insecure_endpoint');
        expect((error as AuthorizationError).message).toContain('authorization_endpoint');
        expect(opened).toEqual([]);
        expect(as.log.registrations).toBe(0);
      } finally {
        await stop(as.server);
        await rs.close();
      }
    }
  });
});
