/**
 * The client's instrumentation hook (option {@link McpClientOptions.instrumentation}): where tracing
 * (`@switchboard/otel`) sees each request the client puts on the wire begin and end, and adds the trace context to
 * the request's `params._meta` (MCP 2026-07-28 basic/index.mdx "`_meta`": `traceparent`, `tracestate` and `baggage`
 * are reserved for W3C Trace Context and Baggage, unprefixed). Runtime-neutral; without the option the client calls
 * and allocates nothing for it.
 */
import type { ClientTransport } from '../protocol/transport.js';

/** One request about to be sent (one wire request: an input round or a retry is a request of its own). */
export interface ClientRequestInfo {
  /** The method (`tools/call`, `initialize`, …). */
  readonly method: string;
  /** The params as the caller gave them (before the era's `_meta` envelope is added); must not be modified. */
  readonly params: Readonly<Record<string, unknown>> | undefined;
  /** The connection's era once negotiated; `undefined` during negotiation (`initialize`, the `server/discover` probe). */
  readonly era: 'legacy' | 'modern' | undefined;
  /** The negotiated revision; `undefined` during negotiation. */
  readonly protocolVersion: string | undefined;
  /** The transport it goes out on (its `kind`; an HTTP transport's `sessionId` once a session exists). */
  readonly transport: ClientTransport;
}

/**
 * How a request ended: `result` with the result received, or `error` with what the call rejects with (an
 * `McpError` carrying the server's JSON-RPC `code`, or a client error such as `RequestTimeoutError`).
 */
export type ClientRequestOutcome = { readonly kind: 'result'; readonly result: unknown } | { readonly kind: 'error'; readonly error: unknown };

/** What {@link ClientInstrumentation.onRequest} returns for a request it observes. */
export interface ClientRequestObservation {
  /**
   * String members added to the request's `params._meta` (e.g. `traceparent`); the modern envelope's members, a
   * request's own `meta` option and the progress token win over them. @default none
   */
  readonly meta?: Readonly<Record<string, string>> | undefined;
  /** Called exactly once when the request ends. A throw is logged and ignored. */
  readonly end: (outcome: ClientRequestOutcome) => void;
}

/** What is known of a connection when it ends (see {@link ClientInstrumentation.onConnection}). */
export interface ClientConnectionEnd {
  /** The era negotiated; `undefined` when the connection ended before negotiation finished. */
  readonly era: 'legacy' | 'modern' | undefined;
  /** The revision negotiated; `undefined` likewise. */
  readonly protocolVersion: string | undefined;
}

/** Hooks that see each client request begin and end. A hook that throws is logged and the request goes on unobserved. */
export interface ClientInstrumentation {
  /** A request is about to be sent; `undefined`: not interested. */
  readonly onRequest: (info: ClientRequestInfo) => ClientRequestObservation | undefined;
  /**
   * A connection (one channel to one server: `McpClient.connect`, or a reconnect) is about to start its transport;
   * the function it returns is called exactly once when that channel ends, from either side (`McpClient.close`,
   * the server or the transport closing it). A throw is logged and ignored. @default none
   */
  readonly onConnection?: ((transport: ClientTransport) => ((end: ClientConnectionEnd) => void) | undefined) | undefined;
}
