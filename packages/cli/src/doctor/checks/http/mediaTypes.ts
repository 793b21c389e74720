/**
 * The media types of a POST: a well-formed one is served with JSON or SSE, `application/json; charset=utf-8` is
 * JSON (B21), an `Accept` that allows neither answer type is 406, a body that is not JSON is 415, and an accepted
 * notification is 202 with no body. Probed with `initialize` (legacy era: no session needed) and with
 * `server/discover` (modern era).
 * @see MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server"; MCP 2026-07-28
 *   basic/transports/streamable-http.mdx "Sending Messages"
 */
import type { Check, CheckContext, HttpProbeRequest } from '../../types.js';
import { endMintedSession, legacyAllowed, modernAvailable, revisionToOffer, sessionPost } from './session.js';
import {
  DISCOVER_HEADERS,
  JSON_TYPE,
  POST_ACCEPT,
  answersId,
  discoverMessage,
  exchange,
  exchangeEvidence,
  initializeMessage,
  isSuccess,
  mediaType,
  resultFor,
  statusText,
} from './wire.js';

/** One era's well-formed POST: its body (per probe id) and its extra headers. */
interface PostShape {
  readonly era: 'legacy' | 'modern';
  /** What the progress line calls the request. */
  readonly name: string;
  body(id: string): Record<string, unknown>;
  readonly headers: Readonly<Record<string, string>>;
}

function shapes(ctx: CheckContext): PostShape[] {
  const out: PostShape[] = [];
  if (legacyAllowed(ctx)) out.push({ era: 'legacy', name: 'initialize', body: (id) => initializeMessage(id, revisionToOffer(ctx)), headers: {} });
  if (modernAvailable(ctx)) out.push({ era: 'modern', name: 'server/discover', body: discoverMessage, headers: DISCOVER_HEADERS });
  return out;
}

function post(shape: PostShape, id: string, headers: Readonly<Record<string, string>>): HttpProbeRequest {
  return { method: 'POST', headers: { accept: POST_ACCEPT, 'content-type': JSON_TYPE, ...shape.headers, ...headers }, body: shape.body(id) };
}

/** The well-formed POST; `true` when it was served (the other probes compare with it). */
async function wellFormed(ctx: CheckContext, shape: PostShape): Promise<boolean> {
  const id = `doctor-media-${shape.era}`;
  const { request, response } = await exchange(ctx, post(shape, id, {}));
  try {
    if (response.status === 0 && ctx.signal.aborted) return false;
    if (!isSuccess(response.status) || !answersId(response, id)) {
      // A legacy-only or modern-only server refuses the other era's request: that is the eras check's business.
      if (shape.era === 'legacy' && ctx.facts.legacyRevisions.length === 0 && ctx.facts.era !== 'legacy') return false;
      ctx.report('http.valid-post-refused', { message: `A well-formed POST of ${shape.name} ${statusText(response)} without a response to it`, evidence: exchangeEvidence(request, response) });
      return false;
    }
    const type = mediaType(response.headers['content-type']);
    if (type !== 'application/json' && type !== 'text/event-stream') {
      ctx.report('http.answer-not-json-or-sse', {
        message: `The ${shape.name} request was answered with Content-Type ${type === '' ? '(none)' : `'${type}'`} instead of application/json or text/event-stream`,
        evidence: exchangeEvidence(request, response),
      });
    }
    const revision = resultFor(response, id)?.protocolVersion;
    if (shape.era === 'legacy') await notificationAnswer(ctx, response.headers['mcp-session-id'], typeof revision === 'string' ? revision : '');
    return true;
  } finally {
    await endMintedSession(ctx, response);
  }
}

/** `notifications/initialized` on the session just opened: 202 with no body. */
async function notificationAnswer(ctx: CheckContext, sessionId: string | undefined, revision: string): Promise<void> {
  const headers: Record<string, string> = revision === '' ? {} : { 'mcp-protocol-version': revision };
  if (sessionId !== undefined && sessionId !== '') headers['mcp-session-id'] = sessionId;
  const { request, response } = await exchange(ctx, sessionPost(undefined, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers));
  if (response.status === 202 && response.text.trim() === '') return;
  if (response.status === 0 && ctx.signal.aborted) return;
  ctx.report('http.notification-not-202', {
    message: response.status === 202 ? 'The notifications/initialized POST was answered 202 with a body' : `The notifications/initialized POST ${statusText(response)} instead of 202 with no body`,
    evidence: exchangeEvidence(request, response),
  });
}

async function badAccept(ctx: CheckContext, shape: PostShape): Promise<void> {
  const { request, response } = await exchange(ctx, post(shape, `doctor-accept-${shape.era}`, { accept: 'text/html' }));
  await endMintedSession(ctx, response);
  if (response.status === 406 || (response.status === 0 && ctx.signal.aborted)) return;
  const what = isSuccess(response.status) ? 'served it' : response.status >= 500 ? 'failed with a server error' : `refused it with ${response.status}`;
  ctx.report('http.bad-accept-not-406', {
    message: `A POST of ${shape.name} with Accept: text/html (neither application/json nor text/event-stream) ${statusText(response)}: the server ${what} instead of answering 406`,
    evidence: exchangeEvidence(request, response),
  });
}

async function badContentType(ctx: CheckContext, shape: PostShape): Promise<void> {
  const { request, response } = await exchange(ctx, post(shape, `doctor-type-${shape.era}`, { 'content-type': 'text/plain' }));
  await endMintedSession(ctx, response);
  if (response.status === 415 || (response.status === 0 && ctx.signal.aborted)) return;
  const what = isSuccess(response.status) ? 'parsed it as JSON' : response.status >= 500 ? 'failed with a server error' : `refused it with ${response.status}`;
  ctx.report('http.bad-content-type-not-415', {
    message: `A POST of ${shape.name} with Content-Type: text/plain ${statusText(response)}: the server ${what} instead of answering 415`,
    evidence: exchangeEvidence(request, response),
  });
}

async function charset(ctx: CheckContext, shape: PostShape): Promise<void> {
  const id = `doctor-charset-${shape.era}`;
  const { request, response } = await exchange(ctx, post(shape, id, { 'content-type': 'application/json; charset=utf-8' }));
  await endMintedSession(ctx, response);
  if ((isSuccess(response.status) && answersId(response, id)) || (response.status === 0 && ctx.signal.aborted)) return;
  ctx.report('http.json-charset-refused', {
    message: `A POST of ${shape.name} with Content-Type: application/json; charset=utf-8 ${statusText(response)}, though the same POST with Content-Type: application/json is served`,
    evidence: exchangeEvidence(request, response),
  });
}

async function run(ctx: CheckContext): Promise<void> {
  for (const shape of shapes(ctx)) {
    if (ctx.signal.aborted) return;
    ctx.progress(`${shape.name} with the right and the wrong media types`);
    if (!(await wellFormed(ctx, shape))) continue;
    await charset(ctx, shape);
    await badAccept(ctx, shape);
    await badContentType(ctx, shape);
  }
}

export const MEDIA_TYPES_CHECK: Check = {
  id: 'http.media-types',
  title: 'HTTP media types (Accept, Content-Type)',
  area: 'http',
  transports: ['http'],
  requirements: [
    'http.valid-post-refused',
    'http.answer-not-json-or-sse',
    'http.notification-not-202',
    'http.json-charset-refused',
    'http.bad-accept-not-406',
    'http.bad-content-type-not-415',
  ],
  run,
};
