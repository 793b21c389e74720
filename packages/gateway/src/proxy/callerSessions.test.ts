/**
 * `sessionPerCaller` in process: an upstream that keeps state per session (a value remembered on its session)
 * behind the proxy, reached in memory (each connection a session of its own), the front driven by session-era
 * clients (`connectRawClient`, each a front session) and by 2026-07-28 requests carrying an authenticated identity
 * (`McpServer.handle` with `extra.authInfo`). Without the option every caller shares the one upstream session and
 * sees another's state (the first test's control); with it each caller has its own, bounded (LRU), closed when
 * idle and when its front session closes.
 */
import { describe, expect, it } from 'vitest';
import type { JsonRpcRequest } from '@switchboard/jsonrpc';
import { McpServer, type ServerSession } from '@switchboard/mcp/server';
import { connectRawClient, inMemoryConnector, type RawClient } from '@switchboard/mcp/testing';
import { createProxyServer, type ProxyServer } from '../index.js';

const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const MODERN = '2026-07-28';

/** An upstream that remembers a value per session (`set`, `get`) and counts its sessions opened and closed. */
function statefulUpstream() {
  const counts = { opened: 0, closed: 0 };
  const memory = new WeakMap<ServerSession, string>();
  const upstream = new McpServer({ name: 'stateful', version: '1.0.0' }, { revisions: ['2025-11-25'], logger: silent });
  upstream.tool('set', { inputSchema: { type: 'object', properties: { value: { type: 'string' } } } }, (args, ctx) => {
    if (ctx.session !== undefined) memory.set(ctx.session, String(args.value));
    return { content: [{ type: 'text', text: 'ok' }] };
  });
  upstream.tool('get', { inputSchema: { type: 'object' } }, (_args, ctx) => ({ content: [{ type: 'text', text: (ctx.session === undefined ? undefined : memory.get(ctx.session)) ?? '(nothing)' }] }));
  upstream.onSessionClosed(() => counts.closed++);
  const connector = inMemoryConnector(upstream);
  const counted = { ...connector, open: (options: Parameters<typeof connector.open>[0]) => (counts.opened++, connector.open(options)) };
  return { upstream, connector: counted, counts };
}

type Answer = { readonly result?: { readonly content?: ReadonlyArray<{ readonly text?: string }> }; readonly error?: { readonly code: number; readonly message: string } };
const textOf = (answer: unknown): string | undefined => (answer as Answer).result?.content?.[0]?.text;

async function legacyCaller(front: ProxyServer, sessionId: string): Promise<RawClient> {
  const client = await connectRawClient(front, { sessionId });
  await client.initialize();
  return client;
}

let ids = 0;
function modernCall(name: string, args: Record<string, unknown>): JsonRpcRequest {
  return {
    jsonrpc: '2.0',
    id: ++ids,
    method: 'tools/call',
    params: { name, arguments: args, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' } } },
  };
}
const asIdentity = (clientId: string) => ({ extra: { authInfo: { clientId, token: 't', scopes: [] } } });

describe('sessionPerCaller', () => {
  for (const perCaller of [false, true]) {
    it(`${perCaller ? 'gives each session-era caller its own upstream session' : 'off: every caller shares the one upstream session (the control)'}`, async () => {
      const { connector, counts } = statefulUpstream();
      const front = await createProxyServer({ upstream: connector, server: { logger: silent }, sessionPerCaller: perCaller });
      const a = await legacyCaller(front, 'front-a');
      const b = await legacyCaller(front, 'front-b');
      try {
        expect(textOf(await a.request(1, 'tools/call', { name: 'set', arguments: { value: 'from a' } }))).toBe('ok');
        expect(textOf(await b.request(2, 'tools/call', { name: 'get', arguments: {} }))).toBe(perCaller ? '(nothing)' : 'from a');
        expect(textOf(await a.request(3, 'tools/call', { name: 'get', arguments: {} }))).toBe('from a');
        // The shared session (the catalog), plus one per caller when enabled.
        expect(counts.opened).toBe(perCaller ? 3 : 1);
        expect(front.stats.callerSessions).toBe(perCaller ? 2 : 0);
        // A front session that closes closes its caller session upstream.
        await a.close();
        await expect.poll(() => counts.closed).toBe(perCaller ? 1 : 0);
        expect(front.stats.callerSessions).toBe(perCaller ? 1 : 0);
      } finally {
        await b.close();
        await front.close();
      }
      await expect.poll(() => counts.closed).toBe(counts.opened);
    });
  }

  it('keys 2026-07-28 requests by their authenticated identity; without one they use the shared session', async () => {
    const { connector, counts } = statefulUpstream();
    const front = await createProxyServer({ upstream: connector, server: { logger: silent }, sessionPerCaller: true });
    try {
      expect(textOf(await front.handle(modernCall('set', { value: 'alice' }), asIdentity('alice')))).toBe('ok');
      expect(textOf(await front.handle(modernCall('get', {}), asIdentity('bob')))).toBe('(nothing)');
      expect(textOf(await front.handle(modernCall('get', {}), asIdentity('alice')))).toBe('alice');
      expect(textOf(await front.handle(modernCall('set', { value: 'anonymous' })))).toBe('ok');
      expect(textOf(await front.handle(modernCall('get', {}), asIdentity('alice')))).toBe('alice');
      expect(counts.opened).toBe(3);
      expect(front.stats.callerSessions).toBe(2);
      // Two users of one OAuth client: the token's subject tells them apart.
      const user = (subject: string) => ({ extra: { authInfo: { clientId: 'host-app', subject, token: 't', scopes: [] } } });
      expect(textOf(await front.handle(modernCall('set', { value: 'carol' }), user('carol')))).toBe('ok');
      expect(textOf(await front.handle(modernCall('get', {}), user('dave')))).toBe('(nothing)');
      expect(textOf(await front.handle(modernCall('get', {}), user('carol')))).toBe('carol');
      // One subject of two issuers, or of one issuer through another client, is another caller (review 2, finding 6).
      const issued = (issuer: string, clientId = 'host-app') => ({ extra: { authInfo: { clientId, subject: 'erin', issuer, token: 't', scopes: [] } } });
      expect(textOf(await front.handle(modernCall('set', { value: 'erin-as1-secret' }), issued('https://as1.example')))).toBe('ok');
      expect(textOf(await front.handle(modernCall('get', {}), issued('https://as2.example')))).toBe('(nothing)');
      expect(textOf(await front.handle(modernCall('get', {}), issued('https://as1.example', 'evil-app')))).toBe('(nothing)');
      expect(textOf(await front.handle(modernCall('get', {}), issued('https://as1.example')))).toBe('erin-as1-secret');
    } finally {
      await front.close();
    }
  });

  it('is bounded: past maxSessions the least recently used idle session is closed; idle ones close after idleTimeoutMs', async () => {
    const { connector, counts } = statefulUpstream();
    const front = await createProxyServer({ upstream: connector, server: { logger: silent }, sessionPerCaller: { maxSessions: 2, idleTimeoutMs: 500 } });
    try {
      for (const who of ['a', 'b']) await front.handle(modernCall('set', { value: who }), asIdentity(who));
      // `a` used last: `b` is the least recently used.
      expect(textOf(await front.handle(modernCall('get', {}), asIdentity('a')))).toBe('a');
      expect(textOf(await front.handle(modernCall('get', {}), asIdentity('c')))).toBe('(nothing)');
      expect(front.stats.callerSessions).toBe(2);
      await expect.poll(() => counts.closed).toBe(1);
      // `a` kept its session (and its state); `b` comes back to a new one.
      expect(textOf(await front.handle(modernCall('get', {}), asIdentity('a')))).toBe('a');
      expect(textOf(await front.handle(modernCall('get', {}), asIdentity('b')))).toBe('(nothing)');
      // Idle past 500 ms: every caller session is closed; the shared one stays.
      await expect.poll(() => front.stats.callerSessions, { timeout: 5_000 }).toBe(0);
      expect(counts.closed).toBe(counts.opened - 1);
    } finally {
      await front.close();
    }
  });

  it('refuses bad bounds and an McpClient upstream without a connector for the callers', async () => {
    const { connector } = statefulUpstream();
    await expect(createProxyServer({ upstream: connector, server: { logger: silent }, sessionPerCaller: { maxSessions: 0 } })).rejects.toThrow(/sessionPerCaller.maxSessions/);
    const shared = await createProxyServer({ upstream: connector, server: { logger: silent } });
    try {
      await expect(createProxyServer({ upstream: shared.upstream, server: { logger: silent }, sessionPerCaller: true })).rejects.toThrow(TypeError);
    } finally {
      await shared.close();
    }
  });
});
