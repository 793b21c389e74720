/**
 * The request envelope: the protocol fields a request carries in `params._meta`, read once per message.
 *
 * A modern-era request (2026-07-28 on) carries its revision, the client's capabilities and info, its log
 * level and trace context in `_meta` on every request (MCP 2026-07-28 basic/index.mdx "Per-request protocol
 * fields"); a legacy-era request negotiated those with `initialize` and carries only a progress token (MCP
 * 2025-11-25 basic/utilities/progress.mdx).
 */
import { isPlainObject, type JsonRpcNotification, type JsonRpcRequest } from '@switchboard/jsonrpc';
import type { ClientCapabilities, Implementation, LoggingLevel } from './types.js';
import { LOGGING_LEVELS } from './types.js';

/** The `_meta` key that claims a modern-era revision (MCP 2026-07-28 basic/index.mdx "`_meta`"). */
export const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';
/** The `_meta` key of the client's capabilities on a modern-era request. */
export const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';
/** The `_meta` key of the client's name and version on a modern-era request. */
export const CLIENT_INFO_META_KEY = 'io.modelcontextprotocol/clientInfo';
/** The `_meta` key of the log level a modern-era request asks for (absent: no `notifications/message`). */
export const LOG_LEVEL_META_KEY = 'io.modelcontextprotocol/logLevel';

/** A progress token (MCP 2025-11-25 schema.ts `ProgressToken`). */
export type ProgressToken = string | number;

/**
 * The protocol fields of one request, frozen. A field is absent when the message does not carry it or carries
 * a value of the wrong type (checking that a modern request carries what it must is the handler's job, which
 * answers -32602: MCP 2026-07-28 basic/index.mdx "Per-request protocol fields").
 */
export interface RequestEnvelope {
  /**
   * The modern-era revision claim, `params._meta["io.modelcontextprotocol/protocolVersion"]`: the string sent,
   * `''` when the key is present but not a string (a malformed claim is still a claim, never a silent fall back
   * to the legacy era: MCP 2026-07-28 basic/versioning.mdx "Protocol Version Negotiation"), `undefined` when the
   * key is absent (a legacy-era message).
   */
  readonly protocolVersion: string | undefined;
  /** Modern era only: the client's capabilities (`{}` means none beyond the base protocol). */
  readonly clientCapabilities?: ClientCapabilities;
  /** Modern era only: the client's self-reported name and version (never to drive behaviour or security). */
  readonly clientInfo?: Implementation;
  /** Modern era only: the lowest level of `notifications/message` wanted for this request. */
  readonly logLevel?: LoggingLevel;
  /** `params._meta.progressToken`: the request opts in to `notifications/progress` (both eras). */
  readonly progressToken?: ProgressToken;
  /** Modern era only: W3C Trace Context `traceparent`. */
  readonly traceparent?: string;
  /** Modern era only: W3C Trace Context `tracestate`. */
  readonly tracestate?: string;
}

/** The `_meta` key of the listen stream a notification belongs to (MCP 2026-07-28 basic/index.mdx "`_meta`"). */
export const SUBSCRIPTION_ID_META_KEY = 'io.modelcontextprotocol/subscriptionId';
/** The `_meta` key of the server's name and version on a modern-era result (MCP 2026-07-28 basic/index.mdx "Per-response protocol fields"). */
export const SERVER_INFO_META_KEY = 'io.modelcontextprotocol/serverInfo';

/**
 * The envelope of a legacy-era message without a progress token: shared, so the fast path allocates nothing. It has
 * no prototype, so a polluted `Object.prototype` gives it no field.
 */
export const EMPTY_ENVELOPE: RequestEnvelope = Object.freeze(Object.assign(Object.create(null) as object, { protocolVersion: undefined }));

const LEVELS: ReadonlySet<string> = new Set(LOGGING_LEVELS);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The names the envelope reads: of `params`, of `params._meta`, and of the client info. */
const ENVELOPE_NAMES = [
  '_meta',
  PROTOCOL_VERSION_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  'progressToken',
  'traceparent',
  'tracestate',
  'name',
  'version',
] as const;

const OBJECT_PROTOTYPE: object = Object.prototype;

/**
 * Whether `Object.prototype` has none of {@link ENVELOPE_NAMES}, as a data member or an accessor (it has none unless
 * the realm was polluted). Written out, not looped, so the optimizing compiler folds it (as the classifier's).
 */
function prototypeLacksEnvelopeNames(): boolean {
  const p = OBJECT_PROTOTYPE;
  return !('_meta' in p) && !('io.modelcontextprotocol/protocolVersion' in p) && !('io.modelcontextprotocol/clientCapabilities' in p)
    && !('io.modelcontextprotocol/clientInfo' in p) && !('io.modelcontextprotocol/logLevel' in p) && !('progressToken' in p)
    && !('traceparent' in p) && !('tracestate' in p) && !('name' in p) && !('version' in p);
}

/**
 * `value`'s own members of {@link ENVELOPE_NAMES}, to be read by name (a member whose value is `undefined`, which JSON
 * never yields, reads as absent); `undefined` when `value` is not a record.
 * `value` itself when it is what `JSON.parse` makes and `Object.prototype` lacks those names, else a null-prototype
 * copy of those own members: nothing inherited is read (a polluted realm gives no request a progress token or
 * capabilities), as the classifier reads a message's members.
 */
function ownRecord(value: unknown): Record<string, unknown> | undefined {
  if (!isRecord(value)) return undefined;
  if (isPlainObject(value) && prototypeLacksEnvelopeNames()) return value;
  const copy = Object.create(null) as Record<string, unknown>;
  for (const name of ENVELOPE_NAMES) if (Object.hasOwn(value, name)) copy[name] = value[name];
  return copy;
}

/**
 * `params._meta` when `params` is an object holding an object there, to be read by the envelope's names: only its
 * own members are found there, whatever `Object.prototype` was given.
 */
export function metaOf(message: JsonRpcRequest | JsonRpcNotification): Record<string, unknown> | undefined {
  const params = ownRecord(message.params);
  return params === undefined ? undefined : ownRecord(params._meta);
}

/** Whether `info` (the client info member of a `_meta`) is an object with an own string `name` and `version`. */
export function isImplementation(info: unknown): info is Implementation {
  const own = ownRecord(info);
  return own !== undefined && typeof own.name === 'string' && typeof own.version === 'string';
}

/**
 * The modern-era revision claim of a message (see {@link RequestEnvelope.protocolVersion}).
 * @example protocolVersionClaim({ jsonrpc: '2.0', method: 'ping', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': 7 } } }) // ''
 */
export function protocolVersionClaim(message: JsonRpcRequest | JsonRpcNotification): string | undefined {
  const value = metaOf(message)?.[PROTOCOL_VERSION_META_KEY];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : '';
}

/**
 * Reads the envelope of one request or notification: for a modern-era message (one with a version claim)
 * every field, for a legacy-era one the progress token only.
 * @returns A frozen {@link RequestEnvelope}; {@link EMPTY_ENVELOPE} when a legacy message has no progress token.
 * @example
 * parseRequestEnvelope({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: { progressToken: 7 } } })
 * // { protocolVersion: undefined, progressToken: 7 }
 */
export function parseRequestEnvelope(message: JsonRpcRequest | JsonRpcNotification): RequestEnvelope {
  const meta = metaOf(message);
  if (meta === undefined) return EMPTY_ENVELOPE;
  const token = meta.progressToken;
  const progressToken = typeof token === 'string' || typeof token === 'number' ? token : undefined;
  const claim = meta[PROTOCOL_VERSION_META_KEY];
  if (claim === undefined) {
    return progressToken === undefined ? EMPTY_ENVELOPE : Object.freeze({ protocolVersion: undefined, progressToken });
  }
  const envelope: { -readonly [K in keyof RequestEnvelope]: RequestEnvelope[K] } = { protocolVersion: typeof claim === 'string' ? claim : '' };
  const capabilities = meta[CLIENT_CAPABILITIES_META_KEY];
  if (isRecord(capabilities)) envelope.clientCapabilities = capabilities;
  const info = meta[CLIENT_INFO_META_KEY];
  if (isImplementation(info)) envelope.clientInfo = info;
  const level = meta[LOG_LEVEL_META_KEY];
  if (typeof level === 'string' && LEVELS.has(level)) envelope.logLevel = level as LoggingLevel;
  if (progressToken !== undefined) envelope.progressToken = progressToken;
  if (typeof meta.traceparent === 'string') envelope.traceparent = meta.traceparent;
  if (typeof meta.tracestate === 'string') envelope.tracestate = meta.tracestate;
  return Object.freeze(envelope);
}

/**
 * What is wrong with the envelope of a modern-era message (one with a version claim), or `undefined` when it is
 * well-formed: `protocolVersion` a non-empty string and `clientCapabilities` an object (both required), and, when
 * present, `clientInfo` an object with string `name` and `version`, `logLevel` a logging level, `progressToken` a
 * string or number. A request without `params` or without `params._meta` has no claim and is not modern.
 * @returns A sentence naming the field (for the -32602 message), or `undefined`.
 * @see MCP 2026-07-28 basic/index.mdx "Per-request protocol fields"; MCP 2026-07-28 schema.ts `RequestMetaObject`
 * @example envelopeProblem({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } })
 * // '"io.modelcontextprotocol/clientCapabilities" is required in params._meta (an object)'
 */
export function envelopeProblem(message: JsonRpcRequest | JsonRpcNotification): string | undefined {
  const meta = metaOf(message);
  if (meta === undefined) return 'params._meta is required';
  const claim = meta[PROTOCOL_VERSION_META_KEY];
  if (typeof claim !== 'string' || claim === '') return `"${PROTOCOL_VERSION_META_KEY}" in params._meta must be a non-empty string`;
  // Notifications carry only the claim (MCP 2026-07-28 schema.ts `NotificationMetaObject`).
  if (!('id' in message)) return undefined;
  if (!isRecord(meta[CLIENT_CAPABILITIES_META_KEY])) return `"${CLIENT_CAPABILITIES_META_KEY}" is required in params._meta (an object)`;
  // `meta` finds only own members (metaOf), so a read is the presence test (no Object.hasOwn per field).
  const info = meta[CLIENT_INFO_META_KEY];
  if (info !== undefined && !isImplementation(info)) {
    return `"${CLIENT_INFO_META_KEY}" in params._meta must be an object with string "name" and "version"`;
  }
  const level = meta[LOG_LEVEL_META_KEY];
  if (level !== undefined && (typeof level !== 'string' || !LEVELS.has(level))) {
    return `"${LOG_LEVEL_META_KEY}" in params._meta must be one of ${LOGGING_LEVELS.join(', ')}`;
  }
  const token = meta.progressToken;
  if (token !== undefined && typeof token !== 'string' && typeof token !== 'number') return '"progressToken" in params._meta must be a string or a number';
  return undefined;
}
