/**
 * The MCP HTTP handler as an OAuth 2.1 resource server (its `auth` option): run by `handler.ts` before routing, on
 * every request to the handler's endpoints (Streamable HTTP of both eras, the 2024-11-05 HTTP+SSE paths; a CORS
 * preflight aside). A request passes with its bearer token verified and bound to this resource, and goes on with
 * the token's {@link AuthInfo} as its `authInfo` (so every handler's `ctx.authInfo`, on every path and era); else it
 * is answered here: 401 with a `WWW-Authenticate` challenge naming the metadata, 400, 403 or 503.
 *
 * Order of the checks (each cited where it is made): the token is not in the query; the `Authorization` header
 * holds a Bearer token; the verifier accepts it; it has not expired; its audience is this resource; it holds the
 * scopes every request needs. The per-tool scopes are checked later, once the body is read (`toolScopes.ts`).
 *
 * @see MCP 2026-07-28 basic/authorization/index.mdx "Access Token Usage", "Token Handling", "Error Handling";
 *   MCP 2025-11-25 basic/authorization.mdx (same sections)
 */
import type { Logger } from '@switchboard/jsonrpc';
import { expandScopes, scopesGranted, type AuthInfo } from '../../../../protocol/auth/authInfo.js';
import type { BodyRead, HttpInput, HttpOutput } from '../inputOutput.js';
import { refusalOutput } from '../refusals.js';
import { bearerCredentials, challengeOutput, verificationUnavailableOutput, type BearerChallenge } from './bearer.js';
import {
  DEFAULT_AUTH_CLOCK_TOLERANCE_SECONDS,
  DEFAULT_AUTH_RETRY_AFTER_SECONDS,
  validateAuthOptions,
  type HttpAuthOptions,
  type TokenRefusal,
  type TokenVerifier,
  type TokenVerifyRequest,
} from './authOptions.js';
import { DEFAULT_DPOP_ALGORITHMS, DEFAULT_DPOP_MAX_PROOF_AGE_SECONDS, boundThumbprint, verifyDpopProof, type DpopSettings } from './dpop.js';
import { InMemoryRequestStateStore } from '../../../../stores/requestStateStore.js';
import { MissingPeerDependencyError } from './joseLoader.js';
import {
  audienceAccepted,
  canonicalResource,
  resourceMetadataDocument,
  resourceMetadataOutput,
  resourceMetadataPaths,
  resourceMetadataUrl,
  type ResourceMetadataSource,
} from './protectedResource.js';

/** An {@link HttpInput} whose `authInfo` is the verified token's; everything else is the request's. */
class AuthenticatedInput implements HttpInput {
  readonly #input: HttpInput;
  readonly authInfo: AuthInfo;

  constructor(input: HttpInput, authInfo: AuthInfo) {
    this.#input = input;
    this.authInfo = authInfo;
  }

  get method(): string {
    return this.#input.method;
  }

  get path(): string {
    return this.#input.path;
  }

  get query(): string {
    return this.#input.query;
  }

  get scheme(): 'http' | 'https' {
    return this.#input.scheme;
  }

  get remoteAddress(): string | undefined {
    return this.#input.remoteAddress;
  }

  get signal(): AbortSignal | undefined {
    return this.#input.signal;
  }

  header(name: string): string | undefined {
    return this.#input.header(name);
  }

  headers(): Record<string, string> {
    return this.#input.headers();
  }

  readBody(maxBytes: number): Promise<BodyRead> {
    return this.#input.readBody(maxBytes);
  }
}

/** Sessions whose opener is remembered at most (past it the oldest is forgotten: its session is then unchecked). */
const MAX_BOUND_SESSIONS = 100_000;

/** Who a token speaks for: its issuer, subject and client. */
function principalOf(info: AuthInfo): string {
  return JSON.stringify([info.issuer ?? '', info.subject ?? '', info.clientId]);
}

/** Why a DPoP request is refused. */
interface ProofRefusal {
  readonly error: 'invalid_dpop_proof' | 'invalid_token';
  readonly description: string;
}

/** What the resource server needs from the handler. */
export interface ResourceServerSettings {
  readonly auth: HttpAuthOptions;
  /** The handler's Streamable HTTP path (the resource's path when `auth.resource` is not set). */
  readonly mcpPath: string;
  /** The scheme the client used (the handler's, after `trustProxy`). */
  readonly schemeOf: (input: HttpInput) => 'http' | 'https';
  readonly logger: Logger;
  /**
   * Whether the handler validates `Host` (its `dnsRebindingProtection`: against `allowedHosts`, else the loopback
   * names): only then may the resource be derived from a request.
   */
  readonly hostValidated: boolean;
}

function isRefusal(value: AuthInfo | TokenRefusal): value is TokenRefusal {
  return typeof (value as Partial<TokenRefusal>).refused === 'string';
}

/** Whether `value` has the fields the handler reads of an {@link AuthInfo}. */
function isAuthInfo(value: unknown): value is AuthInfo {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<AuthInfo>;
  return typeof v.token === 'string' && Array.isArray(v.scopes) && Array.isArray(v.audience);
}

/** Whether the query string carries an `access_token` parameter (RFC 6750 §2.3). */
function hasQueryToken(query: string): boolean {
  if (query === '') return false;
  for (const part of query.split('&')) {
    const name = part.split('=', 1)[0] as string;
    if (name === 'access_token') return true;
  }
  return false;
}

/** @internal The `auth` option at work (see the module comment). */
export class ResourceServer {
  readonly #verifier: TokenVerifier;
  readonly #logger: Logger;
  readonly #schemeOf: (input: HttpInput) => 'http' | 'https';
  readonly #mcpPath: string;
  /** The canonical resource URI when `auth.resource` is set; else derived per request. */
  readonly #resource: string | undefined;
  readonly #allowed: readonly string[];
  readonly #requiredScopes: readonly string[];
  /** The `scope` of a 401 challenge. */
  readonly #challengeScopes: readonly string[];
  readonly #hierarchy: Readonly<Record<string, readonly string[]>> | undefined;
  readonly #toleranceMs: number;
  readonly #retryAfterSeconds: number;
  readonly #metadataSource: ResourceMetadataSource;
  readonly #metadataPaths: ReadonlySet<string>;
  /**
   * Who opened each Streamable HTTP session (its `Mcp-Session-Id` → the principal of the token that sent
   * `initialize`), bounded: the oldest entries go first past {@link MAX_BOUND_SESSIONS}.
   */
  readonly #sessionPrincipals = new Map<string, string>();
  /** Whether a missing optional peer dependency was logged (once: every request then fails alike). */
  #missingLogged = false;
  /** DPoP settings when `auth.dpop` is set. */
  readonly #dpop: (DpopSettings & { readonly required: boolean }) | undefined;

  /**
   * @throws TypeError, RangeError as {@link validateAuthOptions}; TypeError when `auth.resource` is not set and the
   *   handler does not validate `Host`
   */
  constructor(settings: ResourceServerSettings) {
    const auth = settings.auth;
    validateAuthOptions(auth);
    // RFC 8707 §2 and MCP 2025-11-25 basic/authorization.mdx "Token Audience Binding and Validation": servers "MUST
    // validate that access tokens were issued specifically for them as the intended audience". The audience is this
    // server's canonical URI; derived from a request, it is only as trustworthy as the request's `Host`: unvalidated,
    // any client picks it (`Host: evil.example` makes a token for `http://evil.example/mcp` pass, RFC 9068 §4 item 3
    // defeated). So without `resource`, `Host` must be validated (allowedHosts, or the loopback names).
    if (auth.resource === undefined && !settings.hostValidated) {
      throw new TypeError('Invalid option auth: without auth.resource the audience would come from each request\'s unvalidated Host header; set auth.resource to this server\'s canonical URL (e.g. "https://mcp.example.com/mcp"), or allowedHosts to the names clients use (Host validation on)');
    }
    this.#verifier = auth.verifier;
    this.#logger = settings.logger;
    this.#schemeOf = settings.schemeOf;
    this.#mcpPath = settings.mcpPath;
    this.#resource = auth.resource === undefined ? undefined : canonicalResource(auth.resource);
    this.#allowed = Object.freeze([...(auth.allowedAudiences ?? [])]);
    this.#requiredScopes = Object.freeze([...(auth.requiredScopes ?? [])]);
    this.#challengeScopes = this.#requiredScopes.length > 0 ? this.#requiredScopes : Object.freeze([...(auth.scopesSupported ?? [])]);
    this.#hierarchy = auth.scopeHierarchy;
    // MCP 2026-07-28 basic/authorization/index.mdx "Refresh Tokens": servers "SHOULD NOT include `offline_access`" in
    // the challenge's scope or `scopes_supported` (refresh tokens are not a resource requirement).
    if ([...this.#challengeScopes, ...(auth.scopesSupported ?? [])].includes('offline_access')) {
      settings.logger.warn('MCP HTTP auth: offline_access is listed in scopesSupported or requiredScopes; MCP servers SHOULD NOT ask for it (clients add it themselves when they want refresh tokens)');
    }
    this.#toleranceMs = (auth.clockToleranceSeconds ?? DEFAULT_AUTH_CLOCK_TOLERANCE_SECONDS) * 1000;
    this.#retryAfterSeconds = Math.ceil(auth.retryAfterSeconds ?? DEFAULT_AUTH_RETRY_AFTER_SECONDS);
    const dpop = auth.dpop;
    this.#dpop = dpop === undefined ? undefined : {
      algorithms: Object.freeze([...(dpop.algorithms ?? DEFAULT_DPOP_ALGORITHMS)]),
      maxAgeSeconds: dpop.maxProofAgeSeconds ?? DEFAULT_DPOP_MAX_PROOF_AGE_SECONDS,
      replayStore: dpop.replayStore ?? new InMemoryRequestStateStore(),
      required: dpop.required ?? false,
    };
    this.#metadataSource = {
      authorizationServers: Object.freeze([...auth.authorizationServers]),
      scopesSupported: auth.scopesSupported,
      metadata: auth.metadata,
      dpop: this.#dpop,
    };
    // The path-inserted form of the resource's own path and, when the handler sees another path (a proxy strips a
    // prefix), of the handler's; and the root form.
    const resourcePath = this.#resource === undefined ? settings.mcpPath : new URL(this.#resource).pathname;
    this.#metadataPaths = new Set([...resourceMetadataPaths(resourcePath), ...resourceMetadataPaths(settings.mcpPath)]);
  }

  /**
   * Logs why a request could not be verified (answered 503). A missing optional peer dependency (`jose`) is a server
   * misconfiguration: one line naming what to install, logged once, instead of a module-not-found on every request.
   */
  #logFailure(what: string, error: unknown): void {
    if (!(error instanceof MissingPeerDependencyError)) {
      this.#logger.error(`MCP HTTP auth: ${what}`, { error });
      return;
    }
    if (this.#missingLogged) return;
    this.#missingLogged = true;
    this.#logger.error(`MCP HTTP auth: ${error.message} (every request needing it is answered 503 until then)`);
  }

  /** The scopes every request needs (`auth.requiredScopes`). */
  get requiredScopes(): readonly string[] {
    return this.#requiredScopes;
  }

  /** Whether `path` is one of the well-known paths of the metadata. */
  servesMetadata(path: string): boolean {
    return this.#metadataPaths.has(path);
  }

  /** The answer to a request for the protected resource metadata (either well-known form: the same document). */
  metadata(input: HttpInput): HttpOutput {
    return resourceMetadataOutput(input, resourceMetadataDocument(this.#resourceOf(input), this.#metadataSource));
  }

  /** The canonical URI of this resource for `input` (the configured one, or the request's own MCP endpoint URL). */
  #resourceOf(input: HttpInput): string {
    if (this.#resource !== undefined) return this.#resource;
    const host = input.header('host') ?? 'localhost';
    return canonicalResource(`${this.#schemeOf(input)}://${host}${this.#mcpPath}`) ?? `${this.#schemeOf(input)}://localhost${this.#mcpPath}`;
  }

  /** A challenge of this resource (`resource_metadata` set). */
  challenge(input: HttpInput, challenge: Omit<BearerChallenge, 'resourceMetadata' | 'dpopAlgorithms'>): BearerChallenge {
    return { ...challenge, resourceMetadata: resourceMetadataUrl(this.#resourceOf(input)), dpopAlgorithms: this.#dpop?.algorithms };
  }

  /**
   * Authenticates one request: resolves with the input to route (its `authInfo` the verified token's), or with the
   * answer refusing it. Never rejects.
   */
  async authenticate(input: HttpInput): Promise<HttpInput | HttpOutput> {
    // MCP 2026-07-28 basic/authorization/index.mdx "Token Requirements": access tokens "MUST NOT be included in the
    // URI query string" (RFC 6750 §2.3 would allow it): a request that puts one there is malformed (400).
    if (hasQueryToken(input.query)) {
      return challengeOutput(this.challenge(input, { error: 'invalid_request', description: 'access tokens are not accepted in the query string; send Authorization: Bearer' }));
    }
    const dpop = this.#dpop;
    const credentials = bearerCredentials(input.header('authorization'), dpop !== undefined);
    // RFC 6750 §3.1: a request without authentication information gets a challenge with no error code; MCP:
    // `resource_metadata` (RFC 9728 §5.1) and `scope` in it ("Scope Selection Strategy").
    if (credentials.kind === 'none') return challengeOutput(this.challenge(input, { scopes: this.#challengeScopes }));
    if (credentials.kind === 'malformed') return challengeOutput(this.challenge(input, { error: 'invalid_request', description: credentials.problem }));
    const scheme = credentials.scheme;
    if (scheme === 'Bearer' && dpop?.required === true) {
      return challengeOutput(this.challenge(input, { scheme: 'DPoP', error: 'invalid_token', description: 'this server accepts DPoP-bound tokens only', scopes: this.#challengeScopes }));
    }
    const resource = this.#resourceOf(input);
    const request: TokenVerifyRequest = {
      resource,
      audiences: [resource, ...this.#allowed],
      method: input.method,
      // The URL the client addressed: the configured resource for the endpoint itself (behind a proxy the handler
      // sees another host and maybe path), else the request's own.
      url: this.#resource !== undefined && input.path === this.#mcpPath ? this.#resource : `${this.#schemeOf(input)}://${input.header('host') ?? 'localhost'}${input.path}`,
      header: (name) => input.header(name),
    };
    let verdict: AuthInfo | TokenRefusal;
    try {
      verdict = await this.#verifier.verify(credentials.token, request);
    } catch (error) {
      this.#logFailure('the token verifier failed (answered 503)', error);
      return verificationUnavailableOutput(this.#retryAfterSeconds);
    }
    const refusal = this.#refusalOf(verdict, resource);
    // MCP 2026-07-28 "Token Handling": "Invalid or expired tokens MUST receive a HTTP 401 response"; RFC 6750 §3.1
    // `invalid_token`.
    if (refusal !== undefined) return challengeOutput(this.challenge(input, { scheme, error: 'invalid_token', description: refusal, scopes: this.#challengeScopes }));
    const info = verdict as AuthInfo;
    const bound = boundThumbprint(info.claims);
    if (scheme === 'Bearer' && bound !== undefined) {
      // RFC 9449 §7.2: a DPoP-bound token (`cnf.jkt`) presented as a bearer token is refused: its holder must prove
      // possession of the key, which a bearer request does not.
      return challengeOutput(this.challenge(input, { error: 'invalid_token', description: 'the access token is DPoP-bound (cnf.jkt); present it with a DPoP proof', scopes: this.#challengeScopes }));
    }
    if (scheme === 'DPoP') {
      let proofRefusal: ProofRefusal | undefined;
      try {
        proofRefusal = await this.#proofRefusal(input, { token: credentials.token, url: request.url, bound });
      } catch (error) {
        this.#logFailure('the DPoP replay store failed (answered 503)', error);
        return verificationUnavailableOutput(this.#retryAfterSeconds);
      }
      if (proofRefusal !== undefined) return challengeOutput(this.challenge(input, { scheme, ...proofRefusal, scopes: this.#challengeScopes }));
    }
    const authInfo: AuthInfo = { ...info, scopes: expandScopes(info.scopes, this.#hierarchy), resource };
    // RFC 6750 §3.1 `insufficient_scope` (403): the scopes every request needs.
    if (!scopesGranted(authInfo, this.#requiredScopes)) {
      return challengeOutput(this.challenge(input, { error: 'insufficient_scope', description: 'the access token lacks a scope this server requires', scopes: this.#requiredScopes }));
    }
    return new AuthenticatedInput(input, authInfo);
  }

  /** Who the verified token of `input` (an authenticated input) speaks for: its issuer, subject and client. */
  principal(input: HttpInput): string {
    return principalOf(input.authInfo as AuthInfo);
  }

  /**
   * The refusal of a request that names a Streamable HTTP session another principal opened: 404, the answer to an
   * unknown session, so it reveals nothing (MCP 2025-11-25 basic/security_best_practices.mdx "Session Hijacking":
   * servers "SHOULD bind session IDs to user-specific information"; sessions "MUST NOT" be used for
   * authentication). Sessions of this process only (a session another instance opened is not known here).
   */
  sessionRefusal(input: HttpInput): HttpOutput | undefined {
    const sessionId = input.header('mcp-session-id');
    if (sessionId === undefined) return undefined;
    const opener = this.#sessionPrincipals.get(sessionId);
    return opener === undefined || opener === principalOf(input.authInfo as AuthInfo) ? undefined : refusalOutput('sessionNotFound');
  }

  /** Records who opened the session an answer started (an `initialize` answered with `Mcp-Session-Id`), and forgets an ended one. */
  bindSession(input: HttpInput, output: HttpOutput): HttpOutput {
    const asked = input.header('mcp-session-id');
    if (asked !== undefined) {
      if (input.method === 'DELETE' && output.status === 200) this.#sessionPrincipals.delete(asked);
      return output;
    }
    const opened = output.headers['mcp-session-id'];
    if (opened === undefined) return output;
    this.#sessionPrincipals.set(opened, principalOf(input.authInfo as AuthInfo));
    if (this.#sessionPrincipals.size > MAX_BOUND_SESSIONS) this.#sessionPrincipals.delete(this.#sessionPrincipals.keys().next().value as string);
    return output;
  }

  /**
   * Why the DPoP proof of a request does not prove possession of the key `bound` (the token's `cnf.jkt`), or
   * `undefined` (RFC 9449 §7.1: `invalid_dpop_proof` for the proof, `invalid_token` for a token not bound to a key).
   */
  async #proofRefusal(
    input: HttpInput,
    expected: { readonly token: string; readonly url: string; readonly bound: string | undefined },
  ): Promise<ProofRefusal | undefined> {
    if (expected.bound === undefined) return { error: 'invalid_token', description: 'the access token is not DPoP-bound (no cnf.jkt); present it as a bearer token' };
    const proof = input.header('dpop');
    if (proof === undefined) return { error: 'invalid_dpop_proof', description: 'the DPoP header is missing' };
    const verdict = await verifyDpopProof(proof, { method: input.method, url: expected.url, token: expected.token }, this.#dpop as DpopSettings);
    if ('refusedProof' in verdict) return { error: 'invalid_dpop_proof', description: verdict.refusedProof };
    // RFC 9449 §6.1: the token is bound to the proof's key.
    return verdict.jkt === expected.bound ? undefined : { error: 'invalid_dpop_proof', description: "the DPoP proof's key is not the one the access token is bound to" };
  }

  /** Why `verdict` does not let the request in, or `undefined`. */
  #refusalOf(verdict: AuthInfo | TokenRefusal, resource: string): string | undefined {
    if (isRefusal(verdict)) return verdict.refused;
    if (!isAuthInfo(verdict)) {
      this.#logger.error('MCP HTTP auth: the token verifier resolved neither an AuthInfo (token, scopes, audience) nor { refused }: the token is refused');
      return 'the access token could not be verified';
    }
    // OAuth 2.1 §5.2: an expired token is invalid (the leeway absorbs clock skew between the two servers).
    if (verdict.expiresAt !== undefined && verdict.expiresAt * 1000 + this.#toleranceMs <= Date.now()) return 'the access token expired';
    // RFC 8707 §2; MCP 2026-07-28 "Token Handling": tokens "issued specifically for them as the intended
    // audience"; servers "MUST only accept tokens that are valid for use with their own resources".
    if (!audienceAccepted(verdict.audience, resource, this.#allowed)) return 'the access token was not issued for this resource (audience)';
    return undefined;
  }
}
