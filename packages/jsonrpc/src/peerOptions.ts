/**
 * The {@link Peer}'s construction options and their defaults.
 */
import type { Dispatcher } from './dispatcher.js';
import type { Instrumentation } from './instrument.js';
import type { Logger } from './logger.js';
import type { InboundSingle } from './classify.js';
import type { JsonRpcId, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from './message.js';
import type { Transport, TransportMessageExtra } from './transport.js';

/** Default for {@link PeerOptions.maxConcurrentInbound}. */
export const DEFAULT_MAX_CONCURRENT_INBOUND = 64;
/** Default for {@link PeerOptions.maxQueuedInbound}. */
export const DEFAULT_MAX_QUEUED_INBOUND = 1024;

/** Options of one outbound notification. */
export interface PeerNotifyOptions {
  /** Routing hint passed to the transport. @default none */
  readonly relatedRequestId?: JsonRpcId;
}

/** {@link Peer} construction options. */
export interface PeerOptions<Ctx> {
  /** The channel. The peer sets its `onmessage`, `onerror` and `onclose`. */
  readonly transport: Transport;
  /** Handles inbound requests and notifications. Without one, every inbound request gets -32601. @default none */
  readonly dispatcher?: Dispatcher<Ctx>;
  /**
   * Builds the dispatcher context of one inbound request or notification. Called once per inbound message,
   * on arrival (before it waits for a concurrency slot). A throw answers a request with -32603.
   * @default `() => undefined`
   */
  readonly context?: (message: JsonRpcRequest | JsonRpcNotification, extra: TransportMessageExtra | undefined) => Ctx;
  /**
   * Judges an inbound batch before any of its members is read: return a response to send it instead (an error
   * with `id: null`, say, where the protocol takes no batches); the batch is then dropped whole (none of its
   * members runs, a response in it settles nothing). `undefined` lets the batch run. A throw is logged and lets
   * it run. @default none (every batch runs)
   */
  readonly batchRefusal?: (items: readonly InboundSingle[], extra: TransportMessageExtra | undefined) => JsonRpcResponse | undefined;
  /**
   * Receives every inbound notification (a batch's members too), in arrival order, in place of the dispatcher;
   * a throw is logged. For a protocol layer that routes notifications itself (a client handing progress to its
   * request). @default none (the dispatcher handles them)
   */
  readonly onNotification?: (notification: JsonRpcNotification, extra: TransportMessageExtra | undefined) => void;
  /**
   * The notification to send when an outbound request is abandoned (aborted or timed out), e.g. MCP's
   * `notifications/cancelled`. Return `undefined` to send nothing. @default none
   */
  readonly cancelNotification?: (id: JsonRpcId, reason: string) => JsonRpcNotification | undefined;
  /**
   * Inbound requests handled at once (batch members count one each); more wait in arrival order.
   * Notifications are never queued (a cancellation must get through a full queue). A positive integer.
   * @default 64 ({@link DEFAULT_MAX_CONCURRENT_INBOUND})
   */
  readonly maxConcurrentInbound?: number;
  /**
   * Requests that may wait for a slot before the transport is asked to stop reading ({@link Transport.pauseInput});
   * reading resumes once half of them got a slot. So what a client pipelines stays in the pipe instead of in memory,
   * while messages a running request needs (its cancellation, the answer to a server-to-client request) still get
   * read behind a modest backlog. A positive integer.
   * @default 1024 ({@link DEFAULT_MAX_QUEUED_INBOUND})
   */
  readonly maxQueuedInbound?: number;
  /** Reports unknown response ids (warn), transport errors and handler failures (error). @default silentLogger */
  readonly logger?: Logger;
  /**
   * Sees every inbound and outbound request begin and end (tracing, failure analytics); see
   * {@link Instrumentation}. A request refused before it gets an id (connection closed, invalid timeout, an
   * already-aborted signal) is not reported. @default none (nothing is called or allocated for it)
   */
  readonly instrumentation?: Instrumentation;
}
