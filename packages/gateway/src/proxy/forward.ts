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
import type { Logger } from '@switchboard/jsonrpc';
import { McpError, McpErrorCode, MissingClientCapabilityError, isModernRevision, type ProgressParams } from '@switchboard/mcp';
import { InputRequiredSignal, type RequestContext } from '@switchboard/mcp/server';
import { CallsInFlight, FrontCall, type UpstreamEvent } from './frontCall.js';
import { askFront, upstreamAnswerError, unattributedQuestion, type UpstreamQuestion } from './questions.js';

/** The upstream request of one front request, given the signal that cancels it and the progress listener. */
export type UpstreamRequest<R> = (signal: AbortSignal, onprogress: (progress: ProgressParams) => void) => Promise<R>;

/** What a modern front request's `requestState` carries while its upstream request is held. */
interface HeldState { readonly held: string }

function heldState(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null && typeof (value as Partial<HeldState>).held === 'string' ? (value as HeldState).held : undefined;
}

/** Runs front requests against one upstream session; see the module comment. */
export class Forwarder {
  readonly inFlight = new CallsInFlight();
  readonly #held = new Map<string, { readonly call: FrontCall; readonly timer: ReturnType<typeof setTimeout> }>();
  readonly #maxHeld: number;
  readonly #holdTimeoutMs: number;
  readonly #logger: Logger;
  #nextId = 0;
  readonly #prefix = globalThis.crypto.randomUUID();

  constructor(options: { readonly maxHeld: number; readonly holdTimeoutMs: number; readonly logger: Logger }) {
    this.#maxHeld = options.maxHeld;
    this.#holdTimeoutMs = options.holdTimeoutMs;
    this.#logger = options.logger;
  }

  /** Held upstream requests now. */
  get heldCount(): number {
    return this.#held.size;
  }

  /** Serves one front request with `request` made upstream. */
  async run<R>(ctx: RequestContext, request: UpstreamRequest<R>): Promise<R> {
    const modern = isModernRevision(ctx.protocolVersion);
    let call: FrontCall<R>;
    const id = modern ? heldState(ctx.requestState) : undefined;
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
      call = new FrontCall<R>(ctx, `${this.#prefix}.${this.#nextId++}`);
      call.start(request);
    }
    const signal = ctx.signal;
    const cancel = (): void => call.cancel(new McpError(McpErrorCode.InternalError, 'Request cancelled'));
    signal.addEventListener('abort', cancel, { once: true });
    this.inFlight.add(call);
    let parked = false;
    try {
      let event: UpstreamEvent<R> | undefined = call.pending;
      // A retry: its inputResponses answer the question the last round asked (under the same key).
      call.pending = undefined;
      for (;;) {
        event ??= await call.next();
        if (event.kind === 'result') return event.value;
        if (event.kind === 'error') throw event.error;
        // A question queued for this call (modern front): ask it as an input request.
        try {
          await this.#answer(call, event, modern);
        } catch (error) {
          if (error instanceof InputRequiredSignal) {
            this.#park(call, event);
            parked = true;
          }
          throw error;
        }
        event = undefined;
      }
    } finally {
      signal.removeEventListener('abort', cancel);
      this.inFlight.delete(call);
      if (!parked && !call.done) call.cancel(new McpError(McpErrorCode.InternalError, 'Request ended'));
    }
  }

  /**
   * A question of the upstream session: given to the newest front call in flight. A legacy front asks its client
   * at once; a modern front's call takes it as its next event.
   */
  question(question: UpstreamQuestion): Promise<unknown> {
    const call = this.inFlight.newest();
    if (call === undefined) return Promise.reject(unattributedQuestion(question.method));
    if (!isModernRevision(call.ctx.protocolVersion)) return askFront(call.ctx, question, undefined).catch((error: unknown) => Promise.reject(upstreamAnswerError(error)));
    return call.ask(question);
  }

  /** Cancels every held and running call (the proxy closes). */
  close(): void {
    const reason = new McpError(McpErrorCode.InternalError, 'The proxy closed');
    for (const { call, timer } of this.#held.values()) {
      clearTimeout(timer);
      call.cancel(reason);
    }
    this.#held.clear();
    for (const call of this.inFlight.all()) call.cancel(reason);
  }

  /** Asks a modern front call's question under its round's key and hands the answer (or the failure) upstream. */
  async #answer<R>(call: FrontCall<R>, event: Extract<UpstreamEvent<R>, { kind: 'question' }>, modern: boolean): Promise<void> {
    if (!modern) {
      // A legacy retry cannot happen; a question queued while the front was modern is asked live.
      event.answer(await askFront(call.ctx, event.question, undefined).catch((error: unknown) => Promise.reject(upstreamAnswerError(error))));
      return;
    }
    const key = `upstream-${call.rounds}`;
    let answer: unknown;
    try {
      // Only tools/call, prompts/get and resources/read may ask for input (MCP 2026-07-28 basic/patterns/mrtr.mdx):
      // elsewhere setting the state throws, and the upstream is answered with an error.
      call.ctx.requestState = { held: call.id } satisfies HeldState;
      answer = await askFront(call.ctx, event.question, key);
    } catch (error) {
      if (error instanceof InputRequiredSignal) throw error;
      event.fail(upstreamAnswerError(error));
      // The front client lacks the capability (it is not asked, and the front round stays complete): the upstream
      // is told so (-32601) and decides; the front request goes on waiting for its result.
      if (error instanceof MissingClientCapabilityError) return;
      throw error;
    }
    call.rounds += 1;
    event.answer(answer);
  }

  /** Holds `call` for the front client's retry, bounded in count and time. */
  #park<R>(call: FrontCall<R>, event: Extract<UpstreamEvent<R>, { kind: 'question' }>): void {
    if (this.#held.size >= this.#maxHeld) {
      this.#logger.warn('Proxy: too many upstream requests held for input; one more is cancelled', { max: this.#maxHeld });
      call.cancel(new McpError(McpErrorCode.InternalError, 'Too many requests waiting for input'));
      throw new McpError(McpErrorCode.InternalError, 'Internal error');
    }
    call.pending = event;
    const timer = setTimeout(() => {
      this.#held.delete(call.id);
      call.cancel(new McpError(McpErrorCode.InternalError, 'The client did not answer in time'));
    }, this.#holdTimeoutMs);
    (timer as { unref?: () => void }).unref?.();
    this.#held.set(call.id, { call: call, timer });
  }
}
