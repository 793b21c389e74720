/**
 * The `auth` option of the MCP HTTP handler (the resource-server side of MCP authorization): the token verifier
 * contract, the options and their defaults, and the validation that refuses what cannot mean anything before the
 * handler serves a request.
 *
 * @see MCP 2026-07-28 basic/authorization/index.mdx; MCP 2025-11-25 basic/authorization.mdx
 */
import { shownValue } from '@switchboard/jsonrpc/internal';
import type { AuthInfo } from '../../../../protocol/auth/authInfo.js';
import type { DpopOptions } from './dpop.js';

/** A verifier's refusal of a token: the token is not valid here (answered 401 `invalid_token`). */
export interface TokenRefusal {
  /** Why, for the developer (sent as `error_description`; never include the token or a secret). */
  readonly refused: string;
}

/** What a {@link TokenVerifier} is told about the request the token came with. */
export interface TokenVerifyRequest {
  /** The canonical URI of this resource (RFC 8707 §2): the audience the token must have been issued for. */
  readonly resource: string;
  /** Every audience the handler accepts: `resource`, then {@link HttpAuthOptions.allowedAudiences}. */
  readonly audiences: readonly string[];
  /** The HTTP method, upper case. */
  readonly method: string;
  /** The request's URL as the client addressed it (scheme, `Host`, path; no query), e.g. for a DPoP proof's `htu`. */
  readonly url: string;
  /** A request header by lower-case name (e.g. `dpop`). */
  header(name: string): string | undefined;
}

/**
 * Verifies one access token. Built-ins: `jwtVerifier` (a JWT against the authorization server's JWKS) and
 * `introspectionVerifier` (RFC 7662). A custom verifier resolves the token's {@link AuthInfo} — its `audience`
 * must name this resource (`request.resource`) or an allowed audience, which the handler checks after it — or a
 * {@link TokenRefusal}. It rejects (throws) only when it cannot tell (its authorization server is unreachable):
 * that is answered 503, not 401, so the client keeps a good token.
 */
export interface TokenVerifier {
  verify(token: string, request: TokenVerifyRequest): Promise<AuthInfo | TokenRefusal> | AuthInfo | TokenRefusal;
}

/** Default {@link HttpAuthOptions.clockToleranceSeconds}. */
export const DEFAULT_AUTH_CLOCK_TOLERANCE_SECONDS = 30;
/** Default {@link HttpAuthOptions.retryAfterSeconds}. */
export const DEFAULT_AUTH_RETRY_AFTER_SECONDS = 5;

/**
 * The HTTP handler as an OAuth 2.1 resource server (MCP authorization): every request to its endpoints must carry
 * `Authorization: Bearer <token>` that {@link HttpAuthOptions.verifier} accepts for this resource; the protected
 * resource metadata (RFC 9728) is served at both well-known forms; tools declaring `scopes` are refused before
 * dispatch to a caller lacking them (403 `insufficient_scope`).
 * @see MCP 2026-07-28 basic/authorization/index.mdx "Token Handling", "Error Handling"
 */
export interface HttpAuthOptions {
  /** Verifies the bearer token of each request (see {@link TokenVerifier}). */
  readonly verifier: TokenVerifier;
  /**
   * The issuer identifiers of the authorization servers clients get tokens from, listed in the protected resource
   * metadata (`authorization_servers`; MCP: "MUST include … at least one").
   */
  readonly authorizationServers: readonly string[];
  /**
   * The canonical URI of this MCP server (RFC 8707 §2), e.g. `https://mcp.example.com/mcp`: the metadata's
   * `resource` and the audience tokens must have. Set it in production (behind a proxy, the URL clients use).
   * Without it the handler must validate `Host` (`dnsRebindingProtection` on: `allowedHosts`, else the loopback
   * names), else creating the handler throws a TypeError: an audience taken from an unvalidated `Host` is the
   * client's choice (RFC 8707 §2).
   * @default derived from each request: `<scheme>://<Host><path>` (the scheme after `trustProxy`), Host validated
   */
  readonly resource?: string;
  /**
   * Audiences accepted besides the canonical resource URI, for clients that send no RFC 8707 `resource` (their
   * tokens' `aud` is then whatever the authorization server puts there, often the client id). Each is an explicit
   * exception to the MCP rule that a token was "issued specifically for" this server; keep the list short. An
   * OpenID Connect ID token carries the client id as its `aud` too: `jwtVerifier` lets a token in through this list
   * only when its `typ` is `at+jwt` (RFC 9068 §2.1; RFC 8725 §3.11), so an ID token is refused; a verifier of your
   * own must tell access tokens apart itself.
   * @default [] (strict: only tokens for this resource)
   */
  readonly allowedAudiences?: readonly string[];
  /** `scopes_supported` of the metadata (the minimal set for basic use; MCP: never `offline_access`). @default omitted */
  readonly scopesSupported?: readonly string[];
  /**
   * Scopes every request needs; a token without them is refused 403 `insufficient_scope`. They are also the
   * `scope` of a 401 challenge (else `scopesSupported`).
   * @default [] (none)
   */
  readonly requiredScopes?: readonly string[];
  /**
   * Broader scopes and the narrower ones each implies (followed transitively), e.g. `{ 'files:admin':
   * ['files:read', 'files:write'] }`: a token granting the broader scope passes a check for a narrower one (MCP
   * 2026-07-28 "Step-Up Authorization Flow": servers "MUST account for scope hierarchies"). `AuthInfo.scopes` holds
   * the expanded set.
   * @default {}
   */
  readonly scopeHierarchy?: Readonly<Record<string, readonly string[]>>;
  /**
   * More fields of the protected resource metadata (RFC 9728 §2: `resource_name`, `resource_documentation`,
   * `resource_policy_uri`, …); `resource` and `authorization_servers` always come from the options above.
   * @default none
   */
  readonly metadata?: Readonly<Record<string, unknown>>;
  /**
   * Leeway, in seconds, when the handler compares a token's `expiresAt` with its clock (the built-in verifiers
   * take their own).
   * @default 30
   */
  readonly clockToleranceSeconds?: number;
  /** The `Retry-After` (seconds) of the 503 sent when the verifier could not tell (it threw). @default 5 */
  readonly retryAfterSeconds?: number;
  /**
   * Accept DPoP-bound tokens (RFC 9449): `Authorization: DPoP <token>` with a `DPoP` proof of possession of the key
   * the token is bound to (`cnf.jkt`), each proof used once. See {@link DpopOptions}.
   * @default none: a DPoP-bound token is refused (401), as one presented as a bearer token always is (RFC 9449 §7.2)
   */
  readonly dpop?: DpopOptions;
}

function checkStrings(name: string, value: unknown, rule: { readonly nonEmpty?: boolean; readonly scope?: boolean } = {}): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && v.length > 0)) {
    throw new TypeError(`Invalid option auth.${name}: expected an array of non-empty strings, got ${shownValue(value)}`);
  }
  if (rule.nonEmpty === true && value.length === 0) throw new TypeError(`Invalid option auth.${name}: list at least one`);
  if (rule.scope === true) {
    const bad = (value as string[]).find((v) => !/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(v));
    if (bad !== undefined) throw new TypeError(`Invalid option auth.${name}: ${shownValue(bad)} is not an OAuth scope token (RFC 6749 section 3.3)`);
  }
}

/** Whether `value` is an absolute http(s) URL without fragment. */
function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hash === '' && value.indexOf('#') === -1;
  } catch {
    return false;
  }
}

/**
 * Checks the `auth` option.
 * @throws TypeError naming the field: no `verifier.verify` function; `authorizationServers` empty or not http(s)
 *   URLs; `resource` not an absolute http(s) URL or with a fragment or query (RFC 8707 §2); a scope list that is not
 *   scope tokens; `scopeHierarchy` not an object of scope lists; `metadata` not an object
 * @throws RangeError when `clockToleranceSeconds` or `retryAfterSeconds` is negative or not finite
 */
export function validateAuthOptions(auth: HttpAuthOptions): void {
  if (typeof auth !== 'object' || auth === null) throw new TypeError(`Invalid option auth: expected an object, got ${shownValue(auth)}`);
  if (typeof (auth.verifier as Partial<TokenVerifier> | undefined)?.verify !== 'function') {
    throw new TypeError('Invalid option auth.verifier: expected an object with a verify(token, request) method (jwtVerifier(), introspectionVerifier() or your own)');
  }
  checkStrings('authorizationServers', auth.authorizationServers, { nonEmpty: true });
  const notUrl = auth.authorizationServers.find((s) => !isHttpUrl(s));
  if (notUrl !== undefined) throw new TypeError(`Invalid option auth.authorizationServers: ${shownValue(notUrl)} is not an http(s) issuer URL`);
  if (auth.resource !== undefined) {
    if (typeof auth.resource !== 'string' || !isHttpUrl(auth.resource) || new URL(auth.resource).search !== '') {
      throw new TypeError(`Invalid option auth.resource: expected the absolute http(s) URL of this MCP server, without query or fragment (RFC 8707 section 2), got ${shownValue(auth.resource)}`);
    }
  }
  checkStrings('allowedAudiences', auth.allowedAudiences);
  checkStrings('scopesSupported', auth.scopesSupported, { scope: true });
  checkStrings('requiredScopes', auth.requiredScopes, { scope: true });
  const hierarchy = auth.scopeHierarchy;
  if (hierarchy !== undefined) {
    if (typeof hierarchy !== 'object' || hierarchy === null || Array.isArray(hierarchy)) throw new TypeError(`Invalid option auth.scopeHierarchy: expected an object of scope lists, got ${shownValue(hierarchy)}`);
    for (const [scope, implied] of Object.entries(hierarchy)) checkStrings(`scopeHierarchy[${JSON.stringify(scope)}]`, implied, { scope: true });
  }
  if (auth.metadata !== undefined && (typeof auth.metadata !== 'object' || auth.metadata === null || Array.isArray(auth.metadata))) {
    throw new TypeError(`Invalid option auth.metadata: expected an object of metadata fields, got ${shownValue(auth.metadata)}`);
  }
  const dpop = auth.dpop;
  if (dpop !== undefined) {
    if (typeof dpop !== 'object' || dpop === null) throw new TypeError(`Invalid option auth.dpop: expected an object, got ${shownValue(dpop)}`);
    checkStrings('dpop.algorithms', dpop.algorithms, { nonEmpty: true });
    if (dpop.replayStore !== undefined && typeof (dpop.replayStore as { claim?: unknown }).claim !== 'function') throw new TypeError('Invalid option auth.dpop.replayStore: expected a RequestStateStore (claim(id, expiresAt))');
    const age = dpop.maxProofAgeSeconds;
    if (age !== undefined && (typeof age !== 'number' || !Number.isFinite(age) || age <= 0)) throw new RangeError(`Invalid option auth.dpop.maxProofAgeSeconds: expected a positive number of seconds, got ${shownValue(age)}`);
  }
  for (const name of ['clockToleranceSeconds', 'retryAfterSeconds'] as const) {
    const value = auth[name];
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || value < 0)) {
      throw new RangeError(`Invalid option auth.${name}: expected a number of seconds of 0 or more, got ${shownValue(value)}`);
    }
  }
}
