/**
 * One front request served by the upstream: the upstream request made with the front's progress and cancellation,
 * and the upstream's questions answered through the front, in either era of the front.
 *
 * 2026-07-28 front, live upstream request (the era bridge's hard part). The front answers a question with
 * `input_required` and its client retries with `inputResponses` (MCP 2026-07-28 basic/patterns/mrtr.mdx), but the
 * upstream's question is a live request on its session, pending until answered. So the upstream request is held
 * across the front's rounds: its id goes into the front's signed `requestState` (`ctx.requestState`, so no client
 * can name another's held request, and a replay is refused by the front's single-use record), the retry takes the
 * held call over, answers the pending question from its `inputResponses`, and waits for the next event. Held calls
 * are bounded in count (`maxHeldRequests`) and time (`holdTimeoutMs`); on expiry the upstream question is answered
 * with an error and the upstream request cancelled. A held call lives in this process: a retry that reaches another
 * instance finds nothing (-32602, "send the request again").
 */
import type { Cancellation, Logger } from '@switchboard/jsonrpc';
import { RequestAbortedError, RequestTimeoutError, type McpClient } from '@switchboard/mcp/client';
import { McpError, McpErrorCode, MissingClientCapabilityError, isModernRevision, missingClientCapability, type ProgressParams } from '@switchboard/mcp';
import { InputRequiredSignal, InvalidInputResponseError, ToolError, type RequestContext } from '@switchboard/mcp/server';
import { CallsInFlight, FrontCall, LiveCall, taggedCall, type CallInFlight, type QuestionEvent, type UpstreamEvent } from './frontCall.js';
import { callerOf, type CallerSessions, type UpstreamSession } from './callerSessions.js';
import { askFront, upstreamAnswerError, unattributedQuestion, type UpstreamQuestion } from './questions.js';
import { ProxyClosedError, failureForFront, forFront } from './results.js';

/**
 * How an upstream request is made, an `McpClient` call's options: its cancellation (the front request's, or the
 * call's own), progress listener, and tag (the call, which the client hands back with the questions it relates to
 * the request).
 */
export interface UpstreamOptions {
  readonly cancellation: Cancellation;
  readonly onprogress: (progress: ProgressParams) => void;
  readonly tag: CallInFlight;
}

/** An upstream request's options and the upstream session it is made on (a {@link LiveCall} is one). */
interface SessionCall extends UpstreamOptions {
  readonly session: UpstreamSession;
}

/**
 * The upstream request of one front request, for `input` (the front request's own part: a tool's name and
 * arguments, a URI), made on `session` (the caller's upstream session, connected). Made once
 * per mirrored definition, not per call: the per-call part is `input`.
 */
export type UpstreamRequest<I, R> = (session: ConnectedSession, input: I, options: UpstreamOptions) => Promise<R>;

/** An upstream session whose client is connected. */
export type ConnectedSession = UpstreamSession & { readonly client: McpClient };

/** One mirrored definition's upstream request; `tool`: it is a `tools/call` (see {@link toolFailure}). */
export interface Upstream<I, R> {
  readonly request: UpstreamRequest<I, R>;
  readonly tool: boolean;
}

/** {@link Forwarder.question}'s verdict when the question could be several callers' (see there). */
const AMBIGUOUS = Symbol('ambiguous');
/** No caller seen yet (see {@link Forwarder.question}). */
const NONE = Symbol('none');
/** {@link Forwarder.question}'s verdict when the request that asked has ended on the front. */
const ENDED = Symbol('ended');

/** At most one warning about questions refused as ambiguous per this many ms (with the count since the last). */
const AMBIGUOUS_WARN_EVERY_MS = 10_000;

/**
 * How long (ms) a front request given up on while its upstream request was running (the front cancelled it, or the
 * upstream did not answer in time) still counts as its caller's for {@link Forwarder.question}: MCP has no
 * acknowledgement of a cancellation (2025-11-25 basic/utilities/cancellation.mdx), so its upstream handler may go on
 * and ask; meanwhile a question of that session may be its caller's, and is not given to another.
 */
const ABANDONED_GRACE_MS = 5_000;
/** At most this many given-up requests are remembered (the oldest forgotten first). */
const MAX_ABANDONED = 1_000;

/** What a modern front request's `requestState` carries while its upstream request is held. */
interface HeldState { readonly held: string }

function heldState(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null && typeof (value as Partial<HeldState>).held === 'string' ? (value as HeldState).held : undefined;
}

/**
 * What a failed upstream `tools/call` becomes on the front. One case is translated between eras: a session-era
 * client's answer that does not fit the question is a rejection inside the tool's handler on a session (which then
 * reports the failure as a tool result: MCP 2025-11-25 server/tools.mdx "Error Handling"), but at 2026-07-28 a
 * malformed input response fails the whole request with -32602 (MCP 2026-07-28 basic/patterns/mrtr.mdx "Server
 * Requirements"). When a 2026-07-28 upstream refused, with -32602, the answer the front had already refused, the
 * session-era client gets what a session-era server gives: an `isError` result saying why.
 */
function toolFailure(call: CallInFlight, error: unknown): unknown {
  const refused = call.refused;
  if (!(refused instanceof InvalidInputResponseError) || !(error instanceof McpError) || error.code !== McpErrorCode.InvalidParams) return error;
  return new ToolError(`The tool's question was not answered: ${refused.message}`);
}

/** The tool a `tools/call` names (its input is the call's params), for the words of a failure. */
function toolName<I, R>(upstream: Upstream<I, R>, input: I): string | undefined {
  return upstream.tool ? (input as { readonly name?: string }).name : undefined;
}

/** Whether an upstream request failed because we gave up on it (aborted, timed out): its handler may go on and ask. */
function givenUp(error: unknown): boolean {
  return error instanceof RequestAbortedError || error instanceof RequestTimeoutError;
}

/** Who a call is for (see {@link Forwarder.question}): its authenticated identity, else its front session, else itself. */
function ownerOf(call: CallInFlight): unknown {
  return callerOf(call.ctx) ?? call.ctx.session ?? call.ctx;
}

/** Runs front requests against one upstream session; see the module comment. */
export class Forwarder {
  readonly inFlight = new CallsInFlight();
  readonly #held = new Map<string, { readonly call: FrontCall; readonly timer: ReturnType<typeof setTimeout> }>();
  readonly #maxHeld: number;
  readonly #holdTimeoutMs: number;
  readonly #logger: Logger;
  readonly #sessions: CallerSessions;
  #nextId = 0;
  readonly #prefix = globalThis.crypto.randomUUID();
  /** Questions refused as ambiguous since the last warning, and when that warning was logged. */
  #ambiguous = { count: 0, warnedAt: -Infinity };
  /** Front requests given up on while their upstream request ran, with when they stop counting (see {@link ABANDONED_GRACE_MS}). */
  readonly #abandoned = new Map<CallInFlight, number>();

  constructor(options: { readonly maxHeld: number; readonly holdTimeoutMs: number; readonly logger: Logger; readonly sessions: CallerSessions }) {
    this.#sessions = options.sessions;
    this.#maxHeld = options.maxHeld;
    this.#holdTimeoutMs = options.holdTimeoutMs;
    this.#logger = options.logger;
  }

  /** Held upstream requests now. */
  get heldCount(): number {
    return this.#held.size;
  }

  /**
   * Serves one front request with `upstream.request(input, …)` made upstream; the result as the front serves it
   * (results.ts).
   */
  async run<I, R>(ctx: RequestContext, upstream: Upstream<I, R>, input: I): Promise<R> {
    if (!isModernRevision(ctx.protocolVersion)) return this.#live(ctx, upstream, input);
    const { request, tool } = upstream;
    let call: FrontCall<R>;
    const id = heldState(ctx.requestState);
    if (id !== undefined) {
      const held = this.#held.get(id);
      // The state is genuine (the front verified its signature) but the call it names is gone: it expired, the
      // proxy restarted, or the retry reached another instance.
      if (held === undefined) throw new McpError(McpErrorCode.InvalidParams, 'Invalid params: the proxied request this requestState continues has expired; send the request again without it');
      clearTimeout(held.timer);
      this.#held.delete(id);
      call = held.call as FrontCall<R>;
      call.ctx = ctx;
    } else {
      const session = this.#sessions.for(ctx);
      call = new FrontCall<R>(ctx, session, { prefix: this.#prefix, seq: this.#nextId++ });
      call.start((options) => this.#request(options, request, input));
    }
    const frontCancel = ctx.cancellation;
    const cancel = (): void => call.cancel(new McpError(McpErrorCode.InternalError, 'Request cancelled'));
    if (frontCancel.cancelled) cancel();
    else frontCancel.onCancel(cancel);
    this.inFlight.add(call);
    let parked = false;
    try {
      // A retry: its inputResponses answer the questions the last round asked (under the same keys).
      let questions: QuestionEvent[] = call.pending;
      call.pending = [];
      for (;;) {
        if (questions.length === 0) {
          const event: UpstreamEvent<R> = await call.next();
          if (event.kind === 'result') return forFront(event.value, call.ctx);
          if (event.kind === 'error') {
            if (givenUp(event.error)) this.#abandon(call);
            throw failureForFront(tool ? toolFailure(call, event.error) : event.error, toolName(upstream, input), this.#logger);
          }
          // Questions the upstream sends together (a handler asking several at once) make one round.
          await new Promise<void>((resolve) => setTimeout(resolve, 0));
          questions = [event, ...call.takeQuestions()];
        }
        try {
          await this.#round(call, questions);
        } catch (error) {
          if (error instanceof InputRequiredSignal) {
            this.#park(call);
            parked = true;
          }
          throw error;
        }
        questions = [];
      }
    } finally {
      frontCancel.offCancel(cancel);
      this.inFlight.delete(call);
      if (!parked && !call.done) {
        call.cancel(new McpError(McpErrorCode.InternalError, 'Request ended'));
        this.#abandon(call);
      }
    }
  }

  /**
   * A session-era front request: one upstream request, cancelled by the front request's own signal (a
   * `notifications/cancelled`, the session's end); its questions are asked live (see {@link question}).
   */
  async #live<I, R>(ctx: RequestContext, upstream: Upstream<I, R>, input: I): Promise<R> {
    const session = this.#sessions.for(ctx);
    const call = new LiveCall(ctx, session);
    this.inFlight.add(call);
    try {
      return forFront(await this.#request(call, upstream.request, input), ctx);
    } catch (error) {
      if (givenUp(error)) this.#abandon(call);
      throw failureForFront(upstream.tool ? toolFailure(call, error) : error, toolName(upstream, input), this.#logger);
    } finally {
      call.settled = true;
      this.inFlight.delete(call);
    }
  }

  /** `request` made on `call`'s session (a caller's is connected on its first request, and counted busy meanwhile). */
  #request<I, R>(call: SessionCall, request: UpstreamRequest<I, R>, input: I): Promise<R> {
    const session = call.session;
    // The shared session: no bookkeeping on the hot path.
    if (session.key === undefined && session.client !== undefined) return request(session as ConnectedSession, input, call);
    return this.#onCallerSession(call, request, input);
  }

  async #onCallerSession<I, R>(call: SessionCall, request: UpstreamRequest<I, R>, input: I): Promise<R> {
    const session = call.session;
    session.busy++;
    try {
      if (session.client === undefined) await this.#sessions.client(session);
      return await request(session as ConnectedSession, input, call);
    } finally {
      session.busy--;
      session.used = performance.now();
    }
  }

  /**
   * A question of an upstream session (`caller`: a caller's, see callerSessions.ts; `undefined`: the shared one),
   * given to the front call it belongs to: the call `tag` names when the client related the question to one of its
   * requests (refused when that call has ended), else the one {@link #taker} finds (refused when that is
   * ambiguous). A legacy front asks
   * its client at once; a modern front's call takes it as its next event (a client that did not declare what it
   * needs gets -32021 for that call, as from a server asking of it directly).
   * `roots/list` is taken only by a call whose client declared `roots` (MCP 2025-11-25 client/roots.mdx), else the
   * upstream is answered -32601 as a client without roots answers; a call is never failed by a question it did
   * not cause.
   */
  question(question: UpstreamQuestion, caller: string | undefined, tag?: unknown): Promise<unknown> {
    const roots = question.method === 'roots/list';
    const tagged = this.#callTagged(tag, roots);
    const call = tagged === null ? this.#taker(caller, roots) : tagged;
    if (call === ENDED) return Promise.reject(new McpError(McpErrorCode.InternalError, `The request this "${question.method}" belongs to has ended on the proxy's front, so it is not asked`));
    if (call === AMBIGUOUS) return Promise.reject(this.#refuseAmbiguous(question.method));
    if (call === undefined) return Promise.reject(roots ? upstreamAnswerError(new MissingClientCapabilityError({ roots: {} })) : unattributedQuestion(question.method));
    if (!(call instanceof FrontCall) || !isModernRevision(call.ctx.protocolVersion)) {
      return askFront(call.ctx, question, undefined).catch((error: unknown) => {
        if (error instanceof InvalidInputResponseError) call.refused = error;
        return Promise.reject(upstreamAnswerError(error));
      });
    }
    return (call as FrontCall).ask(question);
  }

  /**
   * The call `tag` names when it is one of this forwarder's (see frontCall.ts, "Attribution"); {@link ENDED} when it
   * can no longer ask; for `roots`, `undefined` (answered as by a client without roots) unless its client declared
   * roots. `null`: the tag names no call, so the question is attributed by {@link #taker}.
   */
  #callTagged(tag: unknown, roots: boolean): CallInFlight | typeof ENDED | undefined | null {
    const call = taggedCall(tag);
    if (call === undefined) return null;
    if (!call.open) return ENDED;
    return !roots || missingClientCapability(call.ctx.clientCapabilities, 'roots/list') === undefined ? call : undefined;
  }

  /**
   * The front call an upstream question of session `caller` belongs to. Nothing on the wire says which of the
   * session's requests asked (frontCall.ts, "Attribution"), so a guess must never cross callers: the question is
   * taken only when every request in flight on that session is of one front caller (one authenticated identity,
   * `callerOf`; else one front session, a stdio front's included; an anonymous 2026-07-28 request is a caller of
   * its own), by the newest of them. `undefined`: none is in flight (or, for `roots`, none whose client declared
   * roots); {@link AMBIGUOUS}: several callers' requests are, or a request of another caller was given up on in the
   * last {@link ABANDONED_GRACE_MS} (cancelled, timed out, its hold expired) and its upstream handler may be the one
   * asking. A call held between a 2026-07-28 client's rounds is not counted: its caller is anonymous (each of its
   * rounds is a caller of its own), so counting it would make every other question ambiguous until it expires.
   */
  #taker(caller: string | undefined, roots: boolean): CallInFlight | typeof AMBIGUOUS | undefined {
    let owner: unknown = NONE;
    let taker: CallInFlight | undefined;
    for (const call of this.inFlight.values()) {
      if (call.caller !== caller) continue;
      const who = ownerOf(call);
      if (owner === NONE) owner = who;
      else if (who !== owner) return AMBIGUOUS;
      if (!roots || missingClientCapability(call.ctx.clientCapabilities, 'roots/list') === undefined) taker = call;
    }
    // A request given up on lately may be the one asking: it takes nothing, but its caller counts.
    if (taker !== undefined && this.#abandoned.size > 0) {
      const now = performance.now();
      for (const [call, until] of this.#abandoned) {
        if (until <= now) this.#abandoned.delete(call);
        else if (call.caller === caller && ownerOf(call) !== owner) return AMBIGUOUS;
      }
    }
    return taker;
  }

  /**
   * Remembers `call`, given up on while its upstream request ran, for {@link ABANDONED_GRACE_MS}; not an anonymous
   * 2026-07-28 request's (a caller of its own: remembering it would make every other question ambiguous meanwhile).
   */
  #abandon(call: CallInFlight): void {
    if (ownerOf(call) === call.ctx) return;
    const abandoned = this.#abandoned;
    const now = performance.now();
    // Oldest first (insertion order is expiry order): the expired ones go now, not only when a question comes.
    for (const [old, until] of abandoned) {
      if (until > now && abandoned.size < MAX_ABANDONED) break;
      abandoned.delete(old);
    }
    abandoned.set(call, now + ABANDONED_GRACE_MS);
  }

  /** The upstream's answer to a question that could be several callers' (and a warning, at most one per 10 s). */
  #refuseAmbiguous(method: string): McpError {
    const ambiguous = this.#ambiguous;
    ambiguous.count++;
    const now = performance.now();
    if (now - ambiguous.warnedAt >= AMBIGUOUS_WARN_EVERY_MS) {
      this.#logger.warn('Proxy: an upstream question was refused: requests of several callers were outstanding on its upstream session, and nothing says whose it is (sessionPerCaller gives each session-era or authenticated caller its own)', { method, refused: ambiguous.count });
      ambiguous.count = 0;
      ambiguous.warnedAt = now;
    }
    return new McpError(McpErrorCode.InternalError, `The proxy cannot tell which of its callers' requests this "${method}" belongs to (several are in flight on this session), so it is not asked`);
  }

  /** Cancels every held and running call (the proxy closes). */
  close(): void {
    const reason = new ProxyClosedError();
    for (const { call, timer } of this.#held.values()) {
      clearTimeout(timer);
      call.cancel(reason);
    }
    this.#held.clear();
    for (const call of this.inFlight.all()) call.cancel(reason);
  }

  /**
   * One input round of a modern front call: each question asked under its key (`upstream-<n>`, kept across the
   * retries), answered at once when the retry carries its answer. Unanswered ones make the front request answer
   * `input_required` (the `InputRequiredSignal` rejection is thrown, `call.pending` holds them). A question the front
   * client has no capability for fails the front request with -32021, as a direct server's would (MCP 2026-07-28
   * basic/patterns/mrtr.mdx "Server Requirements"), and the upstream is told -32601.
   */
  async #round(call: FrontCall, questions: readonly QuestionEvent[]): Promise<void> {
    const ctx = call.ctx;
    if (!isModernRevision(ctx.protocolVersion)) {
      // Queued while the front request was modern, taken over by a session-era one: asked live.
      for (const question of questions) question.answer(await askFront(ctx, question.question, undefined).catch((error: unknown) => Promise.reject(upstreamAnswerError(error))));
      return;
    }
    // Bounded before anything is asked: once asked, the front answers input_required whatever the handler throws.
    if (this.#held.size >= this.#maxHeld) {
      this.#logger.warn('Proxy: too many upstream requests held for input; one more is refused', { max: this.#maxHeld });
      const refusal = new McpError(McpErrorCode.InternalError, 'Too many requests waiting for input');
      for (const question of questions) question.fail(refusal);
      throw new McpError(McpErrorCode.InternalError, 'Internal error');
    }
    try {
      // Only tools/call, prompts/get and resources/read may ask for input (MCP 2026-07-28 basic/patterns/mrtr.mdx):
      // elsewhere setting the state throws, and the upstream is answered with an error.
      ctx.requestState = { held: call.id } satisfies HeldState;
    } catch (error) {
      for (const question of questions) question.fail(upstreamAnswerError(error));
      throw error;
    }
    const asks = questions.map((question) => askFront(ctx, question.question, (question.key ??= `upstream-${call.asked++}`)));
    const settled = await Promise.allSettled(asks);
    let failure: Error | undefined;
    let pending: InputRequiredSignal | undefined;
    settled.forEach((outcome, i) => {
      const question = questions[i] as QuestionEvent;
      if (outcome.status === 'fulfilled') question.answer(outcome.value);
      else if (outcome.reason instanceof InputRequiredSignal) {
        call.pending.push(question);
        pending ??= outcome.reason;
      } else {
        question.fail(upstreamAnswerError(outcome.reason));
        failure ??= outcome.reason instanceof Error ? outcome.reason : new McpError(McpErrorCode.InternalError, 'Internal error');
      }
    });
    if (failure !== undefined) throw failure;
    if (pending !== undefined) throw pending;
  }

  /** Holds `call` for the front client's retry, bounded in count and time. */
  #park<R>(call: FrontCall<R>): void {
    const timer = setTimeout(() => {
      this.#held.delete(call.id);
      call.cancel(new McpError(McpErrorCode.InternalError, 'The client did not answer in time'));
      this.#abandon(call);
    }, this.#holdTimeoutMs);
    (timer as { unref?: () => void }).unref?.();
    this.#held.set(call.id, { call: call, timer });
  }
}
