/**
 * `Last-Event-ID` resumption, on a session whose SSE answers carry event ids: a GET naming the event before the
 * response replays the response, or is refused (405: no stream). Ignoring the header, failing, or answering 404
 * loses the response a reconnecting client waits for. Answers without event ids (or JSON answers) leave nothing
 * to resume; 2026-07-28 has no resumption.
 * @see MCP 2025-11-25 basic/transports.mdx "Resumability and Redelivery"
 */
import type { Check, CheckContext, HttpProbeResponse } from '../../types.js';
import { endSession, legacyAllowed, openSession, sessionPost, type RawSession } from './session.js';
import { answersId, exchange, exchangeEvidence, isSuccess, mediaType, statusText } from './wire.js';

/** How long a resumed stream may take to replay the response, milliseconds (the store is the server's own memory). */
const REPLAY_MS = 2000;

/** The id of an event that came before the response, when the answer shows one. */
function idBeforeResponse(response: HttpProbeResponse): string | undefined {
  // The answer is read up to the response, and the response ends the stream: with two ids, the first came before it.
  return response.eventIds.length >= 2 ? response.eventIds[0] : undefined;
}

async function resume(ctx: CheckContext, session: RawSession): Promise<void> {
  const id = 'doctor-resume';
  const first = await exchange(ctx, sessionPost(session, { jsonrpc: '2.0', id, method: 'tools/list' }));
  if (mediaType(first.response.headers['content-type']) !== 'text/event-stream' || first.response.eventIds.length === 0) {
    ctx.progress('skipped: the answer carries no SSE event ids (nothing to resume)');
    return;
  }
  const lastEventId = idBeforeResponse(first.response);
  if (lastEventId === undefined) {
    ctx.progress('skipped: no event came before the response (nothing to replay)');
    return;
  }
  ctx.progress(`GET with Last-Event-ID: ${lastEventId}`);
  const again = await exchange(ctx, {
    method: 'GET',
    headers: { accept: 'text/event-stream', 'last-event-id': lastEventId, ...session.headers },
    timeoutMs: Math.min(ctx.requestTimeoutMs, REPLAY_MS),
  });
  const { response } = again;
  if (ctx.signal.aborted) return;
  if (isSuccess(response.status) && answersId(response, id)) return;
  // 405: no stream at all; another 4xx but 404 is the server saying it cannot resume. Both are its right.
  if (response.status === 405 || (response.status >= 400 && response.status < 500 && response.status !== 404)) {
    ctx.progress(`the server does not resume streams (GET with Last-Event-ID ${statusText(response)})`);
    return;
  }
  const message = isSuccess(response.status)
    ? `A GET with Last-Event-ID: ${lastEventId} ${response.status === 0 ? '' : `was answered ${response.status} but `}did not replay the response that followed that event within ${Math.min(ctx.requestTimeoutMs, REPLAY_MS)} ms`
    : response.status === 404
      ? `A GET with Last-Event-ID: ${lastEventId} on a live session was answered 404: the client drops the session`
      : `A GET with Last-Event-ID: ${lastEventId} ${statusText(response)}`;
  ctx.report('http.resumption-broken', {
    message: `The server gives its SSE events ids, but ${message.charAt(0).toLowerCase()}${message.slice(1)}`,
    evidence: [...exchangeEvidence(first.request, first.response), ...exchangeEvidence(again.request, response)],
  });
}

async function run(ctx: CheckContext): Promise<void> {
  if (!legacyAllowed(ctx)) {
    ctx.progress('skipped: --era modern (2026-07-28 streams are not resumable)');
    return;
  }
  const session = await openSession(ctx, { tag: 'resume' });
  if (session?.id === undefined) {
    ctx.progress('skipped: no session (streams are resumed within a session)');
    await endSession(ctx, session);
    return;
  }
  try {
    await resume(ctx, session);
  } finally {
    await endSession(ctx, session);
  }
}

/** `http.resumption`: a GET with `Last-Event-ID` replays what followed that event. */
export const RESUMPTION_CHECK: Check = {
  id: 'http.resumption',
  title: 'HTTP Last-Event-ID resumption',
  area: 'http',
  transports: ['http'],
  requirements: ['http.resumption-broken'],
  run,
};
