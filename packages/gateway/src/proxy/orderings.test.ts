/**
 * The proxy's promises under every ordering fast-check can find: a session-based upstream `McpServer` in memory whose
 * `work` tool finishes when the scheduler says, behind `createProxyServer`, driven at once by a 2025-11-25 session
 * (`connectRawClient`: calls and `notifications/cancelled`) and by 2026-07-28 requests (`McpServer.handle`, aborted by
 * their signal as an HTTP client that leaves), while the upstream may die (its channel dropped) between any two steps.
 *
 * What must hold in every ordering (JSON-RPC 2.0 §4, §5; MCP 2025-11-25 basic/utilities/cancellation.mdx):
 * - every front request is answered once, with its own call's result or an error (a call the upstream's end cut
 *   short: a tool error in the proxy's words, none of the upstream's stderr); a cancelled one at most once, an
 *   aborted 2026-07-28 one resolves (its answer, or none);
 * - a front cancel or abort reaches the upstream call it started, when that call is still running there;
 * - once everything has ended, nothing is left in flight or held in the proxy.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonRpcMessage, JsonRpcRequest } from '@switchboard/jsonrpc';
import { McpServer, type RequestContext } from '@switchboard/mcp/server';
import { connectRawClient, inMemoryConnector } from '@switchboard/mcp/testing';
import { createProxyServer } from '../index.js';

const LEGACY_ONLY = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

type Command =
  | { readonly kind: 'legacyCall' }
  | { readonly kind: 'legacyCancel' }
  | { readonly kind: 'modernCall' }
  | { readonly kind: 'modernAbort' }
  | { readonly kind: 'drop' };

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'legacyCall' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'legacyCancel' as const }) },
  { weight: 4, arbitrary: fc.constant({ kind: 'modernCall' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'modernAbort' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'drop' as const }) },
);

function modernCall(id: number, n: number): JsonRpcRequest {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'work',
      arguments: { n },
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' } },
    },
  };
}

/** What the front said to one call, as the invariants read it. */
interface FrontCall {
  readonly n: number;
  readonly era: 'legacy' | 'modern';
  /** A legacy `notifications/cancelled` sent, or a 2026-07-28 request's signal aborted. */
  cancelled: boolean;
  /** When the cancel went out, whether the upstream call was running (started, not ended). */
  runningAtCancel: boolean;
  answers: number;
  text?: string;
  /** A tool error result (`isError`), or a JSON-RPC error's code. */
  isError?: boolean;
  error?: number;
}

async function run(commands: readonly Command[], s: fc.Scheduler): Promise<{ calls: FrontCall[]; upstreamAborted: Set<number>; unsettled: string[]; stats: Record<string, number> }> {
  const running = new Set<number>();
  const upstreamAborted = new Set<number>();
  const upstream = new McpServer({ name: 'old-server', version: '1.0.0' }, { revisions: [...LEGACY_ONLY], logger: silent });
  upstream.tool('work', { inputSchema: { type: 'object', properties: { n: { type: 'number' } } } }, async (args: Record<string, unknown>, ctx: RequestContext) => {
    const n = Number(args.n);
    running.add(n);
    ctx.signal.addEventListener('abort', () => upstreamAborted.add(n));
    try {
      await s.schedule(Promise.resolve(), `work ${n} ends`);
      return { content: [{ type: 'text', text: `done ${n}` }] };
    } finally {
      running.delete(n);
    }
  });
  const connector = inMemoryConnector(upstream);
  const front = await createProxyServer({ upstream: connector, server: { logger: silent } });
  const legacy = await connectRawClient(front);
  await legacy.initialize();

  const calls: FrontCall[] = [];
  const unsettled = new Map<string, Promise<unknown>>();
  const track = (label: string, work: Promise<unknown>): void => {
    unsettled.set(label, work);
    void work.finally(() => unsettled.delete(label));
  };
  const legacyCalls = new Map<number, FrontCall>();
  legacy.transport.onmessage = ((original) => (inbound, extra) => {
    original?.(inbound, extra);
    if (inbound.kind === 'batch' || inbound.kind === 'invalid') return;
    const message = inbound.message as JsonRpcMessage & { id?: unknown; result?: { isError?: boolean; content?: { text?: string }[] }; error?: { code: number } };
    if ('method' in message || typeof message.id !== 'number') return;
    const call = legacyCalls.get(message.id);
    if (call === undefined) return;
    call.answers++;
    call.text = message.result?.content?.[0]?.text;
    call.isError = message.result?.isError;
    call.error = message.error?.code;
  })(legacy.transport.onmessage);
  const aborts = new Map<number, AbortController>();
  let chain: Promise<unknown> = Promise.resolve();
  commands.forEach((c, index) => {
    const n = index + 1;
    chain = chain.then(() => s.schedule(Promise.resolve(), `command ${index}: ${c.kind}`)).then(() => {
      switch (c.kind) {
        case 'legacyCall': {
          const call: FrontCall = { n, era: 'legacy', cancelled: false, runningAtCancel: false, answers: 0 };
          calls.push(call);
          legacyCalls.set(n, call);
          void legacy.send({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'work', arguments: { n } } });
          break;
        }
        case 'legacyCancel': {
          const call = [...legacyCalls.values()].reverse().find((f) => !f.cancelled && f.answers === 0);
          if (call === undefined) break;
          call.cancelled = true;
          call.runningAtCancel = running.has(call.n);
          void legacy.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: call.n, reason: 'the user moved on' } });
          break;
        }
        case 'modernCall': {
          const call: FrontCall = { n, era: 'modern', cancelled: false, runningAtCancel: false, answers: 0 };
          calls.push(call);
          const abort = new AbortController();
          aborts.set(n, abort);
          track(
            `modern call ${n}`,
            front.handle(modernCall(n, n), { signal: abort.signal }).then((answer) => {
              if (answer === undefined) return;
              call.answers++;
              const result = answer as { result?: { isError?: boolean; content?: { text?: string }[] }; error?: { code: number } };
              call.text = result.result?.content?.[0]?.text;
              call.isError = result.result?.isError;
              call.error = result.error?.code;
            }),
          );
          break;
        }
        case 'modernAbort': {
          const call = [...calls].reverse().find((f) => f.era === 'modern' && !f.cancelled && f.answers === 0);
          if (call === undefined) break;
          call.cancelled = true;
          call.runningAtCancel = running.has(call.n);
          aborts.get(call.n)?.abort(new Error('the client left'));
          break;
        }
        case 'drop':
          // A stdio upstream's last stderr line is the operator's, never the front's to say.
          track(`drop ${index}`, connector.drop({ reason: 'the upstream went away', stderrTail: ['token=hunter2'] }));
          break;
      }
    });
  });
  track('the commands', chain);
  // Legacy calls end with their answer (or, cancelled, may never be answered): waited for below with the rest.
  const legacyOpen = (): boolean => [...legacyCalls.values()].some((f) => f.answers === 0 && !f.cancelled);
  for (let idle = Date.now(); (unsettled.size > 0 || legacyOpen() || s.count() > 0) && Date.now() - idle < 2000; ) {
    if (s.count() > 0) {
      await s.waitNext(1);
      idle = Date.now();
    } else await new Promise((resolve) => setImmediate(resolve));
  }
  // A few turns more, for answers to cancelled calls still on their way.
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  const stats = { ...front.stats };
  await legacy.close();
  await front.close();
  const open = [...unsettled.keys(), ...[...legacyCalls.values()].filter((f) => f.answers === 0 && !f.cancelled).map((f) => `legacy call ${f.n} unanswered`)];
  return { calls, upstreamAborted, unsettled: open, stats };
}

describe('createProxyServer: calls, cancels and a dying upstream in any order', () => {
  it('answers every front request once, passes every cancel on, and ends with nothing in flight', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 10 }), fc.scheduler(), async (commands, s) => {
        const { calls, upstreamAborted, unsettled, stats } = await run(commands, s);
        expect(unsettled, 'everything started has ended').toEqual([]);
        for (const call of calls) {
          expect(call.answers, `${call.era} call ${call.n}: answers`).toBeLessThanOrEqual(1);
          if (!call.cancelled) expect(call.answers, `${call.era} call ${call.n}: answered`).toBe(1);
          // A tools/call failure is a tool result (isError), never a JSON-RPC error here.
          expect(call.error, `${call.era} call ${call.n}: a JSON-RPC error`).toBeUndefined();
          if (call.answers === 1 && call.isError !== true) expect(call.text, `${call.era} call ${call.n}: its own result`).toBe(`done ${call.n}`);
          // A call the upstream's end cut short says so in the proxy's own words.
          if (call.isError === true) expect(call.text, `${call.era} call ${call.n}: its failure`).toBe('The upstream server is unavailable: its connection ended');
          if (call.cancelled && call.runningAtCancel) expect(upstreamAborted.has(call.n), `${call.era} call ${call.n}: the cancel reached the upstream`).toBe(true);
        }
        expect(stats.inFlight, 'front requests in flight at the end').toBe(0);
        expect(stats.held, 'upstream requests held at the end').toBe(0);
      }),
      { numRuns: Number(process.env.PROXY_PROPERTY_RUNS ?? 300) },
    );
  }, 120_000);
});
