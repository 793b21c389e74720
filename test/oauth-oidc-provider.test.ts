/**
 * Our OAuth client against a real authorization server: `oidc-provider` (panva, a certified OpenID Provider) run in
 * process on 127.0.0.1 with dynamic registration, PKCE required, RFC 8707 resource indicators issuing JWT access
 * tokens for the MCP server, refresh tokens, and its development login and consent pages, which an HTTP client fills
 * in here (no browser). The MCP server is a real Switchboard server behind a bearer check that verifies the JWT
 * against the provider's JWKS and its audience, and answers a per-tool 403 `insufficient_scope`.
 *
 * `oidc-provider` is a dev dependency of the resource-server work (branch h/rs); where it is not installed this file
 * skips. It was run with it installed on 2026-12-02 (oidc-provider 9.13.3).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpClient, oauth, streamableHttp, type OAuthAuthorizeRequest } from '@switchboard/mcp/client';
import { createMcpHttpHandler } from '@switchboard/mcp/http';
import { McpServer } from '@switchboard/mcp/server';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAtOidcProvider } from './helpers/oidcUserAgent.js';
import { exitWithin, runCli, stopByPid } from './helpers/process.js';

type ProviderClass = new (issuer: string, config: Record<string, unknown>) => { callback(): (req: unknown, res: unknown) => void; proxy: boolean };
const PROVIDER_MODULE = 'oidc-provider';
const provider = (await import(PROVIDER_MODULE).catch(() => undefined)) as { default: ProviderClass } | undefined;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The user-agent step as an `authorize` callback (the shared helper: oidc-provider's development forms, user alice). */
const signInAsAlice = ({ authorizationUrl, redirectUri }: OAuthAuthorizeRequest): Promise<string> => signInAtOidcProvider(authorizationUrl, redirectUri);

describe.skipIf(provider === undefined)('oauth() against oidc-provider (a real authorization server)', () => {
  const asServer = createServer();
  const front = createServer();
  const mcp = new McpServer({ name: 'protected', version: '1.0.0' });
  mcp.tool('whoami', { inputSchema: { type: 'object' } }, () => ({ content: [{ type: 'text', text: 'hello' }] }));
  mcp.tool('admin', { inputSchema: { type: 'object' } }, () => ({ content: [{ type: 'text', text: 'admin done' }] }));
  const handler = createMcpHttpHandler({ server: mcp });
  const grants: string[] = [];
  const scopesSeen: string[] = [];
  let issuer = '';
  let base = '';

  beforeAll(async () => {
    issuer = await listen(asServer);
    base = await listen(front);
    const resource = `${base}/mcp`;
    const Provider = provider!.default;
    const op = new Provider(issuer, {
      features: {
        registration: { enabled: true },
        devInteractions: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => resource,
          useGrantedResource: () => true,
          // A 20 s lifetime: the client refreshes before each request (it refreshes 30 s ahead of expiry), and no token
          // expires between its grant and its use on a loaded machine (with 1 s ones, a stepped-up token sometimes
          // did, and the sign-in that followed made a third authorization_code grant).
          getResourceServerInfo: (_ctx: unknown, audience: string) => ({ scope: 'mcp:tools mcp:admin', audience, accessTokenFormat: 'jwt', accessTokenTTL: 20 }),
        },
      },
      scopes: ['openid', 'offline_access', 'mcp:tools', 'mcp:admin'],
      pkce: { required: () => true },
      issueRefreshToken: () => true,
      clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none' },
    });
    asServer.on('request', op.callback());
    const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
    const prm = `${base}/.well-known/oauth-protected-resource/mcp`;
    front.on('request', (req, res) => {
      void (async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const body = Buffer.concat(chunks);
        const url = new URL(req.url ?? '/', base);
        if (url.pathname === '/.well-known/oauth-protected-resource/mcp') {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ resource, authorization_servers: [issuer], scopes_supported: ['mcp:tools'] }));
          return;
        }
        let scope: string[] | undefined;
        const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        if (token !== undefined) {
          try {
            const { payload } = await jwtVerify(token, jwks, { issuer, audience: resource });
            scope = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
          } catch {
            scope = undefined;
          }
        }
        if (scope === undefined) {
          res.writeHead(401, { 'WWW-Authenticate': `Bearer resource_metadata="${prm}", scope="mcp:tools"` }).end();
          return;
        }
        scopesSeen.push(scope.join(' '));
        const message = req.method === 'POST' ? (JSON.parse(body.toString('utf8')) as { method?: string; params?: { name?: string } }) : {};
        if (message.method === 'tools/call' && message.params?.name === 'admin' && !scope.includes('mcp:admin')) {
          res.writeHead(403, { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="mcp:admin", resource_metadata="${prm}"` }).end();
          return;
        }
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
        const answer = await handler.fetch(new Request(url, { method: req.method!, headers, ...(req.method === 'POST' ? { body } : {}) }));
        const out: Record<string, string> = {};
        answer.headers.forEach((value, name) => {
          out[name] = value;
        });
        res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
      })();
    });
  });
  afterAll(async () => {
    for (const server of [asServer, front]) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await handler.close();
  });

  it('signs in (registration, PKCE, resource: a JWT for this server), refreshes, and steps up to mcp:admin on a 403', async () => {
    const observed: typeof fetch = async (input, init) => {
      const target = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (target.endsWith('/token')) grants.push(new URLSearchParams(typeof init?.body === 'string' ? init.body : '').get('grant_type') ?? '');
      return fetch(input, init);
    };
    // The provider's tokens live 20 s: with a 30 s margin the first is refreshed before its first use.
    const auth = oauth({ redirectUri: 'http://127.0.0.1:9/callback', refreshMarginMs: 30_000, authorize: signInAsAlice, fetch: observed });
    await auth.signIn(`${base}/mcp`);
    const client = await McpClient.connect({ connector: streamableHttp({ url: `${base}/mcp`, auth }), clientInfo: { name: 't', version: '1' } });
    try {
      expect(client.era).toBe('modern');
      expect((await client.listAllTools()).map((t) => t.name).sort()).toEqual(['admin', 'whoami']);
      expect(grants).toContain('refresh_token');
      expect((await client.callTool({ name: 'admin', arguments: {} })).content).toEqual([{ type: 'text', text: 'admin done' }]);
      expect(grants.filter((g) => g === 'authorization_code')).toHaveLength(2);
      expect(scopesSeen.at(-1)?.split(' ').sort()).toEqual(['mcp:admin', 'mcp:tools']);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('switchboard login --no-browser signs in at oidc-provider; list then uses the stored tokens (mode 0600)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-oidc-'));
    const file = join(dir, 'credentials.json');
    const bin = new URL('../packages/cli/bin/switchboard.js', import.meta.url).pathname;
    const child = spawn(process.execPath, [bin, 'login', `${base}/mcp`, '--no-browser', '--timeout-ms', '30000'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', SWITCHBOARD_CREDENTIALS: file } });
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
      const redirectUri = authorizationUrl.searchParams.get('redirect_uri') ?? '';
      expect(redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      const back = await signInAsAlice({ authorizationUrl, redirectUri, state: '', resource: '' });
      expect((await fetch(back)).status).toBe(200);
      expect(await exitWithin(child, 20_000)).toBe(0);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const stored = JSON.parse(readFileSync(file, 'utf8')) as { tokens: Record<string, { issuer: string }> };
      expect(stored.tokens[`${base}/mcp`]?.issuer).toBe(issuer);
      const listed = await runCli(['list', `${base}/mcp`, '--json'], { env: { SWITCHBOARD_CREDENTIALS: file } });
      expect(listed.code, listed.stderr).toBe(0);
      expect((JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name).sort()).toEqual(['admin', 'whoami']);
    } finally {
      stopByPid(child);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
