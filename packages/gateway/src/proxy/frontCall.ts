/**
 * One front request being served by an upstream request, and the set of those in flight on one upstream session.
 *
 * Attribution. Each upstream request carries its call as its `tag` (`RequestOptions.tag`), and a question the
 * client relates to a request comes back with it (`InputContext.requestTag`): a 2026-07-28 upstream's input
 * requests always, and a session-based upstream's server → client request when it came on the stream of the POST
 * that carried the request (Streamable HTTP). Such a question goes to its own call, and only to it: refused when that
 * call has ended. Otherwise (stdio, HTTP+SSE's one stream, a question on the GET stream) a question and a
 * `notifications/message` name no request (MCP 2025-11-25 basic/transports.mdx), and the question goes to a front
 * request only when that cannot cross callers: every request in flight on its upstream session is of one front
 * caller (forward.ts, `Forwarder.question`); otherwise it is refused, and the upstream's tool sees an error. A
 * session's or an identity's request given up on (cancelled, timed out, its hold expired) while its upstream
 * handler may go on counts as its caller's for a grace period (forward.ts, `ABANDONED_GRACE_MS`). Progress is exact
 * everywhere (its token is ours, per request). A log goes the same way: to its own call when the client relates it
 * (dropped once that call has ended), else to the newest front request in flight (logs of a shared upstream session
 * go to every front session when none is). `sessionPerCaller` gives each session-era or authenticated caller its
 * own upstream session. Not covered for an unrelated question: one asked while its request is held between a
 * 2026-07-28 client's rounds, after the grace period, or after an anonymous 2026-07-28 request was given up, can
 * reach another caller's request in flight.
 */
import { CancellationSource, type Cancellation } from '@switchboard/jsonrpc';
import type { ProgressParams } from '@switchboard/mcp';
import type { RequestContext } from '@switchboard/mcp/server';
import type { UpstreamSession } from './callerSessions.js';
import type { UpstreamQuestion } from './questions.js';

/** What a front request waits for from its upstream request: its end, or a question the upstream asks meanwhile. */
export type UpstreamEvent<R> =
  | { readonly kind: 'result'; readonly value: R }
  | { readonly kind: 'error'; readonly error: unknown }
  | QuestionEvent;

/** An upstream question queued for the front; `key` is its input request key once asked of a 2026-07-28 client. */
export interface QuestionEvent {
  readonly kind: 'question';
  readonly question: UpstreamQuestion;
  readonly answer: (value: unknown) => void;
  readonly fail: (error: unknown) => void;
  key?: string;
}

/** A front request in flight on an upstream session: its context (where questions and logs go). */
export interface CallInFlight {
  /** The front request serving the call now. */
  readonly ctx: RequestContext;
  /** The caller session it runs on (callerSessions.ts); `undefined`: the shared session. */
  readonly caller: string | undefined;
  /** A session-era front client's answer the front refused (it did not fit the question), if any. */
  refused: unknown;
  /** Ends the call from the front (the proxy closes). */
  cancel(reason: unknown): void;
  /** Whether its upstream request may still ask: it is running, and the front has not given it up. */
  readonly open: boolean;
  /** Its neighbours in its {@link CallsInFlight} (set by that list alone). */
  olderInFlight: CallInFlight | undefined;
  newerInFlight: CallInFlight | undefined;
}

/**
 * A session-era front request: served by one upstream request, cancelled through the front request's own
 * cancellation. It is also the upstream request's options (`cancellation`, `onprogress`): one object per call.
 */
export class LiveCall implements CallInFlight {
  readonly ctx: RequestContext;
  /** The upstream session it runs on. */
  readonly session: UpstreamSession;
  readonly caller: string | undefined;
  refused: unknown = undefined;
  /**
   * The front request's cancellation (a `notifications/cancelled`, the session's end): the upstream request follows
   * it. Not its `signal`: a signal per forwarded call cost the proxy about a fifth of its CPU per call.
   */
  readonly cancellation: Cancellation;
  /** The upstream request's tag: questions related to it come back with the call (see the module comment). */
  readonly tag: CallInFlight = this;
  /** Set when the upstream request has settled. */
  settled = false;
  olderInFlight: CallInFlight | undefined = undefined;
  newerInFlight: CallInFlight | undefined = undefined;

  constructor(ctx: RequestContext, session: UpstreamSession) {
    this.ctx = ctx;
    this.session = session;
    this.caller = session.key;
    this.cancellation = ctx.cancellation;
  }

  /** Upstream progress, reported on the front request (a no-op when it carried no progress token). */
  readonly onprogress = (p: ProgressParams): void => {
    this.ctx.progress(p.progress, p.total, p.message).catch(() => {});
  };

  /** Nothing of its own: closing the front cancels the front request, which the upstream request follows. */
  cancel(): void {}

  get open(): boolean {
    return !this.settled && !this.cancellation.cancelled;
  }
}

/**
 * One upstream request made for a 2026-07-28 front request: started once, then followed by one front request (legacy, or a modern
 * first round) or several in turn (a modern request's retries, which each take the call over). Events are queued
 * until the current front request takes them.
 */
export class FrontCall<R = unknown> implements CallInFlight {
  /** The front request serving this call now (a retry replaces it). */
  ctx: RequestContext;
  /** The upstream session it runs on. */
  readonly session: UpstreamSession;
  readonly caller: string | undefined;
  /** Cancels the upstream request (a front cancel, a hold expired, the proxy closed). */
  readonly cancellation = new CancellationSource();
  readonly #idPrefix: string;
  readonly #seq: number;
  #id: string | undefined = undefined;
  /** Modern front: questions asked so far (each question's key is `upstream-<n>`, n counting from 0). */
  asked = 0;
  /** A session-era front client's answer the front refused (it did not fit the question), if any. */
  refused: unknown = undefined;
  /** The questions asked on the last round, waiting for the retry's answers (modern front). */
  pending: QuestionEvent[] = [];
  readonly #events: UpstreamEvent<R>[] = [];
  #wake: (() => void) | undefined = undefined;
  #done = false;
  olderInFlight: CallInFlight | undefined = undefined;
  newerInFlight: CallInFlight | undefined = undefined;

  /** `id` is `<prefix>.<seq>`, made when first read (most calls are never held). */
  constructor(ctx: RequestContext, session: UpstreamSession, id: { readonly prefix: string; readonly seq: number }) {
    this.ctx = ctx;
    this.session = session;
    this.caller = session.key;
    this.#idPrefix = id.prefix;
    this.#seq = id.seq;
  }

  /** Modern front: the id the signed `requestState` carries while the call is held. */
  get id(): string {
    return (this.#id ??= `${this.#idPrefix}.${this.#seq}`);
  }

  /** Starts the upstream request on the call's session; its end is the call's last event. */
  start(request: (options: { readonly session: UpstreamSession; readonly cancellation: Cancellation; readonly onprogress: (progress: ProgressParams) => void; readonly tag: CallInFlight }) => Promise<R>): void {
    request({ session: this.session, cancellation: this.cancellation, onprogress: (p) => void this.ctx.progress(p.progress, p.total, p.message).catch(() => {}), tag: this }).then(
      (value) => this.#push({ kind: 'result', value }),
      (error: unknown) => this.#push({ kind: 'error', error }),
    );
  }

  /** The upstream asks a question during this call: it waits for the front's answer. */
  ask(question: UpstreamQuestion): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.#push({ kind: 'question', question, answer: resolve, fail: reject });
    });
  }

  /** The next event: the upstream request's end, or a question. */
  async next(): Promise<UpstreamEvent<R>> {
    for (;;) {
      const event = this.#events.shift();
      if (event !== undefined) return event;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  /** The questions queued now, taken off the queue (a handler that asks several at once gets one round for them). */
  takeQuestions(): QuestionEvent[] {
    const taken: QuestionEvent[] = [];
    while (this.#events[0]?.kind === 'question') taken.push(this.#events.shift() as QuestionEvent);
    return taken;
  }

  /** Whether the upstream request ended. */
  get done(): boolean {
    return this.#done;
  }

  get open(): boolean {
    return !this.#done && !this.cancellation.cancelled;
  }

  /** Ends the call from the front: a pending question fails with `error`, the upstream request is cancelled. */
  cancel(reason: unknown): void {
    for (const question of this.pending.splice(0)) question.fail(reason);
    for (const event of this.#events.splice(0)) if (event.kind === 'question') event.fail(reason);
    if (!this.#done) this.cancellation.cancel(reason);
  }

  #push(event: UpstreamEvent<R>): void {
    if (event.kind !== 'question') this.#done = true;
    this.#events.push(event);
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/** The call a client hands back as a question's or a log's `requestTag`, when the tag is one (see "Attribution"). */
export function taggedCall(tag: unknown): LiveCall | FrontCall | undefined {
  return tag instanceof LiveCall || tag instanceof FrontCall ? tag : undefined;
}

/**
 * The front calls in flight on one upstream session, in start order (see the module comment on attribution). A list
 * linked through the calls themselves rather than a `Set`: a long-lived `Set` churned once per call keeps its dead
 * tables in the old generation, and they would keep each call (and its front request) alive through young-generation
 * collections (see `TransientMap` in @switchboard/jsonrpc for the mechanism).
 */
export class CallsInFlight {
  #oldest: CallInFlight | undefined = undefined;
  #newest: CallInFlight | undefined = undefined;
  #size = 0;

  add(call: CallInFlight): void {
    if (this.#has(call)) return;
    call.olderInFlight = this.#newest;
    call.newerInFlight = undefined;
    if (this.#newest === undefined) this.#oldest = call;
    else this.#newest.newerInFlight = call;
    this.#newest = call;
    this.#size++;
  }

  delete(call: CallInFlight): void {
    if (!this.#has(call)) return;
    const { olderInFlight: older, newerInFlight: newer } = call;
    if (older === undefined) this.#oldest = newer;
    else older.newerInFlight = newer;
    if (newer === undefined) this.#newest = older;
    else newer.olderInFlight = older;
    call.olderInFlight = undefined;
    call.newerInFlight = undefined;
    this.#size--;
  }

  /** The calls in flight, oldest first; the call being visited may be deleted (not another: copy with `all()` first). */
  *values(): Generator<CallInFlight, void, undefined> {
    for (let call = this.#oldest; call !== undefined; ) {
      const newer = call.newerInFlight;
      yield call;
      call = newer;
    }
  }

  /** The newest call in flight that `accepts` (every call when no test is given), if any. */
  newest(accepts?: (call: CallInFlight) => boolean): CallInFlight | undefined {
    for (let call = this.#newest; call !== undefined; call = call.olderInFlight) if (accepts === undefined || accepts(call)) return call;
    return undefined;
  }

  get size(): number {
    return this.#size;
  }

  /** Every call, for the proxy's close. */
  all(): CallInFlight[] {
    return [...this.values()];
  }

  /** Whether `call` is in this list (a call is only ever in its own forwarder's list). */
  #has(call: CallInFlight): boolean {
    return call.olderInFlight !== undefined || this.#oldest === call;
  }
}
