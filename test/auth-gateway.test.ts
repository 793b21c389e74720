/**
 * The gateway's front requires auth independently of its upstream, and no client token passes through: a
 * `createProxyServer` front served by `serveHttp` with `auth` (its own verifier), before an upstream served with
 * `auth` of its own that accepts only the proxy's credential. The client's token reaches the front's verifier and
 * never the upstream's (MCP 2026-07-28 basic/authorization/index.mdx "Token Handling": servers "MUST NOT accept or
 * transit any other tokens"; security-considerations.mdx "Token Passthrough"). Over 127.0.0.1, built packages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@switchboard/jsonrpc';
import { createProxyServer, type ProxyServer } from '@switchboard/gateway';
import { McpClient, streamableHttp } from '@switchboard/mcp/client';
import type { TokenVerifier } from '@switchboard/mcp/http';
import { serveHttp, type ServeHttpHandle } from '@switchboard/mcp/node';
import { McpServer } from '@switchboard/mcp/server';

/** A verifier that accepts one token and records every token it is shown. */
function oneTokenVerifier(accepted: string, seen: string[]): TokenVerifier {
  return {
    verify: (token, request) => {
      seen.push(token);
      return token === accepted ? { token, clientId: `holder-of-${accepted}`, scopes: [], audience: [request.resource] } : { refused: 'unknown token' };
    },
  };
}

let upstream: ServeHttpHandle;
let front: ServeHttpHandle;
let proxy: ProxyServer;
const upstreamSaw: string[] = [];
const frontSaw: string[] = [];

beforeAll(async () => {
  const server = new McpServer({ name: 'upstream', version: '1.0.0' }, { logger: silentLogger });
  server.tool('whoami', {}, (_args, ctx) => ({ content: [{ type: 'text', text: (ctx.authInfo as { clientId: string }).clientId }] }));
  upstream = await serveHttp({ server, port: 0, auth: { authorizationServers: ['https://upstream-as.example'], verifier: oneTokenVerifier('proxy-credential', upstreamSaw) } });
  proxy = await createProxyServer({
    upstream: streamableHttp({ url: upstream.url, headers: { authorization: 'Bearer proxy-credential' } }),
    logger: silentLogger,
  });
  front = await serveHttp({ server: proxy, port: 0, auth: { authorizationServers: ['https://front-as.example'], verifier: oneTokenVerifier('client-token', frontSaw) } });
});

afterAll(async () => {
  await front.close({ drainMs: 0 });
  await proxy.close();
  await upstream.close({ drainMs: 0 });
});

describe('gateway front auth', () => {
  it('the front refuses a client without a token (401 naming its own metadata)', async () => {
    const response = await fetch(front.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(`resource_metadata="${new URL(front.url).origin}/.well-known/oauth-protected-resource/mcp"`);
  });

  it("the client's token stops at the front; the upstream sees only the proxy's own credential", async () => {
    for (const era of ['modern', 'legacy'] as const) {
      const client = await McpClient.connect({ connector: streamableHttp({ url: front.url, headers: { authorization: 'Bearer client-token' } }), era });
      try {
        const result = await client.callTool({ name: 'whoami', arguments: {} });
        // The upstream's handler runs as the proxy (its credential), not as the client.
        expect(result.content).toEqual([{ type: 'text', text: 'holder-of-proxy-credential' }]);
      } finally {
        await client.close();
      }
    }
    expect(frontSaw.length).toBeGreaterThan(0);
    expect(new Set(frontSaw)).toEqual(new Set(['client-token']));
    expect(upstreamSaw.length).toBeGreaterThan(0);
    expect(new Set(upstreamSaw)).toEqual(new Set(['proxy-credential']));
  });
});
