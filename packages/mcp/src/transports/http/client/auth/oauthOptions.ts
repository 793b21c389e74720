/**
 * The options of `oauth()` ({@link OAuthOptions}): how the client identifies itself to authorization servers, how the
 * user-agent step runs (a callback, so the library stays runtime-neutral), which grant it uses, where it keeps tokens.
 *
 * @see MCP 2025-11-25 basic/authorization.mdx
 * @see MCP 2026-07-28 basic/authorization/client-registration.mdx "Client Registration Approaches" (the priority)
 */
import type { FetchLike } from '../clientHttp.js';
import type { OAuthStore, OAuthTokens } from './oauthStore.js';

/** What the `authorize` callback is given: the URL to open in a user-agent, and what the redirect must carry. */
export interface OAuthAuthorizeRequest {
  /** The authorization request (RFC 6749 §4.1.1 with PKCE, `state`, `resource` and `scope`): open it in a browser. */
  readonly authorizationUrl: URL;
  /** Where the authorization server sends the user-agent back (the client's `redirect_uri`). */
  readonly redirectUri: string;
  /** The `state` the redirect must carry back (checked by the library too). */
  readonly state: string;
  /** The MCP server being signed in to (its canonical URI). */
  readonly resource: string;
}

/**
 * The user-agent step of the authorization code flow: open `authorizationUrl`, wait for the redirect to
 * `redirectUri`, resolve the full URL it was sent to (with `code`, `state`, and `iss` when the server sends it). On
 * Node, `startLoopbackRedirect()` (`@switchboard/mcp/node`) receives the redirect on 127.0.0.1.
 */
export type OAuthAuthorizer = (request: OAuthAuthorizeRequest) => Promise<string | URL>;

/** What an `assertion` callback is told: for which authorization server and resource the grant is. */
export interface OAuthAssertionRequest {
  /** The authorization server's issuer identifier (the audience of an ID-JAG). */
  readonly issuer: string;
  /** The RFC 8707 resource the token is for. */
  readonly resource: string;
  /** The scope asked for, if any. */
  readonly scope?: string;
}

/** A client registered with the authorization server beforehand (MCP: "pre-registration"). */
export interface OAuthPreRegisteredClient {
  readonly clientId: string;
  readonly clientSecret?: string;
  /** `none`, `client_secret_basic`, `client_secret_post` or `private_key_jwt`. @default chosen from what the server supports */
  readonly tokenEndpointAuthMethod?: string;
  /** For `private_key_jwt` (RFC 7523 §2.2): the client's private key, PKCS #8 PEM. */
  readonly privateKeyPem?: string;
  /** The JWS algorithm of `privateKeyPem`: `ES256`, `ES384`, `RS256`, `PS256` or `EdDSA`. @default 'ES256' */
  readonly signingAlgorithm?: string;
  /** Only for this authorization server (its issuer identifier). @default any */
  readonly issuer?: string;
}

/**
 * The grant the client uses when a server asks for authorization:
 * - `authorization_code` (default): a user signs in through `authorize` (PKCE S256, RFC 6749 §4.1).
 * - `client_credentials`: the client acts for itself with `client` (RFC 6749 §4.4; SEP-1046), no user.
 * - `jwt_bearer`: a workload identity's JWT from `assertion` is exchanged for a token (RFC 7523 §2.1; SEP-1933).
 */
export type OAuthGrant = 'authorization_code' | 'client_credentials' | 'jwt_bearer';

/** Options of `oauth()`. */
export interface OAuthOptions {
  /** @default 'authorization_code' */
  readonly grant?: OAuthGrant;
  /** Where the authorization server redirects after sign-in (`authorization_code`), e.g. `http://127.0.0.1:8765/callback`. */
  readonly redirectUri?: string;
  /** The user-agent step (`authorization_code`); without it a server that needs a sign-in fails the request (`no_authorizer`). */
  readonly authorize?: OAuthAuthorizer;
  /** A pre-registered client: tried first (MCP 2026-07-28 client-registration.mdx). */
  readonly client?: OAuthPreRegisteredClient;
  /**
   * The HTTPS URL of this client's Client ID Metadata Document: used as the `client_id` when the authorization server
   * advertises `client_id_metadata_document_supported` (tried after a pre-registered client, before registration).
   */
  readonly clientMetadataUrl?: string;
  /**
   * Fields of the client metadata sent in dynamic client registration (RFC 7591 §2), over the defaults: `client_name`
   * "Switchboard MCP client", `redirect_uris` [`redirectUri`], `grant_types` authorization_code and refresh_token,
   * `response_types` code, `application_type` `native` for a loopback or custom-scheme redirect, else `web`.
   */
  readonly clientMetadata?: Readonly<Record<string, unknown>>;
  /** Whether dynamic client registration is used when nothing else identifies the client. @default true */
  readonly dynamicRegistration?: boolean;
  /**
   * The JWT for `jwt_bearer`, asked for each time a token is needed: a workload identity token (SEP-1933), or an
   * Identity Assertion JWT Authorization Grant from the enterprise IdP (`idJagAssertion()`, SEP-990), given the
   * authorization server's issuer and the resource the token is for.
   */
  readonly assertion?: (request: OAuthAssertionRequest) => string | Promise<string>;
  /**
   * Ask for `offline_access` (a refresh token) when the authorization server lists it in `scopes_supported`
   * (MCP 2026-07-28 basic/authorization/index.mdx "Refresh Tokens"). @default true
   */
  readonly offlineAccess?: boolean;
  /**
   * DPoP-bound tokens (RFC 9449): `'auto'` uses them when the resource offers DPoP (a `DPoP` challenge, or
   * `dpop_bound_access_tokens_required` / `dpop_signing_alg_values_supported` in its metadata) and the authorization
   * server lists ES256 in `dpop_signing_alg_values_supported`; `false` never. @default 'auto'
   */
  readonly dpop?: 'auto' | false;
  /**
   * Re-authorizations for more scope (403 `insufficient_scope`) of one request, counted in its 403 answers, before it
   * fails with `step_up_limit`; the transport resends a request at most `MAX_AUTH_RESENDS` (5) times in all. @default 2
   */
  readonly maxStepUps?: number;
  /**
   * How long (ms) before its expiry an access token is refreshed before it is sent (when there is a refresh token).
   * When not given: 30 s, and at most half the token's lifetime, so that a token issued for 10 s is refreshed 5 s
   * before it expires rather than before every request (tokens stored without `issuedAt`, whose lifetime is unknown:
   * 30 s). When given, exactly this. @default min(30_000, lifetime / 2)
   */
  readonly refreshMarginMs?: number;
  /** Where tokens and registrations are kept. @default a new `InMemoryOAuthStore` */
  readonly store?: OAuthStore;
  /** The `fetch` for metadata, registration and token calls. @default the runtime's client fetch */
  readonly fetch?: FetchLike;
  /** Bound (ms) of each call to a metadata, registration or token endpoint. @default 30_000 */
  readonly timeoutMs?: number;
}

/** Default of {@link OAuthOptions.maxStepUps}. */
export const DEFAULT_MAX_STEP_UPS = 2;
/**
 * The longest default {@link OAuthOptions.refreshMarginMs}, in ms (30 s): by default a token is refreshed this long
 * before it expires, or half its lifetime before when that is shorter (the refresh grant: RFC 6749 §6).
 */
export const DEFAULT_REFRESH_MARGIN_MS = 30_000;

/**
 * How long (ms) before `tokens` expire they are refreshed before use: `given` ({@link OAuthOptions.refreshMarginMs})
 * when set, else {@link DEFAULT_REFRESH_MARGIN_MS} and at most half their lifetime. A lifetime that is not a positive
 * number (tokens stored before `issuedAt` was recorded, a hand-edited file) is unknown: the default then.
 */
export function refreshMarginOf(tokens: Pick<OAuthTokens, 'expiresAt' | 'issuedAt'>, given: number | undefined): number {
  if (given !== undefined) return given;
  const lifetime = typeof tokens.expiresAt === 'number' && typeof tokens.issuedAt === 'number' ? tokens.expiresAt - tokens.issuedAt : NaN;
  return lifetime > 0 ? Math.min(DEFAULT_REFRESH_MARGIN_MS, lifetime / 2) : DEFAULT_REFRESH_MARGIN_MS;
}
/** Default of {@link OAuthOptions.timeoutMs}. */
export const DEFAULT_OAUTH_TIMEOUT_MS = 30_000;
