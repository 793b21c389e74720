/**
 * The raw messages the start-up and stdio checks write, and how they read the lines a server writes back: which line
 * is a JSON-RPC message, which is a response and to what id, and how a line is quoted as evidence.
 */
import { LATEST_LEGACY_REVISION, MODERN_REVISIONS } from '@switchboard/mcp';
import { VERSION } from '../../../version.js';
import type { StdioLine } from '../../types.js';

/** Who the doctor says it is in `initialize` and in the modern `_meta` envelope. */
const CLIENT_INFO = { name: 'switchboard-doctor', version: VERSION };

/** The era a raw session speaks: `initialize` first (legacy), or a `_meta` envelope on every request (modern). */
export type WireEra = 'legacy' | 'modern';

/** A request as written on the wire. */
export interface WireRequest {
  readonly jsonrpc: '2.0';
  readonly id: string | number;
  readonly method: string;
  readonly params?: unknown;
}

/** The modern envelope (MCP 2026-07-28 basic/index.mdx "_meta"): the revision, our capabilities (none) and identity. */
function envelope(revision: string): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': revision,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
  };
}

/** The newest modern revision we speak. */
export const MODERN_REVISION: string = MODERN_REVISIONS[MODERN_REVISIONS.length - 1]!;

/** `initialize` offering `revision` (default: our newest legacy revision), with no client capabilities. */
export function initializeRequest(id: string | number, revision: string = LATEST_LEGACY_REVISION): WireRequest {
  return { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: revision, capabilities: {}, clientInfo: CLIENT_INFO } };
}

/** `server/discover` claiming `revision` (default: our newest modern revision). */
export function discoverRequest(id: string | number, revision: string = MODERN_REVISION): WireRequest {
  return { jsonrpc: '2.0', id, method: 'server/discover', params: { _meta: envelope(revision) } };
}

/**
 * A request every server of the era must answer and that changes nothing: `ping` in the legacy era (MCP 2025-11-25
 * basic/utilities/ping.mdx), `server/discover` in the modern era, which has no `ping`.
 */
export function harmlessRequest(era: WireEra, id: string | number, revision?: string): WireRequest {
  return era === 'modern' ? discoverRequest(id, revision) : { jsonrpc: '2.0', id, method: 'ping' };
}

/** The notification that completes the legacy handshake. */
export const INITIALIZED_NOTIFICATION = { jsonrpc: '2.0', method: 'notifications/initialized' } as const;

/** A notification no server knows: it must be dropped silently. */
export const UNKNOWN_NOTIFICATION = { jsonrpc: '2.0', method: 'notifications/switchboard/doctor-probe', params: {} } as const;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a parsed value is one JSON-RPC 2.0 message: a request, a notification or a response. */
function isMessage(value: unknown): boolean {
  if (!isObject(value) || value.jsonrpc !== '2.0') return false;
  if (typeof value.method === 'string') return true;
  return 'result' in value || 'error' in value;
}

/** Whether a stdout line is a JSON-RPC message (or, as revision 2025-03-26 allowed, a batch of them). */
export function isProtocolLine(line: StdioLine): boolean {
  if (line.json === undefined) return false;
  return Array.isArray(line.json) ? line.json.length > 0 && line.json.every(isMessage) : isMessage(line.json);
}

/** A response read from a line. */
export interface WireResponse {
  /** The `id` member: `undefined` when it is absent. */
  readonly id: unknown;
  readonly hasId: boolean;
  readonly result?: unknown;
  readonly error?: { readonly code?: unknown; readonly message?: unknown };
}

/** The response a line carries, if it is one (a JSON object with `result` or `error` and no `method`). */
export function responseOf(line: StdioLine): WireResponse | undefined {
  const value = line.json;
  if (!isObject(value) || typeof value.method === 'string' || !('result' in value || 'error' in value)) return undefined;
  const error = isObject(value.error) ? { code: value.error.code, message: value.error.message } : undefined;
  return { id: value.id, hasId: 'id' in value, ...('result' in value ? { result: value.result } : {}), ...(error === undefined ? {} : { error }) };
}

/** Whether a response id names `id`, whatever its JSON type (`7` and `"7"` both name 7). */
export function namesId(responseId: unknown, id: string | number): boolean {
  return (typeof responseId === 'string' || typeof responseId === 'number') && String(responseId) === String(id);
}

/** A line quoted in a message: as a JSON string literal, so a CR, a BOM or trailing spaces show. (Evidence keeps
 * lines raw: the report escapes them when it shows them.) */
export function quoteLine(raw: string): string {
  return JSON.stringify(raw).replace(/\uFEFF/g, '\\ufeff');
}

/** A message as sent, for evidence (`→ …`). */
export function sent(message: unknown): string {
  return `→ ${typeof message === 'string' ? message : JSON.stringify(message)}`;
}

/** A line as received, for evidence (`← …`): the parsed message (without the CR or BOM it may carry), or the raw text. */
export function received(line: StdioLine): string {
  return `← ${line.json === undefined ? line.raw : JSON.stringify(line.json)}`;
}

/** Cuts a text to `max` characters for a one-line message, with an ellipsis. */
export function short(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
