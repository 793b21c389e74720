/**
 * `jwtVerifier`: access tokens that are JWTs (RFC 9068 profile, or any signed JWT an authorization server issues),
 * verified with `jose` against the authorization server's JSON Web Key Set: the signature with a key of the set
 * (asymmetric algorithms only), `iss`, `exp` and `nbf` with a clock tolerance. The remote set is fetched on first use,
 * kept `jwksCacheMaxAgeMs`, and fetched again when a token names a `kid` the set lacks (the authorization server
 * rotated its keys), at most once per `jwksCooldownMs`. `jose` is loaded on the first verification, so a server
 * without this verifier never loads it. The audience is checked by the handler for every verifier alike (RFC 8707;
 * `resourceServer.ts`).
 *
 * @see MCP 2026-07-28 basic/authorization/index.mdx "Token Handling" (validate per OAuth 2.1 §5.2); RFC 9068 §4
 *   (validating JWT access tokens); RFC 7517 (JWK Set)
 */
import { checkMsOption, shownValue } from '@switchboard/jsonrpc/internal';
import type * as Jose from 'jose';
import { scopeTokens, type AuthInfo } from '../../../../protocol/auth/authInfo.js';
import type { TokenRefusal, TokenVerifier, TokenVerifyRequest } from './authOptions.js';
import { audienceAccepted } from './protectedResource.js';
import { DEFAULT_TOKEN_CACHE_MAX_ENTRIES, TokenCache, checkCacheLimits } from './tokenCache.js';
import { discoverJwksUri } from './issuerMetadata.js';
import { loadJose } from './joseLoader.js';

/** Default {@link JwtVerifierOptions.algorithms}: the asymmetric JWS algorithms (never `none`, never HMAC). */
export const DEFAULT_JWT_ALGORITHMS: readonly string[] = Object.freeze(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519']);
/** Default {@link JwtVerifierOptions.clockToleranceSeconds}. */
export const DEFAULT_JWT_CLOCK_TOLERANCE_SECONDS = 30;
/** Default {@link JwtVerifierOptions.jwksCacheMaxAgeMs}: 10 minutes. */
export const DEFAULT_JWKS_CACHE_MAX_AGE_MS = 600_000;
/** Default {@link JwtVerifierOptions.jwksCooldownMs}. */
export const DEFAULT_JWKS_COOLDOWN_MS = 30_000;
/** Default {@link JwtVerifierOptions.jwksTimeoutMs}. */
export const DEFAULT_JWKS_TIMEOUT_MS = 5000;
/** Default {@link JwtVerifierOptions.cacheMaxAgeMs} (and the introspection verifier's): 1 minute. */
export const DEFAULT_TOKEN_CACHE_MAX_AGE_MS = 60_000;

/** Options of {@link jwtVerifier}. */
export interface JwtVerifierOptions {
  /** The issuer identifier(s) a token's `iss` must equal (OAuth 2.1 §5.2; RFC 9068 §4 step 3). */
  readonly issuer: string | readonly string[];
  /**
   * The URL of the authorization server's JWK Set (its metadata's `jwks_uri`). At most one of `jwksUrl` and `jwks`.
   * @default read from the issuer's metadata (RFC 8414, else OpenID Connect Discovery) on first use; needs one `issuer`
   */
  readonly jwksUrl?: string | URL;
  /**
   * A JWK Set held locally (public keys, RFC 7517 §5: `{ keys: [{ kty, kid, n, e, … }] }`), instead of `jwksUrl`.
   * Typed here without `jose`'s types, so that the declarations need no optional peer dependency installed.
   */
  readonly jwks?: { readonly keys: readonly Readonly<Record<string, unknown>>[] };
  /** The JWS algorithms accepted. @default {@link DEFAULT_JWT_ALGORITHMS} */
  readonly algorithms?: readonly string[];
  /** Leeway, in seconds, for `exp` and `nbf` (clock skew between the two servers). @default 30 */
  readonly clockToleranceSeconds?: number;
  /**
   * The `typ` header every token must have (RFC 9068 §4: `at+jwt`); many servers issue plain `JWT`. Whatever this
   * says, a token whose audience is not this resource (let in by the handler's `allowedAudiences` only) must be
   * typed `at+jwt` (see {@link jwtVerifier}).
   * @default not checked for tokens issued for this resource
   */
  readonly typ?: string;
  /** How long a fetched key set is used before it is fetched again, in ms. @default 600_000 */
  readonly jwksCacheMaxAgeMs?: number;
  /** The least time, in ms, between two fetches caused by a `kid` the set lacks (a flood of unknown kids fetches once). @default 30_000 */
  readonly jwksCooldownMs?: number;
  /** How long a key set fetch may take, in ms; past it the request is answered 503. @default 5000 */
  readonly jwksTimeoutMs?: number;
  /** The `fetch` that reads `jwksUrl` (and the issuer's metadata). @default globalThis.fetch */
  readonly fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** Accepted tokens kept, so a repeated token is not verified again (least recently used first out; 0: none). @default 1000 */
  readonly cacheMaxEntries?: number;
  /** How long, in ms, an accepted token is kept at most (never past its `exp`; 0: not kept). @default 60_000 */
  readonly cacheMaxAgeMs?: number;
}

/** The audiences of an `aud` claim (a string or an array of strings). */
function audiencesOf(aud: unknown): string[] {
  if (typeof aud === 'string') return [aud];
  return Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
}

/** The client a JWT access token was issued to: `client_id` (RFC 9068 §2.2), else `azp`, `cid`, `sub`. */
function clientIdOf(payload: Jose.JWTPayload): string {
  for (const claim of ['client_id', 'azp', 'cid', 'sub']) {
    const value = payload[claim];
    if (typeof value === 'string' && value.length > 0) return value;
  }
  return '';
}

/** The {@link AuthInfo} of a verified JWT access token. */
export function authInfoOfClaims(token: string, payload: Readonly<Record<string, unknown>>): AuthInfo {
  const claims = payload as Jose.JWTPayload;
  const scopes = [...new Set([...scopeTokens(claims.scope), ...scopeTokens(claims.scp)])];
  const info: { -readonly [K in keyof AuthInfo]: AuthInfo[K] } = { token, clientId: clientIdOf(claims), scopes, audience: audiencesOf(claims.aud), claims: payload };
  if (typeof claims.exp === 'number') info.expiresAt = claims.exp;
  if (typeof claims.sub === 'string') info.subject = claims.sub;
  if (typeof claims.iss === 'string') info.issuer = claims.iss;
  return info;
}

/**
 * Whether a JWT's `typ` header says it is an access token: `at+jwt`, or `application/at+jwt` (RFC 9068 §2.1; media
 * types compare case-insensitively, RFC 7515 §4.1.9).
 */
function isAccessTokenTyp(typ: unknown): boolean {
  return typeof typ === 'string' && /^(?:application\/)?at\+jwt$/i.test(typ);
}

/** The jose error codes that mean "this token is not valid" (anything else means the key set could not be had). */
const TOKEN_FAULTS: Readonly<Record<string, string>> = {
  ERR_JWT_EXPIRED: 'the access token expired',
  ERR_JWT_CLAIM_VALIDATION_FAILED: 'a claim of the access token is not accepted',
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: 'the signature of the access token does not verify',
  ERR_JWS_INVALID: 'the access token is not a signed JWT',
  ERR_JWT_INVALID: 'the access token is not a valid JWT',
  ERR_JWKS_NO_MATCHING_KEY: 'no key of the authorization server matches the access token',
  ERR_JWKS_MULTIPLE_MATCHING_KEYS: 'several keys match the access token; it names no kid',
  ERR_JOSE_ALG_NOT_ALLOWED: 'the signing algorithm of the access token is not accepted',
  ERR_JOSE_NOT_SUPPORTED: 'the access token uses an unsupported algorithm or form',
};

function checkOptions(options: JwtVerifierOptions): void {
  if (typeof options !== 'object' || options === null) throw new TypeError('Invalid jwtVerifier options: expected an object');
  const issuers = typeof options.issuer === 'string' ? [options.issuer] : options.issuer;
  if (!Array.isArray(issuers) || issuers.length === 0 || !issuers.every((i) => typeof i === 'string' && i.length > 0)) {
    throw new TypeError('Invalid option jwtVerifier.issuer: expected the issuer identifier (a non-empty string) or a non-empty list of them');
  }
  if (options.jwksUrl !== undefined && options.jwks !== undefined) throw new TypeError('Invalid jwtVerifier options: give at most one of jwksUrl and jwks');
  if (options.jwksUrl === undefined && options.jwks === undefined && (typeof options.issuer !== 'string' || !/^https?:\/\//.test(options.issuer))) {
    throw new TypeError('Invalid jwtVerifier options: without jwksUrl or jwks the key set is found from one http(s) issuer; give jwksUrl');
  }
  if (options.jwksUrl !== undefined) {
    const url = new URL(options.jwksUrl);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`Invalid option jwtVerifier.jwksUrl: expected an http(s) URL, got ${url.protocol}`);
  }
  const tolerance = options.clockToleranceSeconds;
  if (tolerance !== undefined && (typeof tolerance !== 'number' || !Number.isFinite(tolerance) || tolerance < 0)) {
    throw new RangeError(`Invalid option jwtVerifier.clockToleranceSeconds: expected a number of seconds, 0 or more, got ${shownValue(tolerance)}`);
  }
  // The cache age and cooldown are compared with the clock (no timer holds them): any length; the fetch's timeout is a timer.
  for (const name of ['jwksCacheMaxAgeMs', 'jwksCooldownMs'] as const) checkMsOption(`jwtVerifier.${name}`, options[name], { max: Infinity });
  checkMsOption('jwtVerifier.jwksTimeoutMs', options.jwksTimeoutMs);
  checkCacheLimits('jwtVerifier', options);
}

/**
 * A {@link TokenVerifier} for JWT access tokens signed by the authorization server (see the module comment).
 * A token is refused (401 `invalid_token`) for a bad signature, an unknown key, a wrong `iss`, `exp` past (or `nbf`
 * ahead) beyond the tolerance, a missing `exp`, an algorithm not listed, a wrong `typ`; and a token whose audience is
 * not this resource (`request.resource`: it could only pass through the handler's `allowedAudiences`) unless its
 * `typ` is `at+jwt` — such an audience is often a client id, which an OpenID Connect ID token carries too, and only
 * the explicit type tells an access token from one (RFC 9068 §2.1; RFC 8725 §3.11 explicit typing). The verification
 * rejects (503) only when the key set cannot be fetched or read.
 * @throws TypeError when `issuer` is missing, both `jwksUrl` and `jwks` are given, neither is given with an issuer that
 *   is not one http(s) URL, or `jwksUrl` is not http(s)
 * @throws RangeError on a negative or non-finite duration (a `…Ms` one also above 2^31 − 1), or bad cache limits;
 *   TypeError for a `…Ms` option or a cache limit that is no number
 * @example
 * createMcpHttpHandler({ server, auth: {
 *   authorizationServers: ['https://auth.example.com'],
 *   resource: 'https://mcp.example.com/mcp',
 *   verifier: jwtVerifier({ issuer: 'https://auth.example.com', jwksUrl: 'https://auth.example.com/jwks' }),
 * } });
 */
export function jwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  checkOptions(options);
  const cache = new TokenCache({ maxEntries: options.cacheMaxEntries ?? DEFAULT_TOKEN_CACHE_MAX_ENTRIES, maxAgeMs: options.cacheMaxAgeMs ?? DEFAULT_TOKEN_CACHE_MAX_AGE_MS });
  const verifyOptions: Jose.JWTVerifyOptions = {
    issuer: typeof options.issuer === 'string' ? options.issuer : [...options.issuer],
    algorithms: [...(options.algorithms ?? DEFAULT_JWT_ALGORITHMS)],
    clockTolerance: options.clockToleranceSeconds ?? DEFAULT_JWT_CLOCK_TOLERANCE_SECONDS,
    requiredClaims: ['exp'],
    ...(options.typ === undefined ? {} : { typ: options.typ }),
  };
  /** The verified tokens whose `typ` is `at+jwt` (see {@link isAccessTokenTyp}). */
  const accessTyped = new WeakSet<AuthInfo>();
  // RFC 9068 §2.1: access tokens "MUST include this media type in the typ header parameter"; RFC 8725 §3.11: explicit
  // typing keeps one kind of JWT from being taken for another. A token bound to this resource (RFC 8707) cannot be
  // an ID token (whose `aud` is the client id, OpenID Connect Core §2), so its `typ` is checked only as `typ` asks;
  // one whose audience matched nothing but `allowedAudiences` must say it is an access token.
  const typedForAudience = (info: AuthInfo, request: TokenVerifyRequest | undefined): AuthInfo | TokenRefusal => {
    if (accessTyped.has(info) || request === undefined || audienceAccepted(info.audience, request.resource, [])) return info;
    return { refused: 'the access token is not for this resource and not typed at+jwt (RFC 9068 section 2.1): an ID token or another JWT is not an access token' };
  };
  let ready: Promise<{ readonly jose: typeof Jose; readonly keys: Jose.JWTVerifyGetKey }> | undefined;
  const load = async (): Promise<{ readonly jose: typeof Jose; readonly keys: Jose.JWTVerifyGetKey }> => {
    const jose = await loadJose('jwtVerifier');
    if (options.jwks !== undefined) return { jose, keys: jose.createLocalJWKSet(options.jwks as unknown as Jose.JSONWebKeySet) };
    const remote: Jose.RemoteJWKSetOptions = {
      cacheMaxAge: options.jwksCacheMaxAgeMs ?? DEFAULT_JWKS_CACHE_MAX_AGE_MS,
      cooldownDuration: options.jwksCooldownMs ?? DEFAULT_JWKS_COOLDOWN_MS,
      timeoutDuration: Math.round(options.jwksTimeoutMs ?? DEFAULT_JWKS_TIMEOUT_MS),
      ...(options.fetch === undefined ? {} : { [jose.customFetch]: options.fetch }),
    };
    const jwksUrl = options.jwksUrl ?? (await discoverJwksUri(options.issuer as string, { fetch: options.fetch ?? globalThis.fetch, timeoutMs: options.jwksTimeoutMs ?? DEFAULT_JWKS_TIMEOUT_MS }));
    return { jose, keys: jose.createRemoteJWKSet(new URL(jwksUrl), remote) };
  };
  return {
    async verify(token: string, request: TokenVerifyRequest): Promise<AuthInfo | TokenRefusal> {
      const kept = cache.get(token);
      if (kept !== undefined) return typedForAudience(kept, request);
      const { jose, keys } = await (ready ??= load().catch((error: unknown) => {
        ready = undefined;
        throw error;
      }));
      let payload: Jose.JWTPayload;
      let header: Jose.JWTHeaderParameters;
      try {
        ({ payload, protectedHeader: header } = await jose.jwtVerify(token, keys, verifyOptions));
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        const fault = typeof code === 'string' && Object.hasOwn(TOKEN_FAULTS, code) ? TOKEN_FAULTS[code] : undefined;
        if (fault === undefined) throw error;
        const claim = (error as { claim?: unknown }).claim;
        return { refused: code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' && typeof claim === 'string' ? `the ${claim} claim of the access token is not accepted` : fault };
      }
      const info = authInfoOfClaims(token, payload);
      if (isAccessTokenTyp(header.typ)) accessTyped.add(info);
      cache.set(token, info);
      return typedForAudience(info, request);
    },
  };
}
