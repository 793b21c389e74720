/**
 * What the HTTP transports need of a server, as structural types: `connect` a session transport and later
 * `close` what it returned. `McpServer` satisfies them without the HTTP layer importing the server's modules, so
 * the transports stay below the server in the layering (`protocol` ← `server`; `transports` know neither).
 */
import type { Logger, Transport } from '@switchboard/jsonrpc';

/** What the HTTP handler tells the server about a session it connects. */
export interface HttpConnectOptions {
  /** The session id (`Mcp-Session-Id`, or the 2024-11-05 `sessionId` query parameter). */
  readonly sessionId?: string;
  /** Authentication facts established upstream (Node: `req.auth`), passed on untouched. */
  readonly authInfo?: unknown;
  /** Whether the transport can carry JSON-RPC batches (Streamable HTTP: yes; 2024-11-05 HTTP+SSE: no). */
  readonly batches?: boolean;
}

/** What the HTTP handler keeps of one connected session: a way to end it. */
export interface HttpSessionHandle {
  /** Ends the session (and its transport). */
  close(): Promise<void>;
}

/** What the handler needs of an McpServer: `connect` (and its `logger`, used when no logger is given). */
export interface McpHttpServerLike {
  /**
   * Serves one session on `transport`.
   * @returns A handle whose `close()` ends the session.
   */
  connect(transport: Transport, options?: HttpConnectOptions): Promise<HttpSessionHandle>;
  /** The server's logger; the handler logs through it when no `logger` option is given. */
  readonly logger?: Logger;
}
