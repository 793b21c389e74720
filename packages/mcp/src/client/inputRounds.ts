/**
 * Multi round-trip requests, the client side (2026-07-28): `tools/call`, `prompts/get` and `resources/read` may be
 * answered `{ resultType: "input_required", inputRequests?, requestState? }`. The client then answers every input
 * request with the application's callbacks — the same `onElicitation`, `onSampling` and `onListRoots` that answer
 * live server → client requests on a session — and retries as a NEW request (a new id) with the original params
 * plus `inputResponses` (same keys) and the exact `requestState` when one was given (never one otherwise). The
 * answers and the state belong to that one retry: nothing is carried to other requests, nor to later rounds. The
 * number of rounds is bounded by `maxInputRounds`.
 *
 * What a question without a callback gets: an elicitation is declined (`{ action: "decline" }`, a valid
 * `ElicitResult`); sampling and roots have no refusal an `InputResponses` can carry, so the request fails with
 * {@link NotSupportedError} (a server only asks what the request's `clientCapabilities` declare, and those follow
 * the callbacks given, so this means the capabilities were declared by hand). A callback that throws fails the
 * request with its error; the other callbacks of the round are aborted.
 *
 * @see MCP 2026-07-28 basic/patterns/mrtr.mdx "Client Requirements (Basic Workflow)"; schema.ts `InputRequiredResult`,
 *   `InputResponseRequestParams`
 */
import { signalOf } from '@switchboard/jsonrpc';
import { RequestAbortedError } from '../protocol/clientErrors.js';
import type { ClientCore, CoreSendOptions, InputQuestion } from './clientCore.js';
import { InputRoundsExceededError, InvalidResultError, NotSupportedError } from './errors.js';
import { DEFAULT_MAX_INPUT_ROUNDS, type InputContext } from './options.js';

/** The requests that may answer `input_required` (MCP 2026-07-28 basic/patterns/mrtr.mdx "Supported Requests"). */
export const INPUT_ROUND_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** The callback option that answers each input request method. */
const CALLBACK_OF = {
  'elicitation/create': 'onElicitation',
  'sampling/createMessage': 'onSampling',
  'roots/list': 'onListRoots',
} as const;

/** The answer to an elicitation the application has no callback for. */
const DECLINED = Object.freeze({ action: 'decline' });

/** What the input rounds need from the client. */
export type InputRoundsHost = Pick<ClientCore, 'era' | 'revision' | 'options' | 'send' | 'answerInput'>;

/** An `InputRequiredResult` as read from the wire. */
export interface InputRequired {
  /** The input requests, by the server's keys (absent: retry at once). */
  readonly inputRequests: Readonly<Record<string, InputQuestion>> | undefined;
  /** The opaque state to echo exactly on the retry (absent: the retry carries none). */
  readonly requestState: string | undefined;
}

type Params = Record<string, unknown>;

function isRecord(value: unknown): value is Params {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The most input requests one `input_required` result may carry; more is an `InvalidResultError`. */
export const MAX_INPUT_REQUESTS_PER_ROUND = 64;

/**
 * Reads an `input_required` result of `method`.
 * @throws InvalidResultError when it has neither `inputRequests` nor `requestState`, when `requestState` is not a
 *   string, or when an input request is not one of `elicitation/create`, `sampling/createMessage`, `roots/list`
 *   with object params
 */
export function readInputRequired(method: string, result: Params): InputRequired {
  const { inputRequests, requestState } = result;
  const invalid = (reason: string): InvalidResultError => new InvalidResultError({ method, reason, result });
  if (requestState !== undefined && typeof requestState !== 'string') throw invalid('"requestState" is not a string');
  if (inputRequests === undefined) {
    // MCP 2026-07-28 basic/patterns/mrtr.mdx: at least one of inputRequests or requestState MUST be present.
    if (requestState === undefined) throw invalid('an "input_required" result has neither "inputRequests" nor "requestState"');
    return { inputRequests: undefined, requestState };
  }
  if (!isRecord(inputRequests)) throw invalid('"inputRequests" is not an object');
  const keys = Object.keys(inputRequests);
  // Each input request is a question put to the application (a form shown to the user): a server asking thousands
  // at once is broken or hostile, not a round to answer.
  if (keys.length > MAX_INPUT_REQUESTS_PER_ROUND) throw invalid(`"inputRequests" holds ${keys.length} questions, more than ${MAX_INPUT_REQUESTS_PER_ROUND} in one round`);
  for (const [key, request] of Object.entries(inputRequests)) {
    if (!isRecord(request) || typeof request.method !== 'string' || !Object.hasOwn(CALLBACK_OF, request.method)) {
      throw invalid(`input request "${key}" is not an elicitation/create, sampling/createMessage or roots/list request`);
    }
    if (request.params !== undefined && !isRecord(request.params)) throw invalid(`input request "${key}" has params that are not an object`);
  }
  return { inputRequests: inputRequests as Readonly<Record<string, InputQuestion>>, requestState };
}

/**
 * Answers every input request of one round with the application's callbacks, all at once, and resolves with the
 * `InputResponses` (same keys). Used by the request loop and by tasks (`tasks/update`).
 * @param what the request (or task) the questions belong to, for errors
 * @throws NotSupportedError when a sampling or roots question has no callback
 * @throws RequestAbortedError when `signal` aborts first (the callbacks' `ctx.signal` aborts too)
 * @throws whatever a callback throws (the others are aborted)
 */
export async function answerInputRequests(
  host: Pick<InputRoundsHost, 'era' | 'revision' | 'options' | 'answerInput'>,
  requests: Readonly<Record<string, InputQuestion>>,
  scope: { readonly method: string; readonly signal?: AbortSignal | undefined; readonly taskId?: string; readonly tag?: unknown },
): Promise<Params> {
  const outer = scope.signal;
  if (outer?.aborted === true) throw new RequestAbortedError({ method: scope.method, cause: outer.reason });
  const round = new AbortController();
  let reject!: (error: unknown) => void;
  const aborted = new Promise<never>((_resolve, rejectAborted) => (reject = rejectAborted));
  aborted.catch(() => {});
  const fail = (): void => {
    round.abort(outer?.reason);
    reject(new RequestAbortedError({ method: scope.method, cause: outer?.reason }));
  };
  outer?.addEventListener('abort', fail, { once: true });
  try {
    const answers = Promise.all(
      Object.entries(requests).map(async ([key, question]): Promise<[string, unknown]> => {
        const callback = CALLBACK_OF[question.method as keyof typeof CALLBACK_OF];
        if (host.options[callback] === undefined) {
          if (question.method === 'elicitation/create') return [key, DECLINED];
          throw new NotSupportedError({
            operation: question.method,
            era: host.era,
            revision: host.revision,
            reason: `was asked for by "${scope.method}" (input request "${key}"), and the client has no ${callback} callback to answer it`,
          });
        }
        try {
          const ctx: InputContext = { signal: round.signal, era: 'modern', method: question.method, key, ...(scope.taskId === undefined ? {} : { taskId: scope.taskId }), ...(scope.tag === undefined ? {} : { requestTag: scope.tag }) };
          return [key, await host.answerInput(question, ctx)];
        } catch (error) {
          // One failed answer fails the round: the other questions are withdrawn.
          round.abort(error);
          throw error;
        }
      }),
    );
    return Object.fromEntries(await Promise.race([answers, aborted]));
  } finally {
    outer?.removeEventListener('abort', fail);
  }
}

/** The request {@link requestWithInputRounds} drives. */
export interface InputRoundsRequest {
  readonly method: string;
  /** The first round's params (the caller's). */
  readonly params: Params | undefined;
  /**
   * Told each result as it arrives, with the params of the request that got it (a retry's carry `inputResponses`
   * or `requestState`): the response cache stores what it may. Awaited before the loop goes on.
   */
  readonly onResult?: (result: Params, params: Params | undefined) => void | Promise<void>;
}

/**
 * Sends `method` and drives its input rounds to the end: resolves with the first result that is not
 * `input_required` (`complete`, or `task` for a `tools/call` that became a task), as received.
 * @throws InputRoundsExceededError when the server still asks for input after `maxInputRounds` answered rounds
 * @throws InvalidResultError when a result is not an object or its `input_required` is malformed
 * @throws the errors of {@link answerInputRequests}, and the typed errors of `ClientCore.send`
 */
export async function requestWithInputRounds<T>(host: InputRoundsHost, request: InputRoundsRequest, options?: CoreSendOptions): Promise<T> {
  const { method } = request;
  const base: Params = { ...request.params };
  // The caller's params are the first round's; the input fields of later rounds are the client's alone.
  const { inputResponses: _responses, requestState: _state, ...original } = base;
  const maxRounds = host.options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS;
  let params: Params | undefined = request.params;
  for (let rounds = 0; ; rounds++) {
    const result = await host.send<unknown>(method, params, options);
    if (!isRecord(result)) throw new InvalidResultError({ method, reason: 'the result is not an object', result });
    await request.onResult?.(result, params);
    if (result.resultType !== 'input_required') return result as T;
    const asked = readInputRequired(method, result);
    if (rounds >= maxRounds) throw new InputRoundsExceededError({ method, rounds });
    const retry: Params = { ...original };
    // MCP 2026-07-28 basic/patterns/mrtr.mdx: without inputRequests the client MAY retry at once.
    if (asked.inputRequests !== undefined) retry.inputResponses = await answerInputRequests(host, asked.inputRequests, { method, signal: callSignal(options), tag: options?.tag });
    if (asked.requestState !== undefined) retry.requestState = asked.requestState;
    params = retry;
  }
}

/**
 * The call's signal for what outlives its first request (input rounds, a task's wait): `signal`, else one made from
 * `cancellation` (only when called: a call that needs neither makes no signal).
 */
export function callSignal(options: CoreSendOptions | undefined): AbortSignal | undefined {
  if (options?.signal !== undefined || options?.cancellation === undefined) return options?.signal;
  return signalOf(options.cancellation);
}
