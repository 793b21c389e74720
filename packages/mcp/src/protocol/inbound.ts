/**
 * The inbound step every transport shares: one pure function decides, for one JSON-RPC request or
 * notification, its era, its revision and its row of the method table, or refuses it with a neutral refusal
 * (a name, a JSON-RPC code and message). Each transport sends the refusal its own way; HTTP maps each name to
 * a status in its own table.
 *
 * The rules, in order:
 * 1. Body-primary era: a version claim in `params._meta` makes the message modern whatever its method, with or
 *    without a session. Its envelope must be well-formed (-32602), its revision served (-32022), its method a
 *    request of that revision whose server capability is advertised (-32601), and a client capability the method
 *    itself needs declared (-32021).
 * 2. Otherwise legacy: `initialize` opens a session (once: a second one is refused); before it only `ping` is
 *    answered; then a request must name a request method the negotiated revision has, that the server's
 *    advertised capabilities cover.
 * Notifications are never refused by the legacy rules (an unknown one is ignored by the receiver, row
 * `undefined`), and a refusal of a notification is never answered on stdio (JSON-RPC 2.0 §4.1).
 *
 * @see MCP 2025-11-25 basic/lifecycle.mdx; MCP 2026-07-28 basic/versioning.mdx "Protocol Version Negotiation"
 */
import type { JsonRpcNotification, JsonRpcRequest } from '@switchboard/jsonrpc';
import { echo } from '@switchboard/jsonrpc';
import { McpErrorCode } from './errors.js';
import { envelopeProblem, parseRequestEnvelope, protocolVersionClaim, type RequestEnvelope } from './envelope.js';
import { methodExists, methodRow, type McpMethod } from './methods.js';
import { REVISION_FEATURES, isLegacyRevision, isModernRevision, type Era, type LegacyRevision, type ProtocolRevision } from './revisions.js';
import type { ClientCapabilities, ServerCapabilities } from './types.js';

/** The id of the tasks extension (io.modelcontextprotocol/tasks; MCP 2026-07-28 docs/extensions/tasks). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * Every refusal of the inbound step. `message` may hold `{placeholders}`, filled by the refusal's details.
 * The texts are the ones on the wire today; each row cites the rule it applies.
 */
export const INBOUND_REFUSALS = {
  /** MCP 2026-07-28 basic/versioning.mdx "Protocol Version Negotiation": `data.supported` and `data.requested`. */
  unsupportedRevision: {
    code: McpErrorCode.UnsupportedProtocolVersion,
    message: 'Unsupported protocol version: "{requested}" (this server supports {supported})',
  },
  /**
   * The same rule, for a session-based revision claimed in `_meta`: those are negotiated with `initialize`
   * (MCP 2025-11-25 basic/lifecycle.mdx "Version Negotiation"), so the message says so.
   */
  legacyRevisionClaimed: {
    code: McpErrorCode.UnsupportedProtocolVersion,
    message: 'Unsupported protocol version: "{requested}" is negotiated with initialize, not claimed in _meta (this server supports {supported})',
  },
  /** MCP 2026-07-28 basic/index.mdx "Per-request protocol fields": a required `_meta` field missing or malformed. */
  invalidEnvelope: { code: McpErrorCode.InvalidParams, message: 'Invalid params: {problem}' },
  /** MCP 2026-07-28 basic/transports/streamable-http.mdx "Server Validation": a header disagrees with the body. */
  headerMismatch: { code: McpErrorCode.HeaderMismatch, message: 'Header mismatch: {problem}' },
  /** MCP 2026-07-28 basic/index.mdx "Error Codes": the request needs a client capability it did not declare. */
  missingClientCapability: {
    code: McpErrorCode.MissingRequiredClientCapability,
    message: 'Missing required client capability: "{method}" needs {capability}',
  },
  /** MCP 2025-11-25 basic/lifecycle.mdx "Initialization": no request but `ping` before `initialize`. */
  notInitialized: { code: McpErrorCode.InvalidRequest, message: 'Invalid Request: the session is not initialized: send "initialize" first' },
  /** Field bug B30; MCP 2025-11-25 basic/lifecycle.mdx "Initialization": `initialize` once per session. */
  alreadyInitialized: { code: McpErrorCode.InvalidRequest, message: 'Invalid Request: the session is already initialized' },
  /** JSON-RPC 2.0 §5.1: no revision defines the method. */
  unknownMethod: { code: McpErrorCode.MethodNotFound, message: 'Method not found: "{method}"' },
  /** Field bugs B07/B08; MCP 2025-11-25 schema.ts `ClientRequest`: a notification method sent as a request. */
  notificationAsRequest: { code: McpErrorCode.MethodNotFound, message: 'Method not found: "{method}"' },
  /**
   * MCP <revision> schema.ts `ClientRequest`: the method is not one the client sends at the revision (e.g. `ping`,
   * `initialize`, `logging/setLevel`, `resources/subscribe` at 2026-07-28, MCP 2026-07-28 changelog.mdx).
   */
  methodNotInRevision: { code: McpErrorCode.MethodNotFound, message: 'Method not found: "{method}" (not a method of {revision})' },
  /** Field bug B08; MCP 2025-11-25 basic/lifecycle.mdx "Capability Negotiation": a capability not advertised. */
  capabilityNotAdvertised: {
    code: McpErrorCode.MethodNotFound,
    message: 'Method not found: "{method}" (the server does not advertise the "{capability}" capability)',
  },
  /** MCP 2025-03-26 basic/index.mdx "Batching" (receive MUST); removed in MCP 2025-06-18 changelog.mdx. */
  batchNotAllowed: { code: McpErrorCode.InvalidRequest, message: 'Invalid Request: JSON-RPC batches are not accepted at {revision}' },
} as const satisfies Record<string, { readonly code: number; readonly message: string }>;

/** The name of one row of {@link INBOUND_REFUSALS}. */
export type InboundRefusalName = keyof typeof INBOUND_REFUSALS;

/** A refusal: answer a request with the JSON-RPC error `{ code, message, data }`. */
export interface InboundRefusal {
  readonly refusal: InboundRefusalName;
  readonly code: number;
  readonly message: string;
  /** `error.data`: for `unsupportedRevision`, `{ supported: string[], requested: string }`. */
  readonly data?: unknown;
}

/** A message to dispatch. */
export interface InboundAccepted {
  readonly era: Era;
  /**
   * The revision it is served at: the claim (modern), the session's negotiated revision (legacy), or
   * `undefined` for `initialize` and a `ping` before it (no revision is negotiated yet).
   */
  readonly revision: ProtocolRevision | undefined;
  /** Its method table row; `undefined` only for a notification no revision defines (the receiver ignores it). */
  readonly row: McpMethod | undefined;
  readonly envelope: RequestEnvelope;
}

/** The verdict of {@link classifyInbound}. */
export type InboundClassification = InboundAccepted | InboundRefusal;

/** The legacy-era session of the connection, once its `initialize` request was accepted. */
export interface InboundSessionFacts {
  /** The revision `initialize` negotiated. */
  readonly revision: LegacyRevision;
  /** Whether `notifications/initialized` arrived (requests are served from the `initialize` answer on). */
  readonly initialized: boolean;
}

/** What the inbound step needs to know about the receiving server. */
export interface InboundFacts {
  /** The legacy-era session; absent before `initialize` (and on a connection without one). */
  readonly session?: InboundSessionFacts;
  /** The revisions the server serves (a dual-era server: every one of `PROTOCOL_REVISIONS`). */
  readonly servedRevisions: readonly ProtocolRevision[];
  /**
   * The server's advertised capabilities: on a session, the ones its `initialize` answer advertised, for the
   * session's whole life; otherwise the current ones.
   */
  readonly serverCapabilities: ServerCapabilities;
  /**
   * Whether the transport carries JSON-RPC batches at all (the 2024-11-05 HTTP+SSE transport does not).
   * @default true
   */
  readonly batches?: boolean;
}

/**
 * Builds the refusal `name`, its `{placeholders}` filled from `details` (client input is cut to 200 characters).
 * @example inboundRefusal('unknownMethod', { method: 'nope' }) // { refusal: 'unknownMethod', code: -32601, message: 'Method not found: "nope"' }
 */
export function inboundRefusal(name: InboundRefusalName, details?: Readonly<Record<string, string>>, data?: unknown): InboundRefusal {
  let message: string = INBOUND_REFUSALS[name].message;
  if (details !== undefined) message = message.replace(/\{(\w+)\}/g, (whole, key: string) => (Object.hasOwn(details, key) ? echo(details[key] as string) : whole));
  const code = INBOUND_REFUSALS[name].code;
  return data === undefined ? { refusal: name, code, message } : { refusal: name, code, message, data };
}

/** Whether `verdict` is a refusal. */
export function isInboundRefusal(verdict: InboundClassification | readonly InboundClassification[]): verdict is InboundRefusal {
  return !Array.isArray(verdict) && 'refusal' in verdict;
}

function capabilityGap(row: McpMethod, capabilities: ServerCapabilities): string | undefined {
  const need = row.capability;
  // Only server capabilities gate an inbound request here; the structured `tasks` capability (per request type)
  // is for the tasks handler to check.
  if (need === undefined || need.holder !== 'server') return undefined;
  const value = capabilities[need.capability] as Record<string, unknown> | undefined;
  if (value !== undefined && (need.flag === undefined || value[need.flag] === true)) return undefined;
  return need.flag === undefined ? need.capability : `${need.capability}.${need.flag}`;
}

/** The rules of a request of a known era and revision: method known, a request, sent by clients there, covered. */
function requestRow(method: string, revision: ProtocolRevision, capabilities: ServerCapabilities): McpMethod | InboundRefusal {
  const row = methodRow(method);
  if (row === undefined) return inboundRefusal('unknownMethod', { method });
  if (row.kind === 'notification') return inboundRefusal('notificationAsRequest', { method });
  if (!methodExists(row, revision, 'clientToServer')) return inboundRefusal('methodNotInRevision', { method, revision });
  const gap = capabilityGap(row, capabilities);
  return gap === undefined ? row : inboundRefusal('capabilityNotAdvertised', { method, capability: gap });
}

/** A claim of a revision `servedRevisions` lacks, or of a legacy one (a legacy revision is never claimed in `_meta`). */
function claimRefusal(claim: string, servedRevisions: readonly ProtocolRevision[]): InboundRefusal | undefined {
  if (isModernRevision(claim) && servedRevisions.includes(claim)) return undefined;
  return unsupported(claim, servedRevisions);
}

/**
 * The `unsupportedRevision` refusal (-32022) of a request for `requested`: `data.supported` lists
 * `servedRevisions` newest first, `data.requested` what was asked (`''` when nothing was).
 * @see MCP 2026-07-28 basic/versioning.mdx "Protocol Version Negotiation"; schema.ts `UnsupportedProtocolVersionError`
 */
export function unsupportedRevisionRefusal(requested: string, servedRevisions: readonly ProtocolRevision[]): InboundRefusal {
  return unsupported(requested, servedRevisions);
}

function unsupported(requested: string, servedRevisions: readonly ProtocolRevision[]): InboundRefusal {
  const supported = [...servedRevisions].reverse();
  const name = isLegacyRevision(requested) && servedRevisions.includes(requested) ? 'legacyRevisionClaimed' : 'unsupportedRevision';
  return inboundRefusal(name, { requested, supported: supported.join(', ') }, { supported, requested });
}

/**
 * The era rung of the inbound step alone: the `unsupportedRevision` refusal when `message` claims, in
 * `params._meta`, a revision not in `servedRevisions`, else `undefined`.
 * @see MCP 2026-07-28 basic/versioning.mdx "Protocol Version Negotiation"
 */
export function eraRefusalOf(message: JsonRpcRequest | JsonRpcNotification, servedRevisions: readonly ProtocolRevision[]): InboundRefusal | undefined {
  const claim = protocolVersionClaim(message);
  return claim === undefined ? undefined : claimRefusal(claim, servedRevisions);
}

/**
 * The envelope and version rungs of a modern-era message (one with a version claim), in this order: a required
 * `_meta` field missing or malformed → `invalidEnvelope` (-32602; a message with no claim at all too: a transport
 * calls this only for a message it classified modern, e.g. by its version header), then a revision not served →
 * `unsupportedRevision` (-32022). `undefined` when both pass. `claim`: the message's
 * {@link protocolVersionClaim}, when the caller already read it.
 * @see MCP 2026-07-28 basic/index.mdx "Per-request protocol fields"; basic/versioning.mdx "Protocol Version Negotiation"
 */
export function modernEnvelopeRefusalOf(
  message: JsonRpcRequest | JsonRpcNotification,
  servedRevisions: readonly ProtocolRevision[],
  claim: string | undefined = protocolVersionClaim(message),
): InboundRefusal | undefined {
  const problem = envelopeProblem(message);
  if (problem !== undefined) return inboundRefusal('invalidEnvelope', { problem });
  // The envelope passed, so the claim is a non-empty string.
  return claimRefusal(claim as string, servedRevisions);
}

/**
 * The method rungs of a modern-era request whose envelope passed ({@link modernEnvelopeRefusalOf}): the method is
 * a request the client sends at the claimed revision and the server advertises its capability (-32601), and the
 * client declared the capability the method itself needs (-32021, `data.requiredCapabilities`). `undefined` for a
 * notification or when every rung passes. `claim`: the message's {@link protocolVersionClaim}, when the caller
 * already read it.
 * @see MCP 2026-07-28 basic/transports/streamable-http.mdx "Protocol Version Header"; basic/index.mdx "Error Codes"
 */
export function modernMethodRefusalOf(
  message: JsonRpcRequest | JsonRpcNotification,
  serverCapabilities: ServerCapabilities,
  claim: string | undefined = protocolVersionClaim(message),
): InboundRefusal | undefined {
  if (!('id' in message)) return undefined;
  const method = message.method;
  const row = requestRow(method, claim as ProtocolRevision, serverCapabilities);
  if ('refusal' in row) return row;
  const need = Object.hasOwn(MODERN_CLIENT_NEEDS, method) ? MODERN_CLIENT_NEEDS[method] : undefined;
  if (need === undefined) return undefined;
  const declared = parseRequestEnvelope(message).clientCapabilities;
  return need.declared(declared) ? undefined : inboundRefusal('missingClientCapability', { method, capability: need.name }, { requiredCapabilities: need.required });
}

/** A client capability a modern-era method needs, whatever the handler does. */
interface ClientNeed {
  /** How the message names it, for the error message. */
  readonly name: string;
  /** `data.requiredCapabilities` of the -32021 refusal. */
  readonly required: ClientCapabilities;
  declared(capabilities: Record<string, unknown> | undefined): boolean;
}

/** The tasks extension's methods need the extension declared (io.modelcontextprotocol/tasks "Capability Negotiation"). */
const TASKS_EXTENSION_NEED: ClientNeed = {
  name: `the "${TASKS_EXTENSION}" extension`,
  required: Object.freeze({ extensions: Object.freeze({ [TASKS_EXTENSION]: Object.freeze({}) }) }),
  declared: (capabilities) => {
    const extensions = capabilities !== undefined && Object.hasOwn(capabilities, 'extensions') ? capabilities.extensions : undefined;
    return typeof extensions === 'object' && extensions !== null && Object.hasOwn(extensions, TASKS_EXTENSION);
  },
};

const MODERN_CLIENT_NEEDS: Readonly<Record<string, ClientNeed>> = Object.freeze({
  'tasks/get': TASKS_EXTENSION_NEED,
  'tasks/update': TASKS_EXTENSION_NEED,
  'tasks/cancel': TASKS_EXTENSION_NEED,
});

/**
 * The refusal {@link classifyInbound} would give `message`, or `undefined` when it would accept it. The same
 * rules, without building the verdict: a transport's per-message gate calls this, so an accepted message costs
 * no allocation (the envelope is not parsed, only checked).
 *
 * @param message - A request (has `id`) or a notification, already classified by the JSON-RPC engine.
 * @param facts - The session, the served revisions and the advertised capabilities.
 * @see MCP 2025-11-25 basic/lifecycle.mdx; MCP 2026-07-28 basic/versioning.mdx "Protocol Version Negotiation"
 * @example
 * inboundRefusalOf({ jsonrpc: '2.0', id: 1, method: 'ping' }, { servedRevisions: SERVED_REVISIONS, serverCapabilities: {} }) // undefined
 */
export function inboundRefusalOf(message: JsonRpcRequest | JsonRpcNotification, facts: InboundFacts): InboundRefusal | undefined {
  const claim = protocolVersionClaim(message);
  return claim === undefined ? legacyRefusalOf(message, facts) : modernRefusalOf(message, claim, facts);
}

/**
 * {@link inboundRefusalOf} for a message whose version claim the caller already read and found (rule 1, the
 * modern era): the envelope, revision, method and client-capability rungs, in that order.
 * @see MCP 2026-07-28 basic/index.mdx "Per-request protocol fields"; basic/versioning.mdx "Protocol Version Negotiation"
 */
export function modernRefusalOf(message: JsonRpcRequest | JsonRpcNotification, claim: string, facts: InboundFacts): InboundRefusal | undefined {
  return modernEnvelopeRefusalOf(message, facts.servedRevisions, claim) ?? modernMethodRefusalOf(message, facts.serverCapabilities, claim);
}

/**
 * {@link inboundRefusalOf} for a message the caller found without a version claim (rule 2, the legacy era): the
 * lifecycle (`initialize` once, only `ping` before it), then the negotiated revision's method table and the
 * advertised capabilities. A notification is never refused here.
 * @see MCP 2025-11-25 basic/lifecycle.mdx "Initialization", "Capability Negotiation"
 */
export function legacyRefusalOf(message: JsonRpcRequest | JsonRpcNotification, facts: InboundFacts): InboundRefusal | undefined {
  if (!('id' in message)) return undefined;
  const method = message.method;
  const session = facts.session;
  // Before any session, a request of the modern era alone (`server/discover`, `subscriptions/listen`, `tasks/update`)
  // without its envelope: the envelope is what is missing (MCP 2026-07-28 basic/index.mdx "Per-request protocol
  // fields"). Inside a session it is a method the negotiated revision lacks (-32601, below).
  if (session === undefined && isModernOnlyRequest(method)) return inboundRefusal('invalidEnvelope', { problem: envelopeProblem(message) ?? 'params._meta is required' });
  if (method === 'initialize') {
    if (session !== undefined) return inboundRefusal('alreadyInitialized');
    // MCP 2026-07-28 basic/versioning.mdx "Backward Compatibility": a server with no legacy revision names its
    // versions in the error it answers `initialize` with.
    if (!facts.servedRevisions.some(isLegacyRevision)) {
      const requested = (message.params as Record<string, unknown> | undefined)?.protocolVersion;
      return unsupported(typeof requested === 'string' ? requested : '', facts.servedRevisions);
    }
    return undefined;
  }
  if (session === undefined) return method === 'ping' ? undefined : inboundRefusal('notInitialized');
  const row = requestRow(method, session.revision, facts.serverCapabilities);
  return 'refusal' in row ? row : undefined;
}

/** Whether `method` is a request clients send in the modern era only. */
export function isModernOnlyRequest(method: string): boolean {
  const row = methodRow(method);
  return row !== undefined && row.kind === 'request' && row.clientToServer.length > 0 && !row.clientToServer.some(isLegacyRevision);
}

/**
 * Classifies one request or notification received by a server. Pure: no I/O, no clock, no mutation.
 *
 * @param message - A request (has `id`) or a notification, already classified by the JSON-RPC engine.
 * @param facts - The session, the served revisions and the advertised capabilities.
 * @returns Era, revision, method row and envelope, or a refusal (see {@link INBOUND_REFUSALS}).
 * @see MCP 2025-11-25 basic/lifecycle.mdx; MCP 2026-07-28 basic/versioning.mdx "Protocol Version Negotiation"
 * @example
 * classifyInbound({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { servedRevisions: SERVED_REVISIONS, serverCapabilities: {} })
 * // { refusal: 'notInitialized', code: -32600, message: 'Invalid Request: the session is not initialized: send "initialize" first' }
 */
export function classifyInbound(message: JsonRpcRequest | JsonRpcNotification, facts: InboundFacts): InboundClassification {
  const refusal = inboundRefusalOf(message, facts);
  if (refusal !== undefined) return refusal;
  const envelope = parseRequestEnvelope(message);
  const isRequest = 'id' in message;
  const claim = envelope.protocolVersion;
  // Accepted with a claim: a served modern revision. Without one: the session's revision (none before initialize).
  const era: Era = claim === undefined ? 'legacy' : 'modern';
  const revision = claim === undefined ? facts.session?.revision : (claim as ProtocolRevision);
  const row = isRequest ? methodRow(message.method) : notificationRow(message.method, revision);
  return { era, revision, row, envelope };
}

/**
 * The capability gate alone, for a request answered with no session (the caller vouches for its revision):
 * the `capabilityNotAdvertised` refusal when the method needs a server capability `capabilities` lacks.
 * @see MCP 2025-11-25 basic/lifecycle.mdx "Capability Negotiation"; field bug B08
 */
export function capabilityRefusalOf(method: string, capabilities: ServerCapabilities): InboundRefusal | undefined {
  const row = methodRow(method);
  const gap = row === undefined ? undefined : capabilityGap(row, capabilities);
  return gap === undefined ? undefined : inboundRefusal('capabilityNotAdvertised', { method, capability: gap });
}

/**
 * The row of a notification the client sends at `revision` (before `initialize`: at any legacy revision), else
 * `undefined` (ignored by the receiver).
 */
function notificationRow(method: string, revision: ProtocolRevision | undefined): McpMethod | undefined {
  const row = methodRow(method);
  if (row === undefined || row.kind !== 'notification') return undefined;
  const sent = revision === undefined ? row.clientToServer.some((r) => REVISION_FEATURES[r].era === 'legacy') : methodExists(row, revision, 'clientToServer');
  return sent ? row : undefined;
}

/**
 * Classifies a JSON-RPC batch: refused whole unless the session's revision takes batches (only 2025-03-26) and
 * the transport carries them; otherwise each member as {@link classifyInbound} does, in order.
 *
 * @returns One verdict per member, or the `batchNotAllowed` refusal (answered with `id: null`).
 * @see MCP 2025-03-26 basic/index.mdx "Batching"
 */
export function classifyInboundBatch(messages: readonly (JsonRpcRequest | JsonRpcNotification)[], facts: InboundFacts): readonly InboundClassification[] | InboundRefusal {
  // A modern-era message is never part of a batch (MCP 2026-07-28 basic/index.mdx: no batching), whatever session
  // the batch arrives in: refused whole, as over HTTP.
  for (const message of messages) {
    const claim = protocolVersionClaim(message);
    if (claim !== undefined) return inboundRefusal('batchNotAllowed', { revision: claim });
  }
  const revision = facts.session?.revision;
  if (facts.batches === false || revision === undefined || !REVISION_FEATURES[revision].batches) {
    return inboundRefusal('batchNotAllowed', { revision: revision ?? 'an uninitialized session' });
  }
  return messages.map((message) => classifyInbound(message, facts));
}
