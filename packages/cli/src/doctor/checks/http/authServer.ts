/**
 * The authorization server check: the issuer the protected-resource metadata names (the first) serves its metadata
 * at one of the URLs MCP clients try (RFC 8414 §3, OpenID Connect Discovery, MCP 2025-11-25 "Authorization Server
 * Metadata Discovery" order) with the same `issuer`, lists PKCE `S256`, and offers which client registration (CIMD,
 * DCR: information). Another host is reached only as `refusedHost` allows.
 */
import { HTTP_AUTH } from '../../requirements/httpAuth.js';
import type { Check, CheckContext } from '../../types.js';
import { authorizationServerMetadataUrls, getJsonObject, refusedHost } from './authProbe.js';

async function run(ctx: CheckContext): Promise<void> {
  if (ctx.target.transport !== 'http') return;
  const issuer = ctx.facts.auth?.authorizationServers[0];
  if (ctx.facts.auth === undefined) return ctx.skip('the server asks for no credentials (a request without any was not answered 401)');
  if (issuer === undefined) return ctx.skip('no authorization server is named');
  const refused = refusedHost(ctx.target.url, issuer);
  if (refused !== undefined) return ctx.skip(`the authorization server was not probed: ${refused}`);
  const tried: string[] = [];
  let doc: Record<string, unknown> | undefined;
  let from = '';
  for (const url of authorizationServerMetadataUrls(issuer)) {
    if (ctx.signal.aborted) return;
    const got = await getJsonObject(ctx, url);
    if (got.doc !== undefined && got.doc.issuer !== issuer) {
      tried.push(`GET ${url} → 200, issuer ${JSON.stringify(got.doc.issuer)} (not ${JSON.stringify(issuer)})`);
      continue;
    }
    tried.push(`GET ${url} → ${got.seen}`);
    if (got.doc !== undefined) {
      [doc, from] = [got.doc, url];
      break;
    }
  }
  if (doc === undefined) {
    ctx.report(HTTP_AUTH.serverMetadataUnreachable, { message: `No metadata of the authorization server ${issuer} was found at the URLs MCP clients try`, evidence: tried });
    return;
  }
  const methods = doc.code_challenge_methods_supported;
  if (!Array.isArray(methods) || !methods.includes('S256')) {
    ctx.report(HTTP_AUTH.serverNoS256, { message: `The metadata of ${issuer} ${Array.isArray(methods) ? `lists ${JSON.stringify(methods)} in` : 'has no'} \`code_challenge_methods_supported\`, without S256`, evidence: [`GET ${from} → ${JSON.stringify({ code_challenge_methods_supported: methods ?? null })}`] });
  }
  const cimd = doc.client_id_metadata_document_supported === true;
  const dcr = typeof doc.registration_endpoint === 'string';
  const offers = [cimd ? 'Client ID Metadata Documents' : undefined, dcr ? `dynamic registration at ${String(doc.registration_endpoint)}` : undefined].filter((s) => s !== undefined);
  ctx.report(HTTP_AUTH.serverRegistration, {
    message: offers.length === 0 ? `${issuer} offers neither Client ID Metadata Documents nor dynamic registration: clients must be pre-registered` : `${issuer} offers ${offers.join(' and ')}`,
    evidence: [`GET ${from} → ${JSON.stringify({ client_id_metadata_document_supported: doc.client_id_metadata_document_supported ?? null, registration_endpoint: doc.registration_endpoint ?? null })}`],
  });
}

/** The authorization server check. */
export const AUTH_SERVER_CHECK: Check = {
  id: 'http.auth-server',
  title: 'auth: the authorization server\'s metadata',
  area: 'http',
  transports: ['http'],
  requirements: [HTTP_AUTH.serverMetadataUnreachable, HTTP_AUTH.serverNoS256, HTTP_AUTH.serverRegistration],
  needsConnection: false,
  run,
};
