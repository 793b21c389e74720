/**
 * The auth requirements of an HTTP server that asks for credentials (ids `http.auth-*`): its challenge, its
 * protected-resource metadata (RFC 9728), how it treats tokens it should refuse, and its authorization server's
 * metadata (RFC 8414 / OpenID Connect Discovery). The doctor finds them by probing without credentials; the
 * other-audience rule needs a token from the user (`--foreign-token`).
 */
import type { Requirement, SpecRef } from '../types.js';

/** The revisions whose authorization rules these are (2025-03-26 had no protected-resource metadata). */
const AUTH = ['2025-06-18', '2025-11-25', '2026-07-28'] as const;

function authorization(section: string): SpecRef {
  return { revision: '2025-11-25', page: 'basic/authorization.mdx', section };
}

/** The ids, for the checks. */
export const HTTP_AUTH = {
  noChallenge: 'http.auth-no-challenge',
  challengeNoMetadata: 'http.auth-challenge-no-resource-metadata',
  metadataMissing: 'http.auth-metadata-missing',
  metadataRootOnly: 'http.auth-metadata-root-only',
  wrongResource: 'http.auth-metadata-wrong-resource',
  noAuthorizationServers: 'http.auth-metadata-no-authorization-servers',
  tokenNotValidated: 'http.auth-token-not-validated',
  otherAudience: 'http.auth-other-audience-accepted',
  serverMetadataUnreachable: 'http.auth-server-metadata-unreachable',
  serverNoS256: 'http.auth-server-no-s256',
  serverRegistration: 'http.auth-server-registration',
} as const;

/** Every auth requirement of an HTTP server. */
export const HTTP_AUTH_REQUIREMENTS: readonly Requirement[] = [
  {
    id: HTTP_AUTH.noChallenge,
    area: 'http',
    title: 'A 401 carries no Bearer `WWW-Authenticate` challenge',
    rule: 'A 401 carries a Bearer `WWW-Authenticate` challenge',
    behaviour:
      'A request without credentials is answered 401 with `WWW-Authenticate: Bearer resource_metadata="…"`, which tells the client where to start signing in.',
    spec: authorization('Protected Resource Metadata Discovery Requirements'),
    source: 'RFC 9110 §11.6.1 (a 401 MUST carry `WWW-Authenticate`); RFC 6750 §3; RFC 9728 §5.1',
    revisions: AUTH,
    transports: ['http'],
    severity: 'error',
    causes: ['the auth middleware answers 401 itself with a JSON body only', 'a proxy strips the header', 'the challenge names another scheme (`Basic`)'],
    fix: 'Answer 401 with `WWW-Authenticate: Bearer resource_metadata="<the metadata URL>"` (a Switchboard server does with the `auth` option).',
    fixture: { file: 'http-auth-no-challenge', transport: 'http' },
  },
  {
    id: HTTP_AUTH.challengeNoMetadata,
    area: 'http',
    title: 'The 401 challenge has no `resource_metadata`',
    rule: 'The 401 challenge names the protected-resource metadata',
    behaviour:
      'The Bearer challenge carries `resource_metadata` with the URL of the protected-resource metadata; without it clients fall back to the well-known URLs (2025-06-18 made the parameter a MUST).',
    spec: authorization('Protected Resource Metadata Discovery Requirements'),
    source: 'RFC 9728 §5.1',
    revisions: AUTH,
    transports: ['http'],
    severity: 'warning',
    causes: ['the challenge is `Bearer` or `Bearer realm="…"` only'],
    fix: 'Add `resource_metadata="<origin>/.well-known/oauth-protected-resource<path>"` to the Bearer challenge.',
    fixture: { file: 'http-auth-challenge-no-resource-metadata', transport: 'http' },
  },
  {
    id: HTTP_AUTH.metadataMissing,
    area: 'http',
    title: 'No protected-resource metadata was found',
    rule: 'Protected-resource metadata is served',
    behaviour:
      'The protected-resource metadata (RFC 9728) is served at the challenge\'s `resource_metadata` URL or a well-known URL (path-inserted `/.well-known/oauth-protected-resource/<path>`, then root), as JSON naming the authorization servers.',
    spec: authorization('Protected Resource Metadata Discovery Requirements'),
    source: 'RFC 9728 §3',
    revisions: AUTH,
    transports: ['http'],
    severity: 'error',
    causes: ['the metadata route is not mounted (or only on another port)', 'the document is served as HTML or behind the same auth'],
    fix: 'Serve `{"resource": "<server URL>", "authorization_servers": ["<issuer>"]}` at `/.well-known/oauth-protected-resource<path>` without auth.',
    fixture: { file: 'http-auth-no-metadata', transport: 'http' },
  },
  {
    id: HTTP_AUTH.metadataRootOnly,
    area: 'http',
    title: 'Protected-resource metadata is served only at the root well-known URL',
    rule: 'Protected-resource metadata is served at the path-inserted well-known URL',
    behaviour:
      'For a server at `https://host/mcp` the metadata is at `https://host/.well-known/oauth-protected-resource/mcp` (the path inserted after the well-known suffix); clients try it before the root form, and servers sharing a host need it.',
    spec: authorization('Protected Resource Metadata Discovery Requirements'),
    source: 'RFC 9728 §3.1',
    revisions: AUTH,
    transports: ['http'],
    severity: 'warning',
    causes: ['the metadata route was written for a server at the root of its host'],
    fix: 'Serve the metadata at `/.well-known/oauth-protected-resource/<path of the MCP endpoint>` too, and name that URL in `resource_metadata`.',
    fixture: { file: 'http-auth-root-metadata-only', transport: 'http' },
  },
  {
    id: HTTP_AUTH.wrongResource,
    area: 'http',
    title: 'The protected-resource metadata names another `resource`',
    rule: 'The metadata\'s `resource` is the server\'s own URL',
    behaviour:
      'The metadata\'s `resource` is the URL the client reached (with its path, e.g. `https://host/mcp`); a client MUST refuse metadata whose `resource` is not the URL its well-known URL was built from.',
    spec: authorization('Protected Resource Metadata Discovery Requirements'),
    source: 'RFC 9728 §3.3',
    revisions: AUTH,
    transports: ['http'],
    severity: 'error',
    causes: ['`resource` is the origin (`https://host`) instead of the endpoint URL', 'the server is configured with its internal URL behind a proxy'],
    fix: 'Set `resource` to the public URL of the MCP endpoint, path included (the `auth.resource` option of a Switchboard server).',
    fixture: { file: 'http-auth-wrong-resource', transport: 'http' },
  },
  {
    id: HTTP_AUTH.noAuthorizationServers,
    area: 'http',
    title: 'The protected-resource metadata names no authorization server',
    rule: 'The metadata names at least one authorization server',
    behaviour: 'The metadata\'s `authorization_servers` lists at least one issuer URL, where the client signs in.',
    spec: authorization('Authorization Server Location'),
    source: 'RFC 9728 §2',
    revisions: AUTH,
    transports: ['http'],
    severity: 'error',
    causes: ['`authorization_servers` is left out or empty'],
    fix: 'List the issuer URL of your authorization server in `authorization_servers`.',
    fixture: { file: 'http-auth-no-authorization-servers', transport: 'http' },
  },
  {
    id: HTTP_AUTH.tokenNotValidated,
    area: 'http',
    title: 'A garbage bearer token was accepted',
    rule: 'An invalid token is refused with 401',
    behaviour: 'A request carrying `Authorization: Bearer garbage` is answered 401 with a Bearer challenge (`error="invalid_token"`); it is never served.',
    spec: authorization('Token Handling'),
    source: 'OAuth 2.1 §5.2; RFC 6750 §3.1',
    revisions: AUTH,
    transports: ['http'],
    severity: 'error',
    causes: ['the middleware checks that a token is present, not that it is valid', 'a verifier that decodes a JWT without checking its signature'],
    fix: 'Validate every token (signature, issuer, expiry, audience) before serving; answer 401 `invalid_token` otherwise.',
    fixture: { file: 'http-auth-garbage-token-accepted', transport: 'http' },
  },
  {
    id: HTTP_AUTH.otherAudience,
    area: 'http',
    title: 'A token issued for another resource was accepted',
    rule: 'Tokens for another audience are refused',
    behaviour: 'A token whose audience is not this server (RFC 8707) is answered 401; a server MUST only accept tokens issued for itself.',
    spec: authorization('Token Audience Binding and Validation'),
    source: 'RFC 8707 §2; RFC 9068 §4',
    revisions: AUTH,
    transports: ['http'],
    severity: 'error',
    causes: ['the verifier checks signature and expiry but not `aud`', 'an audience allow-list that is too broad'],
    fix: 'Refuse tokens whose `aud` does not name this server\'s resource URL (Switchboard\'s resource server does unless `allowedAudiences` says otherwise).',
  },
  {
    id: HTTP_AUTH.serverMetadataUnreachable,
    area: 'http',
    title: 'The authorization server\'s metadata was not found',
    rule: 'The authorization server serves its metadata',
    behaviour:
      'The issuer named in `authorization_servers` serves OAuth authorization-server metadata (RFC 8414) or OpenID Connect discovery at one of the URLs MCP clients try, with `issuer` equal to the issuer URL.',
    spec: authorization('Authorization Server Metadata Discovery'),
    source: 'RFC 8414 §3; OpenID Connect Discovery 1.0 §4',
    revisions: AUTH,
    transports: ['http'],
    severity: 'error',
    causes: ['`authorization_servers` names a URL that is not the issuer (a login page, the token endpoint)', 'the issuer has a path and its metadata is served only at another well-known form'],
    fix: 'Name the exact issuer in `authorization_servers`, and serve its metadata at `/.well-known/oauth-authorization-server<issuer path>` or `/.well-known/openid-configuration<issuer path>`.',
    fixture: { file: 'http-auth-server-metadata-missing', transport: 'http' },
  },
  {
    id: HTTP_AUTH.serverNoS256,
    area: 'http',
    title: 'The authorization server does not advertise PKCE S256',
    rule: 'The authorization server advertises PKCE S256',
    behaviour: 'The authorization server\'s metadata lists `S256` in `code_challenge_methods_supported`; MCP clients MUST refuse to sign in otherwise.',
    spec: authorization('Authorization Code Protection'),
    source: 'RFC 8414 §2; RFC 7636',
    revisions: AUTH,
    transports: ['http'],
    severity: 'error',
    causes: ['the field is left out even though PKCE works', 'only `plain` is listed'],
    fix: 'Support PKCE S256 and list it: `"code_challenge_methods_supported": ["S256"]`.',
    fixture: { file: 'http-auth-server-no-s256', transport: 'http' },
  },
  {
    id: HTTP_AUTH.serverRegistration,
    area: 'http',
    title: 'How clients can register with the authorization server',
    rule: 'Client registration the authorization server offers',
    behaviour:
      'What the authorization server\'s metadata offers clients that are not pre-registered: Client ID Metadata Documents (`client_id_metadata_document_supported`, preferred) and dynamic registration (`registration_endpoint`, deprecated in 2026-07-28). With neither, every client must be pre-registered.',
    spec: authorization('Client Registration Approaches'),
    revisions: AUTH,
    transports: ['http'],
    severity: 'info',
    causes: ['how the authorization server is set up'],
    fix: 'Nothing to fix; to let any MCP client sign in, turn on Client ID Metadata Documents (or dynamic registration).',
  },
];
