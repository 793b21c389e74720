/**
 * The auth checks of an HTTP server that asks for credentials, probed without any: the 401 and its Bearer challenge
 * (RFC 9728 §5.1), the protected-resource metadata at the challenge's URL and at both well-known forms (RFC 9728
 * §3.1, §3.3), a garbage bearer (it must be refused), and — with `--foreign-token` — a token issued for another
 * resource (RFC 8707). A server that answers without credentials is not protected: the checks skip.
 */
import { HTTP_AUTH } from '../../requirements/httpAuth.js';
import type { Check, CheckContext, HttpProbeResponse } from '../../types.js';
import { AUTH_INITIALIZE, AUTH_PING, bearerChallenge, canonicalResource, getJsonObject, postMessage, postPing, protectedResourceMetadataUrls, refusedHost } from './authProbe.js';

const NOT_PROTECTED = 'the server asks for no credentials (a request without any was not answered 401)';

function line(response: HttpProbeResponse): string {
  const challenge = response.headers['www-authenticate'];
  return `← ${response.status === 0 ? `no answer: ${response.error ?? ''}` : response.status}${challenge === undefined ? '' : `, WWW-Authenticate: ${challenge}`}`;
}

/** Whether an answer served a request a bad token should have been refused for (2xx); 401/403 refused it. */
async function served(ctx: CheckContext, authorization: string): Promise<{ readonly accepted: boolean; readonly evidence: string[] }> {
  const url = ctx.target.transport === 'http' ? ctx.target.url : '';
  const shown = `Authorization: ${authorization.length > 27 ? `${authorization.slice(0, 24)}…` : authorization}`;
  let response = await postPing(ctx, authorization);
  const evidence = [`POST ${url} with ${shown}`, `→ ${JSON.stringify(AUTH_PING)}`, line(response)];
  // A session server refuses a ping outside a session (400) after taking the token: an `initialize` then shows
  // whether the token would have been served.
  if (response.status >= 400 && response.status < 500 && response.status !== 401 && response.status !== 403 && !ctx.signal.aborted) {
    response = await postMessage(ctx, AUTH_INITIALIZE, authorization);
    evidence.push(`POST ${url} with ${shown}`, `→ ${JSON.stringify(AUTH_INITIALIZE)}`, line(response));
  }
  return { accepted: response.status >= 200 && response.status < 300, evidence };
}

/** The metadata: which URL served it, and what each tried URL answered. */
async function discoverMetadata(ctx: CheckContext, targetUrl: string, fromChallenge: string | undefined): Promise<void> {
  const urls = protectedResourceMetadataUrls(targetUrl);
  const tried: string[] = [];
  const get = async (url: string): Promise<Record<string, unknown> | undefined> => {
    const { doc, seen } = await getJsonObject(ctx, url);
    tried.push(`GET ${url} → ${seen}`);
    return doc;
  };
  let doc: Record<string, unknown> | undefined;
  let from: string | undefined;
  if (fromChallenge !== undefined) {
    const refused = refusedHost(targetUrl, fromChallenge);
    if (refused === undefined) [doc, from] = [await get(fromChallenge), fromChallenge];
    else tried.push(`not fetched: ${fromChallenge} (${refused})`);
  }
  const pathDoc = urls.pathInserted === undefined || urls.pathInserted === fromChallenge ? undefined : await get(urls.pathInserted);
  const pathServed = urls.pathInserted === undefined || (urls.pathInserted === fromChallenge ? doc !== undefined : pathDoc !== undefined);
  if (doc === undefined && pathDoc !== undefined) [doc, from] = [pathDoc, urls.pathInserted];
  if (ctx.signal.aborted) return;
  let rootDoc: Record<string, unknown> | undefined;
  if (!pathServed || doc === undefined) rootDoc = urls.root === fromChallenge ? doc : await get(urls.root);
  if (doc === undefined && rootDoc !== undefined) [doc, from] = [rootDoc, urls.root];
  if (ctx.signal.aborted) return;
  if (doc === undefined) {
    ctx.report(HTTP_AUTH.metadataMissing, { message: 'No protected-resource metadata: neither the challenge\'s URL nor a well-known URL served a JSON document', evidence: tried });
    ctx.facts.auth = { authorizationServers: [] };
    return;
  }
  if (!pathServed && rootDoc !== undefined) {
    ctx.report(HTTP_AUTH.metadataRootOnly, { message: `The metadata is served at ${urls.root} but not at ${urls.pathInserted ?? ''}`, evidence: tried });
  }
  const resource = doc.resource;
  const expected = canonicalResource(targetUrl);
  if (typeof resource !== 'string' || canonicalResourceOrSelf(resource) !== expected) {
    ctx.report(HTTP_AUTH.wrongResource, { message: `The metadata at ${from ?? ''} names resource ${JSON.stringify(resource)}, not ${JSON.stringify(expected)}`, evidence: [`GET ${from ?? ''} → ${JSON.stringify({ resource })}`] });
  }
  const servers = Array.isArray(doc.authorization_servers) ? doc.authorization_servers.filter((s): s is string => typeof s === 'string' && s !== '') : [];
  if (servers.length === 0) {
    ctx.report(HTTP_AUTH.noAuthorizationServers, { message: `The metadata at ${from ?? ''} lists no authorization server`, evidence: [`GET ${from ?? ''} → ${JSON.stringify({ authorization_servers: doc.authorization_servers ?? null })}`] });
  }
  ctx.facts.auth = { authorizationServers: servers };
}

function canonicalResourceOrSelf(resource: string): string {
  try {
    return canonicalResource(resource);
  } catch {
    return resource;
  }
}

async function run(ctx: CheckContext): Promise<void> {
  if (ctx.target.transport !== 'http') return;
  const targetUrl = ctx.target.url;
  const bare = await postPing(ctx);
  if (bare.status !== 401) return ctx.skip(bare.status === 0 ? 'the server did not answer' : NOT_PROTECTED);
  const evidence = [`POST ${targetUrl} without credentials`, `→ ${JSON.stringify(AUTH_PING)}`, line(bare)];
  const challenge = bearerChallenge(bare.headers['www-authenticate']);
  if (challenge === undefined) {
    ctx.report(HTTP_AUTH.noChallenge, { message: bare.headers['www-authenticate'] === undefined ? 'A request without credentials was answered 401 with no `WWW-Authenticate` header' : 'The 401 challenges with another scheme than Bearer', evidence });
  } else if (challenge.resource_metadata === undefined) {
    ctx.report(HTTP_AUTH.challengeNoMetadata, { message: 'The Bearer challenge of the 401 has no `resource_metadata` parameter', evidence });
  }
  await discoverMetadata(ctx, targetUrl, challenge?.resource_metadata);
  if (ctx.signal.aborted) return;
  const garbage = await served(ctx, 'Bearer garbage');
  if (garbage.accepted) ctx.report(HTTP_AUTH.tokenNotValidated, { message: 'A request carrying `Authorization: Bearer garbage` was served', evidence: garbage.evidence });
}

async function runAudience(ctx: CheckContext): Promise<void> {
  if (ctx.target.transport !== 'http') return;
  if (ctx.facts.auth === undefined) return ctx.skip(NOT_PROTECTED);
  if (ctx.foreignToken === undefined) return ctx.skip('needs an access token issued for another resource: give one with --foreign-token (or SWITCHBOARD_DOCTOR_FOREIGN_TOKEN)');
  const answer = await served(ctx, `Bearer ${ctx.foreignToken}`);
  if (answer.accepted) ctx.report(HTTP_AUTH.otherAudience, { message: 'A request carrying the token for another resource (--foreign-token) was served', evidence: answer.evidence });
}

/** The challenge, metadata and garbage-token check. */
export const AUTH_CHECK: Check = {
  id: 'http.auth',
  title: 'auth: challenge, protected-resource metadata, token validation',
  area: 'http',
  transports: ['http'],
  requirements: [HTTP_AUTH.noChallenge, HTTP_AUTH.challengeNoMetadata, HTTP_AUTH.metadataMissing, HTTP_AUTH.metadataRootOnly, HTTP_AUTH.wrongResource, HTTP_AUTH.noAuthorizationServers, HTTP_AUTH.tokenNotValidated],
  needsConnection: false,
  run,
};

/** The other-audience check (only with `--foreign-token`). */
export const AUTH_AUDIENCE_CHECK: Check = {
  id: 'http.auth-audience',
  title: 'auth: a token for another resource',
  area: 'http',
  transports: ['http'],
  requirements: [HTTP_AUTH.otherAudience],
  needsConnection: false,
  run: runAudience,
};
