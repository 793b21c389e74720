/**
 * What the Streamable HTTP checks share: the headers and bodies of a well-formed POST in each era, the exchange
 * quoted as evidence, and whether the target is a loopback server. Every request goes raw through `ctx.http()`.
 */
import type { CheckContext, HttpProbeRequest, HttpProbeResponse } from '../../types.js';

/** The `Accept` every Streamable HTTP POST must carry (MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server"). */
export const POST_ACCEPT = 'application/json, text/event-stream';

/** The revision the modern probes speak. */
export const MODERN_REVISION = '2026-07-28';

/** The `Content-Type` of a POST body. */
export const JSON_TYPE = 'application/json';

/** The doctor's client info in `initialize`. */
const CLIENT_INFO = { name: 'switchboard-doctor', version: '1' } as const;

/** An `initialize` request offering `revision`. */
export function initializeMessage(id: string, revision: string): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: revision, capabilities: {}, clientInfo: CLIENT_INFO } };
}

/** A 2026-07-28 `server/discover` request: every modern server implements it and it has no side effect. */
export function discoverMessage(id: string): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    method: 'server/discover',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
      },
    },
  };
}

/** The request metadata headers of a `server/discover` POST (MCP 2026-07-28 basic/transports/streamable-http.mdx "Standard Request Headers"). */
export const DISCOVER_HEADERS: Readonly<Record<string, string>> = {
  'mcp-protocol-version': MODERN_REVISION,
  'mcp-method': 'server/discover',
};

/** A JSON-RPC request with no side effect, inside a session. */
export function pingMessage(id: string): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'ping' };
}

/** Whether a status is 2xx. */
export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** The media type of a `Content-Type` value, lower case, without parameters. */
export function mediaType(value: string | undefined): string {
  return (value ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** Whether an answer carries a JSON-RPC response to the request `id` (in a JSON body or an SSE event). */
export function answersId(response: HttpProbeResponse, id: string): boolean {
  return response.messages.some((m) => typeof m === 'object' && m !== null && (m as { id?: unknown }).id === id && ('result' in m || 'error' in m));
}

/** Whether an answer carries a JSON-RPC success result for the request `id`. */
export function resultFor(response: HttpProbeResponse, id: string): Record<string, unknown> | undefined {
  for (const m of response.messages) {
    if (typeof m !== 'object' || m === null) continue;
    const message = m as { id?: unknown; result?: unknown };
    if (message.id === id && typeof message.result === 'object' && message.result !== null) return message.result as Record<string, unknown>;
  }
  return undefined;
}

const EVIDENCE_CHARS = 500;
const QUOTED_HEADERS = ['content-type', 'allow', 'mcp-session-id', 'access-control-allow-origin', 'access-control-allow-headers', 'access-control-expose-headers'];

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The request as quoted in evidence: `→ POST Accept: text/html; Content-Type: application/json {"jsonrpc":…}`. */
export function requestEvidence(request: HttpProbeRequest): string {
  const headers = Object.entries(request.headers ?? {})
    .filter((entry): entry is [string, string] => entry[1] !== null)
    .map(([name, value]) => `${name}: ${value}`);
  const body = request.body === undefined ? '' : ` ${typeof request.body === 'string' ? request.body : JSON.stringify(request.body)}`;
  return cut(`→ ${request.method}${headers.length > 0 ? ` ${headers.join('; ')}` : ''}${body}`, EVIDENCE_CHARS);
}

/** The answer as quoted in evidence: `← 200 content-type: application/json {"jsonrpc":…}`, or why none came. */
export function responseEvidence(response: HttpProbeResponse): string {
  if (response.status === 0) return cut(`← no answer: ${response.error ?? 'unknown'}`, EVIDENCE_CHARS);
  const headers = QUOTED_HEADERS.filter((name) => response.headers[name] !== undefined).map((name) => `${name}: ${response.headers[name]}`);
  // An SSE body is quoted as its event ids and messages (its framing says nothing the reader needs).
  const sse = mediaType(response.headers['content-type']) === 'text/event-stream';
  const parts = sse ? [...(response.eventIds.length > 0 ? [`(event ids ${response.eventIds.join(', ')})`] : []), ...response.messages.map((m) => JSON.stringify(m))] : [response.text.trim()];
  const text = parts.filter((p) => p !== '').join(' ');
  const body = text === '' ? '' : ` ${text}`;
  return cut(`← ${response.status}${headers.length > 0 ? ` ${headers.join('; ')}` : ''}${body}`, EVIDENCE_CHARS);
}

/** Both sides of one exchange, for a finding's evidence. */
export function exchangeEvidence(request: HttpProbeRequest, response: HttpProbeResponse): string[] {
  return [requestEvidence(request), responseEvidence(response)];
}

/** The status as a finding's message says it: `answered 200`, or `did not answer (timeout)`. */
export function statusText(response: HttpProbeResponse): string {
  return response.status === 0 ? `did not answer (${response.error ?? 'no response'})` : `answered ${response.status}`;
}

/** Whether the target URL names a loopback host (where DNS rebinding reaches a local server). */
export function isLoopbackTarget(ctx: CheckContext): boolean {
  if (ctx.target.transport !== 'http') return false;
  let host: string;
  try {
    host = new URL(ctx.target.url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The target's origin (`http://127.0.0.1:3000`), or `undefined` for a stdio target. */
export function targetOrigin(ctx: CheckContext): string | undefined {
  if (ctx.target.transport !== 'http') return undefined;
  try {
    return new URL(ctx.target.url).origin;
  } catch {
    return undefined;
  }
}

/** Sends one exchange and returns the request with its answer (so evidence quotes exactly what was sent). */
export async function exchange(ctx: CheckContext, request: HttpProbeRequest): Promise<{ readonly request: HttpProbeRequest; readonly response: HttpProbeResponse }> {
  return { request, response: await ctx.http(request) };
}
