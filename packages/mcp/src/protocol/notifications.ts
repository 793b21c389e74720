/**
 * What a server and a client share about MCP's utility notifications: building and reading
 * `notifications/cancelled` and `notifications/progress`, the rank of logging levels, and the check that the
 * peer declared a capability before it is used. Runtime-neutral; imports nothing from `server/`.
 *
 * @see MCP 2025-11-25 basic/utilities/cancellation.mdx, basic/utilities/progress.mdx,
 *   server/utilities/logging.mdx, basic/lifecycle.mdx "Capability Negotiation"
 */
import type { JsonRpcId, JsonRpcNotification } from '@switchboard/jsonrpc';
import { LOGGING_LEVELS, type ClientCapabilities } from './types.js';

/** Rank of each logging level, 0 = `debug` (RFC 5424 order, MCP 2025-11-25 server/utilities/logging.mdx). */
export const LOGGING_LEVEL_RANK: ReadonlyMap<string, number> = new Map(LOGGING_LEVELS.map((level, i) => [level, i]));

/** The method of the cancellation notification. */
export const CANCELLED_METHOD = 'notifications/cancelled';
/** The method of the progress notification. */
export const PROGRESS_METHOD = 'notifications/progress';

/** What `notifications/cancelled` says: which request to stop, and optionally why. */
export interface CancelledParams {
  /** The id of the request being cancelled, exactly as it was sent (never coerced: `0` is not `"0"`). */
  readonly requestId: JsonRpcId;
  /** Why, for logs; optional on the wire. */
  readonly reason?: string;
}

/** `notifications/cancelled` for `requestId` (MCP 2025-11-25 basic/utilities/cancellation.mdx). */
export function cancelledNotification(params: CancelledParams): JsonRpcNotification {
  const body: Record<string, unknown> = params.reason === undefined ? { requestId: params.requestId } : { requestId: params.requestId, reason: params.reason };
  return { jsonrpc: '2.0', method: CANCELLED_METHOD, params: body };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The params of a received `notifications/cancelled`, or `undefined` when they name no request (a string or
 * number `requestId`); a non-string `reason` is dropped.
 */
export function parseCancelled(params: unknown): CancelledParams | undefined {
  if (!isRecord(params)) return undefined;
  const requestId = params.requestId;
  if (typeof requestId !== 'string' && typeof requestId !== 'number') return undefined;
  return typeof params.reason === 'string' ? { requestId, reason: params.reason } : { requestId };
}

/** What `notifications/progress` says (MCP 2025-11-25 basic/utilities/progress.mdx). */
export interface ProgressParams {
  /** The `_meta.progressToken` of the request this progress belongs to. */
  readonly progressToken: string | number;
  /** Progress so far; increases with each notification (MCP 2025-11-25 basic/utilities/progress.mdx). */
  readonly progress: number;
  /** The total, when known. */
  readonly total?: number;
  /** From 2025-03-26. */
  readonly message?: string;
}

/** The params of `notifications/progress`, without the members that are `undefined`. */
export function progressParams(params: ProgressParams): Record<string, unknown> {
  const body: Record<string, unknown> = { progressToken: params.progressToken, progress: params.progress };
  if (params.total !== undefined) body.total = params.total;
  if (params.message !== undefined) body.message = params.message;
  return body;
}

/** The progress token of received progress params, or `undefined` when there is none (a string or number). */
export function parseProgressToken(params: unknown): string | number | undefined {
  if (!isRecord(params)) return undefined;
  const token = params.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

/** The client capabilities a server → client request needs (MCP 2025-11-25 schema.ts ClientCapabilities). */
export const CLIENT_REQUEST_CAPABILITY: Readonly<Record<string, keyof ClientCapabilities & string>> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/**
 * The capability `method` needs that `declared` lacks, or `undefined` when it may be sent (a method that needs
 * none is always allowed). MCP 2025-11-25 basic/lifecycle.mdx "Operation": only use declared capabilities.
 */
export function missingClientCapability(declared: ClientCapabilities, method: string): string | undefined {
  const needed = Object.hasOwn(CLIENT_REQUEST_CAPABILITY, method) ? CLIENT_REQUEST_CAPABILITY[method] : undefined;
  if (needed === undefined) return undefined;
  // An own member only: a polluted Object.prototype declares nothing for the client.
  return Object.hasOwn(declared, needed) && (declared as Record<string, unknown>)[needed] !== undefined ? undefined : needed;
}
