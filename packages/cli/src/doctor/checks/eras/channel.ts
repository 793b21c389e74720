/**
 * A raw channel to the target in one era, for the checks that must see the exact answer the `McpClient` would hide
 * (an error's id and shape, the HTTP status, the revision an `initialize` settled on): a fresh stdio process or a
 * sequence of HTTP exchanges (with the session id and the request metadata headers of the era). Never throws for
 * server behaviour: no answer is an answer without `response`.
 */
import type { CheckContext, HttpProbeResponse } from '../../types.js';
import { VERSION } from '../../../version.js';

/** The client identity the doctor's raw requests carry (the same as its clients'). */
export const DOCTOR_CLIENT_INFO = { name: 'switchboard-doctor', version: VERSION } as const;

/** The `_meta` key of the revision claim (MCP 2026-07-28 basic/index.mdx "`_meta`"). */
export const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';
/** The `_meta` key of the client capabilities (same section). */
export const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';

/** What one raw request got back. */
export interface RawAnswer {
  /** The id the request was sent with. */
  readonly id?: number;
  /** The JSON-RPC response with the request's id (or, over HTTP, the only error response of a refusal). */
  readonly response?: Readonly<Record<string, unknown>>;
  /** The HTTP status (HTTP only; 0 when nothing came). */
  readonly status?: number;
  /** The request as sent, for evidence (`POST … {json}` over HTTP, the line on stdio). */
  readonly sent: string;
  /** What came back, for evidence (the line, or the status line with the body); `(no answer …)` otherwise. */
  readonly seen: string;
}

/** Options of one raw request. */
export interface RawRequestOptions {
  /** Modern era: the revision claimed in `_meta` (and in `MCP-Protocol-Version`). @default the channel's */
  readonly claim?: string;
  /** Modern era: the client capabilities declared in `_meta`. @default `{}` */
  readonly capabilities?: Readonly<Record<string, unknown>>;
  /** HTTP: headers over the era's (a `null` removes one). */
  readonly headers?: Readonly<Record<string, string | null>>;
}

/** A raw channel in one era (see the module comment). */
export interface RawChannel {
  readonly era: 'legacy' | 'modern';
  /** The revision spoken: the one `initialize` settled on (legacy), or the one claimed (modern). */
  readonly revision: string;
  request(method: string, params?: Readonly<Record<string, unknown>>, options?: RawRequestOptions): Promise<RawAnswer>;
  close(): Promise<void>;
}

/** What opening a legacy channel got: the channel once `initialize` succeeded, and the answer either way. */
export interface LegacyOpening {
  readonly initialize: RawAnswer;
  /** `undefined` when `initialize` did not return a result with a string `protocolVersion`. */
  readonly channel: RawChannel | undefined;
}

/** A plain record, or `undefined`. */
export function recordOf(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** `error` of a JSON-RPC error response, or `undefined`. */
export function errorOf(answer: RawAnswer): Readonly<Record<string, unknown>> | undefined {
  return recordOf(answer.response?.error);
}

/** `result` of a JSON-RPC success response, or `undefined`. */
export function resultOf(answer: RawAnswer): Readonly<Record<string, unknown>> | undefined {
  return recordOf(answer.response?.result);
}

/** The evidence lines of an exchange: what was sent, then what came back. */
export function evidenceOf(answer: RawAnswer): string[] {
  return [`sent: ${answer.sent}`, `got: ${answer.seen}`];
}

/** The modern `_meta` envelope of a request. */
export function modernMeta(claim: string, capabilities: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  return { [PROTOCOL_VERSION_META]: claim, [CLIENT_CAPABILITIES_META]: capabilities, 'io.modelcontextprotocol/clientInfo': DOCTOR_CLIENT_INFO };
}

/** Which member `Mcp-Name` mirrors (MCP 2026-07-28 basic/transports/streamable-http.mdx "Standard Request Headers"). */
function nameMember(method: string): string | undefined {
  if (method === 'tools/call' || method === 'prompts/get') return 'name';
  if (method === 'resources/read') return 'uri';
  if (method.startsWith('tasks/')) return 'taskId';
  return undefined;
}

/** A header value as is when it is plain visible ASCII, else the `=?base64?…?=` form (same page, "Value Encoding"). */
export function headerValue(value: string): string {
  if (/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !value.startsWith('=?base64?')) return value;
  const bytes = new TextEncoder().encode(value);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `=?base64?${btoa(binary)}?=`;
}

/** The standard headers of a modern HTTP request: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` where it applies. */
export function modernHeaders(method: string, params: Readonly<Record<string, unknown>> | undefined, claim: string): Record<string, string> {
  const headers: Record<string, string> = { 'mcp-protocol-version': claim, 'mcp-method': method };
  const member = nameMember(method);
  const value = member === undefined ? undefined : params?.[member];
  if (typeof value === 'string') headers['mcp-name'] = headerValue(value);
  return headers;
}

const JSON_POST = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' } as const;

function cut(text: string, length = 400): string {
  return text.length > length ? `${text.slice(0, length)}…` : text;
}

/** The response to `id` among an HTTP answer's messages (or the only error response, which may carry `id: null`). */
function responseIn(probe: HttpProbeResponse, id: number): Readonly<Record<string, unknown>> | undefined {
  const responses = probe.messages.map(recordOf).filter((m): m is Readonly<Record<string, unknown>> => m !== undefined && ('result' in m || 'error' in m));
  return responses.find((m) => m.id === id) ?? (responses.length === 1 && 'error' in responses[0]! ? responses[0] : undefined);
}

function seenOfHttp(probe: HttpProbeResponse, response: Readonly<Record<string, unknown>> | undefined): string {
  if (probe.status === 0) return `(no answer: ${probe.error ?? 'nothing came'})`;
  const type = probe.headers['content-type'];
  const head = `HTTP ${probe.status}${type === undefined ? '' : ` (${type})`}`;
  const body = response === undefined ? cut(probe.text) : cut(JSON.stringify(response));
  return body === '' ? head : `${head} ${body}`;
}

/** One raw POST of `message` with `headers` (over the JSON ones). */
export async function postRaw(ctx: CheckContext, message: Readonly<Record<string, unknown>>, headers: Readonly<Record<string, string | null>>): Promise<RawAnswer & { readonly probe: HttpProbeResponse }> {
  const probe = await ctx.http({ method: 'POST', headers: { ...JSON_POST, ...headers }, body: message });
  const response = typeof message.id === 'number' ? responseIn(probe, message.id) : undefined;
  const shown = Object.entries(headers).filter(([name, value]) => value !== null && name.startsWith('mcp')).map(([name, value]) => `${name}: ${String(value)}`);
  return { probe, response, status: probe.status, ...(typeof message.id === 'number' ? { id: message.id } : {}), sent: `POST ${shown.length > 0 ? `[${shown.join('; ')}] ` : ''}${cut(JSON.stringify(message))}`, seen: seenOfHttp(probe, response) };
}

/** Sends one request on a stdio wire and waits for its answer. */
async function stdioRequest(ctx: CheckContext, wire: Awaited<ReturnType<CheckContext['spawn']>>, message: { readonly id: number; readonly method: string; readonly params?: unknown }): Promise<RawAnswer> {
  const sent = JSON.stringify({ jsonrpc: '2.0', ...message });
  const line = ctx.signal.aborted ? undefined : await wire.request({ ...message }, ctx.requestTimeoutMs);
  const response = recordOf(line?.json);
  if (line !== undefined) return { id: message.id, response, sent: cut(sent), seen: cut(line.raw) };
  const why = wire.exit === undefined ? `within ${ctx.requestTimeoutMs} ms` : `the process exited (code ${String(wire.exit.code)}, signal ${String(wire.exit.signal)})`;
  return { id: message.id, sent: cut(sent), seen: `(no answer ${why})` };
}

/** Whether the revision's HTTP clients send `MCP-Protocol-Version` after `initialize` (from MCP 2025-06-18). */
function sendsVersionHeader(revision: string): boolean {
  return revision >= '2025-06-18';
}

/**
 * Opens a legacy-era channel: `initialize` offering `offer`, then `notifications/initialized` when it succeeded.
 * stdio: a fresh process; HTTP: a new session (ended with DELETE on close).
 */
export async function openLegacy(ctx: CheckContext, offer: string): Promise<LegacyOpening> {
  const params = { protocolVersion: offer, capabilities: {}, clientInfo: DOCTOR_CLIENT_INFO };
  let nextId = 1;
  if (ctx.target.transport === 'stdio') {
    const wire = await ctx.spawn();
    const initialize = await stdioRequest(ctx, wire, { id: nextId++, method: 'initialize', params });
    const revision = resultOf(initialize)?.protocolVersion;
    if (typeof revision !== 'string') {
      await wire.close();
      return { initialize, channel: undefined };
    }
    await wire.send({ jsonrpc: '2.0', method: 'notifications/initialized' }).catch(() => undefined);
    const channel: RawChannel = {
      era: 'legacy',
      revision,
      request: (method, requestParams) => stdioRequest(ctx, wire, { id: nextId++, method, ...(requestParams === undefined ? {} : { params: requestParams }) }),
      close: () => wire.close(),
    };
    return { initialize, channel };
  }
  const initialize = await postRaw(ctx, { jsonrpc: '2.0', id: nextId++, method: 'initialize', params }, {});
  const revision = resultOf(initialize)?.protocolVersion;
  if (typeof revision !== 'string') return { initialize, channel: undefined };
  const session = initialize.probe.headers['mcp-session-id'];
  const sessionHeaders: Record<string, string> = {
    ...(session === undefined ? {} : { 'mcp-session-id': session }),
    ...(sendsVersionHeader(revision) ? { 'mcp-protocol-version': revision } : {}),
  };
  await postRaw(ctx, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionHeaders);
  const channel: RawChannel = {
    era: 'legacy',
    revision,
    request: (method, requestParams, options) => postRaw(ctx, { jsonrpc: '2.0', id: nextId++, method, ...(requestParams === undefined ? {} : { params: requestParams }) }, { ...sessionHeaders, ...options?.headers }),
    close: async () => {
      if (session !== undefined) await ctx.http({ method: 'DELETE', headers: sessionHeaders, timeoutMs: Math.min(ctx.requestTimeoutMs, 2000) });
    },
  };
  return { initialize, channel };
}

/**
 * Opens a modern-era channel claiming `revision` in every request (and, over HTTP, the standard headers). stdio: a
 * fresh process whose first message is the caller's first request.
 */
export async function openModern(ctx: CheckContext, revision: string): Promise<RawChannel> {
  let nextId = 1;
  const paramsOf = (params: Readonly<Record<string, unknown>> | undefined, options: RawRequestOptions | undefined): Record<string, unknown> => ({
    ...params,
    _meta: { ...recordOf(params?._meta), ...modernMeta(options?.claim ?? revision, options?.capabilities) },
  });
  if (ctx.target.transport === 'stdio') {
    const wire = await ctx.spawn();
    return {
      era: 'modern',
      revision,
      request: (method, params, options) => stdioRequest(ctx, wire, { id: nextId++, method, params: paramsOf(params, options) }),
      close: () => wire.close(),
    };
  }
  return {
    era: 'modern',
    revision,
    request: (method, params, options) => {
      const full = paramsOf(params, options);
      return postRaw(ctx, { jsonrpc: '2.0', id: nextId++, method, params: full }, { ...modernHeaders(method, params, options?.claim ?? revision), ...options?.headers });
    },
    close: () => Promise.resolve(),
  };
}
