/**
 * GET and DELETE on the endpoint. In a session, GET opens an SSE stream or is 405, DELETE ends the session or is
 * 405; on a server of 2026-07-28 alone both are 405 (a SHOULD, so a warning there), and an `Mcp-Session-Id` left
 * on a request by an older client is ignored.
 * @see MCP 2025-11-25 basic/transports.mdx "Listening for Messages from the Server", "Session Management"; MCP
 *   2026-07-28 basic/transports/streamable-http.mdx "Earlier Streamable HTTP Revisions"
 */
import type { Check, CheckContext, HttpProbeRequest, HttpProbeResponse } from '../../types.js';
import { legacyAllowed, modernAvailable, openSession, probePost, type RawSession } from './session.js';
import { answersId, exchange, exchangeEvidence, isSuccess, mediaType, statusText } from './wire.js';

/**
 * How long a GET stream is read, milliseconds: the check needs only its status and type, and a healthy stream
 * never ends by itself. An answer whose head has not come by then is not judged (no false finding under load).
 */
const GET_READ_MS = 500;

function getRequest(ctx: CheckContext, session: RawSession | undefined): HttpProbeRequest {
  return {
    method: 'GET',
    headers: { accept: 'text/event-stream', ...(session?.headers ?? {}) },
    timeoutMs: Math.min(ctx.requestTimeoutMs, GET_READ_MS),
    readSse: 'until-end',
  };
}

function getFault(response: HttpProbeResponse): string | undefined {
  if (response.status === 405) return undefined;
  const type = mediaType(response.headers['content-type']);
  if (response.status === 200 && type === 'text/event-stream') return undefined;
  if (response.status === 404) return 'answered 404: a client reads that as an ended session and starts over';
  if (isSuccess(response.status)) return `answered ${response.status} with Content-Type ${type === '' ? '(none)' : `'${type}'`}, not an SSE stream`;
  return `${statusText(response)} instead of an SSE stream or 405`;
}

async function sessionMethods(ctx: CheckContext, session: RawSession): Promise<void> {
  const get = await exchange(ctx, getRequest(ctx, session));
  // No headers within the read budget: a slow stream, not a wrong answer (the client would wait as well).
  const fault = get.response.status === 0 ? undefined : getFault(get.response);
  if (fault !== undefined) {
    ctx.report('http.get-not-405', {
      message: `A GET with Accept: text/event-stream${session.id === undefined ? '' : ' on a live session'} ${fault}`,
      evidence: exchangeEvidence(get.request, get.response),
    });
  }
  if (session.id === undefined) return;
  const del = await exchange(ctx, { method: 'DELETE', headers: session.headers });
  if (isSuccess(del.response.status) || del.response.status === 405 || (del.response.status === 0 && ctx.signal.aborted)) return;
  ctx.report('http.delete-not-405', {
    message: `A DELETE of a live session ${statusText(del.response)} instead of ending it (2xx) or refusing with 405`,
    evidence: exchangeEvidence(del.request, del.response),
  });
}

/** A request from an older client that still carries its session id: served as if it had none, no id minted. */
async function staleSessionId(ctx: CheckContext): Promise<void> {
  const id = 'doctor-stale-session';
  const { request, response } = await exchange(ctx, probePost(ctx, id, { 'mcp-session-id': 'doctor-session-from-an-older-client' }));
  if (response.status === 0 && ctx.signal.aborted) return;
  const served = isSuccess(response.status) && answersId(response, id);
  const minted = response.headers['mcp-session-id'];
  if (served && minted === undefined) return;
  ctx.report('http.modern-session-id-not-ignored', {
    message: served
      ? `A 2026-07-28 request carrying Mcp-Session-Id was answered with Mcp-Session-Id: ${minted ?? ''}, though this revision has no sessions`
      : `A 2026-07-28 request carrying Mcp-Session-Id ${statusText(response)} instead of being served as if it had none`,
    evidence: exchangeEvidence(request, response),
  });
}

async function modernOnlyMethods(ctx: CheckContext): Promise<void> {
  for (const method of ['GET', 'DELETE'] as const) {
    const { request, response } = await exchange(ctx, method === 'GET' ? getRequest(ctx, undefined) : { method });
    if (response.status === 405 || response.status === 0) continue;
    ctx.report(method === 'GET' ? 'http.get-not-405' : 'http.delete-not-405', {
      message: `A ${method} on a server of 2026-07-28 alone ${statusText(response)} instead of 405`,
      evidence: exchangeEvidence(request, response),
      severity: 'warning',
    });
  }
}

async function run(ctx: CheckContext): Promise<void> {
  // `initialize` is probed whatever `--era` says: it tells a session-based server from one of 2026-07-28 alone.
  const session = await openSession(ctx, { tag: 'methods' });
  if (session !== undefined && !legacyAllowed(ctx)) {
    ctx.progress('skipped: the server serves sessions and --era modern leaves them out');
    return;
  }
  if (session !== undefined) {
    ctx.progress(session.id === undefined ? 'GET without a session (the server mints none)' : 'GET and DELETE on a session');
    await sessionMethods(ctx, session);
    return;
  }
  if (modernAvailable(ctx)) {
    ctx.progress('GET, DELETE and a stale Mcp-Session-Id on a server of 2026-07-28 alone');
    await modernOnlyMethods(ctx);
    if (!ctx.signal.aborted) await staleSessionId(ctx);
    return;
  }
  ctx.progress('skipped: initialize opened no session and the server speaks no 2026-07-28');
}

/** `http.methods`: GET and DELETE in a session (or on a server of 2026-07-28 alone, with a stale `Mcp-Session-Id`). */
export const METHODS_CHECK: Check = {
  id: 'http.methods',
  title: 'HTTP GET and DELETE',
  area: 'http',
  transports: ['http'],
  requirements: ['http.get-not-405', 'http.delete-not-405', 'http.modern-session-id-not-ignored'],
  run,
};
