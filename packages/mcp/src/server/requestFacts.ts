/**
 * The facts a request is served with: what the server knows about the client for it ({@link RequestFacts}), and
 * how a modern-era request's facts are read from its own `_meta` envelope ({@link ModernFacts}, over
 * {@link modernMetaOf}).
 *
 * @see MCP 2026-07-28 basic/index.mdx "Per-request protocol fields"
 */
import type { JsonRpcNotification, JsonRpcRequest } from '@switchboard/jsonrpc';
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, LOG_LEVEL_META_KEY, PROTOCOL_VERSION_META_KEY, isImplementation, metaOf } from '../protocol/envelope.js';
import { LOGGING_LEVEL_RANK } from '../protocol/notifications.js';
import type { Era } from '../protocol/revisions.js';
import type { ClientCapabilities, Implementation, ServerCapabilities } from '../protocol/types.js';
import { isRecord } from './params.js';

/**
 * What the server knows about the client for one request (not to be confused with the protocol's
 * `RequestEnvelope`, the parsed `_meta` of one message). A session-era connection is its own facts
 * (its negotiated state, read live); a caller of `McpServer.handle` builds one per request.
 */
export interface RequestFacts {
  /**
   * The era the request is served in: `modern` when it carries its own envelope (2026-07-28), else `legacy`.
   * @default 'legacy'
   */
  readonly era?: Era;
  /** The revision the request is served at; `undefined` before a session negotiated one. */
  readonly protocolVersion: string | undefined;
  /** `clientInfo` the client sent (a session: its `initialize`), if any. */
  readonly clientInfo: Implementation | undefined;
  /** What the client declared; `{}` when nothing. */
  readonly clientCapabilities: ClientCapabilities;
  /**
   * The server capabilities this client was told of (a session: its `initialize` result); the capability gate
   * reads them. `undefined`: the server's current capabilities.
   */
  readonly serverCapabilities: ServerCapabilities | undefined;
  /** `ctx.log` sends nothing below this rank (see `LOGGING_LEVEL_RANK`); 0 sends everything. */
  readonly logLevelRank: number;
  /** Authentication facts, exposed as `ctx.authInfo` unless the message's transport facts carry their own. */
  readonly authInfo?: unknown;
  /** A progress token for this request when it is not in `params._meta.progressToken`. */
  readonly progressToken?: string | number | undefined;
}

/** `ctx.log` rank of a modern request without `logLevel`: above every level, so nothing is sent. */
const NO_LOGGING = Number.POSITIVE_INFINITY;
const NO_CAPABILITIES: ClientCapabilities = Object.freeze({});

/**
 * The facts of one modern-era request, read from its envelope: its revision, the client's capabilities and info
 * as this request declares them, the log level it asked for (none: no `notifications/message`), its progress token.
 * It reads `params._meta` as it is asked (the inbound step checked the envelope before the handler runs), so a
 * request costs one small object here.
 */
export class ModernFacts implements RequestFacts {
  readonly era: Era = 'modern';
  /** The server's current capabilities: a modern-era client is told of no others. */
  readonly serverCapabilities: ServerCapabilities | undefined = undefined;
  readonly #meta: Readonly<Record<string, unknown>>;

  /** @param meta the request's `params._meta` (already checked by the inbound step) */
  constructor(meta: Readonly<Record<string, unknown>>) {
    this.#meta = meta;
  }

  get protocolVersion(): string | undefined {
    const claim = this.#meta[PROTOCOL_VERSION_META_KEY];
    return typeof claim === 'string' ? claim : undefined;
  }

  get clientInfo(): Implementation | undefined {
    const info = this.#meta[CLIENT_INFO_META_KEY];
    return isImplementation(info) ? info : undefined;
  }

  get clientCapabilities(): ClientCapabilities {
    const capabilities = this.#meta[CLIENT_CAPABILITIES_META_KEY];
    return isRecord(capabilities) ? capabilities : NO_CAPABILITIES;
  }

  get logLevelRank(): number {
    const level = this.#meta[LOG_LEVEL_META_KEY];
    // MCP 2026-07-28 server/utilities/logging.mdx: no logLevel ⇒ the server MUST NOT send notifications/message.
    return typeof level === 'string' ? (LOGGING_LEVEL_RANK.get(level) ?? NO_LOGGING) : NO_LOGGING;
  }

  get progressToken(): string | number | undefined {
    const token = this.#meta.progressToken;
    return typeof token === 'string' || typeof token === 'number' ? token : undefined;
  }
}

/** No prototype: a polluted `Object.prototype` gives it no member. */
const NO_META: Readonly<Record<string, unknown>> = Object.freeze(Object.create(null) as Record<string, unknown>);

/**
 * The envelope of the modern-era `message` (one with a version claim): its `params._meta`, in place when it is what
 * `JSON.parse` makes (in a realm whose `Object.prototype` lacks the envelope's names), else a copy of its own members
 * of those names (the protocol's `metaOf`).
 */
export function modernMetaOf(message: JsonRpcRequest | JsonRpcNotification): Readonly<Record<string, unknown>> {
  return metaOf(message) ?? NO_META;
}
