/**
 * A Client ID Metadata Document (CIMD: the client id is an https URL) end to end, no mock: a test CA and a
 * certificate for 127.0.0.1 made at test time (`openssl`), the document served over HTTPS with it, `oidc-provider`
 * run in process with CIMD on and dynamic registration off, trusting that CA through its own `fetch` option only
 * (not the process: a plain `fetch` of the document fails), a Switchboard server protected by `auth: { jwtVerifier }`,
 * and our client signing in with `oauth({ clientMetadataUrl })`. Skips where `openssl` is not on the PATH.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { request as httpsRequest, createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@switchboard/jsonrpc';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryEraVerdictStore, InMemoryOAuthStore, McpClient, oauth, streamableHttp } from '../packages/mcp/src/client/index.js';
import type { AuthInfo } from '../packages/mcp/src/index.js';
import { McpServer } from '../packages/mcp/src/server/index.js';
import { createMcpHttpHandler, jwtVerifier, type McpHttpHandler } from '../packages/mcp/src/transports/http/index.js';
import { toNodeListener } from '../packages/mcp/src/transports/node/index.js';
import { signInAtOidcProvider } from './helpers/oidcUserAgent.js';
import { hasOpenssl, makeTestPki } from './helpers/testPki.js';

/**
 * The authorization server's `fetch` (its `fetch` configuration option): `node:https` trusting the test CA, for this
 * process's provider only. It stands in for oidc-provider's own SSRF-guarded dispatcher, which refuses loopback.
 */
function fetchTrusting(ca: string): (url: string | URL, options: { method?: string; headers?: Headers; signal?: AbortSignal }) => Promise<Response> {
  return (url, options) =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = {};
      options.headers?.forEach((value, name) => {
        headers[name] = value;
      });
      const req = httpsRequest(url, { method: options.method ?? 'GET', headers, ca, ...(options.signal === undefined ? {} : { signal: options.signal }) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const out = new Headers();
          for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') out.set(name, value);
          resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 500, headers: out }));
        });
      });
      req.on('error', reject);
      req.end();
    });
}

async function listen(server: Server | HttpsServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe.skipIf(!hasOpenssl)('CIMD over HTTPS (a test CA) with oidc-provider, our client and our protected server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-cimd-'));
  const asServer = createServer();
  const front = createServer();
  let documentServer: HttpsServer;
  let handler: McpHttpHandler;
  let issuer = '';
  let resource = '';
  let clientMetadataUrl = '';
  const REDIRECT = 'http://127.0.0.1:9/callback';
  /** The client ids oidc-provider was asked to resolve by fetching a document. */
  const documentFetches: string[] = [];

  beforeAll(async () => {
    const pki = makeTestPki(dir);
    documentServer = createHttpsServer({ key: pki.key, cert: pki.cert });
    clientMetadataUrl = `https://127.0.0.1:${await listen(documentServer)}/oauth/client.json`;
    documentServer.on('request', (req, res) => {
      documentFetches.push(req.url ?? '');
      if (req.url !== '/oauth/client.json') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
        client_id: clientMetadataUrl,
        client_name: 'switchboard e2e (CIMD)',
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        application_type: 'native',
      }));
    });
    issuer = `http://127.0.0.1:${await listen(asServer)}`;
    resource = `http://127.0.0.1:${await listen(front)}/mcp`;
    const provider = new Provider(issuer, {
      features: {
        registration: { enabled: false },
        devInteractions: { enabled: true },
        clientIdMetadataDocument: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => resource,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, audience: string) => ({ scope: 'notes:read', audience, accessTokenFormat: 'jwt', accessTokenTTL: 300 }),
        },
      },
      scopes: ['openid', 'offline_access', 'notes:read'],
      pkce: { required: () => true },
      issueRefreshToken: () => true,
      fetch: fetchTrusting(pki.ca),
    });
    asServer.on('request', provider.callback());
    const server = new McpServer({ name: 'notes', version: '1.0.0' }, { logger: silentLogger });
    server.tool('whoami', { inputSchema: { type: 'object' } }, (_args, ctx) => {
      const info = ctx.authInfo as AuthInfo | undefined;
      return { content: [{ type: 'text', text: `${String(info?.subject)} via ${String(info?.clientId)}` }] };
    });
    handler = createMcpHttpHandler({ server, auth: { resource, authorizationServers: [issuer], scopesSupported: ['notes:read'], verifier: jwtVerifier({ issuer }) } });
    front.on('request', toNodeListener(handler));
  });

  afterAll(async () => {
    await handler.close();
    for (const server of [asServer, front, documentServer]) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('the CA is trusted by the authorization server only: a plain fetch of the document fails certificate checks', async () => {
    await expect(fetch(clientMetadataUrl)).rejects.toThrow();
    const metadata = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(metadata.client_id_metadata_document_supported).toBe(true);
    expect(metadata.registration_endpoint).toBeUndefined();
  });

  for (const era of ['modern', 'legacy'] as const) {
    it(`${era}: oauth({ clientMetadataUrl }) signs in with the URL as client_id (no registration) and calls a tool`, async () => {
      const store = new InMemoryOAuthStore();
      const clientIds: string[] = [];
      const auth = oauth({
        redirectUri: REDIRECT,
        clientMetadataUrl,
        store,
        authorize: async ({ authorizationUrl, redirectUri }) => {
          clientIds.push(authorizationUrl.searchParams.get('client_id') ?? '');
          return signInAtOidcProvider(authorizationUrl, redirectUri);
        },
      });
      await auth.signIn(resource);
      expect(clientIds).toEqual([clientMetadataUrl]);
      expect(documentFetches).toContain('/oauth/client.json');
      const client = await McpClient.connect({ connector: streamableHttp({ url: resource, auth }), era, verdictStore: new InMemoryEraVerdictStore(), clientInfo: { name: 't', version: '1' } });
      try {
        expect((await client.callTool({ name: 'whoami', arguments: {} })).content).toEqual([{ type: 'text', text: `alice via ${clientMetadataUrl}` }]);
      } finally {
        await client.close();
      }
    }, 60_000);
  }
});
