/**
 * `introspectionVerifier`: opaque access tokens (or any token) checked by asking the authorization server (OAuth 2.0
 * Token Introspection, RFC 7662): `POST token=…&token_type_hint=access_token` to its introspection endpoint,
 * authenticated as this resource server (RFC 7662 §2.1: the endpoint "MUST also require some form of
 * authorization"), and an answer whose `active` is `true`. An active answer is kept until the token's `exp` or
 * `cacheMaxAgeMs`, whichever is first (RFC 7662 §4: a cache "MUST NOT" be used past the token's expiry); the
 * audience (`aud`) is checked by the handler like every verifier's.
 *
 * @see RFC 7662 §2 (request and response); MCP 2026-07-28 basic/authorization/index.mdx "Token Handling"
 */
import { checkCountOption, checkMsOption } from '@switchboard/jsonrpc/internal';
import { readBoundedText } from '../../boundedBody.js';
import type { AuthInfo } from '../../../../protocol/auth/authInfo.js';
import type { TokenRefusal, TokenVerifier } from './authOptions.js';
import { DEFAULT_JWT_CLOCK_TOLERANCE_SECONDS, DEFAULT_TOKEN_CACHE_MAX_AGE_MS, authInfoOfClaims } from './jwtVerifier.js';
import { DEFAULT_TOKEN_CACHE_MAX_ENTRIES, TokenCache, checkCacheLimits } from './tokenCache.js';

/** Default {@link IntrospectionVerifierOptions.timeoutMs}. */
export const DEFAULT_INTROSPECTION_TIMEOUT_MS = 5000;
/** Default {@link IntrospectionVerifierOptions.maxResponseBytes}: 64 KiB. */
export const DEFAULT_INTROSPECTION_MAX_RESPONSE_BYTES = 64 * 1024;

/** Options of {@link introspectionVerifier}. */
export interface IntrospectionVerifierOptions {
  /** The authorization server's introspection endpoint (its metadata's `introspection_endpoint`). */
  readonly endpoint: string | URL;
  /** This resource server's client id at the authorization server (HTTP Basic, RFC 6749 §2.3.1), with `clientSecret`. */
  readonly clientId?: string;
  /** The secret of `clientId`. */
  readonly clientSecret?: string;
  /** Other headers for the introspection request (e.g. `authorization: Bearer <a token of this resource server>`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The issuer an answer's `iss` must equal, when the answer has one. @default not checked */
  readonly issuer?: string;
  /** Leeway, in seconds, for an answer's `nbf` (clock skew between the two servers), as `jwtVerifier`'s. @default 30 */
  readonly clockToleranceSeconds?: number;
  /** The `fetch` that calls the endpoint. @default globalThis.fetch */
  readonly fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** How long the endpoint may take to answer, in ms; past it the request is answered 503. @default 5000 */
  readonly timeoutMs?: number;
  /** The largest answer read, in bytes; a larger one is an error (503). @default 65536 */
  readonly maxResponseBytes?: number;
  /** Active answers kept (least recently used first out; 0: none). @default 1000 */
  readonly cacheMaxEntries?: number;
  /** How long, in ms, an active answer is kept at most (never past the token's `exp`; 0: not kept). @default 60_000 */
  readonly cacheMaxAgeMs?: number;
}

/** The body of `response`, read up to `maxBytes`. @throws Error when it is longer */
async function boundedText(response: Response, maxBytes: number): Promise<string> {
  const { text, complete } = await readBoundedText(response, maxBytes);
  if (!complete) throw new Error(`the introspection answer is larger than ${maxBytes} bytes`);
  return text;
}

/** base64 of a UTF-8 string, runtime-neutral. */
function base64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function checkOptions(options: IntrospectionVerifierOptions): void {
  if (typeof options !== 'object' || options === null) throw new TypeError('Invalid introspectionVerifier options: expected an object');
  const url = new URL(options.endpoint);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`Invalid option introspectionVerifier.endpoint: expected an http(s) URL, got ${url.protocol}`);
  if ((options.clientId === undefined) !== (options.clientSecret === undefined)) throw new TypeError('Invalid introspectionVerifier options: give clientId and clientSecret together');
  checkMsOption('introspectionVerifier.timeoutMs', options.timeoutMs, { above: 0 });
  checkCountOption('introspectionVerifier.maxResponseBytes', options.maxResponseBytes);
  const tolerance = options.clockToleranceSeconds;
  if (tolerance !== undefined && (typeof tolerance !== 'number' || !Number.isFinite(tolerance) || tolerance < 0)) {
    throw new RangeError(`Invalid option introspectionVerifier.clockToleranceSeconds: expected a number of 0 or more, got ${String(tolerance)}`);
  }
  checkCacheLimits('introspectionVerifier', options);
}

/**
 * A {@link TokenVerifier} that asks the authorization server about each token (RFC 7662; see the module comment).
 * An inactive token, an `iss` other than `issuer`, or an `nbf` ahead beyond `clockToleranceSeconds` is refused (401
 * `invalid_token`; the handler refuses an `exp` past beyond its clock tolerance); an endpoint
 * that fails, times out or answers other than 200 with a JSON object makes the verification reject (503).
 * @throws TypeError when `endpoint` is not an http(s) URL, or only one of `clientId` and `clientSecret` is given
 * @throws RangeError on a non-positive `timeoutMs` (or one above 2^31 − 1) or `maxResponseBytes` (or one not whole),
 *   a negative or non-finite `clockToleranceSeconds`, or bad cache limits; TypeError for a `timeoutMs`,
 *   `maxResponseBytes` or cache limit that is no number
 * @example
 * verifier: introspectionVerifier({ endpoint: 'https://auth.example.com/token/introspection', clientId: 'mcp-server', clientSecret })
 */
export function introspectionVerifier(options: IntrospectionVerifierOptions): TokenVerifier {
  checkOptions(options);
  const endpoint = new URL(options.endpoint).href;
  const cache = new TokenCache({ maxEntries: options.cacheMaxEntries ?? DEFAULT_TOKEN_CACHE_MAX_ENTRIES, maxAgeMs: options.cacheMaxAgeMs ?? DEFAULT_TOKEN_CACHE_MAX_AGE_MS });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...options.headers };
  if (options.clientId !== undefined) {
    // RFC 6749 §2.3.1: client id and secret form-urlencoded, then joined by ":" and base64-encoded.
    headers.authorization = `Basic ${base64(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret as string)}`)}`;
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_INTROSPECTION_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_INTROSPECTION_MAX_RESPONSE_BYTES;
  const toleranceMs = (options.clockToleranceSeconds ?? DEFAULT_JWT_CLOCK_TOLERANCE_SECONDS) * 1000;
  return {
    async verify(token: string): Promise<AuthInfo | TokenRefusal> {
      const kept = cache.get(token);
      if (kept !== undefined) return kept;
      const fetchImpl = options.fetch ?? globalThis.fetch;
      const body = new URLSearchParams({ token, token_type_hint: 'access_token' }).toString();
      const response = await fetchImpl(endpoint, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
      if (response.status !== 200) {
        await response.body?.cancel().catch(() => undefined);
        throw new Error(`the introspection endpoint answered HTTP ${response.status}`);
      }
      const answer = JSON.parse(await boundedText(response, maxBytes)) as unknown;
      if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) throw new Error('the introspection answer is not a JSON object');
      const claims = answer as Record<string, unknown>;
      // RFC 7662 §2.2: `active` is REQUIRED; anything but `true` is an inactive token.
      if (claims.active !== true) return { refused: 'the access token is not active' };
      if (options.issuer !== undefined && claims.iss !== undefined && claims.iss !== options.issuer) return { refused: 'the access token was issued by another authorization server' };
      // RFC 7662 §2.2 `nbf`: the token "is not to be used before" it (RFC 7519 §4.1.5: "MUST NOT be accepted for
      // processing" before it), with the leeway jwtVerifier gives (clock skew). Not cached: it becomes valid later.
      if (typeof claims.nbf === 'number' && claims.nbf * 1000 > Date.now() + toleranceMs) return { refused: 'the access token is not valid yet (nbf)' };
      const info = authInfoOfClaims(token, claims);
      cache.set(token, info);
      return info;
    },
  };
}
