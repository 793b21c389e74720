/**
 * What a transport learned from a verified access token (`AuthInfo`, the shape `ctx.authInfo` has when the HTTP
 * handler's `auth` option verified the request's bearer token), and the one scope rule both sides of the transport
 * boundary apply: the HTTP handler before dispatch (403 `insufficient_scope`) and the server's visibility rule (a
 * tool the caller may not use is neither listed, found nor callable). Runtime-neutral: types and set arithmetic.
 *
 * The shape is the official TypeScript SDK's `AuthInfo` (`token`, `clientId`, `scopes`, `expiresAt` in seconds,
 * `resource`, `extra`), so code written for that SDK reads it unchanged, plus what a resource server knows of the
 * token's audience, subject and issuer.
 *
 * @see MCP 2026-07-28 basic/authorization/index.mdx "Token Handling", "Scope Challenge Handling"
 */

/** The facts of one verified access token. */
export interface AuthInfo {
  /** The access token as presented (never forwarded upstream: MCP 2026-07-28 "MUST NOT accept or transit any other tokens"). */
  readonly token: string;
  /** The OAuth client the token was issued to (`client_id`, else `azp`, else `sub`); `''` when the token names none. */
  readonly clientId: string;
  /**
   * The scopes the token grants, with what a broader scope implies already added (the handler's `scopeHierarchy`),
   * so a membership test is the whole check.
   */
  readonly scopes: readonly string[];
  /** Seconds since the epoch when the token expires (`exp`); `undefined` when it does not say. */
  readonly expiresAt?: number;
  /** The canonical URI of this resource the token was accepted for (RFC 8707 §2). */
  readonly resource?: string;
  /** The token's audiences (`aud`), as the verifier read them. */
  readonly audience: readonly string[];
  /** The resource owner (`sub`), when the token names one. */
  readonly subject?: string;
  /** The authorization server that issued it (`iss`), when known. */
  readonly issuer?: string;
  /** Every claim of the token (JWT payload or introspection response), untouched. */
  readonly claims?: Readonly<Record<string, unknown>>;
  /** Anything else a custom verifier wants handlers to see. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/**
 * Whether the caller `authInfo` describes holds every scope of `required`.
 *
 * A caller with no authentication facts (`authInfo` not an object: stdio, in memory, an HTTP handler without
 * `auth`) is not held to scopes: MCP authorization is a property of the HTTP transport (MCP 2026-07-28
 * basic/authorization/index.mdx "Protocol Requirements": an STDIO transport "SHOULD NOT follow this specification").
 * An authenticated caller whose `scopes` is not an array holds none.
 * @param authInfo - `ctx.authInfo` (any shape; {@link AuthInfo} when the HTTP handler verified the token).
 * @param required - The scopes needed; `undefined` or empty: nothing is needed.
 */
export function scopesGranted(authInfo: unknown, required: readonly string[] | undefined): boolean {
  if (required === undefined || required.length === 0) return true;
  if (typeof authInfo !== 'object' || authInfo === null) return true;
  const granted = (authInfo as { scopes?: unknown }).scopes;
  if (!Array.isArray(granted)) return false;
  for (const scope of required) if (!granted.includes(scope)) return false;
  return true;
}

/**
 * The scopes of a space-separated `scope` value (RFC 6749 §3.3 `scope-token *( SP scope-token )`), or of an array
 * of strings (the `scp` claim some authorization servers issue); anything else has none.
 */
export function scopeTokens(value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter((s) => s.length > 0);
  if (Array.isArray(value)) return value.filter((s): s is string => typeof s === 'string' && s.length > 0);
  return [];
}

/**
 * `granted` with every scope a broader one implies (`hierarchy`: scope → the narrower scopes it implies,
 * followed transitively, cycles harmless).
 * @see MCP 2026-07-28 basic/authorization/index.mdx "Step-Up Authorization Flow": "Servers MUST account for scope
 *   hierarchies, where a broader scope implies narrower ones"
 */
export function expandScopes(granted: readonly string[], hierarchy: Readonly<Record<string, readonly string[]>> | undefined): string[] {
  const out = [...new Set(granted)];
  if (hierarchy === undefined) return out;
  const seen = new Set(out);
  for (let i = 0; i < out.length; i++) {
    const implied = Object.hasOwn(hierarchy, out[i] as string) ? hierarchy[out[i] as string] : undefined;
    for (const scope of implied ?? []) {
      if (!seen.has(scope)) {
        seen.add(scope);
        out.push(scope);
      }
    }
  }
  return out;
}
