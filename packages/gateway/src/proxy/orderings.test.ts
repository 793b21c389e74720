/**
 * The proxy's promises under every ordering fast-check can find: a session-based upstream `McpServer` in memory whose
 * `work` tool finishes when the scheduler says, and may first ask its caller a question (`elicitation/create`), behind
 * `createProxyServer`, driven at once by a 2025-11-25 session (`connectRawClient`: calls, `notifications/cancelled`,
 * answers to the questions it is asked) and by 2026-07-28 requests (`McpServer.handle`, aborted by their signal as an
 * HTTP client that leaves; an `input_required` answer retried with `inputResponses`, or never, as a client that gives
 * up between rounds), while the upstream may die (its channel dropped) between any two steps.
 *
 * What must hold in every ordering (JSON-RPC 2.0 §4, §5; MCP 2025-11-25 basic/utilities/cancellation.mdx,
 * client/elicitation.mdx; MCP 2026-07-28 basic/patterns/mrtr.mdx):
 * - every front call ends with one final answer: its own result (with its own question's answer), its question
 *   refused (the upstream's tool says so), or a failure in the proxy's words (none of the upstream's stderr); a
 *   cancelled or abandoned one at most one;
 * - a question reaches only the caller whose call asked it: the session's client for its calls, a 2026-07-28
 *   request's `input_required` for its own;
 * - a front cancel or abort reaches the upstream call it started, when that call is still running there;
 * - once everything has ended, nothing is left in flight or held in the proxy, and no upstream call still runs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonRpcMessage, JsonRpcRequest } from '@switchboard/jsonrpc';
import { McpServer, type RequestContext } from '@switchboard/mcp/server';
import { connectRawClient, inMemoryConnector } from '@switchboard/mcp/testing';
import { createProxyServer } from '../index.js';

const LEGACY_ONLY = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** Orderings tried (`PROXY_PROPERTY_RUNS`). */
const RUNS = Number(process.env.PROXY_PROPERTY_RUNS ?? 300);
/** How long (ms) the proxy holds a 2026-07-28 call between its client's rounds (`holdTimeoutMs`). */
const HOLD_MS = 100;

type Command =
  | { readonly kind: 'legacyCall'; readonly ask: boolean }
  | { readonly kind: 'legacyCancel' }
  | { readonly kind: 'modernCall'; readonly ask: boolean }
  | { readonly kind: 'modernAbort' }
  | { readonly kind: 'modernAbandon' }
  | { readonly kind: 'drop' };

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 4, arbitrary: fc.boolean().map((ask) => ({ kind: 'legacyCall' as const, ask })) },
  { weight: 2, arbitrary: fc.constant({ kind: 'legacyCancel' as const }) },
  { weight: 4, arbitrary: fc.boolean().map((ask) => ({ kind: 'modernCall' as const, ask })) },
  { weight: 2, arbitrary: fc.constant({ kind: 'modernAbort' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'modernAbandon' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'drop' as const }) },
);

const question = (n: number): string => `question of ${n}`;
const answerOf = (n: number): { action: 'accept'; content: { name: string } } => ({ action: 'accept', content: { name: `name-${n}` } });

function modernCall(id: number, args: { readonly n: number; readonly ask: boolean }, retry?: { readonly inputResponses: Record<string, unknown>; readonly requestState: string }): JsonRpcRequest {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'work',
      arguments: args,
      ...retry,
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} }, 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' } },
    },
  };
}

/** A 2026-07-28 answer as the invariants read it. */
type ModernAnswer = { result?: { resultType?: string; isError?: boolean; content?: { text?: string }[]; inputRequests?: Record<string, { method: string; params?: { message?: string } }>; requestState?: string }; error?: { code: number; message: string } };

/** What the front said to one call, as the invariants read it. */
interface FrontCall {
  readonly n: number;
  readonly era: 'legacy' | 'modern';
  /** A legacy `notifications/cancelled` sent, a 2026-07-28 request's signal aborted, or its client gave up between rounds. */
  cancelled: boolean;
  /** 2026-07-28: its client will not retry (set by `modernAbandon`). */
  abandoned?: boolean;
  /**
   * 2026-07-28, while a retry is due: when the round that got its last `input_required` answer was sent
   * (`performance.now()`), the earliest the proxy's hold of it can have started.
   */
  heldSince?: number;
  /** When the cancel went out, whether the upstream call was running (started, not ended). */
  runningAtCancel: boolean;
  answers: number;
  text?: string;
  /** A tool error result (`isError`), or a JSON-RPC error's code. */
  isError?: boolean;
  error?: number;
}

interface Run {
  calls: FrontCall[];
  upstreamAborted: Set<number>;
  /** Upstream calls still running at the end (before the proxy closed). */
  running: Set<number>;
  unsettled: string[];
  /** Questions that reached a caller whose call did not ask them (`<who> got <question>`). */
  crossed: string[];
  stats: Record<string, number>;
}

async function run(commands: readonly Command[], s: fc.Scheduler): Promise<Run> {
  const running = new Set<number>();
  const upstreamAborted = new Set<number>();
  const upstream = new McpServer({ name: 'old-server', version: '1.0.0' }, { revisions: [...LEGACY_ONLY], logger: silent });
  upstream.tool('work', { inputSchema: { type: 'object', properties: { n: { type: 'number' }, ask: { type: 'boolean' } } } }, async (args: Record<string, unknown>, ctx: RequestContext) => {
    const n = Number(args.n);
    running.add(n);
    ctx.signal.addEventListener('abort', () => upstreamAborted.add(n));
    try {
      let said = '';
      if (args.ask === true) {
        await s.schedule(Promise.resolve(), `work ${n} asks`);
        // A tool that asks after its request was cancelled is what the proxy cannot attribute (frontCall.ts,
        // "Attribution": an unrelated question after an anonymous 2026-07-28 request was given up); a handler that
        // honours its signal does not.
        if (ctx.signal.aborted) return { content: [{ type: 'text', text: `gone ${n}` }] };
        const answer = await ctx.elicit({ message: question(n), requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }).catch(() => undefined);
        if (answer === undefined) return { content: [{ type: 'text', text: `refused ${n}` }] };
        said = `: ${String((answer.content as { name?: unknown } | undefined)?.name)}`;
      }
      await s.schedule(Promise.resolve(), `work ${n} ends`);
      return { content: [{ type: 'text', text: `done ${n}${said}` }] };
    } finally {
      running.delete(n);
    }
  });
  const connector = inMemoryConnector(upstream);
  const front = await createProxyServer({ upstream: connector, server: { logger: silent }, holdTimeoutMs: HOLD_MS });
  const legacy = await connectRawClient(front);
  await legacy.initialize({ capabilities: { elicitation: {} } });
  const crossed: string[] = [];

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
    const message = inbound.message as JsonRpcMessage & { id?: unknown; method?: string; params?: { message?: string }; result?: { isError?: boolean; content?: { text?: string }[] }; error?: { code: number } };
    if (message.method === 'elicitation/create' && message.id !== undefined) {
      // Asked of this session: it must be one of this session's calls' questions. Answered when the scheduler says.
      const asker = Number(/^question of (\d+)$/.exec(message.params?.message ?? '')?.[1]);
      if (!legacyCalls.has(asker)) crossed.push(`the session got "${message.params?.message}"`);
      const id = message.id as number | string;
      track(`legacy answer ${String(id)}`, s.schedule(Promise.resolve(), `the session answers "${message.params?.message}"`).then(() => legacy.send({ jsonrpc: '2.0', id, result: answerOf(asker) })));
      return;
    }
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
          void legacy.send({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'work', arguments: { n, ask: c.ask } } });
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
          const args = { n, ask: c.ask };
          let rounds = 0;
          // One round: the request (a retry carries the answers and the state), and what its answer leads to.
          const round = (retry?: { readonly inputResponses: Record<string, unknown>; readonly requestState: string }): void => {
            const abort = new AbortController();
            aborts.set(n, abort);
            const id = n * 100 + rounds++;
            // The earliest the proxy can start holding this round's call: its hold is timed from its answer, which
            // reaches us later (at once on an idle machine, a scheduler's turns later on a loaded one).
            const sentAt = performance.now();
            track(
              `modern call ${n}, round ${rounds}`,
              front.handle(modernCall(id, args, retry), { signal: abort.signal }).then((answer) => {
                if (answer === undefined) return;
                const { result, error } = answer as ModernAnswer;
                if (result?.resultType === 'input_required') {
                  const asked = Object.values(result.inputRequests ?? {});
                  for (const request of asked) if (request.params?.message !== question(n)) crossed.push(`modern call ${n} got "${request.params?.message}"`);
                  call.heldSince = sentAt;
                  const inputResponses = Object.fromEntries(Object.keys(result.inputRequests ?? {}).map((key) => [key, answerOf(n)]));
                  track(
                    `modern call ${n} retries`,
                    s.schedule(Promise.resolve(), `modern call ${n} retries`).then(() => {
                      if (!call.abandoned && !call.cancelled) round({ inputResponses, requestState: result.requestState as string });
                    }),
                  );
                  return;
                }
                // A retry later than the hold is told to start again (-32602), the one error a call may end with.
                if (error?.code === -32602 && call.heldSince !== undefined && performance.now() - call.heldSince >= HOLD_MS) {
                  call.cancelled = true;
                  return;
                }
                call.answers++;
                call.text = result?.content?.[0]?.text;
                call.isError = result?.isError;
                call.error = error?.code;
              }),
            );
          };
          round();
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
        case 'modernAbandon': {
          // The client stops between rounds (or will, at its next input_required): the proxy's hold must end it.
          const call = [...calls].reverse().find((f) => f.era === 'modern' && !f.cancelled && f.answers === 0);
          if (call !== undefined) call.abandoned = true;
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
  // An abandoned call is ended by the proxy's hold (HOLD_MS), after which its upstream call ends too.
  const busy = (): boolean => unsettled.size > 0 || legacyOpen() || s.count() > 0 || front.stats.held > 0 || running.size > 0;
  for (let idle = Date.now(); busy() && Date.now() - idle < 2000 + HOLD_MS; ) {
    if (s.count() > 0) {
      await s.waitNext(1);
      idle = Date.now();
    } else await new Promise((resolve) => setTimeout(resolve, 1));
  }
  // A few turns more, for answers to cancelled calls still on their way.
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  const stats = { ...front.stats };
  // Before the proxy closes, which cancels whatever still runs upstream.
  const stillRunning = new Set(running);
  await legacy.close();
  await front.close();
  const open = [...unsettled.keys(), ...[...legacyCalls.values()].filter((f) => f.answers === 0 && !f.cancelled).map((f) => `legacy call ${f.n} unanswered`)];
  return { calls, upstreamAborted, running: stillRunning, unsettled: open, crossed, stats };
}

describe('createProxyServer: calls, questions, cancels and a dying upstream in any order', () => {
  it('answers every front call once, asks each question of its own caller, passes every cancel on, and ends with nothing in flight', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 10 }), fc.scheduler(), async (commands, s) => {
        const { calls, upstreamAborted, running, unsettled, crossed, stats } = await run(commands, s);
        const callers = (calls.some((c) => c.era === 'legacy') ? 1 : 0) + calls.filter((c) => c.era === 'modern').length;
        expect(unsettled, 'everything started has ended').toEqual([]);
        expect(crossed, 'questions asked of another caller').toEqual([]);
        expect([...running], 'upstream calls still running').toEqual([]);
        for (const call of calls) {
          expect(call.answers, `${call.era} call ${call.n}: answers`).toBeLessThanOrEqual(1);
          if (!call.cancelled && !call.abandoned) expect(call.answers, `${call.era} call ${call.n}: answered`).toBe(1);
          // A tools/call failure is a tool result (isError), never a JSON-RPC error here.
          expect(call.error, `${call.era} call ${call.n}: a JSON-RPC error`).toBeUndefined();
          // Its own result, its own question's answer in it; or its question refused, which only several callers
          // make legitimate (requests of several in flight on the one upstream session: nothing says whose it is).
          // The legacy session is one caller, each 2026-07-28 request one of its own.
          const own = [`done ${call.n}`, `done ${call.n}: name-${call.n}`, ...(callers > 1 ? [`refused ${call.n}`] : [])];
          if (call.answers === 1 && call.isError !== true) expect(own, `${call.era} call ${call.n}: its own result, not "${call.text}"`).toContain(call.text);
          // A call the upstream's end cut short says so in the proxy's own words.
          if (call.isError === true) expect(call.text, `${call.era} call ${call.n}: its failure`).toBe('The upstream server is unavailable: its connection ended');
          if (call.cancelled && call.runningAtCancel) expect(upstreamAborted.has(call.n), `${call.era} call ${call.n}: the cancel reached the upstream`).toBe(true);
        }
        expect(stats.inFlight, 'front requests in flight at the end').toBe(0);
        expect(stats.held, 'upstream requests held at the end').toBe(0);
      }),
      { numRuns: RUNS },
    );
  }, Math.max(120_000, RUNS * 200));
});
