/**
 * The {@link Peer}'s reply path: a response (or a batch reply) handed to the transport, and what happens when the
 * transport cannot send it. A failure because the connection is closing is only noted; any other (typically a
 * result that cannot be serialized) gets the response replaced, once, by its -32603 stand-in for the same id (in a
 * batch, only the members that cannot be serialized), so the other side is not left waiting on a request that will
 * never be answered. Failures are logged once per class,
 * then summarized with a count ({@link RecurringLog}), so a burst of refused answers is not a line each.
 *
 * @see https://www.jsonrpc.org/specification §5 (a request is answered), §5.1 (-32603)
 */
import { JsonRpcLocalError, LocalErrorCode } from './errors.js';
import type { Logger } from './logger.js';
import type { JsonRpcId, JsonRpcMessage, JsonRpcResponse } from './message.js';
import { RecurringLog } from './recurringLog.js';
import { unsendableStandIn } from './reply.js';

/** What a {@link ReplySender} needs from the peer that owns it. */
export interface ReplyLink {
  /** Whether the connection has closed or is closing: a reply that fails then is not replaced. */
  readonly ending: boolean;
  /** Hands a message to the transport; rejects when it cannot be sent. */
  send(message: JsonRpcMessage | readonly JsonRpcMessage[], relatedRequestId: JsonRpcId | undefined): Promise<void>;
}

/** Sends a peer's replies; see the module comment. One per peer. */
export class ReplySender {
  readonly #link: ReplyLink;
  /** Responses that could not be sent: one line per class, then a summary with the count. */
  readonly #failures: RecurringLog;

  constructor(link: ReplyLink, logger: Logger) {
    this.#link = link;
    this.#failures = new RecurringLog(logger);
  }

  /**
   * Sends a reply. When the transport cannot send a response for a reason other than the connection closing
   * (typically: its result cannot be serialized), it is replaced by -32603 "Internal error" for the same id,
   * once, so the peer is not left waiting. Failures are logged once per class, then summarized with a count.
   */
  send(reply: JsonRpcResponse | readonly JsonRpcResponse[]): void {
    const related = Array.isArray(reply) ? undefined : ((reply as JsonRpcResponse).id ?? undefined);
    this.#link.send(reply, related).then(undefined, (error: unknown) => {
      if (this.#link.ending || error instanceof JsonRpcLocalError || isConnectionClosed(error)) {
        this.#failures.note('warn', 'Response not sent: connection closed', { error });
        return;
      }
      this.#failures.note('error', 'Response could not be sent: sending -32603 instead', { error });
      const fallback = Array.isArray(reply) ? batchStandIn(reply as readonly JsonRpcResponse[]) : unsendableStandIn(reply as JsonRpcResponse);
      this.#link.send(fallback, related).then(undefined, (failure: unknown) => {
        this.#failures.note('error', 'Fallback error response could not be sent', { error: failure });
      });
    });
  }

  /** Logs the summary of the failures not reported yet (when the connection ends). */
  flush(): void {
    this.#failures.flush();
  }
}

/**
 * What is sent in place of a batch reply the transport could not send: the members JSON cannot carry are replaced by
 * their stand-in, the others go as they were (one member's unserializable result does not cost the others their
 * answers, JSON-RPC 2.0 §6). When every member serializes (the failure was something else), every member is replaced.
 */
function batchStandIn(reply: readonly JsonRpcResponse[]): JsonRpcResponse[] {
  const unsendable = reply.map((member) => !serializable(member));
  if (!unsendable.includes(true)) return reply.map((member) => unsendableStandIn(member));
  return reply.map((member, i) => (unsendable[i] === true ? unsendableStandIn(member) : member));
}

function serializable(value: unknown): boolean {
  try {
    JSON.stringify(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a transport's send failure says the connection is closed: a {@link JsonRpcLocalError}, or any error whose
 * `code` is `'connection_closed'` (transports of other packages raise their own classes with that code, e.g. the
 * MCP client's `ConnectionClosedError`). Such a response is not replaced by -32603: nothing can be sent any more.
 */
function isConnectionClosed(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { readonly code?: unknown }).code === LocalErrorCode.ConnectionClosed;
}
