/**
 * Multi round-trip requests (MCP 2026-07-28 basic/patterns/mrtr.mdx): on a modern-era request a handler's
 * `ctx.elicit(…)`, `ctx.sample(…)` and `ctx.listRoots()` are input requests, not server → client requests (the
 * modern era has none). One round of one request:
 * - a call whose key has a response (in the retry's `inputResponses`, or carried from earlier rounds in the signed
 *   `requestState`) resolves at once with it;
 * - a call without one is recorded and rejects with {@link InputRequiredSignal}; the request is then answered
 *   `{ resultType: "input_required", inputRequests, requestState }` whatever the handler did with the rejection.
 * No continuation is kept in memory: the retry runs the handler again from the start, so any instance with the
 * signing keys can serve it. Calls made together (`Promise.all`) are asked in one round.
 */
import { MissingClientCapabilityError } from '../protocol/errors.js';
import type { ClientCapabilities } from '../protocol/types.js';
import { answeredRequestOf, inputResponseProblem, InvalidInputResponseError, type AnsweredRequest } from './inputResponses.js';
import { invalidParams, isRecord } from './params.js';

/** One input request as it goes in `inputRequests` (no `jsonrpc`, no `id`: MCP 2026-07-28 schema.ts `InputRequest`). */
export interface InputRequest {
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

/** What the signed `requestState` carries between rounds. */
export interface CarriedState {
  /** The responses used in earlier rounds, by key. */
  readonly responses: Readonly<Record<string, unknown>>;
  /** The handler's own state (`ctx.requestState`), if it set one. */
  readonly state?: unknown;
  /**
   * The input requests of the round that issued this state, by key: only their answers are taken, each checked
   * against what was asked (its method and, for a form, its `requestedSchema`) before the handler runs. A list of
   * keys (states issued before the check existed) takes their answers unchecked here; they are checked when the
   * handler asks.
   */
  readonly asked?: readonly string[] | Readonly<Record<string, AnsweredRequest>>;
}

/**
 * Rejects a handler's input request that has no response yet: the request is answered `input_required`. Handler
 * code may let it propagate (the usual case) or catch it; either way the answer is the same.
 */
export class InputRequiredSignal extends Error {
  constructor() {
    super('Input required: the client is asked for it with an input_required result');
    this.name = 'InputRequiredSignal';
  }
}

/** The key prefix of each input request method (default keys are `<prefix>-<n>`, by call order). */
const KEY_PREFIX: Readonly<Record<string, string>> = { 'elicitation/create': 'elicitation', 'sampling/createMessage': 'sampling', 'roots/list': 'roots' };

/** The client capability each input request needs (MCP 2026-07-28 basic/patterns/mrtr.mdx "Server Requirements"). */
function requiredCapability(method: string, params: Record<string, unknown> | undefined): ClientCapabilities {
  if (method === 'sampling/createMessage') return { sampling: {} };
  if (method === 'roots/list') return { roots: {} };
  // MCP 2026-07-28 client/elicitation.mdx "Capabilities": `{}` means form mode only; URL mode needs `url`.
  return params?.mode === 'url' ? { elicitation: { url: {} } } : { elicitation: {} };
}

function declares(declared: ClientCapabilities, needed: ClientCapabilities): boolean {
  const [name, inner] = Object.entries(needed)[0] as [string, Record<string, unknown>];
  // Own members only: a polluted Object.prototype declares nothing for the client.
  const value = Object.hasOwn(declared, name) ? (declared as Record<string, unknown>)[name] : undefined;
  if (!isRecord(value)) return false;
  return Object.keys(inner).every((flag) => Object.hasOwn(value, flag) && value[flag] !== undefined);
}

const REJECTED_HANDLED = (): void => {};

/** The responses of a round whose request carried none (read only). */
const NO_ANSWERS: Readonly<Record<string, unknown>> = Object.freeze({});

/** One round of one modern-era request (see the module comment). */
export class InputRound {
  /** The handler's own state: read from the carried state, written by `ctx.requestState = …`. */
  state: unknown;
  readonly #responses: Readonly<Record<string, unknown>>;
  readonly #clientCapabilities: ClientCapabilities;
  /** The responses this round used, by key; made on the first one (most requests ask nothing). */
  #used: Map<string, unknown> | undefined = undefined;
  /** Input requests made so far, by key prefix (the default keys' `<n>`); made on the first one. */
  #counts: Map<string, number> | undefined = undefined;
  #requests: Record<string, InputRequest> | undefined = undefined;
  /** The first input request this request's client capabilities do not allow (the request is then -32021). */
  refusal: MissingClientCapabilityError | undefined = undefined;
  /**
   * The first answer that did not fit the input request the handler made (an answer sent without a state, which
   * is checked only then): the request is answered with it (-32602), whatever the handler did with the rejection.
   */
  invalid: InvalidInputResponseError | undefined = undefined;

  /**
   * @param init `inputResponses` of this request (validated: an object of objects, else -32602), what the verified
   *   `requestState` carried, and the capabilities the client declared on this request
   * @throws JsonRpcError -32602 when `inputResponses` is not an object whose values are objects
   * @throws InvalidInputResponseError -32602 when an answer to a key the carried state asked for does not fit its
   *   input request (MCP 2026-07-28 basic/patterns/mrtr.mdx: malformed inputResponses ⇒ a JSON-RPC error)
   */
  constructor(init: { readonly inputResponses: unknown; readonly carried: CarriedState | undefined; readonly clientCapabilities: ClientCapabilities }) {
    const given = init.inputResponses;
    if (given !== undefined && (!isRecord(given) || !Object.values(given).every(isRecord))) {
      // MCP 2026-07-28 basic/patterns/mrtr.mdx "Server Requirements": malformed inputResponses ⇒ a JSON-RPC error.
      throw invalidParams('"inputResponses" must be an object of input responses (objects)');
    }
    // A retry's answers count for the keys its state says were asked (others are ignored, MCP 2026-07-28
    // basic/patterns/mrtr.mdx "unknown responses SHOULD be ignored"). A request without state may carry answers
    // too, and they are taken (the conformance suite's reading; the client relays the user's answers either way,
    // so a handler never learns more from an answer than that the client sent it).
    const carried = init.carried;
    let answers: Record<string, unknown>;
    // No answers and no state (a first request, the usual case): nothing to copy.
    if (carried === undefined) answers = given === undefined ? NO_ANSWERS : { ...given };
    else {
      answers = { ...carried.responses };
      const asked = carried.asked ?? [];
      const requests: Readonly<Record<string, AnsweredRequest>> | undefined = Array.isArray(asked) ? undefined : (asked as Readonly<Record<string, AnsweredRequest>>);
      const keys: readonly string[] = requests === undefined ? (asked as readonly string[]) : Object.keys(requests);
      if (given !== undefined) {
        for (const key of keys) {
          if (!Object.hasOwn(given, key)) continue;
          const request = requests?.[key];
          const problem = request === undefined ? undefined : inputResponseProblem(request, given[key]);
          if (problem !== undefined) throw new InvalidInputResponseError({ method: (request as AnsweredRequest).method, key, problem });
          answers[key] = given[key];
        }
      }
    }
    this.#responses = answers;
    this.state = init.carried?.state;
    this.#clientCapabilities = init.clientCapabilities;
  }

  /** Whether an input request of this round has no response (the request answers `input_required`). */
  get pending(): boolean {
    return this.#requests !== undefined;
  }

  /** The input requests of this round, by key. */
  get inputRequests(): Readonly<Record<string, InputRequest>> {
    return this.#requests ?? {};
  }

  /** What the next round's `requestState` carries: the responses used so far, the handler's state, the keys asked now. */
  carried(): CarriedState {
    const responses = this.#used === undefined ? {} : Object.fromEntries(this.#used);
    const asked: Record<string, AnsweredRequest> = {};
    for (const [key, request] of Object.entries(this.#requests ?? {})) asked[key] = answeredRequestOf(request);
    return this.state === undefined ? { responses, asked } : { responses, state: this.state, asked };
  }

  /**
   * One input request of the handler: its response when the client sent one for `key`, else recorded.
   * @param key the request's key in `inputRequests` @default `<elicitation|sampling|roots>-<n>` by call order
   * @throws MissingClientCapabilityError (rejection; -32021) when this request's `clientCapabilities` lack what
   *   the input request needs: it is never sent to the client
   * @throws InputRequiredSignal (rejection) when there is no response yet
   * @throws InvalidInputResponseError (rejection; -32602) when the response does not fit this input request (the
   *   request is then answered with it)
   */
  ask<T>(method: string, params: Record<string, unknown> | undefined, key: string | undefined): Promise<T> {
    const needed = requiredCapability(method, params);
    if (!declares(this.#clientCapabilities, needed)) {
      const error = new MissingClientCapabilityError(needed);
      this.refusal ??= error;
      const rejected = Promise.reject(error);
      rejected.catch(REJECTED_HANDLED);
      return rejected;
    }
    const prefix = KEY_PREFIX[method] ?? method;
    const counts = (this.#counts ??= new Map<string, number>());
    const n = counts.get(prefix) ?? 0;
    counts.set(prefix, n + 1);
    const name = key ?? `${prefix}-${n}`;
    if (Object.hasOwn(this.#responses, name)) {
      const response = this.#responses[name];
      // Checked again against the request the handler makes now: an answer sent without a state was not checked
      // before, and a handler may ask something else under a key than it did in the earlier round.
      const problem = inputResponseProblem({ method, params }, response);
      if (problem !== undefined) {
        const error = new InvalidInputResponseError({ method, key: name, problem });
        this.invalid ??= error;
        const rejected = Promise.reject(error);
        rejected.catch(REJECTED_HANDLED);
        return rejected;
      }
      (this.#used ??= new Map<string, unknown>()).set(name, response);
      return Promise.resolve(response as T);
    }
    (this.#requests ??= {})[name] = params === undefined ? { method } : { method, params };
    const signal = Promise.reject(new InputRequiredSignal());
    // A handler that never awaits the call must not make an unhandled rejection.
    signal.catch(REJECTED_HANDLED);
    return signal;
  }
}
