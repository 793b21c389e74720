/**
 * What the MCP layer may tell the transport it runs on, beyond the JSON-RPC {@link Transport} contract: the
 * server's hooks ({@link McpServerTransport}) and the client's ({@link ClientTransport}, {@link ClientConnector}).
 * A transport is told these facts; it never learns them by reading MCP messages itself.
 */
import type { JsonRpcId, Logger, Transport } from '@switchboard/jsonrpc';
import type { ConnectionEndFacts } from './clientErrors.js';
import type { ParamHeader } from './paramHeaders.js';
import type { Era, ProtocolRevision } from './revisions.js';

/** A JSON-RPC transport an MCP connection runs on, with the optional hooks the MCP layer calls. */
export interface McpServerTransport extends Transport {
  /**
   * Called once the session's revision is negotiated (after the `initialize` result is produced, before it
   * is sent), so an HTTP transport can check `MCP-Protocol-Version` and pick revision-dependent framing
   * (MCP 2025-11-25 basic/transports.mdx "Protocol Version Header") without reading `initialize` results.
   */
  setProtocolVersion?(revision: string): void;
  /**
   * Called when the client cancelled one of its requests (`notifications/cancelled`) and the handler was
   * stopped: a transport with a stream per request (Streamable HTTP) may close that stream.
   */
  requestCancelled?(id: JsonRpcId): void;
  /**
   * Called with the session's state as plain JSON (what `initialize` negotiated, the log level, the subscriptions,
   * whether `notifications/initialized` arrived) once `initialize` succeeded and after each change, so a transport
   * whose sessions are served by several instances (Streamable HTTP with a shared session store) keeps it where
   * the others read it. Absent: the state stays in this process.
   * @see MCP 2025-11-25 basic/transports.mdx "Session Management"
   */
  setSessionState?(state: Readonly<Record<string, unknown>>): void;
  /**
   * Set by the server on a transport that has {@link setSessionState}: the transport calls it with the state another
   * instance serving the same session wrote (its log level, subscriptions…), and the server applies it.
   */
  onsessionstate?: ((state: Readonly<Record<string, unknown>>) => void) | undefined;
}

/** The transports an MCP client runs on. */
export type ClientTransportKind = 'stdio' | 'streamable-http' | 'http-sse';

/** What the client tells its transport once the era and revision of the connection are known. */
export interface ClientProtocol {
  /** `'modern'` (per-request `_meta`, 2026-07-28 on) or `'legacy'` (an `initialize` session). */
  readonly era: Era;
  /** The negotiated revision (legacy) or the one every request claims (modern). */
  readonly revision: ProtocolRevision;
}

/**
 * The client side of one channel to one server: a JSON-RPC {@link Transport} (messages in and out; `onclose` once)
 * with the hooks the MCP client calls. Inbound messages arrive classified; a line or event that is not JSON-RPC is
 * dropped by the transport with a warning (field bug B15), never delivered as `invalid` (the client does not answer
 * a server's garbage).
 *
 * Failures of `send` are typed (see `clientErrors.ts`): {@link ConnectionClosedError} when the channel is
 * closed, {@link HttpStatusError} for an HTTP answer without a JSON-RPC response to pair, {@link SessionExpiredError}
 * for a 404 on a session. An HTTP body holding a JSON-RPC response with an `id` is delivered through `onmessage`
 * (so `-32022` with `data.supported` settles its request as a wire error), whatever the status.
 */
export interface ClientTransport extends Transport {
  /** Which transport this is. */
  readonly kind: ClientTransportKind;
  /**
   * Called by the client after negotiation (and again after a re-negotiation). HTTP: the `MCP-Protocol-Version`
   * header on every later request (MCP 2025-11-25 basic/transports.mdx "Protocol Version Header"), and from
   * 2026-07-28 the `Mcp-Method` / `Mcp-Name` headers, no session, no GET stream. Before the first call the
   * transport sends what a probe needs: for a request whose `params._meta` claims a revision, that revision's headers.
   */
  setProtocol(protocol: ClientProtocol): void;
  /**
   * The client gave up on one of its requests (timeout or abort). Returns `true` when the transport itself carries
   * the cancellation — at 2026-07-28 over HTTP, closing the request's response stream is the cancellation (MCP
   * 2026-07-28 basic/patterns/cancellation.mdx) — so the client sends no `notifications/cancelled`; `false` (or
   * absent) when the client must send one.
   */
  abandonRequest?(id: JsonRpcId): boolean;
  /**
   * HTTP, 2026-07-28: the `Mcp-Param-*` headers of a tool's `tools/call`, compiled from its `x-mcp-header`
   * annotations when `tools/list` was read; `undefined` forgets the tool.
   */
  setToolParamHeaders?(tool: string, headers: readonly ParamHeader[] | undefined): void;
  /** How the channel ended, once `onclose` fired (exit code and stderr tail of a process, an HTTP failure). */
  readonly endFacts?: ConnectionEndFacts | undefined;
  /**
   * Set by the client: the transport calls it when it dropped what looks like the response to request `id` (stdio:
   * a stdout line over `maxLineBytes` whose top-level `id` it could read), so that request fails with `error` at
   * once instead of waiting out its timeout.
   */
  onresponselost?: ((id: JsonRpcId, error: Error) => void) | undefined;
}

/** Options of {@link ClientConnector.open}. */
export interface ClientConnectorOpenOptions {
  /** Where the transport reports what it survived (non-JSON lines, stderr of the server, reconnections). */
  readonly logger: Logger;
  /** Aborting gives up opening (a spawn is killed, a fetch aborted). */
  readonly signal?: AbortSignal;
}

/**
 * A way to reach one server, which the client may use more than once: to reconnect after the process died
 * (stdio) or the session ended (HTTP), and to fall back from Streamable HTTP to the 2024-11-05 HTTP+SSE transport.
 * Made by `spawnStdio(…)` (`@switchboard/mcp/stdio`) or `streamableHttp(…)` / `httpSse(…)`
 * (`@switchboard/mcp/client`).
 */
export interface ClientConnector {
  /** The transport {@link open} makes. */
  readonly kind: ClientTransportKind;
  /**
   * The key of the cached era verdict: the command line for stdio (`stdio:<command> <args…>`), the endpoint URL
   * without query or fragment for HTTP. MCP 2026-07-28 basic/versioning.mdx: clients SHOULD cache the verdict per
   * process (stdio) or origin (HTTP).
   */
  readonly verdictKey: string;
  /** Opens a fresh channel: spawns the process (stdio) or prepares the endpoint (HTTP). */
  open(options: ClientConnectorOpenOptions): Promise<ClientTransport>;
  /**
   * HTTP only: the 2024-11-05 HTTP+SSE transport for the same URL, tried when a Streamable HTTP `initialize` is
   * answered 400, 404 or 405 with a body that is not a modern JSON-RPC error (MCP 2025-11-25 basic/transports.mdx
   * "Backwards Compatibility": GET the URL and expect an `endpoint` event).
   */
  openHttpSse?(options: ClientConnectorOpenOptions): Promise<ClientTransport>;
}
