/**
 * Sessions of the legacy era: a request without the session id is 400, an unknown or ended one is 404 (the status
 * that makes a client start over), DELETE ends the session, and a new `initialize` afterwards opens a new one. A
 * server of 2026-07-28 alone has no sessions: nothing to check.
 * @see MCP 2025-11-25 basic/transports.mdx "Session Management"
 */
import type { Check, CheckContext } from '../../types.js';
import { endSession, legacyAllowed, openSession, sessionPost, type RawSession } from './session.js';
import { answersId, exchange, exchangeEvidence, isSuccess, pingMessage, statusText } from './wire.js';

/** A session id no server issued: visible ASCII, the shape of the ids servers mint. */
function unknownSessionId(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return `doctor-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

async function missingId(ctx: CheckContext, session: RawSession): Promise<void> {
  const { request, response } = await exchange(ctx, sessionPost(session, pingMessage('doctor-no-session'), { 'mcp-session-id': null }));
  // 2xx: the server does not require the id (it may route by other means); only a wrong refusal is a finding.
  if (response.status === 400 || isSuccess(response.status) || (response.status === 0 && ctx.signal.aborted)) return;
  ctx.report('http.missing-session-not-400', {
    message:
      response.status === 404
        ? 'A ping without Mcp-Session-Id was answered 404, the answer for an ended session: clients re-initialize instead of fixing the request'
        : `A ping without Mcp-Session-Id ${statusText(response)} instead of 400`,
    evidence: exchangeEvidence(request, response),
  });
}

/** What one probe of an unknown session saw, when it was not 404. */
interface NotFoundFault {
  /** The probe, as the message names it. */
  readonly what: string;
  /** The answer, as the message says it (`answered 400`). */
  readonly answer: string;
  readonly evidence: readonly string[];
}

async function unknownId(ctx: CheckContext, session: RawSession): Promise<NotFoundFault | undefined> {
  const { request, response } = await exchange(ctx, sessionPost(session, pingMessage('doctor-unknown-session'), { 'mcp-session-id': unknownSessionId() }));
  // A server that serves any id (it keeps no table) breaks nothing here; the probe after DELETE says more.
  if (response.status === 404 || isSuccess(response.status) || (response.status === 0 && ctx.signal.aborted)) return undefined;
  return { what: 'a ping with a session id the server never issued', answer: statusText(response), evidence: exchangeEvidence(request, response) };
}

/** One finding for the unknown-session probes that were not answered 404 (the same fault, seen once or twice). */
function reportNotFound(ctx: CheckContext, faults: readonly NotFoundFault[]): void {
  const [first, second] = faults;
  if (first === undefined) return;
  const seen =
    second === undefined
      ? `${first.what} ${first.answer}`
      : first.answer === second.answer
        ? `${first.what}, and ${second.what}, ${first.answer}`
        : `${first.what} ${first.answer}, and ${second.what} ${second.answer}`;
  ctx.report('http.ended-session-not-404', {
    message: `${seen.charAt(0).toUpperCase()}${seen.slice(1)} instead of 404: a client whose session ended never starts a new one`,
    evidence: faults.flatMap((f) => f.evidence),
  });
}

/**
 * DELETE, then a ping on the ended session. `ended`: the session was ended (so re-initializing is tested); `fault`:
 * the ping was not answered 404.
 */
async function afterDelete(ctx: CheckContext, session: RawSession): Promise<{ readonly ended: boolean; readonly fault?: NotFoundFault }> {
  const del = await exchange(ctx, { method: 'DELETE', headers: session.headers });
  if (del.response.status === 405) {
    ctx.progress('the server does not let clients end sessions (DELETE is 405)');
    return { ended: false };
  }
  // Another answer is the methods check's finding.
  if (!isSuccess(del.response.status)) return { ended: false };
  const id = 'doctor-ended-session';
  const { request, response } = await exchange(ctx, sessionPost(session, pingMessage(id)));
  if (response.status === 404 || (response.status === 0 && ctx.signal.aborted)) return { ended: true };
  const served = isSuccess(response.status) && answersId(response, id);
  const evidence = [...exchangeEvidence(del.request, del.response), ...exchangeEvidence(request, response)];
  return {
    ended: true,
    fault: served
      ? { what: `a ping on a session whose DELETE was answered ${del.response.status}`, answer: 'was still served', evidence }
      : { what: 'a ping on a session ended by DELETE', answer: statusText(response), evidence },
  };
}

async function reinitialize(ctx: CheckContext, ended: RawSession): Promise<void> {
  const again = await openSession(ctx, { tag: 'reinitialize' });
  if (again === undefined) {
    const { request, response } = await exchange(ctx, ended.request);
    ctx.report('http.reinitialize-fails', {
      message: `After the session ended, a new initialize without a session id ${statusText(response)} without a result`,
      evidence: exchangeEvidence(request, response),
    });
    return;
  }
  try {
    if (again.id === undefined || again.id === ended.id) {
      ctx.report('http.reinitialize-fails', {
        message: again.id === undefined ? 'The new initialize was answered without an Mcp-Session-Id, though the first one had one' : 'The new initialize was answered with the ended session id',
        evidence: exchangeEvidence(again.request, again.response),
      });
    }
  } finally {
    await endSession(ctx, again);
  }
}

async function run(ctx: CheckContext): Promise<void> {
  if (!legacyAllowed(ctx)) {
    ctx.progress('skipped: --era modern (sessions belong to the session-based revisions)');
    return;
  }
  const session = await openSession(ctx, { tag: 'sessions' });
  if (session === undefined) {
    ctx.progress('skipped: initialize opened no session (a server of 2026-07-28 alone has none)');
    return;
  }
  if (session.id === undefined) {
    ctx.progress('skipped: the server mints no Mcp-Session-Id (it runs without sessions)');
    return;
  }
  let ended = false;
  try {
    ctx.progress('a request without the session id, with an unknown one, after DELETE');
    await missingId(ctx, session);
    const unknown = await unknownId(ctx, session);
    const deleted = await afterDelete(ctx, session);
    ended = deleted.ended;
    reportNotFound(ctx, [unknown, deleted.fault].filter((f): f is NotFoundFault => f !== undefined));
  } finally {
    if (!ended) await endSession(ctx, session);
  }
  if (ended && !ctx.signal.aborted) await reinitialize(ctx, session);
}

/** `http.sessions`: 400 without the session id, 404 for an unknown or ended one, a new session after. */
export const SESSIONS_CHECK: Check = {
  id: 'http.sessions',
  title: 'HTTP sessions',
  area: 'http',
  transports: ['http'],
  requirements: ['http.missing-session-not-400', 'http.ended-session-not-404', 'http.reinitialize-fails'],
  run,
};
