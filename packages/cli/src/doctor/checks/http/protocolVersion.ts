/**
 * The `MCP-Protocol-Version` header on a session of 2025-06-18 or later: an unsupported value is 400, a missing
 * one means the negotiated revision (or 2025-03-26). The 2026-07-28 header rules belong to the eras checks.
 * @see MCP 2025-11-25 basic/transports.mdx "Protocol Version Header"
 */
import type { Check, CheckContext } from '../../types.js';
import { endSession, legacyAllowed, openSession, sessionPost, type RawSession } from './session.js';
import { answersId, exchange, exchangeEvidence, isSuccess, pingMessage, statusText } from './wire.js';

/** A revision no server supports. */
const UNSUPPORTED = '1999-01-01';

/** The revisions that define the header. */
const WITH_HEADER = new Set(['2025-06-18', '2025-11-25']);

async function unsupported(ctx: CheckContext, session: RawSession): Promise<void> {
  const id = 'doctor-bad-version';
  const { request, response } = await exchange(ctx, sessionPost(session, pingMessage(id), { 'mcp-protocol-version': UNSUPPORTED }));
  if (response.status === 400 || (response.status === 0 && ctx.signal.aborted)) return;
  const served = isSuccess(response.status) && answersId(response, id);
  ctx.report('http.protocol-version-not-validated', {
    message: served
      ? `A ping with MCP-Protocol-Version: ${UNSUPPORTED} was served (${response.status}) instead of refused with 400`
      : `A ping with MCP-Protocol-Version: ${UNSUPPORTED} ${statusText(response)} instead of 400`,
    evidence: exchangeEvidence(request, response),
    // A refusal with another 4xx still refuses; 404 does not (the client drops its session).
    ...(response.status >= 400 && response.status < 500 && response.status !== 404 ? { severity: 'warning' as const } : {}),
  });
}

async function missing(ctx: CheckContext, session: RawSession): Promise<void> {
  const id = 'doctor-no-version';
  const { request, response } = await exchange(ctx, sessionPost(session, pingMessage(id), { 'mcp-protocol-version': null }));
  if ((isSuccess(response.status) && answersId(response, id)) || (response.status === 0 && ctx.signal.aborted)) return;
  ctx.report('http.protocol-version-required', {
    message: `A ping on a ${session.revision} session without MCP-Protocol-Version ${statusText(response)}: clients of 2025-03-26 never send the header`,
    evidence: exchangeEvidence(request, response),
  });
}

/**
 * A header naming another revision the server serves than the session's: the spec leaves the answer to the server
 * (our own refuses it with 400), so it is said, not judged.
 */
async function otherRevision(ctx: CheckContext, session: RawSession): Promise<void> {
  const other = [...WITH_HEADER].find((revision) => revision !== session.revision && ctx.facts.legacyRevisions.includes(revision));
  if (other === undefined) return;
  const { response } = await exchange(ctx, sessionPost(session, pingMessage('doctor-other-version'), { 'mcp-protocol-version': other }));
  if (response.status !== 0) ctx.progress(`MCP-Protocol-Version: ${other} on a ${session.revision} session was answered ${response.status} (the spec leaves this to the server)`);
}

async function run(ctx: CheckContext): Promise<void> {
  if (!legacyAllowed(ctx)) {
    ctx.progress('skipped: --era modern (the 2026-07-28 header rules are the eras checks\')');
    return;
  }
  const session = await openSession(ctx, { tag: 'version' });
  if (session === undefined) {
    ctx.progress('skipped: initialize opened no session (the 2026-07-28 header rules are the eras checks\')');
    return;
  }
  try {
    if (!WITH_HEADER.has(session.revision)) {
      ctx.progress(`skipped: the session settled on ${session.revision}, which has no MCP-Protocol-Version header`);
      return;
    }
    ctx.progress(`${UNSUPPORTED} and no header on a ${session.revision} session`);
    await unsupported(ctx, session);
    await missing(ctx, session);
    await otherRevision(ctx, session);
  } finally {
    await endSession(ctx, session);
  }
}

/** `http.protocol-version-header`: an unsupported and a missing `MCP-Protocol-Version` on a 2025-06-18+ session. */
export const PROTOCOL_VERSION_CHECK: Check = {
  id: 'http.protocol-version-header',
  title: 'HTTP MCP-Protocol-Version header',
  area: 'http',
  transports: ['http'],
  requirements: ['http.protocol-version-not-validated', 'http.protocol-version-required'],
  run,
};
