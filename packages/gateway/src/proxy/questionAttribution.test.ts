/**
 * Which front request an upstream question goes to when the upstream session is shared by several callers. Over
 * Streamable HTTP the upstream's question comes on the stream of the POST that carried the request that asked, so
 * it is attributed exactly (the client hands the call back as `InputContext.requestTag`): callers that would be
 * refused as ambiguous over stdio (proxyServer.test.ts) each get their own question. A question related to a
 * request that has ended on the front is refused, never passed to whoever is in flight.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CancellationSource, type JsonRpcRequest } from '@switchboard/jsonrpc';
import { streamableHttp } from '@switchboard/mcp/client';
import { connectRawClient } from '@switchboard/mcp/testing';
import { serveHttp, type ServeHttpHandle } from '@switchboard/mcp/node';
import { McpServer, type RequestContext } from '@switchboard/mcp/server';
import { createProxyServer } from '../index.js';
import { Forwarder } from './forward.js';
import { LiveCall } from './frontCall.js';
import type { CallerSessions, UpstreamSession } from './callerSessions.js';

const MODERN = '2026-07-28';
const TAGS = ['a', 'b', 'c'] as const;
const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

let ids = 0;
function modernCall(tag: string, extra: Record<string, unknown> = {}): JsonRpcRequest {
  return {
    jsonrpc: '2.0',
    id: ++ids,
    method: 'tools/call',
    params: {
      name: 'asktag',
      arguments: { tag },
      ...extra,
      _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} }, 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' } },
    },
  };
}

let upstream: McpServer;
let http: ServeHttpHandle;

beforeEach(async () => {
  upstream = new McpServer({ name: 'old-server', version: '1.0.0' }, { revisions: ['2025-11-25'], logger: silent, capabilities: { tools: {}, logging: {} } });
  // Every call asks only once all three are in flight upstream, so three callers' requests are outstanding on the
  // one upstream session whenever a question arrives.
  let arrived = 0;
  let release: () => void = () => {};
  const allIn = new Promise<void>((resolve) => (release = resolve));
  upstream.tool('asktag', { inputSchema: { type: 'object', properties: { tag: { type: 'string' } } } }, async (args: Record<string, unknown>, ctx: RequestContext) => {
    if (++arrived === TAGS.length) release();
    await allIn;
    await ctx.log('info', `log of ${String(args.tag)}`);
    const answer = await ctx.elicit({ message: `question of ${String(args.tag)}`, requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return { content: [{ type: 'text', text: `${String(args.tag)} got ${String((answer.content as { name?: string } | undefined)?.name)}` }] };
  });
  http = await serveHttp({ server: upstream, port: 0, logger: silent });
});

afterEach(async () => {
  await http.close({ drainMs: 0 });
  await upstream.close();
});

describe('upstream questions over Streamable HTTP', () => {
  it('three anonymous 2026-07-28 callers on one shared upstream session each get their own question, none refused', async () => {
    const front = await createProxyServer({ upstream: streamableHttp({ url: http.url }), server: { logger: silent }, logger: silent });
    try {
      const firsts = (await Promise.all(TAGS.map((tag) => front.handle(modernCall(tag))))) as Array<{ result: { resultType: string; inputRequests: Record<string, { params: { message: string } }>; requestState: string } }>;
      firsts.forEach((first, i) => {
        expect(first.result.resultType).toBe('input_required');
        expect(first.result.inputRequests['upstream-0']?.params.message).toBe(`question of ${TAGS[i]}`);
      });
      const retries = await Promise.all(
        TAGS.map((tag, i) => front.handle(modernCall(tag, { inputResponses: { 'upstream-0': { action: 'accept', content: { name: `name-${tag}` } } }, requestState: firsts[i]?.result.requestState }))),
      );
      expect(retries.map((r) => (r as { result: { content: Array<{ text: string }> } }).result.content[0]?.text)).toEqual(['a got name-a', 'b got name-b', 'c got name-c']);
      expect(front.stats).toMatchObject({ inFlight: 0, held: 0 });
    } finally {
      await front.close();
    }
  });

  it('three 2025-11-25 front sessions on one shared upstream session: each gets its own question and its own log, none another\'s', async () => {
    const front = await createProxyServer({ upstream: streamableHttp({ url: http.url }), server: { logger: silent }, logger: silent });
    const clients = await Promise.all(TAGS.map(() => connectRawClient(front)));
    try {
      await Promise.all(clients.map((client) => client.initialize({ capabilities: { elicitation: {} } })));
      const calls = clients.map((client, i) => client.request(1, 'tools/call', { name: 'asktag', arguments: { tag: TAGS[i] } }));
      await Promise.all(
        clients.map(async (client, i) => {
          const question = (await client.waitFor((m) => 'method' in m && m.method === 'elicitation/create')) as JsonRpcRequest;
          expect((question.params as { message: string }).message).toBe(`question of ${TAGS[i]}`);
          await client.send({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: `name-${TAGS[i]}` } } });
        }),
      );
      const results = (await Promise.all(calls)) as Array<{ result: { content: Array<{ text: string }> } }>;
      expect(results.map((r) => r.result.content[0]?.text)).toEqual(['a got name-a', 'b got name-b', 'c got name-c']);
      clients.forEach((client, i) => {
        const logs = client.received.filter((m) => 'method' in m && m.method === 'notifications/message').map((m) => (m as unknown as { params: { data: unknown } }).params.data);
        expect(logs).toEqual([`log of ${TAGS[i]}`]);
      });
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await front.close();
    }
  });
});

describe('Forwarder.question with a related request', () => {
  it('a question related to a front request that has ended is refused, not given to another', async () => {
    const forward = new Forwarder({ maxHeld: 1, holdTimeoutMs: 1000, logger: silent, sessions: {} as CallerSessions });
    const cancelled = new CancellationSource();
    cancelled.cancel();
    const ended = new LiveCall({ cancellation: cancelled, clientCapabilities: { elicitation: {} } } as unknown as RequestContext, { key: undefined } as UpstreamSession);
    // Another front request of the same upstream session is in flight: it must not get the question.
    const other = new LiveCall({ cancellation: new CancellationSource(), clientCapabilities: { elicitation: {} }, elicit: () => Promise.reject(new Error('asked the wrong request')) } as unknown as RequestContext, { key: undefined } as UpstreamSession);
    forward.inFlight.add(other);
    await expect(forward.question({ method: 'elicitation/create', params: {}, signal: new AbortController().signal }, undefined, ended)).rejects.toThrow(/belongs to has ended on the proxy's front/);
  });
});
