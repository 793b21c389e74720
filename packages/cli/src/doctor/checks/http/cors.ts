/**
 * CORS, for browser clients: when the server answers a preflight, it allows the MCP request headers, and its
 * answers expose `Mcp-Session-Id` (a browser script reads no other response header unless exposed). A server with
 * no CORS at all is worth knowing (info), not a fault.
 * @see https://fetch.spec.whatwg.org/#http-cors-protocol
 */
import type { Check, CheckContext } from '../../types.js';
import { endMintedSession, legacyAllowed, modernAvailable, openSession } from './session.js';
import { exchange, exchangeEvidence, targetOrigin } from './wire.js';

/** The request headers a browser client of each era sends beyond the CORS-safelisted ones. */
const SESSION_HEADERS = ['content-type', 'mcp-protocol-version', 'mcp-session-id'];
const MODERN_HEADERS = ['content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-name'];

/** A comma-separated header value as lower-case names. */
function names(value: string | undefined): Set<string> {
  return new Set((value ?? '').split(',').map((n) => n.trim().toLowerCase()).filter((n) => n !== ''));
}

/**
 * What a browser client needs of a preflight answer and does not find in `response` (a 2xx status,
 * `Access-Control-Allow-Origin`, `POST` in `Access-Control-Allow-Methods`, the `wanted` request headers in
 * `Access-Control-Allow-Headers`), then, when the client runs sessions, `Mcp-Session-Id` exposed on answers.
 * @see https://fetch.spec.whatwg.org/#http-responses (a preflight answer needs an ok status and these headers)
 */
export function missingForBrowser(response: { readonly status: number; readonly headers: Readonly<Record<string, string | undefined>> }, wanted: readonly string[], sessions: boolean): string[] {
  const missing: string[] = [];
  if (response.status < 200 || response.status > 299) missing.push(`a 2xx status (got ${response.status})`);
  if (response.headers['access-control-allow-origin'] === undefined) missing.push('Access-Control-Allow-Origin');
  const methods = names(response.headers['access-control-allow-methods']);
  if (!methods.has('*') && !methods.has('post')) missing.push('POST in Access-Control-Allow-Methods');
  const allowed = names(response.headers['access-control-allow-headers']);
  const headers = allowed.has('*') ? [] : wanted.filter((name) => !allowed.has(name));
  if (headers.length > 0) missing.push(`${headers.join(', ')} in Access-Control-Allow-Headers`);
  if (sessions) missing.push('Mcp-Session-Id in the Access-Control-Expose-Headers of its answers');
  return missing;
}

async function exposed(ctx: CheckContext, origin: string): Promise<void> {
  const session = await openSession(ctx, { tag: 'cors', initialized: false, headers: { origin } });
  if (session === undefined) return;
  try {
    if (session.id === undefined) return;
    const list = names(session.response.headers['access-control-expose-headers']);
    if (list.has('*') || list.has('mcp-session-id')) return;
    ctx.report('http.cors-session-id-not-exposed', {
      message: `The server answers cross-origin requests but its initialize answer does not expose Mcp-Session-Id (Access-Control-Expose-Headers: ${session.response.headers['access-control-expose-headers'] ?? '(none)'}): a browser client cannot read its session id`,
      evidence: exchangeEvidence(session.request, session.response),
    });
  } finally {
    await endMintedSession(ctx, session.response);
  }
}

async function run(ctx: CheckContext): Promise<void> {
  const origin = targetOrigin(ctx);
  if (origin === undefined) return;
  const modern = modernAvailable(ctx);
  // Session headers only for a server known to serve sessions (or not known to serve anything else).
  const sessions = legacyAllowed(ctx) && (ctx.facts.era === 'legacy' || ctx.facts.legacyRevisions.length > 0 || !modern);
  const wanted = [...new Set([...(sessions ? SESSION_HEADERS : []), ...(modern ? MODERN_HEADERS : [])])];
  ctx.progress(`a preflight from ${origin}`);
  const { request, response } = await exchange(ctx, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': wanted.join(', ') },
  });
  if (response.status === 0) return;
  if (response.headers['access-control-allow-origin'] === undefined) {
    ctx.report('http.no-cors', {
      message: `The server answers no CORS preflight (OPTIONS ${response.status}, no Access-Control-Allow-Origin): browser pages on other origins cannot call it. Missing for a browser client: ${missingForBrowser(response, wanted, sessions).join('; ')}`,
      evidence: exchangeEvidence(request, response),
    });
    return;
  }
  const allowed = names(response.headers['access-control-allow-headers']);
  const missing = allowed.has('*') ? [] : wanted.filter((name) => !allowed.has(name));
  if (missing.length > 0) {
    ctx.report('http.cors-headers-not-allowed', {
      message: `The preflight does not allow the request header${missing.length === 1 ? '' : 's'} ${missing.join(', ')}: a browser will not send ${missing.length === 1 ? 'it' : 'them'}`,
      evidence: exchangeEvidence(request, response),
    });
  }
  if (legacyAllowed(ctx) && !ctx.signal.aborted) await exposed(ctx, origin);
}

/** `http.cors`: a preflight from the target's own origin; the MCP headers allowed, `Mcp-Session-Id` exposed. */
export const CORS_CHECK: Check = {
  id: 'http.cors',
  title: 'HTTP CORS for browser clients',
  area: 'http',
  transports: ['http'],
  requirements: ['http.no-cors', 'http.cors-headers-not-allowed', 'http.cors-session-id-not-exposed'],
  run,
};
