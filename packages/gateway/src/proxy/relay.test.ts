/**
 * The raw relay (relay.ts) in process: a session-based upstream's requests go out under the relay's own ids (the
 * upstream sees them), a 2026-07-28 upstream's through the client; progress, a front cancellation and the upstream
 * channel's end are carried as the client carries them, and after that end the client reconnects and the relay
 * takes the new channel. (Errors and the client's timeout through the relay: failures.test.ts; questions:
 * proxyServer.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import type { JsonRpcNotification } from '@switchboard/jsonrpc';
import type { CallToolResult, ProtocolRevision } from '@switchboard/mcp';
import { McpServer } from '@switchboard/mcp/server';
import { connectRawClient, inMemoryConnector } from '@switchboard/mcp/testing';
import { createProxyServer } from '../index.js';

const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
type Answer = { readonly result?: { readonly content?: ReadonlyArray<{ readonly text?: string }> }; readonly error?: { readonly code: number; readonly message: string } };
const textOf = (answer: unknown): string | undefined => (answer as Answer).result?.content?.[0]?.text;

function upstream(revisions: readonly ProtocolRevision[], seen: { aborted?: unknown } = {}) {
  const server = new McpServer({ name: 'up', version: '1' }, { revisions: [...revisions], logger: silent });
  server.tool('id', {}, (_args, ctx) => ({ content: [{ type: 'text', text: String(ctx.requestId) }] }));
  server.tool('steps', {}, async (_args, ctx) => {
    for (let i = 1; i <= 3; i++) await ctx.progress(i, 3, `step ${i}`);
    return { content: [{ type: 'text', text: 'done' }] };
  });
  server.tool('wait', {}, (_args, ctx) =>
    new Promise<CallToolResult>((resolve) => {
      ctx.signal.addEventListener('abort', () => {
        seen.aborted = ctx.signal.reason;
        resolve({ content: [{ type: 'text', text: 'aborted' }] });
      });
    }),
  );
  server.tool('hang-up', {}, async (_args, ctx) => {
    await ctx.session?.close();
    return { content: [] };
  });
  return server;
}

describe('the raw relay', () => {
  it('a session-based upstream gets the relay\'s ids; a 2026-07-28 upstream the client\'s', async () => {
    for (const [revisions, relayed] of [[['2025-11-25'], true], [['2026-07-28'], false]] as const) {
      const front = await createProxyServer({ upstream: inMemoryConnector(upstream(revisions)), server: { logger: silent } });
      const client = await connectRawClient(front);
      try {
        await client.initialize();
        const id = textOf(await client.request(1, 'tools/call', { name: 'id', arguments: {} }));
        expect(id?.startsWith('relay-')).toBe(relayed);
      } finally {
        await client.close();
        await front.close();
      }
    }
  });

  it('carries progress to the front request and a front cancellation to the upstream', async () => {
    const seen: { aborted?: unknown } = {};
    const front = await createProxyServer({ upstream: inMemoryConnector(upstream(['2025-11-25'], seen)), server: { logger: silent } });
    const client = await connectRawClient(front);
    try {
      await client.initialize();
      const answer = await client.request(2, 'tools/call', { name: 'steps', arguments: {}, _meta: { progressToken: 'p' } });
      expect(textOf(answer)).toBe('done');
      const progress = client.received.filter((m): m is JsonRpcNotification => 'method' in m && m.method === 'notifications/progress').map((m) => m.params);
      expect(progress).toEqual([1, 2, 3].map((i) => ({ progressToken: 'p', progress: i, total: 3, message: `step ${i}` })));
      void client.request(3, 'tools/call', { name: 'wait', arguments: {} }).catch(() => {});
      await expect.poll(() => front.stats.inFlight).toBe(1);
      await client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'changed my mind' } });
      await expect.poll(() => seen.aborted).toBeDefined();
      await expect.poll(() => front.stats.inFlight).toBe(0);
    } finally {
      await client.close();
      await front.close();
    }
  });

  it('the upstream channel ends under a call: the call fails, the client reconnects, and the relay takes the new channel', async () => {
    const front = await createProxyServer({ upstream: inMemoryConnector(upstream(['2025-11-25'])), server: { logger: silent } });
    const client = await connectRawClient(front);
    try {
      await client.initialize();
      const hungUp = (await client.request(4, 'tools/call', { name: 'hang-up', arguments: {} })) as Answer;
      expect(hungUp.error?.code ?? (hungUp.result as { isError?: boolean } | undefined)?.isError).toBeTruthy();
      // The next call goes through the client (it reconnects), the one after through the relay again.
      expect(textOf(await client.request(5, 'tools/call', { name: 'id', arguments: {} }))?.startsWith('relay-')).toBe(false);
      expect(textOf(await client.request(6, 'tools/call', { name: 'id', arguments: {} }))?.startsWith('relay-')).toBe(true);
    } finally {
      await client.close();
      await front.close();
    }
  });
});
