/**
 * Where an OAuth client keeps what it obtained: tokens per resource (each recording the issuer that minted them) and
 * client registrations per issuer, so credentials of one authorization server are never shown to another (MCP
 * 2026-07-28 basic/authorization/client-registration.mdx: clients key persisted client credentials by issuer and
 * register again when the authorization server changes). {@link InMemoryOAuthStore} is the default; the CLI keeps a
 * file per user.
 */

/** Tokens from a token endpoint (RFC 6749 §5.1), as stored. */
export interface OAuthTokens {
  /** The issuer (authorization server) that minted them: they are used only while the resource names that issuer. */
  readonly issuer: string;
  /** The RFC 8707 `resource` they were requested for (from the protected resource metadata). */
  readonly resource?: string;
  readonly accessToken: string;
  /** `Bearer` or `DPoP` (RFC 9449 §5). */
  readonly tokenType: string;
  readonly refreshToken?: string;
  /** When the access token expires, in ms since the epoch (from `expires_in`); absent when the AS did not say. */
  readonly expiresAt?: number;
  /**
   * When the token endpoint answered, in ms since the epoch (with `expiresAt`: the token's lifetime, which bounds how
   * early it is refreshed); absent in tokens stored before it was recorded.
   */
  readonly issuedAt?: number;
  /** The scopes granted (the response's `scope`, else those requested), space-separated. */
  readonly scope?: string;
}

/** A client's identity at one authorization server (RFC 7591 §3.2.1, or pre-registered, or a CIMD URL). */
export interface OAuthClientInformation {
  readonly clientId: string;
  readonly clientSecret?: string;
  /** `none`, `client_secret_basic`, `client_secret_post` or `private_key_jwt`. */
  readonly tokenEndpointAuthMethod?: string;
  /** When the secret expires, in ms since the epoch (RFC 7591 `client_secret_expires_at`; absent or 0: never). */
  readonly clientSecretExpiresAt?: number;
}

/**
 * Storage of an OAuth client. Every method may be async; a failing store fails the request that needed it.
 * Keys: `resource` is the canonical MCP server URL (RFC 8707), `issuer` the authorization server's issuer identifier.
 */
export interface OAuthStore {
  loadTokens(resource: string): OAuthTokens | undefined | Promise<OAuthTokens | undefined>;
  /** `undefined` forgets them. */
  saveTokens(resource: string, tokens: OAuthTokens | undefined): void | Promise<void>;
  loadClient(issuer: string): OAuthClientInformation | undefined | Promise<OAuthClientInformation | undefined>;
  /** `undefined` forgets it. */
  saveClient(issuer: string, client: OAuthClientInformation | undefined): void | Promise<void>;
}

/** Default bound of {@link InMemoryOAuthStore}: entries of each kind kept (the oldest is dropped beyond). */
export const DEFAULT_MAX_OAUTH_ENTRIES = 256;

/** An {@link OAuthStore} in memory: gone when the process ends. Bounded: at most `maxEntries` of each kind. */
export class InMemoryOAuthStore implements OAuthStore {
  readonly #tokens = new Map<string, OAuthTokens>();
  readonly #clients = new Map<string, OAuthClientInformation>();
  readonly #maxEntries: number;

  /** @param options - `maxEntries`: tokens and clients kept, each. @default {@link DEFAULT_MAX_OAUTH_ENTRIES} */
  constructor(options: { readonly maxEntries?: number } = {}) {
    this.#maxEntries = options.maxEntries ?? DEFAULT_MAX_OAUTH_ENTRIES;
  }

  loadTokens(resource: string): OAuthTokens | undefined {
    return this.#tokens.get(resource);
  }

  saveTokens(resource: string, tokens: OAuthTokens | undefined): void {
    this.#put(this.#tokens, resource, tokens);
  }

  loadClient(issuer: string): OAuthClientInformation | undefined {
    return this.#clients.get(issuer);
  }

  saveClient(issuer: string, client: OAuthClientInformation | undefined): void {
    this.#put(this.#clients, issuer, client);
  }

  #put<T>(map: Map<string, T>, key: string, value: T | undefined): void {
    map.delete(key);
    if (value === undefined) return;
    map.set(key, value);
    while (map.size > this.#maxEntries) {
      const oldest = map.keys().next().value;
      if (oldest === undefined) break;
      map.delete(oldest);
    }
  }
}
