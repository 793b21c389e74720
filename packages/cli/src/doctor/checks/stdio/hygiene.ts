/**
 * The stdio hygiene check: one raw session on a fresh process, in the era the doctor connected with. After the
 * handshake it sends two notifications (they must get no answer: MCP 2025-11-25 basic/index.mdx "Notifications"),
 * a request with the string id `"7"` and one with the number id `8` (each answered with its id unchanged:
 * "Result Responses"), then a line that is not JSON (a -32700 with `"id": null`, "Error Responses", B45) followed by a
 * request that must still be answered (B11). Each request after a notification or the bad line also marks where the
 * server has read to, so an answer that should not come is seen without a long wait. Finally every stdout line of the
 * session is read for text that is not a message, CR LF and byte order marks.
 */
import { isLegacyRevision } from '@switchboard/mcp';
import { STDIO_IDS } from '../../requirements/stdio.js';
import type { Check, CheckContext, StdioLine, StdioWire } from '../../types.js';
import { lineFindings } from './lines.js';
import { waitOrEnd } from './waits.js';
import {
  harmlessRequest,
  INITIALIZED_NOTIFICATION,
  initializeRequest,
  discoverRequest,
  isProtocolLine,
  MODERN_REVISION,
  namesId,
  received,
  responseOf,
  sent,
  UNKNOWN_NOTIFICATION,
  type WireEra,
  type WireRequest,
} from './probeMessages.js';

/** How long answers that should not come are waited for once the next request is answered, milliseconds. */
export const STRAGGLER_MS = 250;

/** The line that is not JSON: a message cut off after its first member. */
export const MALFORMED_LINE = '{"jsonrpc":"2.0",';

/** Revisions whose schema lets an error response leave `id` out (MCP 2025-11-25 schema.ts `JSONRPCErrorResponse`). */
const ID_OPTIONAL_FROM = '2025-11-25';

interface Session {
  readonly ctx: CheckContext;
  readonly wire: StdioWire;
  readonly era: WireEra;
  /** The revision the handshake settled on. */
  revision: string;
}

/** Sends requests, one after the other, and waits (together) for the response naming each id, whatever its type. */
async function askAll(session: Session, requests: readonly WireRequest[]): Promise<(StdioLine | undefined)[]> {
  const from = session.wire.lines.length;
  for (const request of requests) await session.wire.send(request).catch(() => undefined);
  const timeoutMs = session.ctx.requestTimeoutMs;
  const answerTo = async (request: WireRequest) => {
    const match = (line: StdioLine) => namesId(responseOf(line)?.id, request.id);
    return (await waitOrEnd(session.ctx, session.wire, { match, timeoutMs, fromIndex: from })).line;
  };
  return Promise.all(requests.map(answerTo));
}

/** Sends a request and waits for the response naming its id, whatever the id's type. */
async function ask(session: Session, request: WireRequest): Promise<StdioLine | undefined> {
  return (await askAll(session, [request]))[0];
}

/** Lets answers that should not come arrive; false once the doctor's budget is spent. */
async function settle(session: Session): Promise<boolean> {
  try {
    await session.ctx.env.sleep(STRAGGLER_MS, session.ctx.signal);
    return true;
  } catch {
    return false;
  }
}

/** The handshake of the era; false when the fresh process does not answer it. */
async function handshake(session: Session): Promise<boolean> {
  const { ctx } = session;
  if (session.era === 'modern') {
    const revision = ctx.facts.modernRevisions.includes(MODERN_REVISION) || ctx.facts.modernRevisions.length === 0 ? MODERN_REVISION : ctx.facts.modernRevisions[0]!;
    session.revision = revision;
    const answer = await ask(session, discoverRequest(1, revision));
    return answer !== undefined && responseOf(answer)?.result !== undefined;
  }
  const answer = await ask(session, initializeRequest(1));
  const result = answer === undefined ? undefined : responseOf(answer)?.result;
  if (typeof result !== 'object' || result === null) return false;
  const version = (result as { protocolVersion?: unknown }).protocolVersion;
  if (typeof version === 'string') session.revision = version;
  return true;
}

/** Any response between `from` and now that no request of ours asked for: an answer to a notification. */
function strayAnswers(session: Session, from: number, ids: readonly (string | number)[]): StdioLine[] {
  return session.wire.lines.slice(from).filter((line) => {
    const response = responseOf(line);
    return response !== undefined && !ids.some((id) => namesId(response.id, id));
  });
}

/** Checks the notifications and the ids; returns the id type the server answers (for the next request), if any. */
async function checkNotifications(session: Session): Promise<'string' | 'number' | undefined> {
  const from = session.wire.lines.length;
  const notifications = session.era === 'legacy' ? [INITIALIZED_NOTIFICATION, UNKNOWN_NOTIFICATION] : [UNKNOWN_NOTIFICATION, INITIALIZED_NOTIFICATION];
  for (const notification of notifications) await session.wire.send(notification).catch(() => undefined);
  const stringId = harmlessRequest(session.era, '7', session.revision);
  const numberId = harmlessRequest(session.era, 8, session.revision);
  const answers = await askAll(session, [stringId, numberId]);
  if (!(await settle(session))) return undefined;
  const stray = strayAnswers(session, from, [stringId.id, numberId.id]);
  if (stray.length > 0) {
    session.ctx.report(STDIO_IDS.notificationAnswered, {
      message: `${stray.length === 1 ? 'A notification was' : 'Notifications were'} answered: ${stray.length} response${stray.length === 1 ? '' : 's'} came back for messages without an id`,
      evidence: [...notifications.map(sent), ...stray.map(received)],
    });
  }
  checkIds(session, [stringId, numberId], answers);
  return answers[1] !== undefined ? 'number' : answers[0] !== undefined ? 'string' : undefined;
}

function checkIds(session: Session, requests: readonly WireRequest[], answers: readonly (StdioLine | undefined)[]): void {
  const wrong: string[] = [];
  const evidence: string[] = [];
  requests.forEach((request, i) => {
    const answer = answers[i];
    const kind = typeof request.id === 'string' ? 'string' : 'number';
    if (answer === undefined) {
      wrong.push(`the ${kind} id ${JSON.stringify(request.id)} got no answer within ${session.ctx.requestTimeoutMs} ms`);
      evidence.push(sent(request), '← (no answer)');
      return;
    }
    const id = responseOf(answer)?.id;
    if (typeof id !== typeof request.id) {
      wrong.push(`the ${kind} id ${JSON.stringify(request.id)} came back as ${JSON.stringify(id)}`);
      evidence.push(sent(request), received(answer));
    }
  });
  if (wrong.length === 0) return;
  // Both unanswered: the server answers nothing here, which says nothing about ids.
  if (answers.every((answer) => answer === undefined)) return;
  session.ctx.report(STDIO_IDS.idTypeChanged, { message: `Response ids change type: ${wrong.join('; ')}`, evidence });
}

async function checkMalformedLine(session: Session, idType: 'string' | 'number'): Promise<void> {
  const { ctx, wire } = session;
  const from = wire.lines.length;
  await wire.write(`${MALFORMED_LINE}\n`).catch(() => undefined);
  const after = harmlessRequest(session.era, idType === 'number' ? 10 : '10', session.revision);
  const answer = await ask(session, after);
  if (answer !== undefined && !(await settle(session))) return;
  if (ctx.signal.aborted) return;
  const replies = strayAnswers(session, from, [after.id]);
  if (answer === undefined) {
    const exit = wire.exit;
    const how = exit === undefined ? `stopped answering: the next request got no answer within ${ctx.requestTimeoutMs} ms` : exit.signal === null ? `exited with code ${exit.code ?? 'unknown'}` : `was killed by ${exit.signal}`;
    ctx.report(STDIO_IDS.malformedLineKills, {
      message: `After a line that is not JSON the server ${how}`,
      evidence: [sent(MALFORMED_LINE), ...replies.map(received), sent(after), '← (no answer)', ...wire.stderrTail.slice(-10).map((line) => `stderr: ${line}`)],
    });
    return;
  }
  checkParseError(session, replies);
}

function checkParseError(session: Session, replies: readonly StdioLine[]): void {
  const evidence = [sent(MALFORMED_LINE), ...(replies.length === 0 ? ['← (no answer)'] : replies.map(received))];
  const reply = replies[0];
  if (reply === undefined) {
    session.ctx.report(STDIO_IDS.parseErrorReply, { message: 'A line that is not JSON got no answer (expected a -32700 error with "id": null)', evidence });
    return;
  }
  const response = responseOf(reply)!;
  const code = response.error?.code;
  if (code !== -32700) {
    const what = response.error === undefined ? 'a result' : `error code ${JSON.stringify(code)}`;
    session.ctx.report(STDIO_IDS.parseErrorReply, { message: `A line that is not JSON was answered with ${what}, not -32700 Parse error`, evidence });
    return;
  }
  if (response.hasId && response.id !== null) {
    session.ctx.report(STDIO_IDS.parseErrorReply, { message: `The -32700 answer carries the id ${JSON.stringify(response.id)}; an id that could not be read is null`, evidence });
    return;
  }
  if (!response.hasId && session.era === 'legacy' && isLegacyRevision(session.revision) && session.revision < ID_OPTIONAL_FROM) {
    session.ctx.report(STDIO_IDS.parseErrorReply, {
      message: `The -32700 answer leaves "id" out; on revision ${session.revision} the schema requires it ("id": null)`,
      evidence,
    });
  }
}

async function run(ctx: CheckContext): Promise<void> {
  if (ctx.target.transport !== 'stdio') return;
  const era: WireEra = ctx.facts.era ?? (ctx.era === 'modern' ? 'modern' : 'legacy');
  ctx.progress(`raw session (${era})`);
  const wire = await ctx.spawn();
  const session: Session = { ctx, wire, era, revision: era === 'modern' ? MODERN_REVISION : '' };
  try {
    if (await handshake(session)) {
      ctx.progress('notifications and ids');
      const idType = await checkNotifications(session);
      if (idType !== undefined) {
        ctx.progress('a malformed line');
        await checkMalformedLine(session, idType);
      } else if (!ctx.signal.aborted) {
        ctx.progress(`no answer to ${era === 'modern' ? 'server/discover' : 'ping'} after the handshake: the malformed-line check is skipped`);
      }
    } else {
      ctx.progress(`no answer to the ${era === 'modern' ? 'server/discover' : 'initialize'} of a fresh process: only stdout lines checked`);
    }
  } finally {
    await wire.close();
  }
  for (const finding of lineFindings(wire.lines)) ctx.report(finding.id, finding.observation);
  markReported(ctx, wire);
}

/** Tells the later stdout watch that stray stdout is reported already (it reports only what no raw session saw). */
function markReported(ctx: CheckContext, wire: StdioWire): void {
  const index = wire.lines.findIndex((line) => !isProtocolLine(line));
  if (index === -1) return;
  const line = wire.lines[index]!;
  ctx.facts.stdoutNoise = { line: line.raw, lineNumber: index + 1, afterMs: line.atMs - wire.startedAtMs, by: STDIO_HYGIENE_CHECK.id, reported: true };
}

/** The stdio hygiene check. */
export const STDIO_HYGIENE_CHECK: Check = {
  id: 'stdio.hygiene',
  title: 'stdio hygiene',
  area: 'stdio',
  transports: ['stdio'],
  requirements: Object.values(STDIO_IDS),
  run,
};
