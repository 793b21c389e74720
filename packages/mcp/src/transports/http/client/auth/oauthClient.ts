/**
 * The OAuth 2.1 client of an MCP client ({@link oauth}): an {@link HttpClientAuth} that follows a server's 401 through
 * discovery, registration, the grant and the token request, refreshes tokens, steps up on 403 `insufficient_scope`,
 * and refuses what the spec says to refuse. Runtime-neutral: `fetch`, Web Crypto, and a callback for the user-agent.
 *
 * @see MCP 2025-11-25 basic/authorization.mdx
 * @see MCP 2026-07-28 basic/authorization/ (index.mdx, authorization-server-discovery.mdx, client-registration.mdx,
 *   scope-selection.mdx)
 */
import { checkCountOption, checkMsOption } from '@switchboard/jsonrpc/internal';
import { AuthorizationError } from '../../../../protocol/clientErrors.js';
import { bearerChallengeOf, parseWwwAuthenticate, scopeList, type BearerChallenge } from '../../../../protocol/auth/challenge.js';
import { canonicalResourceUri, type AuthorizationServerMetadata } from '../../../../protocol/auth/metadata.js';
import { defaultClientFetch } from '../clientHttp.js';
import type { AuthRequestFacts, HttpClientAuth } from './authorizedFetch.js';
import { discoverAuthorizationServer, discoverResource, type OAuthHttp } from './discovery.js';
import { DpopKey } from './dpop.js';
import { clientIdentity } from './clientIdentity.js';
import { pkcePair, randomToken } from './oauthCrypto.js';
import { DEFAULT_MAX_STEP_UPS, DEFAULT_OAUTH_TIMEOUT_MS, refreshMarginOf, type OAuthOptions } from './oauthOptions.js';
import { InMemoryOAuthStore, type OAuthStore, type OAuthTokens } from './oauthStore.js';
import { requestToken, type ClientAuthentication, type TokenResponse } from './tokenEndpoint.js';

/** What the client knows of one MCP server (keyed by its canonical URI). */
interface ResourceState {
  readonly key: string;
  loaded: boolean;
  tokens: OAuthTokens | undefined;
  /**
   * What the last authorization request asked, and of which authorization server: what a step-up, or a sign-in after
   * a 401, adds the challenge's scope to (at that server only). Cleared by `forget()`; when a failed refresh drops the
   * tokens and nothing was asked of their server in this process, their scope is kept here.
   */
  asked: { readonly issuer: string; readonly scope: string | undefined } | undefined;
  /** The authorization running for this server: concurrent 401s wait for it instead of starting their own. */
  flow: Promise<void> | undefined;
  /** What `flow` is: a refresh before a request, or an authorization (a 401's or 403's, or `signIn()`). */
  flowKind: 'refresh' | 'authorize' | undefined;
  /** Whether the server offered DPoP (a `DPoP` challenge, or DPoP fields in its metadata). */
  dpop: boolean;
  /** The access token the last grant gave (a sign-in, not a refresh): one a request may not sign in again over. */
  grantedToken: string | undefined;
}

/** Servers whose state is kept in memory (the store keeps the tokens); the oldest is dropped beyond. */
const MAX_RESOURCES = 64;
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** The union of two space-separated scope lists, in order of first appearance. */
function scopeUnion(a: string | undefined, b: string | undefined): string | undefined {
  const all = [...new Set([...scopeList(a), ...scopeList(b)])];
  return all.length === 0 ? undefined : all.join(' ');
}

/**
 * How a refresh failed. `refused`: the authorization server refused the grant (RFC 6749 §5.2: a 400 or 401 answer
 * whatever its body, `invalid_grant` when the refresh token is spent or revoked; or an `error` code in a 2xx answer).
 * `failed`: it answered otherwise (5xx whatever its body, 408, 429, a 2xx that is no token response, and the codes
 * `server_error`, `temporarily_unavailable` of RFC 6749 §4.1.2.1 and `use_dpop_nonce`, a nonce changed again).
 * `unreached`: no answer (network, timeout, an unreadable body) or a failure before the token endpoint.
 */
function refreshFailure(error: unknown): 'refused' | 'failed' | 'unreached' {
  if (!(error instanceof AuthorizationError) || error.status === undefined) return 'unreached';
  const { status, oauthError } = error;
  if (oauthError === 'server_error' || oauthError === 'temporarily_unavailable' || oauthError === 'use_dpop_nonce') return 'failed';
  if (status >= 200 && status <= 299) return oauthError === undefined ? 'failed' : 'refused';
  return status >= 400 && status <= 499 && status !== 408 && status !== 429 ? 'refused' : 'failed';
}

/**
 * The {@link HttpClientAuth} that `oauth()` returns. One instance may serve several connectors and servers: state is
 * kept per server (its canonical URI), tokens in the {@link OAuthStore}.
 */
export class OAuthClientAuth implements HttpClientAuth {
  readonly #options: OAuthOptions;
  readonly #store: OAuthStore;
  readonly #http: OAuthHttp;
  readonly #maxStepUps: number;
  readonly #dpop = new DpopKey();
  readonly #resources = new Map<string, ResourceState>();
  readonly #metadata = new Map<string, Promise<AuthorizationServerMetadata>>();

  constructor(options: OAuthOptions = {}) {
    this.#options = options;
    this.#store = options.store ?? new InMemoryOAuthStore();
    this.#http = { fetch: options.fetch ?? defaultClientFetch(), timeoutMs: checkMsOption('timeoutMs', options.timeoutMs ?? DEFAULT_OAUTH_TIMEOUT_MS, { above: 0 }) };
    this.#maxStepUps = checkCountOption('maxStepUps', options.maxStepUps ?? DEFAULT_MAX_STEP_UPS, { min: 0 });
    checkMsOption('refreshMarginMs', options.refreshMarginMs);
  }

  async headers(request: AuthRequestFacts): Promise<Readonly<Record<string, string>>> {
    const state = this.#state(request.url);
    let tokens = await this.#tokens(state);
    if (tokens === undefined) return {};
    if (tokens.expiresAt !== undefined && tokens.expiresAt - refreshMarginOf(tokens, this.#options.refreshMarginMs) < Date.now() && tokens.refreshToken !== undefined) {
      // Refreshed before it is sent; when that fails the token goes out as it is and the server's 401 decides.
      await this.#single(state, 'refresh', () => this.#refresh(state, tokens as OAuthTokens, { beforeUse: true })).catch(() => undefined);
      tokens = state.tokens;
      if (tokens === undefined) return {};
    }
    if (tokens.tokenType.toLowerCase() === 'dpop') {
      // RFC 9449 §7.1: a DPoP-bound token goes in `Authorization: DPoP`, with a proof of this request bound to it.
      return { Authorization: `DPoP ${tokens.accessToken}`, DPoP: await this.#dpop.proof(request.method, request.url, tokens.accessToken) };
    }
    // RFC 6750 §2.1, MCP 2025-11-25 basic/authorization.mdx "Token Requirements": the token in `Authorization: Bearer`.
    return { Authorization: `Bearer ${tokens.accessToken}` };
  }

  answered(request: AuthRequestFacts, response: Response): void {
    // RFC 9449 §8.2, §9: a server may hand out the next nonce on any answer, a success included; the next proof to
    // that origin carries it instead of first being refused with `use_dpop_nonce`. Only while proofs go there.
    if (request.authorization === undefined || !/^dpop /i.test(request.authorization)) return;
    const nonce = response.headers.get('dpop-nonce');
    if (nonce !== null) this.#dpop.nonce(request.url.origin, nonce);
  }

  async challenged(request: AuthRequestFacts, response: Response): Promise<boolean> {
    const state = this.#state(request.url);
    const challenge = bearerChallengeOf(response.headers);
    const dpopOffered = parseWwwAuthenticate(response.headers.get('www-authenticate')).some((c) => /^dpop$/i.test(c.scheme));
    if (response.status === 401 && challenge?.error === 'use_dpop_nonce') {
      // RFC 9449 §9: the resource server wants a nonce in the proof; the request is sent again with it.
      const nonce = response.headers.get('dpop-nonce');
      if (nonce !== null && request.authorization !== undefined) {
        this.#dpop.nonce(request.url.origin, nonce);
        return true;
      }
    }
    const needed = challenge?.error === 'insufficient_scope' ? scopeList(challenge.scope) : [];
    while (state.flow !== undefined) {
      // An authorization already running answers this 401 too, and this 403 when it left the scope needed (below);
      // its failure (a sign-in declined) is this request's too: concurrent requests do not each prompt again. A
      // refresh before a request is let finish, and the answer decided with what it left.
      if (state.flowKind === 'authorize') {
        await state.flow;
        if (response.status === 401) return true;
      } else await state.flow.catch(() => undefined);
    }
    const current = state.tokens;
    const granted = scopeList(current?.scope);
    const lacking = response.status === 403 && current?.scope !== undefined && needed.some((s) => !granted.includes(s));
    if (current !== undefined && (request.authorization === undefined || !request.authorization.endsWith(` ${current.accessToken}`)) && !lacking) {
      // Another request obtained new credentials since this one was sent: send it again with them (after a 403, not
      // when their recorded scope lacks what it needs; a sign-in of another request, or signIn(), may have asked less).
      return true;
    }
    const interactive = (this.#options.grant ?? 'authorization_code') === 'authorization_code';
    const canSignIn = !interactive || this.#options.authorize !== undefined;
    if (!canSignIn && (response.status === 403 || current?.refreshToken === undefined)) {
      // No way to sign in and nothing to refresh: the answer goes to the caller as it is (HttpStatusError 401/403).
      return false;
    }
    if (response.status === 403) {
      // MCP 2025-11-25 basic/authorization.mdx "Scope Challenge Handling": a 403 `insufficient_scope` names the scopes
      // the request needs; the client re-authorizes with them (2026-07-28: with the union of what it already asked).
      if (challenge?.error !== 'insufficient_scope') return false;
      if (needed.length > 0 && current !== undefined && needed.every((s) => granted.includes(s))) {
        throw new AuthorizationError({ reason: 'step_up_limit', message: `the server refused a token already granted "${needed.join(' ')}" (403 insufficient_scope): authorizing again would not help` });
      }
      // Counted in 403s: a resend after a 401 (a sign-in, or another request's credentials) is no step-up.
      const stepUps = request.forbidden ?? request.resent;
      if (stepUps >= this.#maxStepUps) {
        throw new AuthorizationError({ reason: 'step_up_limit', message: `the server still answered 403 insufficient_scope after ${stepUps} re-authorizations of one request` });
      }
      await this.#single(state, 'authorize', () => this.#authorize(state, { serverUrl: request.url, challenge, dpopOffered, scope: challenge.scope, widen: true }));
      return true;
    }
    // New to this request (not the token it was first sent with, which a DPoP nonce retry sends again), and refused
    // for no scope the sign-in did not already ask (an authorization server that grants less will again).
    const sentNew = request.authorization !== undefined && request.authorization !== request.firstAuthorization;
    const asked = scopeList(state.asked?.scope);
    const wantsMore = challenge?.scope !== undefined && scopeList(challenge.scope).some((s) => !asked.includes(s));
    if ((request.unauthorized ?? 0) > 0 && sentNew && !wantsMore && current !== undefined && current.accessToken === state.grantedToken && request.authorization.endsWith(` ${current.accessToken}`)) {
      // This request met a 401, waited for a sign-in, and the token it obtained is refused: the server will not take
      // what its authorization server gives (another audience, a clock, a bug). Signing in again would only prompt
      // once more.
      throw new AuthorizationError({ reason: 'token_refused', message: `${state.key} refused (401) the token its authorization server had just issued for it: obtaining another would not help` });
    }
    // A token that a refresh made for this very request and that was refused at once is not refreshed again.
    const refreshable = request.resent === 0 && current?.refreshToken !== undefined ? current : undefined;
    // MCP 2025-11-25 basic/authorization.mdx "Scope Selection Strategy": the challenge's scope. Beyond the spec, which
    // asks for the union with what was asked before only on a step-up (2026-07-28), a sign-in after a 401 widens
    // the same way: a stepped-up token refused before its first use (expired, revoked) must not come back without the
    // scope it was obtained for, and a 401 names only the resource's base scope.
    await this.#single(state, 'authorize', () => this.#authorize(state, { serverUrl: request.url, challenge, dpopOffered, scope: challenge?.scope, widen: true, refreshable }));
    return true;
  }

  /**
   * Signs in to `serverUrl` now, without waiting for a 401: discovery from the well-known URLs (no challenge), then
   * the grant, the tokens saved in the store. What `switchboard login` does.
   * @param options - `scope`: the scope to ask for. @default the resource's `scopes_supported`, else none
   * @returns The tokens obtained.
   * @throws AuthorizationError as a request would
   */
  async signIn(serverUrl: string | URL, options: { readonly scope?: string } = {}): Promise<OAuthTokens> {
    const url = new URL(serverUrl);
    const state = this.#state(url);
    await this.#tokens(state);
    // A refresh or sign-in already running is let finish, whatever its outcome: this is a sign-in of its own.
    while (state.flow !== undefined) await state.flow.catch(() => undefined);
    await this.#single(state, 'authorize', () => this.#authorize(state, { serverUrl: url, challenge: undefined, scope: options.scope }));
    if (state.tokens === undefined) throw new AuthorizationError({ reason: 'token', message: `no token was obtained for ${state.key}` });
    return state.tokens;
  }

  /**
   * Forgets the tokens of `serverUrl` (signs out locally); the next request that needs authorization starts over.
   */
  async forget(serverUrl: string | URL): Promise<void> {
    const state = this.#state(new URL(serverUrl));
    state.tokens = undefined;
    state.asked = undefined;
    state.loaded = true;
    await this.#store.saveTokens(state.key, undefined);
  }

  #state(url: URL): ResourceState {
    const key = canonicalResourceUri(url);
    let state = this.#resources.get(key);
    if (state === undefined) {
      state = { key, loaded: false, tokens: undefined, asked: undefined, flow: undefined, flowKind: undefined, dpop: false, grantedToken: undefined };
      this.#resources.set(key, state);
      if (this.#resources.size > MAX_RESOURCES) {
        const oldest = this.#resources.keys().next().value;
        if (oldest !== undefined) this.#resources.delete(oldest);
      }
    }
    return state;
  }

  async #tokens(state: ResourceState): Promise<OAuthTokens | undefined> {
    if (!state.loaded) {
      state.tokens = await this.#store.loadTokens(state.key);
      state.loaded = true;
    }
    return state.tokens;
  }

  async #save(state: ResourceState, tokens: OAuthTokens | undefined): Promise<void> {
    state.tokens = tokens;
    state.loaded = true;
    await this.#store.saveTokens(state.key, tokens);
  }

  /** Runs `flow` unless one runs for this server already, in which case that one is awaited. */
  #single(state: ResourceState, kind: 'refresh' | 'authorize', flow: () => Promise<void>): Promise<void> {
    if (state.flow !== undefined) return state.flow;
    const running = flow().finally(() => {
      if (state.flow === running) {
        state.flow = undefined;
        state.flowKind = undefined;
      }
    });
    state.flow = running;
    state.flowKind = kind;
    return running;
  }

  #metadataOf(issuer: string, requirePkce: boolean): Promise<AuthorizationServerMetadata> {
    const key = `${requirePkce ? 'pkce' : 'any'} ${issuer}`;
    let found = this.#metadata.get(key);
    if (found === undefined) {
      found = discoverAuthorizationServer(this.#http, issuer, requirePkce);
      this.#metadata.set(key, found);
      found.catch(() => this.#metadata.delete(key));
      if (this.#metadata.size > MAX_RESOURCES) {
        const oldest = this.#metadata.keys().next().value;
        if (oldest !== undefined) this.#metadata.delete(oldest);
      }
    }
    return found;
  }

  /**
   * Discovery, then (when `refreshable` is from the same issuer) a refresh, else the grant. Its scope (MCP 2025-11-25
   * basic/authorization.mdx "Scope Selection Strategy"): `scope` (the challenge's), else the resource's
   * `scopes_supported`, else none; with `widen`, `scope` joined to what was asked of this authorization server before
   * (else to the scope of the tokens held, as after a restart), which on a first sign-in is nothing.
   */
  async #authorize(
    state: ResourceState,
    at: {
      readonly serverUrl: URL;
      readonly challenge: BearerChallenge | undefined;
      readonly dpopOffered?: boolean;
      readonly scope: string | undefined;
      /** Whether `scope` adds to what was asked before (a step-up, a sign-in after a 401) instead of replacing it. */
      readonly widen?: boolean;
      readonly refreshable?: OAuthTokens | undefined;
    },
  ): Promise<void> {
    const { serverUrl, challenge, refreshable } = at;
    const discovered = await discoverResource(this.#http, serverUrl, challenge?.resourceMetadata);
    let issuer: string;
    let resource: string;
    if (discovered === undefined) {
      // No protected resource metadata (a 2025-03-26 server): its origin is the authorization server.
      issuer = serverUrl.origin;
      resource = canonicalResourceUri(serverUrl);
    } else {
      const servers = discovered.metadata.authorization_servers ?? [];
      const first = servers[0];
      if (first === undefined) throw new AuthorizationError({ reason: 'discovery', message: `the protected resource metadata at ${discovered.url.href} lists no authorization_servers` });
      issuer = first;
      resource = discovered.metadata.resource;
    }
    const prm = discovered?.metadata;
    state.dpop = at.dpopOffered === true || prm?.dpop_bound_access_tokens_required === true || Array.isArray(prm?.dpop_signing_alg_values_supported);
    const grant = this.#options.grant ?? 'authorization_code';
    const metadata = await this.#metadataOf(issuer, grant === 'authorization_code');
    if (state.tokens !== undefined && state.tokens.issuer !== metadata.issuer) {
      // MCP 2026-07-28 client-registration.mdx: credentials of one authorization server are never used at another.
      await this.#save(state, undefined);
    }
    if (refreshable !== undefined && refreshable.issuer === metadata.issuer) {
      try {
        await this.#refresh(state, refreshable, { beforeUse: false, metadata });
        return;
      } catch (error) {
        // Refused (spent, revoked): a new grant follows (without an `authorize` callback, `no_authorizer` says one is
        // needed). Failed (a server that cannot refresh, for a while or for good): a new grant too, the tokens kept
        // unless it succeeds; with no way to sign in, the refresh's own error, which says it is an outage. Unreached:
        // that error, the tokens kept for the next try (a grant could not finish either).
        const canGrant = grant !== 'authorization_code' || (this.#options.authorize !== undefined && this.#options.redirectUri !== undefined);
        const outcome = refreshFailure(error);
        if (outcome === 'unreached' || (outcome === 'failed' && !canGrant)) throw error;
      }
    }
    // What was asked of another authorization server is not carried to this one: its scopes are its own. Chosen after
    // the refresh, which records what dropped tokens were granted (and changes nothing after a forget()), and, for a
    // sign-in, once the client's identity and PKCE are ready, as the URL is made: a forget() until then is seen.
    const selected = (): string | undefined => {
      const asked = state.asked?.issuer === metadata.issuer ? state.asked.scope : undefined;
      const scope = at.widen === true ? scopeUnion(asked ?? state.tokens?.scope, at.scope) : at.scope;
      return scope ?? (discovered?.metadata.scopes_supported?.length ? discovered.metadata.scopes_supported.join(' ') : undefined);
    };
    const tokens = await this.#grant({ state, metadata, resource, scope: selected, grant });
    state.asked = { issuer: metadata.issuer, scope: tokens.requested };
    state.grantedToken = tokens.tokens.accessToken;
    await this.#save(state, tokens.tokens);
  }

  async #grant(at: {
    readonly state: ResourceState;
    readonly metadata: AuthorizationServerMetadata;
    readonly resource: string;
    /** The scope to ask for, asked as late as possible. */
    readonly scope: () => string | undefined;
    readonly grant: string;
  }): Promise<{ tokens: OAuthTokens; requested: string | undefined }> {
    const { state, metadata, resource, grant } = at;
    if (grant === 'client_credentials') {
      const auth = await this.#client(metadata, false);
      const scope = at.scope();
      const response = await requestToken(this.#http, { metadata, auth, params: { grant_type: 'client_credentials', resource, scope }, dpop: this.#dpopFor(metadata, state) });
      return { tokens: this.#tokensOf(response, { metadata, resource, requested: scope }), requested: scope };
    }
    if (grant === 'jwt_bearer') {
      if (this.#options.assertion === undefined) throw new AuthorizationError({ reason: 'token', message: 'the jwt_bearer grant needs an `assertion` callback' });
      const scope = at.scope();
      const assertion = await this.#options.assertion({ issuer: metadata.issuer, resource, ...(scope === undefined ? {} : { scope }) });
      const auth = await this.#client(metadata, false);
      // RFC 7523 §2.1: grant_type jwt-bearer with the assertion; a refusal is surfaced, never retried (SEP-1933).
      const response = await requestToken(this.#http, { metadata, auth, params: { grant_type: JWT_BEARER, assertion, resource, scope }, dpop: this.#dpopFor(metadata, state) });
      return { tokens: this.#tokensOf(response, { metadata, resource, requested: scope }), requested: scope };
    }
    const offline = this.#options.offlineAccess !== false && (metadata.scopes_supported ?? []).includes('offline_access');
    return this.#authorizationCode({ state, metadata, resource, scope: () => (offline ? scopeUnion(at.scope(), 'offline_access') : at.scope()) });
  }

  /** The authorization code grant with PKCE S256 (RFC 6749 §4.1, RFC 7636), `resource` (RFC 8707) and `iss` (RFC 9207). */
  async #authorizationCode(at: { readonly state: ResourceState; readonly metadata: AuthorizationServerMetadata; readonly resource: string; readonly scope: () => string | undefined }): Promise<{ tokens: OAuthTokens; requested: string | undefined }> {
    const { metadata, resource } = at;
    const { authorize, redirectUri } = this.#options;
    if (metadata.authorization_endpoint === undefined) throw new AuthorizationError({ reason: 'discovery', message: `the authorization server ${metadata.issuer} has no authorization_endpoint` });
    if (authorize === undefined || redirectUri === undefined) {
      throw new AuthorizationError({ reason: 'no_authorizer', message: `${resource} needs a sign-in at ${metadata.issuer} and no \`authorize\` callback and \`redirectUri\` were given` });
    }
    const auth = await this.#client(metadata, true);
    const pkce = await pkcePair();
    const scope = at.scope();
    const stateParam = randomToken(16);
    const url = new URL(metadata.authorization_endpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', auth.client.clientId);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('code_challenge', pkce.challenge);
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('state', stateParam);
    // MCP 2025-11-25 basic/authorization.mdx "Resource Parameter Implementation": MUST be included in authorization
    // and token requests.
    url.searchParams.set('resource', resource);
    if (scope !== undefined) url.searchParams.set('scope', scope);
    let answer: URL;
    try {
      answer = new URL(String(await authorize({ authorizationUrl: url, redirectUri, state: stateParam, resource })));
    } catch (error) {
      if (error instanceof AuthorizationError) throw error;
      throw new AuthorizationError({ reason: 'authorization', message: `the sign-in did not complete: ${error instanceof Error ? error.message : String(error)}`, cause: error });
    }
    const params = answer.searchParams;
    // RFC 9207 §2.4 (MCP 2026-07-28 basic/authorization/index.mdx): a present `iss` MUST equal the recorded issuer by
    // simple string comparison; an absent one is refused when the server advertised
    // `authorization_response_iss_parameter_supported`.
    const iss = params.get('iss');
    if (iss !== null && iss !== metadata.issuer) {
      throw new AuthorizationError({ reason: 'iss_mismatch', message: `the authorization response came from "${iss.slice(0, 200)}", not the issuer "${metadata.issuer}" the request went to (RFC 9207)` });
    }
    if (iss === null && metadata.authorization_response_iss_parameter_supported === true) {
      throw new AuthorizationError({ reason: 'iss_mismatch', message: `the authorization response has no "iss" although ${metadata.issuer} advertises authorization_response_iss_parameter_supported (RFC 9207 §2.4)` });
    }
    if (params.get('state') !== stateParam) throw new AuthorizationError({ reason: 'authorization', message: 'the authorization response carries another "state" than the request (RFC 6749 §10.12)' });
    const error = params.get('error');
    if (error !== null) {
      const description = params.get('error_description');
      throw new AuthorizationError({ reason: 'authorization', message: `the authorization server answered "${error.slice(0, 100)}"${description === null ? '' : `: ${description.slice(0, 300)}`}` });
    }
    const code = params.get('code');
    if (code === null || code === '') throw new AuthorizationError({ reason: 'authorization', message: 'the authorization response has no "code"' });
    const response = await requestToken(this.#http, {
      metadata,
      auth,
      params: { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: pkce.verifier, resource },
      dpop: this.#dpopFor(metadata, at.state),
    });
    return { tokens: this.#tokensOf(response, { metadata, resource, requested: scope }), requested: scope };
  }

  /**
   * A refresh (RFC 6749 §6) with the same `resource`; a new refresh token replaces the old one, else it is kept.
   * `beforeUse`: of a token not yet refused (about to expire), which a refusal of the refresh token leaves in use.
   */
  async #refresh(state: ResourceState, tokens: OAuthTokens, at: { readonly beforeUse: boolean; readonly metadata?: AuthorizationServerMetadata }): Promise<void> {
    const metadata = at.metadata ?? (await this.#metadataOf(tokens.issuer, false));
    const auth = await this.#client(metadata, (this.#options.grant ?? 'authorization_code') === 'authorization_code');
    let response: TokenResponse;
    try {
      response = await requestToken(this.#http, {
        metadata,
        auth,
        params: { grant_type: 'refresh_token', refresh_token: tokens.refreshToken, resource: tokens.resource },
        // RFC 9449 §5: the refresh token of a DPoP-bound grant is bound to the same key.
        dpop: tokens.tokenType.toLowerCase() === 'dpop' ? this.#dpop : undefined,
      });
    } catch (error) {
      // Signed out (`forget()`) or replaced while the refresh ran: the state is no longer these tokens' to change.
      if (state.tokens !== tokens) throw error;
      // Dropped only when the authorization server refused the grant (RFC 6749 §5.2: the refresh token is spent,
      // revoked, or the client unknown); unreachable, timed out or failing (5xx), it keeps them for the next try.
      if (refreshFailure(error) !== 'refused') throw error;
      // The sign-in that follows (a 401 after a restart, say) still widens from what these tokens were granted.
      if (state.asked?.issuer !== tokens.issuer) state.asked = { issuer: tokens.issuer, scope: tokens.scope };
      // Before use, an access token not yet expired is still good (until the server's 401 says otherwise): it stays,
      // without the refused refresh token. A client given tokens that live under the refresh margin would otherwise
      // never send one, signing in again at every request.
      const { refreshToken: _refused, ...access } = tokens;
      const usable = at.beforeUse && (tokens.expiresAt === undefined || tokens.expiresAt > Date.now());
      await this.#save(state, usable ? access : undefined);
      throw error;
    }
    // Signed out while the refresh ran: its tokens are not brought back.
    if (state.tokens !== tokens) return;
    const fresh = this.#tokensOf(response, { metadata, resource: tokens.resource, requested: tokens.scope });
    await this.#save(state, fresh.refreshToken === undefined && tokens.refreshToken !== undefined ? { ...fresh, refreshToken: tokens.refreshToken } : fresh);
  }

  #tokensOf(response: TokenResponse, facts: { readonly metadata: AuthorizationServerMetadata; readonly resource: string | undefined; readonly requested: string | undefined }): OAuthTokens {
    const { metadata, resource, requested } = facts;
    const scope = response.scope ?? requested;
    const now = Date.now();
    return {
      issuer: metadata.issuer,
      ...(resource === undefined ? {} : { resource }),
      accessToken: response.access_token,
      tokenType: response.token_type,
      ...(response.refresh_token === undefined ? {} : { refreshToken: response.refresh_token }),
      ...(response.expires_in === undefined ? {} : { expiresAt: now + response.expires_in * 1000, issuedAt: now }),
      ...(scope === undefined ? {} : { scope }),
    };
  }

  /**
   * The DPoP key when a token should be DPoP-bound: the resource offered DPoP (a `DPoP` challenge, RFC 9449 §7.1, or
   * `dpop_bound_access_tokens_required` / `dpop_signing_alg_values_supported` in its metadata) and the authorization
   * server accepts ES256 proofs (RFC 9449 §5.1) — never for a server that knows only Bearer tokens.
   */
  #dpopFor(metadata: AuthorizationServerMetadata, state: ResourceState): DpopKey | undefined {
    if (this.#options.dpop === false || !state.dpop) return undefined;
    return (metadata.dpop_signing_alg_values_supported ?? []).includes('ES256') ? this.#dpop : undefined;
  }

  /** The client's identity at this authorization server (see `clientIdentity`). */
  #client(metadata: AuthorizationServerMetadata, interactive: boolean): Promise<ClientAuthentication> {
    return clientIdentity({ options: this.#options, store: this.#store, http: this.#http, metadata, interactive });
  }
}

/**
 * An OAuth 2.1 client for the HTTP client transports: pass it as `auth` to `streamableHttp()` or `httpSse()`. When a
 * server answers 401 it discovers the authorization server, identifies the client (pre-registered, CIMD, or dynamic
 * registration), runs the grant (`authorization_code` with PKCE through `authorize`, or `client_credentials`, or
 * `jwt_bearer`), and sends the request again with the token; 403 `insufficient_scope` re-authorizes with more scope.
 *
 * @param options - See {@link OAuthOptions}.
 * @returns An {@link OAuthClientAuth} (an `HttpClientAuth`), reusable across connectors.
 * @throws TypeError or RangeError at once when `refreshMarginMs` is not a number of ms from 0 to 2^31 − 1, `timeoutMs`
 *   not one above 0, or `maxStepUps` not a whole number of 0 or more
 * @throws (from requests) AuthorizationError, code `authorization_failed`, with a `reason`
 * @see MCP 2025-11-25 basic/authorization.mdx
 * @example
 * const auth = oauth({ redirectUri: 'http://127.0.0.1:8765/callback', authorize: async ({ authorizationUrl }) => openAndWait(authorizationUrl) });
 * const client = await McpClient.connect({ connector: streamableHttp({ url: 'https://mcp.example.com/mcp', auth }) });
 */
export function oauth(options: OAuthOptions = {}): OAuthClientAuth {
  return new OAuthClientAuth(options);
}
