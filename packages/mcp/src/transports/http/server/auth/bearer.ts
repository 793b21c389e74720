/**
 * The Bearer scheme on the resource-server side: reading the `Authorization` request header (RFC 6750 §2.1), and
 * the answers that refuse a request with a `WWW-Authenticate` challenge (RFC 6750 §3, RFC 9728 §5.1): 401 without
 * an error code when the request carried no bearer token, 401 `invalid_token`, 403 `insufficient_scope`, 400
 * `invalid_request`. Each answer's body is a JSON-RPC error response like every other refusal of the handler (no
 * `id` member when the request's id is unknown, field bug B45).
 *
 * @see MCP 2026-07-28 basic/authorization/index.mdx "Error Handling" (401 token missing or invalid, 403 insufficient
 *   scope, 400 malformed authorization request), "Scope Challenge Handling"; MCP 2025-11-25
 *   basic/authorization.mdx "Error Handling"
 */
import type { JsonRpcId } from '@switchboard/jsonrpc';
import { echo } from '@switchboard/jsonrpc';
import { McpErrorCode } from '../../../../protocol/errors.js';
import type { HttpOutput } from '../inputOutput.js';
import { HttpStatus, errorOutput } from '../refusals.js';

/** What the `Authorization` header of a request holds, for a resource server that takes bearer tokens. */
export type BearerCredentials =
  /** No bearer credentials: no header, or another scheme (`Basic …`; `DPoP …` unless DPoP is accepted). */
  | { readonly kind: 'none' }
  /** `Bearer <token>` (or `DPoP <token>`, RFC 9449 §7.1) with a well-formed token. */
  | { readonly kind: 'bearer'; readonly token: string; readonly scheme: 'Bearer' | 'DPoP' }
  /** A `Bearer` header that is not well formed (no token, bad characters, several values). */
  | { readonly kind: 'malformed'; readonly problem: string };

/** RFC 6750 §2.1 `b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

const NONE: BearerCredentials = Object.freeze({ kind: 'none' });

/**
 * Reads the bearer token of an `Authorization` header value.
 * @param dpop - Whether the `DPoP` scheme is accepted too (RFC 9449 §7.1: the same token syntax).
 * @see RFC 6750 §2.1 (`credentials = "Bearer" 1*SP b64token`; the scheme is case-insensitive, RFC 9110 §11.1)
 */
export function bearerCredentials(header: string | undefined, dpop = false): BearerCredentials {
  if (header === undefined) return NONE;
  const value = header.replace(/^[ \t]+|[ \t]+$/g, '');
  const space = value.indexOf(' ');
  const scheme = space === -1 ? value : value.slice(0, space);
  const lower = scheme.toLowerCase();
  if (lower !== 'bearer' && (lower !== 'dpop' || !dpop)) return NONE;
  const token = space === -1 ? '' : value.slice(space + 1).replace(/^ +/, '');
  if (token.length === 0) return { kind: 'malformed', problem: 'the Bearer credentials hold no token' };
  if (!B64TOKEN.test(token)) return { kind: 'malformed', problem: 'the bearer token is not a b64token (RFC 6750 section 2.1), or several Authorization headers were sent' };
  return { kind: 'bearer', token, scheme: lower === 'dpop' ? 'DPoP' : 'Bearer' };
}

/**
 * A value as an auth-param's quoted string. RFC 6750 §3 restricts `error_description` (and `scope`) to
 * `%x20-21 / %x23-5B / %x5D-7E`: a quote, a backslash or anything outside printable ASCII becomes `?`, so a value
 * quoting the request can never break the header.
 */
export function quotedParam(value: string): string {
  return `"${value.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, '?')}"`;
}

/** The parameters of one Bearer (or DPoP) challenge. */
export interface BearerChallenge {
  /** RFC 6750 §3.1 error code (RFC 9449 §7.1 adds `invalid_dpop_proof`); absent when the request carried no bearer credentials (§3.1: "SHOULD NOT include an error code"). */
  readonly error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope' | 'invalid_dpop_proof';
  /** A sentence for the developer (RFC 6750 §3 `error_description`). */
  readonly description?: string;
  /** The scopes to ask for (RFC 6750 §3 `scope`, space-separated); omitted when empty. */
  readonly scopes?: readonly string[];
  /** The URL of the protected resource metadata (RFC 9728 §5.1 `resource_metadata`). */
  readonly resourceMetadata: string;
  /** The scheme of the challenge. @default 'Bearer' */
  readonly scheme?: 'Bearer' | 'DPoP';
  /**
   * With DPoP accepted: the proof algorithms (RFC 9449 §7.1 `algs`). A `Bearer` challenge without an error is then
   * followed by a `DPoP` one, so a client learns both schemes.
   */
  readonly dpopAlgorithms?: readonly string[];
}

/**
 * The `WWW-Authenticate` value of a challenge: `Bearer error="…", error_description="…", resource_metadata="…",
 * scope="…"` (the error first, then `resource_metadata` in every challenge — MCP 2026-07-28 "Scope Challenge
 * Handling": "for consistency with 401 responses").
 */
export function bearerChallenge(challenge: BearerChallenge): string {
  const params: string[] = [];
  if (challenge.error !== undefined) params.push(`error=${quotedParam(challenge.error)}`);
  if (challenge.description !== undefined) params.push(`error_description=${quotedParam(echo(challenge.description))}`);
  params.push(`resource_metadata=${quotedParam(challenge.resourceMetadata)}`);
  if (challenge.scopes !== undefined && challenge.scopes.length > 0) params.push(`scope=${quotedParam(challenge.scopes.join(' '))}`);
  const algs = challenge.dpopAlgorithms;
  if (challenge.scheme === 'DPoP') return `DPoP ${[...params, ...(algs === undefined ? [] : [`algs=${quotedParam(algs.join(' '))}`])].join(', ')}`;
  const bearer = `Bearer ${params.join(', ')}`;
  // RFC 9110 §11.6.1: several challenges in one header, comma-separated.
  return algs !== undefined && challenge.error === undefined ? `${bearer}, DPoP algs=${quotedParam(algs.join(' '))}, resource_metadata=${quotedParam(challenge.resourceMetadata)}` : bearer;
}

/** The JSON-RPC message of each challenge's body. */
const MESSAGES = {
  none: 'Unauthorized: this server requires an OAuth access token (Authorization: Bearer)',
  invalid_token: 'Unauthorized: invalid access token',
  invalid_request: 'Bad Request: malformed authorization request',
  invalid_dpop_proof: 'Unauthorized: invalid DPoP proof',
  insufficient_scope: 'Forbidden: insufficient scope',
} as const;

/**
 * The answer refusing a request with `challenge`: 401 when there was no token or it is invalid, 403
 * `insufficient_scope`, 400 `invalid_request` (RFC 6750 §3.1); the `WWW-Authenticate` header in every case.
 * @param id - The request's id when it was read (a per-tool refusal after the body), else `null`.
 * @param options - `batch`: the body refuses a JSON-RPC batch as a whole: it keeps `"id": null` (JSON-RPC 2.0 §5:
 *   "If there was an error in detecting the id in the Request object … it MUST be Null"; a batch has no one id). A
 *   refusal of one request whose id is unknown has no `id` member (the HTTP transport's form, field bug B45).
 */
export function challengeOutput(challenge: BearerChallenge, id: JsonRpcId | null = null, options: { readonly batch?: boolean } = {}): HttpOutput {
  const error = challenge.error;
  const status = error === 'insufficient_scope' ? HttpStatus.Forbidden : error === 'invalid_request' ? HttpStatus.BadRequest : HttpStatus.Unauthorized;
  const base = MESSAGES[error ?? 'none'];
  const message = challenge.description === undefined ? base : `${base}: ${echo(challenge.description)}`;
  const output = errorOutput(status, { jsonrpc: '2.0', id, error: { code: McpErrorCode.ServerError, message } }, { 'www-authenticate': bearerChallenge(challenge) });
  return options.batch === true ? { ...output, body: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: McpErrorCode.ServerError, message } }) } : output;
}

/**
 * The answer when the token could not be verified for a reason that is not the token's (the JWKS or the
 * introspection endpoint unreachable): 503 with `Retry-After`, so a client does not throw away a good token.
 */
export function verificationUnavailableOutput(retryAfterSeconds: number): HttpOutput {
  return errorOutput(
    HttpStatus.ServiceUnavailable,
    { jsonrpc: '2.0', id: null, error: { code: McpErrorCode.ServerError, message: 'Service Unavailable: the access token cannot be verified now' } },
    { 'retry-after': String(retryAfterSeconds) },
  );
}
