/**
 * The transport-neutral rungs the HTTP ladder runs for a modern message, in the shape `protocol/inbound.ts` will
 * export them (`modernEnvelopeRefusalOf`, `modernMethodRefusalOf`, the `headerMismatch` row). Temporary: this module
 * stands in for them until the inbound step serves the modern era, and goes when it does (the ladder then imports
 * them from `protocol/inbound.ts`).
 *
 * @see MCP 2026-07-28 basic/index.mdx "Per-request protocol fields", "Error Codes"
 */
import type { JsonRpcNotification, JsonRpcRequest } from '@switchboard/jsonrpc';
import { echo } from '../../protocol/echo.js';
import { CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY, PROTOCOL_VERSION_META_KEY } from '../../protocol/envelope.js';
import { McpErrorCode } from '../../protocol/errors.js';
import { inboundRefusalOf, inboundRefusal } from '../../protocol/inbound.js';
import type { InboundRefusalName } from '../../protocol/inbound.js';
import { isModernRevision } from '../../protocol/revisions.js';
import type { ProtocolRevision } from '../../protocol/revisions.js';
import { LOGGING_LEVELS } from '../../protocol/types.js';
import type { ServerCapabilities } from '../../protocol/types.js';

/** The refusal names of the inbound step, with the modern ones it is about to gain. */
export type ModernRefusalName = InboundRefusalName | 'invalidEnvelope' | 'headerMismatch' | 'missingClientCapability';

/** A neutral refusal (see `InboundRefusal`), for every name of {@link ModernRefusalName}. */
export interface ModernRefusal {
  readonly refusal: ModernRefusalName;
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const LEVELS: ReadonlySet<string> = new Set(LOGGING_LEVELS);

function invalidEnvelope(detail: string): ModernRefusal {
  return { refusal: 'invalidEnvelope', code: McpErrorCode.InvalidParams, message: `Invalid params: ${detail}` };
}

/**
 * The `headerMismatch` refusal (-32020): an HTTP header disagrees with the body, or a required one is missing.
 * @see MCP 2026-07-28 basic/transports/streamable-http.mdx "Server Validation"
 */
export function headerMismatch(detail: string): ModernRefusal {
  return { refusal: 'headerMismatch', code: McpErrorCode.HeaderMismatch, message: `Header mismatch: ${detail}` };
}

/**
 * Rungs 5–6 of a modern request: its envelope (`protocolVersion` a non-empty string, `clientCapabilities` an
 * object, `logLevel` a level when present; -32602), then its revision served (-32022 with `supported` and
 * `requested`).
 */
export function modernEnvelopeRefusalOf(message: JsonRpcRequest | JsonRpcNotification, servedRevisions: readonly ProtocolRevision[]): ModernRefusal | undefined {
  const params = message.params;
  const meta = isRecord(params) ? params._meta : undefined;
  if (!isRecord(meta)) return invalidEnvelope('params._meta is required on every request');
  const claim = meta[PROTOCOL_VERSION_META_KEY];
  if (typeof claim !== 'string' || claim === '') return invalidEnvelope(`_meta["${PROTOCOL_VERSION_META_KEY}"] must be a non-empty string`);
  if ('id' in message && !isRecord(meta[CLIENT_CAPABILITIES_META_KEY])) return invalidEnvelope(`_meta["${CLIENT_CAPABILITIES_META_KEY}"] must be an object`);
  const level = meta[LOG_LEVEL_META_KEY];
  if (level !== undefined && (typeof level !== 'string' || !LEVELS.has(level))) {
    return invalidEnvelope(`_meta["${LOG_LEVEL_META_KEY}"] must be a log level, got ${echo(JSON.stringify(level) ?? typeof level)}`);
  }
  if (isModernRevision(claim) && servedRevisions.includes(claim)) return undefined;
  return inboundRefusal('unsupportedRevision', undefined, { supported: [...servedRevisions], requested: claim });
}

/**
 * Rungs 8–9 of a modern request whose envelope was accepted: its method exists at its revision and the server
 * advertises the capability it needs (-32601).
 */
export function modernMethodRefusalOf(message: JsonRpcRequest | JsonRpcNotification, serverCapabilities: ServerCapabilities): ModernRefusal | undefined {
  // The claim was checked by the envelope rung: a served modern revision.
  const params = message.params as Record<string, unknown>;
  const claim = (params._meta as Record<string, unknown>)[PROTOCOL_VERSION_META_KEY] as ProtocolRevision;
  return inboundRefusalOf(message, { servedRevisions: [claim], serverCapabilities });
}
