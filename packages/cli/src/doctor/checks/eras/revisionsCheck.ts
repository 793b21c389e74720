/**
 * The `eras.revisions` check: which revisions the server speaks. It probes `server/discover` (the modern era) and
 * offers `initialize` at each session-based revision and at an unknown one (`1999-01-01`), each on a fresh process
 * or session, so one answer cannot shape the next. It fills `facts.legacyRevisions` / `facts.modernRevisions` and
 * says what the server is (legacy-only, modern-only, dual-era) and where its version negotiation breaks.
 *
 * @see MCP 2025-11-25 basic/lifecycle.mdx "Version Negotiation"; MCP 2026-07-28 basic/versioning.mdx
 */
import { LEGACY_REVISIONS, MODERN_REVISIONS } from '@switchboard/mcp';
import type { Check, CheckContext } from '../../types.js';
import { errorOf, evidenceOf, openLegacy, openModern, recordOf, resultOf, type RawAnswer } from './channel.js';

/** The revision the doctor offers to see a counter-offer: no revision has this date. */
export const UNKNOWN_REVISION = '1999-01-01';

const LEGACY: readonly string[] = LEGACY_REVISIONS;
const NEWEST_MODERN = MODERN_REVISIONS[MODERN_REVISIONS.length - 1]!;

/** What `server/discover` said. */
interface DiscoverOutcome {
  readonly answer: RawAnswer;
  /** Every revision it listed (`supportedVersions`, or `data.supported` of a -32022), when it listed any. */
  readonly listed: readonly string[] | undefined;
  /** Whether the answer identifies a modern server (a result, or a -32022). */
  readonly modern: boolean;
}

/** One `initialize` offer and what it settled on. */
interface Offer {
  readonly offered: string;
  readonly answer: RawAnswer;
  /** `protocolVersion` of the result, when there was one. */
  readonly settled: string | undefined;
}

function stringsOf(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value) : undefined;
}

async function discover(ctx: CheckContext): Promise<DiscoverOutcome> {
  ctx.progress('server/discover');
  const channel = await openModern(ctx, NEWEST_MODERN);
  try {
    const answer = await channel.request('server/discover', {});
    const result = resultOf(answer);
    if (result !== undefined) {
      const listed = stringsOf(result.supportedVersions);
      const problems = [
        ...(listed === undefined || listed.length === 0 ? ['supportedVersions is not a non-empty array of strings'] : []),
        ...(recordOf(result.capabilities) === undefined ? ['capabilities is not an object'] : []),
      ];
      if (problems.length > 0) ctx.report('eras.discover-result', { message: `server/discover answered a result whose ${problems.join(' and whose ')}`, evidence: evidenceOf(answer) });
      return { answer, listed, modern: true };
    }
    // A -32022 identifies a modern server when it lists a modern revision; one listing only session-based revisions
    // (a legacy-only server that knows the claim) sends the client to initialize.
    const error = errorOf(answer);
    const listed = error?.code === -32022 ? stringsOf(recordOf(error.data)?.supported) : undefined;
    return { answer, listed, modern: listed?.some((r) => !LEGACY.includes(r)) === true };
  } finally {
    await channel.close();
  }
}

async function offer(ctx: CheckContext, revision: string): Promise<Offer> {
  ctx.progress(`offering ${revision}`);
  const { initialize, channel } = await openLegacy(ctx, revision);
  await channel?.close();
  return { offered: revision, answer: initialize, settled: channel?.revision };
}

/** Judges each offer against what the others (and `server/discover`) say the server supports. */
function judgeNegotiation(ctx: CheckContext, offers: readonly Offer[], listed: readonly string[] | undefined): void {
  const known = offers.filter((o) => o.offered !== UNKNOWN_REVISION);
  const supported = new Set(known.filter((o) => o.settled === o.offered).map((o) => o.offered));
  const listedLegacy = listed?.filter((r) => LEGACY.includes(r)) ?? [];
  for (const o of known) {
    if (o.settled === o.offered) continue;
    const evidence = evidenceOf(o.answer);
    if (o.settled === undefined) {
      // No session-based revision at all is judged as an era, below; no answer in time (a slow start under load, a
      // process that died) is the start-up checks' to explain, not a verdict on negotiation.
      if (supported.size === 0 || errorOf(o.answer) === undefined) continue;
      ctx.report('eras.version-negotiation', { message: `Offered ${o.offered}, the server answered an error instead of counter-offering one of the revisions it serves (${[...supported].join(', ')})`, evidence });
    } else if (!LEGACY.includes(o.settled)) {
      ctx.report('eras.version-negotiation', { message: `Offered ${o.offered}, the server settled on "${o.settled}", which is no session-based revision`, evidence });
    } else if (listedLegacy.includes(o.offered)) {
      ctx.report('eras.version-negotiation', { message: `Offered ${o.offered}, which server/discover lists, the server settled on ${o.settled} instead`, evidence });
    } else if (!supported.has(o.settled) && known.some((k) => k.offered === o.settled)) {
      ctx.report('eras.version-negotiation', { message: `Offered ${o.offered}, the server counter-offered ${o.settled}, but offered ${o.settled} directly it settles on another revision`, evidence });
    }
  }
  const unknown = offers.find((o) => o.offered === UNKNOWN_REVISION);
  if (unknown === undefined || supported.size === 0) return;
  const evidence = evidenceOf(unknown.answer);
  if (unknown.settled === undefined) {
    if (errorOf(unknown.answer) === undefined) return;
    ctx.report('eras.unknown-revision', { message: `Offered the unknown revision ${UNKNOWN_REVISION}, the server answered an error instead of counter-offering a revision it serves`, evidence });
  } else if (!supported.has(unknown.settled)) {
    ctx.report('eras.unknown-revision', { message: `Offered the unknown revision ${UNKNOWN_REVISION}, the server settled on "${unknown.settled}", which it does not serve`, evidence });
  }
}

/** A modern-only server's answer to `initialize` should name the revisions it serves. */
function judgeModernOnlyRefusal(ctx: CheckContext, offers: readonly Offer[], modern: readonly string[]): void {
  const refusal = offers.find((o) => o.offered === LEGACY[LEGACY.length - 1]);
  if (refusal === undefined) return;
  const error = errorOf(refusal.answer);
  const data = recordOf(error?.data);
  const message = typeof error?.message === 'string' ? error.message : '';
  const names = stringsOf(data?.supported) !== undefined || modern.some((r) => message.includes(r));
  if ((error !== undefined && names) || refusal.answer.response === undefined) return;
  const what = error === undefined ? 'no error' : 'an error that names none of the revisions it serves';
  ctx.report('eras.initialize-refusal-versions', { message: `initialize got ${what}: a 2025 client cannot tell its user which revisions this server serves`, evidence: evidenceOf(refusal.answer) });
}

function discoverEvidence(found: DiscoverOutcome | undefined): string[] {
  return found === undefined ? [] : evidenceOf(found.answer);
}

/** How many probes run at once: each is a fresh process or session, and most of their time is waiting. */
const PROBES_AT_ONCE = 3;

/** Runs `jobs` with at most `size` at once; the results in the jobs' order. */
async function inPool<T>(jobs: readonly (() => Promise<T>)[], size: number): Promise<T[]> {
  const results: T[] = new Array<T>(jobs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < jobs.length; index = next++) results[index] = await jobs[index]!();
  };
  await Promise.all(Array.from({ length: Math.min(size, jobs.length) }, worker));
  return results;
}

async function run(ctx: CheckContext): Promise<void> {
  const probeModern = ctx.era !== 'legacy';
  const probeLegacy = ctx.era !== 'modern';
  const revisions = probeLegacy ? [...LEGACY, UNKNOWN_REVISION] : [];
  const offered = inPool(
    revisions.map((revision) => () => (ctx.signal.aborted ? Promise.resolve(undefined) : offer(ctx, revision))),
    probeModern ? PROBES_AT_ONCE - 1 : PROBES_AT_ONCE,
  );
  const found = probeModern
    ? await discover(ctx).catch(async (error: unknown) => {
        await offered.catch(() => undefined);
        throw error;
      })
    : undefined;
  if (found?.modern === true) {
    const modern = (found.listed ?? [NEWEST_MODERN]).filter((r) => !LEGACY.includes(r));
    ctx.facts.modernRevisions.splice(0, Infinity, ...(modern.length > 0 ? modern : [NEWEST_MODERN]));
  }
  const offers = (await offered).filter((o): o is Offer => o !== undefined);
  if (!probeLegacy || ctx.signal.aborted) return;
  const settled = [...new Set(offers.map((o) => o.settled).filter((r): r is string => r !== undefined && LEGACY.includes(r)))].sort();
  ctx.facts.legacyRevisions.splice(0, Infinity, ...settled);
  if (settled.length === 0 && ctx.facts.modernRevisions.length === 0 && ctx.target.transport === 'http') {
    // Nothing answered a POST: a 2024-11-05 HTTP+SSE endpoint (GET for the stream, POST elsewhere) is reached through
    // the client, which says the one revision it settled on.
    const client = await ctx.client({ era: 'legacy' }).catch(() => undefined);
    if (client?.transportKind === 'http-sse') {
      ctx.progress(`HTTP+SSE endpoint: settled on ${client.protocolVersion}`);
      ctx.facts.legacyRevisions.splice(0, Infinity, client.protocolVersion);
      if (probeModern) ctx.report('eras.legacy-only', { message: `The URL is a 2024-11-05 HTTP+SSE endpoint (the client settled on ${client.protocolVersion}): 2026-07-28 clients fall back to initialize, and then to HTTP+SSE`, evidence: discoverEvidence(found) });
    }
    return;
  }
  judgeNegotiation(ctx, offers, found?.listed);

  const modern = ctx.facts.modernRevisions;
  const offerEvidence = offers.filter((o) => errorOf(o.answer) !== undefined).slice(-2).flatMap((o) => evidenceOf(o.answer));
  if (settled.length > 0 && modern.length > 0) {
    ctx.report('eras.dual-era', { message: `The server speaks both eras: ${modern.join(', ')} (server/discover) and ${settled.join(', ')} (initialize)`, evidence: discoverEvidence(found) });
  } else if (settled.length > 0 && probeModern) {
    ctx.report('eras.legacy-only', { message: `The server speaks only session-based revisions (${settled.join(', ')}): server/discover did not identify a modern server, so 2026-07-28 clients fall back to initialize`, evidence: discoverEvidence(found) });
  } else if (modern.length > 0 && offers.some((o) => errorOf(o.answer) !== undefined)) {
    // Refused, not merely unanswered: offers that all went unanswered in time say nothing about the era.
    ctx.report('eras.modern-only', { message: `The server speaks only ${modern.join(', ')}: initialize was refused at every revision offered`, evidence: offerEvidence });
    ctx.report('eras.legacy-clients-refused', { message: 'initialize was refused at every revision offered, so clients of 2025-11-25 and earlier cannot connect', evidence: offerEvidence });
    judgeModernOnlyRefusal(ctx, offers, modern);
  }
}

/** The `eras.revisions` check (both transports). */
export const REVISIONS_CHECK: Check = {
  id: 'eras.revisions',
  title: 'protocol revisions',
  area: 'eras',
  transports: ['stdio', 'http'],
  requirements: [
    'eras.discover-result',
    'eras.version-negotiation',
    'eras.unknown-revision',
    'eras.initialize-refusal-versions',
    'eras.legacy-only',
    'eras.modern-only',
    'eras.legacy-clients-refused',
    'eras.dual-era',
  ],
  run,
};
