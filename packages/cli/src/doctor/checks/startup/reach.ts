/**
 * The HTTP start-up check: whether anything answers at the URL at all. One POST of a `ping` (it opens no session);
 * any HTTP status is an answer and leaves the rest to the HTTP checks. When no answer comes, the network error says
 * why: nothing listening, a host name that does not resolve, or a TLS handshake that fails.
 */
import { STARTUP } from '../../requirements/startup.js';
import type { Check, CheckContext, HttpProbeResponse } from '../../types.js';

/** The request sent: a `ping`, which changes nothing on any server. */
const PING = { jsonrpc: '2.0', id: 'startup-1', method: 'ping' } as const;

/** Which start-up requirement a network error breaks, from the words of its message. */
export function networkFailureOf(error: string): typeof STARTUP.httpDns | typeof STARTUP.httpTls | typeof STARTUP.httpUnreachable {
  if (/ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL|getaddrinfo/i.test(error)) return STARTUP.httpDns;
  if (/CERT|SSL|TLS|certificate|self[- ]signed|EPROTO|handshake/i.test(error)) return STARTUP.httpTls;
  return STARTUP.httpUnreachable;
}

function describe(requirement: string, url: URL, seen: { readonly response: HttpProbeResponse; readonly timeoutMs: number }): string {
  const error = seen.response.error ?? 'no answer';
  const timeoutMs = seen.timeoutMs;
  if (requirement === STARTUP.httpDns) return `The host name "${url.hostname}" does not resolve`;
  if (requirement === STARTUP.httpTls) return `The TLS handshake with ${url.host} failed`;
  if (/ECONNREFUSED/.test(error)) return `Nothing listens at ${url.host}: the connection was refused`;
  if (/timeout|timed out|aborted/i.test(error)) return `No HTTP answer from ${url.host} within ${timeoutMs} ms`;
  return `No HTTP answer from ${url.host}`;
}

async function run(ctx: CheckContext): Promise<void> {
  if (ctx.target.transport !== 'http') return;
  const url = new URL(ctx.target.url);
  ctx.progress(`connecting to ${url.host}`);
  const response = await ctx.http({
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    body: PING,
  });
  if (response.status !== 0 || ctx.signal.aborted) return;
  const requirement = networkFailureOf(response.error ?? '');
  ctx.report(requirement, {
    message: describe(requirement, url, { response, timeoutMs: ctx.requestTimeoutMs }),
    evidence: [`POST ${ctx.target.url}`, `→ ${JSON.stringify(PING)}`, `error: ${response.error ?? 'no answer'}`],
  });
}

/** The HTTP start-up check (it runs before the doctor connects). */
export const HTTP_STARTUP_CHECK: Check = {
  id: 'startup.http',
  title: 'start-up (HTTP)',
  area: 'startup',
  transports: ['http'],
  requirements: [STARTUP.httpUnreachable, STARTUP.httpDns, STARTUP.httpTls],
  needsConnection: false,
  run,
};
