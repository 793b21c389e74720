/**
 * A session of the legacy era opened raw for one check: `initialize` POSTed, its `Mcp-Session-Id` and revision
 * kept, `notifications/initialized` sent, and the headers every later request of the session carries
 * (MCP 2025-11-25 basic/transports.mdx "Session Management", "Protocol Version Header").
 */
import type { CheckContext, HttpProbeRequest, HttpProbeResponse } from '../../types.js';
import { DISCOVER_HEADERS, JSON_TYPE, POST_ACCEPT, discoverMessage, initializeMessage, isSuccess, resultFor } from './wire.js';

/** The newest session-based revision. */
const NEWEST_LEGACY = '2025-11-25';

/** A session opened by {@link openSession}. */
export interface RawSession {
  /** The `Mcp-Session-Id` the server minted; `undefined` when it runs without sessions. */
  readonly id: string | undefined;
  /** The revision `initialize` settled on. */
  readonly revision: string;
  /** The headers of every later request: `Mcp-Session-Id` (when minted) and `MCP-Protocol-Version`. */
  readonly headers: Readonly<Record<string, string>>;
  /** The `initialize` exchange. */
  readonly request: HttpProbeRequest;
  readonly response: HttpProbeResponse;
}

/** The revision to offer: the newest the eras check saw the server settle on, else the newest there is. */
export function revisionToOffer(ctx: CheckContext): string {
  const seen = [...ctx.facts.legacyRevisions].sort();
  return seen.at(-1) ?? NEWEST_LEGACY;
}

/** Whether the checks may speak the legacy era (`--era modern` keeps them to the modern one). */
export function legacyAllowed(ctx: CheckContext): boolean {
  return ctx.era !== 'modern';
}

/** Whether the server speaks the modern era, as the connect step and the eras check found, and `--era` allows it. */
export function modernAvailable(ctx: CheckContext): boolean {
  return ctx.era !== 'legacy' && (ctx.facts.era === 'modern' || ctx.facts.modernRevisions.length > 0);
}

/** A well-formed POST of a session-based request, with the session's headers (and `extra` over them). */
export function sessionPost(session: RawSession | undefined, body: unknown, extra: Readonly<Record<string, string | null>> = {}): HttpProbeRequest {
  return { method: 'POST', headers: { accept: POST_ACCEPT, 'content-type': JSON_TYPE, ...(session?.headers ?? {}), ...extra }, body };
}

/**
 * POSTs `initialize` (and, unless `initialized: false`, `notifications/initialized`): the session a check works
 * in. `undefined` when the server does not answer `initialize` with a result (a modern-only server, or a broken
 * one: other checks say which).
 */
export async function openSession(
  ctx: CheckContext,
  options: { readonly initialized?: boolean; readonly tag?: string; readonly headers?: Readonly<Record<string, string>> } = {},
): Promise<RawSession | undefined> {
  const id = `doctor-init-${options.tag ?? 'http'}`;
  const request: HttpProbeRequest = {
    method: 'POST',
    headers: { accept: POST_ACCEPT, 'content-type': JSON_TYPE, ...options.headers },
    body: initializeMessage(id, revisionToOffer(ctx)),
  };
  const response = await ctx.http(request);
  const result = resultFor(response, id);
  if (!isSuccess(response.status) || result === undefined || typeof result.protocolVersion !== 'string') return undefined;
  const sessionId = response.headers['mcp-session-id'];
  const headers: Record<string, string> = { 'mcp-protocol-version': result.protocolVersion };
  if (sessionId !== undefined && sessionId !== '') headers['mcp-session-id'] = sessionId;
  const session: RawSession = { id: sessionId === '' ? undefined : sessionId, revision: result.protocolVersion, headers, request, response };
  if (options.initialized !== false) await ctx.http(sessionPost(session, { jsonrpc: '2.0', method: 'notifications/initialized' }));
  return session;
}

/** Ends a session the check opened (DELETE; whatever the answer). */
export async function endSession(ctx: CheckContext, session: RawSession | undefined): Promise<void> {
  if (session?.id === undefined) return;
  await ctx.http({ method: 'DELETE', headers: session.headers });
}

/** Ends a session an exchange minted by accident (a probe the server should have refused). */
export async function endMintedSession(ctx: CheckContext, response: HttpProbeResponse): Promise<void> {
  const id = response.headers['mcp-session-id'];
  if (id === undefined || id === '') return;
  await ctx.http({ method: 'DELETE', headers: { 'mcp-session-id': id } });
}

/**
 * A well-formed POST that needs no session, in the era the server was reached in: `server/discover` when the
 * connect step settled on the modern era, else `initialize` (which may mint a session: end it with
 * {@link endMintedSession}).
 */
export function probePost(ctx: CheckContext, id: string, extra: Readonly<Record<string, string | null>> = {}): HttpProbeRequest {
  const modern = modernAvailable(ctx) && (ctx.facts.era === 'modern' || !legacyAllowed(ctx));
  return {
    method: 'POST',
    headers: { accept: POST_ACCEPT, 'content-type': JSON_TYPE, ...(modern ? DISCOVER_HEADERS : {}), ...extra },
    body: modern ? discoverMessage(id) : initializeMessage(id, revisionToOffer(ctx)),
  };
}
