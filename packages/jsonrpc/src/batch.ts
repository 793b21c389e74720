/**
 * The one batch engine behind {@link Dispatcher.handle} and the {@link Peer}: the size cap and its refusal,
 * members in input order, one reply per request and per invalid member, and no reply at all for a batch
 * of notifications (and responses).
 *
 * @see https://www.jsonrpc.org/specification §6 (Batch)
 */
import { errorResponse, type InboundSingle } from './classify.js';
import { ErrorCode, ErrorMessage } from './errors.js';
import type { JsonRpcErrorResponse, JsonRpcResponse } from './message.js';

/**
 * The refusal of a batch over the size limit: one -32600 error response (not an array) with `id: null`,
 * message `Invalid Request: batch of <size> messages exceeds the limit of <max>`. None of its members runs.
 *
 * @param size - Members in the refused batch.
 * @param max - The limit in effect (members).
 * @returns The error response to send.
 * @see https://www.jsonrpc.org/specification §5.1 (-32600), §6
 */
export function batchTooLarge(size: number, max: number): JsonRpcErrorResponse {
  return errorResponse(null, {
    code: ErrorCode.InvalidRequest,
    message: `${ErrorMessage[ErrorCode.InvalidRequest]}: batch of ${size} messages exceeds the limit of ${max}`,
  });
}

/**
 * One member's place in the batch reply. {@link BatchSlot.settle} is called once per slot, with the member's
 * response or `undefined` (a notification, or a request whose response is suppressed).
 */
export class BatchSlot {
  readonly #batch: BatchReply;
  readonly #index: number;

  /** @internal */
  constructor(batch: BatchReply, index: number) {
    this.#batch = batch;
    this.#index = index;
  }

  /** Records this member's reply; the batch reply goes out once every member has settled. */
  settle(response: JsonRpcResponse | undefined): void {
    this.#batch.settle(this.#index, response);
  }
}

/** A member the engine hands to its owner: requests and notifications to dispatch, responses to route. */
export type BatchMember = Exclude<InboundSingle, { readonly kind: 'invalid' }>;

/** The collector of one batch's replies; counts one for the member loop until it ends. */
class BatchReply {
  readonly #replies: (JsonRpcResponse | undefined)[];
  #remaining = 1;
  readonly #done: (reply: JsonRpcResponse[] | undefined) => void;

  constructor(size: number, done: (reply: JsonRpcResponse[] | undefined) => void) {
    this.#replies = new Array<JsonRpcResponse | undefined>(size);
    this.#done = done;
  }

  expect(): void {
    this.#remaining++;
  }

  settle(index: number, response: JsonRpcResponse | undefined): void {
    this.#replies[index] = response;
    this.release();
  }

  /** One member (or, last, the member loop itself) is done; the reply goes out when nothing is left. */
  release(): void {
    if (--this.#remaining > 0) return;
    const out: JsonRpcResponse[] = [];
    for (const reply of this.#replies) if (reply !== undefined) out.push(reply);
    this.#done(out.length === 0 ? undefined : out);
  }
}

/** What {@link runBatch} needs from its owner. */
export interface BatchRunner {
  /** The batch size limit (members); a larger batch is answered with {@link batchTooLarge}. */
  readonly maxBatchSize: number;
  /**
   * Called for each request, notification and response member, in input order. The member's `slot` must be
   * settled exactly once (at once or later); a response or a notification settles it with `undefined`.
   */
  readonly member: (item: BatchMember, slot: BatchSlot) => void;
  /**
   * Called once with the reply: the members' responses in input order, {@link batchTooLarge}'s refusal, or
   * `undefined` when nothing is to be sent (every member a notification or a response).
   */
  readonly done: (reply: JsonRpcResponse | JsonRpcResponse[] | undefined) => void;
}

/**
 * Runs one batch: refuses it whole when it has more than `maxBatchSize` members, otherwise hands each member to
 * `runner.member` in input order, answers each invalid member with its own reply, and calls `runner.done` once
 * every slot has settled (synchronously, when every member settles synchronously).
 *
 * @param items - The batch members, as classified.
 * @param runner - See {@link BatchRunner}.
 */
export function runBatch(items: readonly InboundSingle[], runner: BatchRunner): void {
  const count = items.length;
  if (count > runner.maxBatchSize) {
    runner.done(batchTooLarge(count, runner.maxBatchSize));
    return;
  }
  const batch = new BatchReply(count, runner.done);
  for (let index = 0; index < count; index++) {
    const item = items[index]!;
    batch.expect();
    if (item.kind === 'invalid') batch.settle(index, item.reply);
    else runner.member(item, new BatchSlot(batch, index));
  }
  batch.release();
}
