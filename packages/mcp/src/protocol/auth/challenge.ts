/**
 * `WWW-Authenticate` challenges (RFC 9110 §11.6.1) as an MCP client reads them on a 401 or 403: the scheme and its
 * auth-params, of which MCP uses `resource_metadata` (RFC 9728 §5.1), `scope` and `error` (RFC 6750 §3). Runtime-
 * neutral parsing: the client follows challenges with it, and the resource-server side can read its own with it.
 *
 * @see MCP 2025-11-25 basic/authorization.mdx "Protected Resource Metadata Discovery Requirements"
 * @see MCP 2026-07-28 basic/authorization/scope-selection.mdx "Runtime Insufficient Scope Errors"
 */

/** One challenge of a `WWW-Authenticate` field: its scheme and auth-params (names lower-cased). */
export interface AuthChallenge {
  /** The auth-scheme as sent (`Bearer`, `DPoP`); compare case-insensitively (RFC 9110 §11.1). */
  readonly scheme: string;
  /** The auth-params, names lower-cased, values unquoted. A token68 challenge has none. */
  readonly params: Readonly<Record<string, string>>;
}

/** What a Bearer (or DPoP) challenge tells an MCP client. */
export interface BearerChallenge {
  /** The scheme that carried it (`Bearer` or `DPoP`). */
  readonly scheme: string;
  /** `resource_metadata`: the protected resource metadata URL (RFC 9728 §5.1). */
  readonly resourceMetadata?: string;
  /** `scope`: the scopes the request needs, space-separated (RFC 6750 §3). */
  readonly scope?: string;
  /** `error`: `invalid_token`, `insufficient_scope`, `invalid_request`, `use_dpop_nonce` (RFC 6750 §3.1, RFC 9449 §9). */
  readonly error?: string;
  /** `error_description`, for people. */
  readonly errorDescription?: string;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/;
/** Bound on the field text parsed (a challenge is a few hundred bytes; anything far longer is not read whole). */
const MAX_FIELD_CHARS = 16 * 1024;

/**
 * Parses a `WWW-Authenticate` field value into its challenges (RFC 9110 §11.6.1: `challenge = auth-scheme [ 1*SP (
 * token68 / #auth-param ) ]`, several challenges comma-separated). Lenient where servers are sloppy (spaces around
 * `=`, unquoted values); a part it cannot read ends the parse with what was read so far. Never throws.
 */
export function parseWwwAuthenticate(value: string | null | undefined): AuthChallenge[] {
  if (value === null || value === undefined) return [];
  const text = value.length > MAX_FIELD_CHARS ? value.slice(0, MAX_FIELD_CHARS) : value;
  const challenges: AuthChallenge[] = [];
  let i = 0;
  let current: { scheme: string; params: Record<string, string> } | undefined;
  const skipSpace = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
  };
  while (i < text.length) {
    skipSpace();
    if (text[i] === ',') {
      i++;
      continue;
    }
    const name = TOKEN.exec(text.slice(i))?.[0];
    if (name === undefined) break;
    let j = i + name.length;
    while (j < text.length && (text[j] === ' ' || text[j] === '\t')) j++;
    if (text[j] === '=' && current !== undefined && text[j + 1] !== '=') {
      // An auth-param of the current challenge.
      i = j + 1;
      skipSpace();
      let paramValue = '';
      if (text[i] === '"') {
        i++;
        while (i < text.length && text[i] !== '"') {
          if (text[i] === '\\' && i + 1 < text.length) i++;
          paramValue += text[i];
          i++;
        }
        i++;
      } else {
        const token = TOKEN.exec(text.slice(i))?.[0] ?? '';
        paramValue = token;
        i += token.length;
      }
      current.params[name.toLowerCase()] = paramValue;
      continue;
    }
    // A new challenge: its scheme, then maybe a token68 (skipped) or params.
    current = { scheme: name, params: {} };
    challenges.push(current);
    i = j;
    const token68 = /^[A-Za-z0-9\-._~+/]+=*(?=\s*(,|$))/.exec(text.slice(i));
    if (token68 !== null && !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+\s*=[^=]/.test(text.slice(i))) i += token68[0].length;
  }
  return challenges;
}

/**
 * The first `Bearer` or `DPoP` challenge of a response's `WWW-Authenticate` (RFC 6750 §3, RFC 9449 §7.1), as
 * {@link BearerChallenge}; `undefined` when the response has none.
 * @param headers - The response headers.
 */
export function bearerChallengeOf(headers: Headers): BearerChallenge | undefined {
  const challenges = parseWwwAuthenticate(headers.get('www-authenticate'));
  const found = challenges.find((c) => /^bearer$/i.test(c.scheme)) ?? challenges.find((c) => /^dpop$/i.test(c.scheme));
  if (found === undefined) return undefined;
  const p = found.params;
  return {
    scheme: found.scheme,
    ...(p.resource_metadata === undefined ? {} : { resourceMetadata: p.resource_metadata }),
    ...(p.scope === undefined ? {} : { scope: p.scope }),
    ...(p.error === undefined ? {} : { error: p.error }),
    ...(p.error_description === undefined ? {} : { errorDescription: p.error_description }),
  };
}

/** The scopes of a space-separated `scope` value (RFC 6749 §3.3), duplicates and empty parts dropped. */
export function scopeList(scope: string | undefined): string[] {
  if (scope === undefined) return [];
  return [...new Set(scope.split(/\s+/).filter((s) => s !== ''))];
}
