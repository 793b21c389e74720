/**
 * Enterprise-managed authorization (SEP-990, "cross-app access"): the user's enterprise IdP exchanges the ID token
 * it issued for an Identity Assertion JWT Authorization Grant (ID-JAG) for one authorization server and resource
 * (RFC 8693 token exchange), and the client presents the ID-JAG in a `jwt-bearer` grant (RFC 7523 §2.1) there — no
 * browser. {@link idJagAssertion} is the first step, as the `assertion` of `oauth({ grant: 'jwt_bearer' })`.
 *
 * @see draft-ietf-oauth-identity-assertion-authz-grant (ID-JAG); RFC 8693 §2.1
 */
import { AuthorizationError } from '../../../../protocol/clientErrors.js';
import { defaultClientFetch, type FetchLike } from '../clientHttp.js';
import { callJson } from './discovery.js';
import { DEFAULT_OAUTH_TIMEOUT_MS, type OAuthAssertionRequest } from './oauthOptions.js';

/** Options of {@link idJagAssertion}. */
export interface IdJagAssertionOptions {
  /** The IdP's token endpoint. */
  readonly tokenEndpoint: string;
  /** The user's ID token from the IdP (the subject token), or a function that returns a current one. */
  readonly idToken: string | (() => string | Promise<string>);
  /** The client's id at the IdP. */
  readonly clientId: string;
  /** The client's secret at the IdP (sent as `client_secret_post`). @default none (a public client) */
  readonly clientSecret?: string;
  /** @default the runtime's client fetch */
  readonly fetch?: FetchLike;
  /** Bound (ms) of the exchange. @default 30_000 */
  readonly timeoutMs?: number;
}

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';

/**
 * The `assertion` callback of enterprise-managed authorization: a token exchange at the IdP (RFC 8693 §2.1:
 * `subject_token` the ID token, `requested_token_type` ID-JAG, `audience` the authorization server's issuer,
 * `resource` the MCP server) whose `access_token` is the ID-JAG.
 * @throws AuthorizationError `token` (from the token request) when the IdP refuses
 * @example
 * const auth = oauth({ grant: 'jwt_bearer', client: { clientId, clientSecret }, assertion: idJagAssertion({ tokenEndpoint, idToken, clientId: idpClientId }) });
 */
export function idJagAssertion(options: IdJagAssertionOptions): (request: OAuthAssertionRequest) => Promise<string> {
  return async (request) => {
    const idToken = typeof options.idToken === 'function' ? await options.idToken() : options.idToken;
    const body = new URLSearchParams({
      grant_type: TOKEN_EXCHANGE,
      subject_token: idToken,
      subject_token_type: ID_TOKEN,
      requested_token_type: ID_JAG,
      audience: request.issuer,
      resource: request.resource,
      client_id: options.clientId,
    });
    if (request.scope !== undefined) body.set('scope', request.scope);
    if (options.clientSecret !== undefined) body.set('client_secret', options.clientSecret);
    const endpoint = new URL(options.tokenEndpoint);
    const http = { fetch: options.fetch ?? defaultClientFetch(), timeoutMs: options.timeoutMs ?? DEFAULT_OAUTH_TIMEOUT_MS };
    const answer = await callJson(http, { url: endpoint, init: { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' }, body: body.toString() }, reason: 'token' });
    const value = answer.body as Record<string, unknown> | undefined;
    if (answer.status < 200 || answer.status > 299 || typeof value?.access_token !== 'string') {
      const error = typeof value?.error === 'string' ? value.error : `HTTP ${answer.status}`;
      throw new AuthorizationError({ reason: 'token', message: `the token exchange at ${endpoint.href} failed (${error.slice(0, 200)})` });
    }
    return value.access_token;
  };
}
