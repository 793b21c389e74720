/**
 * Where the outbound messages of one Streamable HTTP session go (MCP 2025-11-25 basic/transports.mdx "Sending
 * Messages to the Server" item 6, "Listening for Messages from the Server", "Multiple Connections" item 2): a
 * response to the stream of the POST that carried its request, a message related to a request to that request's
 * stream, anything else to the standalone GET stream; each message on exactly one stream. Holds the session's live
 * streams and which stream answers each request in flight. Reads no method name: it routes by ids.
 */
import { echoId, JsonRpcLocalError, LocalErrorCode } from '@switchboard/jsonrpc';
import type { JsonRpcId, JsonRpcMessage, Logger } from '@switchboard/jsonrpc';
import { TransientMap } from '@switchboard/jsonrpc/internal';
import type { OutStream } from './exchange.js';

/** @internal The streams of one session and the routing of its outbound messages to them. */
export class StreamRouter {
  /** Live POST streams by stream id. */
  readonly streams = new TransientMap<string, OutStream>();
  /** The stream of each unanswered request. */
  readonly byRequest = new TransientMap<JsonRpcId, OutStream>();
  standalone: OutStream | undefined = undefined;
  /** The POST stream whose messages are being handed to the session right now (see {@link refuseWhole}). */
  delivering: OutStream | undefined = undefined;
  /**
   * With a cluster: takes a server→client request that has no stream connected here (no related request here, no
   * open GET stream) to the instance holding the client's GET stream; returns whether it did.
   */
  elsewhere: ((message: JsonRpcMessage) => boolean) | undefined = undefined;
  readonly #sessionId: string;
  readonly #logger: Logger;

  constructor(init: { readonly sessionId: string; readonly logger: Logger }) {
    this.#sessionId = init.sessionId;
    this.#logger = init.logger;
  }

  /** Whether a request is waiting for its response. */
  get inFlight(): boolean {
    return this.byRequest.size > 0;
  }

  /** Whether a POST or GET stream is connected. */
  get connected(): boolean {
    if (this.standalone?.channel?.open === true) return true;
    for (const stream of this.streams.values()) if (stream.channel?.open === true) return true;
    return false;
  }

  /** The live stream of `streamId` (a POST stream or the standalone one). */
  find(streamId: string): OutStream | undefined {
    return this.streams.get(streamId) ?? (this.standalone?.id === streamId ? this.standalone : undefined);
  }

  /** Makes `stream` the one that answers `requestIds`. */
  register(stream: OutStream, requestIds: readonly JsonRpcId[]): void {
    stream.remaining += requestIds.length;
    stream.ids = requestIds;
    for (const id of requestIds) this.byRequest.set(id, stream);
  }

  /**
   * Forgets a request that will get no response (cancelled); its exchange ends when nothing else of its POST is
   * pending. An id not in flight is ignored.
   */
  forget(requestId: JsonRpcId): void {
    const stream = this.byRequest.get(requestId);
    if (stream === undefined) return;
    this.byRequest.delete(requestId);
    stream.remaining--;
    if (stream.remaining === 0) stream.complete();
  }

  /**
   * Aborts every stream and forgets them all (the session closed).
   * @returns The streams aborted, each once.
   */
  abortAll(): ReadonlySet<OutStream> {
    const all = new Set(this.streams.values());
    if (this.standalone !== undefined) all.add(this.standalone);
    for (const stream of this.byRequest.values()) all.add(stream);
    for (const stream of all) stream.abort();
    this.streams.clear();
    this.byRequest.clear();
    this.standalone = undefined;
    return all;
  }

  /**
   * `text`: the message serialized, when the caller already did it (batch members).
   * @returns What the sender should wait for (backpressure, see `OutStream.emit`), or `undefined`.
   */
  route(message: JsonRpcMessage, relatedRequestId: JsonRpcId | undefined, text: string | undefined): Promise<void> | undefined {
    if ('method' in message) {
      const isRequest = 'id' in message;
      const related = relatedRequestId === undefined ? undefined : this.byRequest.get(relatedRequestId);
      if (related !== undefined) {
        if (related.kind === 'adaptive') related.upgrade();
        if (related.kind !== 'json') return related.emit(message, text ?? JSON.stringify(message));
        if (isRequest) {
          throw new JsonRpcLocalError(
            LocalErrorCode.SendFailed,
            `Cannot send '${message.method}' to the client: its request is answered with a single JSON body, which cannot carry server-to-client requests`,
          );
        }
        // A JSON answer carries only the response: related notifications (progress, log) have no channel.
        return;
      }
      const standalone = this.standalone;
      const elsewhere = isRequest && standalone?.channel?.open !== true ? this.elsewhere : undefined;
      if (elsewhere !== undefined && elsewhere(message)) return;
      if (standalone !== undefined && (standalone.channel !== undefined || standalone.resumable)) {
        return standalone.emit(message, text ?? JSON.stringify(message));
      }
      if (isRequest) {
        throw new JsonRpcLocalError(
          LocalErrorCode.SendFailed,
          `Cannot send '${message.method}' to the client: no open stream (the client has no GET stream on session '${this.#sessionId}')`,
        );
      }
      this.#logger.debug('Notification dropped: the client has no GET stream', { sessionId: this.#sessionId, method: message.method });
      return;
    }

    const id = message.id;
    if (id === null) return this.refuseWhole(message, text);
    const stream = this.byRequest.get(id);
    if (stream === undefined) {
      this.#logger.debug('Response dropped: no stream for its request', { sessionId: this.#sessionId, id: echoId(id) });
      return;
    }
    // Serialized before the route is consumed: a result that cannot be serialized (cyclic, BigInt) throws here with
    // the request still routed, so the Peer's -32603 stand-in for the same id reaches the client.
    const json = text ?? JSON.stringify(message);
    this.byRequest.delete(id);
    stream.remaining--;
    // The response is the exchange's first outbound message: one JSON answer.
    if (stream.kind === 'adaptive') stream.decideJson();
    let wait: Promise<void> | undefined;
    if (stream.kind === 'json') stream.collect(json);
    else {
      if ('result' in message) stream.answered = true;
      wait = stream.emit(message, json);
    }
    if (stream.remaining === 0) stream.complete();
    return wait;
  }

  /**
   * A response with `id: null` answers no request: the session refused what it was handed as a whole (JSON-RPC
   * 2.0 §6: a batch it cannot accept, e.g. longer than the Dispatcher's `maxBatchSize`, gets one error; the same
   * for a batch at a revision without batching). The session does that synchronously while a POST is being
   * delivered, so the response answers that POST's exchange, which then ends: none of its request ids stays
   * registered (their requests were never dispatched). Outside a delivery nothing waits for it: dropped (logged).
   */
  refuseWhole(message: JsonRpcMessage, text: string | undefined): undefined {
    const stream = this.delivering;
    if (stream === undefined || stream.done) {
      this.#logger.debug('Response dropped: id null and no POST is being delivered', { sessionId: this.#sessionId });
      return;
    }
    const json = text ?? JSON.stringify(message);
    for (const id of stream.ids) if (this.byRequest.get(id) === stream) this.byRequest.delete(id);
    stream.remaining = 0;
    if (stream.kind === 'adaptive') stream.decideJson();
    if (stream.kind === 'json') stream.collect(json);
    else void stream.emit(message, json);
    stream.complete();
    return undefined;
  }
}
