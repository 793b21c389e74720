/**
 * Calls to an authorization server's token and registration endpoints: a token request (RFC 6749 §4.1.3, §6, §4.4;
 * RFC 7523 §2.1) with the client's authentication (RFC 6749 §2.3.1 `client_secret_basic` / `client_secret_post`,
 * `none` for a public client, RFC 7523 §2.2 `private_key_jwt`), the RFC 8707 `resource`, an optional DPoP proof
 * (RFC 9449 §5) with its nonce retry (§8); and dynamic client registration (RFC 7591 §3).
 */
import { AuthorizationError } from '../../../../protocol/clientErrors.js';
import type { AuthorizationServerMetadata } from '../../../../protocol/auth/metadata.js';
import { callJson, type OAuthHttp } from './discovery.js';
import { randomToken, signJwt, type SigningKey } from './oauthCrypto.js';
import type { OAuthClientInformation } from './oauthStore.js';

/** A successful token response (RFC 6749 §5.1). */
export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: string;
  readonly expires_in?: number;
  readonly refresh_token?: string;
  readonly scope?: string;
}

/** How the client authenticates at the token endpoint. */
export interface ClientAuthentication {
  readonly client: OAuthClientInformation;
  /** The key of `private_key_jwt` (RFC 7523 §2.2). */
  readonly privateKey?: SigningKey;
}

/** Makes DPoP proofs for the token endpoint (RFC 9449 §4), remembering the nonce the server last gave. */
export interface DpopProver {
  proof(method: string, url: URL, accessToken?: string): Promise<string>;
  /** Records a `DPoP-Nonce` a server sent for `origin`. */
  nonce(origin: string, value: string | null): void;
}

/** `application/x-www-form-urlencoded` with the `+`-for-space of RFC 6749 Appendix B, for Basic credentials too. */
function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, '+');
}

/**
 * The token endpoint auth method to use: the registered one if any, else the first of `client_secret_basic`,
 * `client_secret_post`, `none` the server supports that the client can do (RFC 8414 §2: an absent
 * `token_endpoint_auth_methods_supported` means `client_secret_basic`).
 */
export function chooseAuthMethod(metadata: AuthorizationServerMetadata, client: OAuthClientInformation, hasKey: boolean): string {
  if (client.tokenEndpointAuthMethod !== undefined) return client.tokenEndpointAuthMethod;
  const supported = metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  const possible = [...(hasKey ? ['private_key_jwt'] : []), ...(client.clientSecret === undefined ? [] : ['client_secret_basic', 'client_secret_post']), 'none'];
  return possible.find((m) => supported.includes(m)) ?? (client.clientSecret === undefined ? 'none' : 'client_secret_basic');
}

/**
 * Sends a token request. `params` holds the grant's fields (`grant_type`, `code`, `refresh_token`, `resource`, …);
 * client authentication is added per `auth`; a DPoP proof when `dpop` is given, and once more with the server's nonce
 * on `use_dpop_nonce` (RFC 9449 §8).
 * @throws AuthorizationError `token` when the endpoint refuses or answers something that is not a token response
 */
export async function requestToken(
  http: OAuthHttp,
  request: {
    readonly metadata: AuthorizationServerMetadata;
    readonly auth: ClientAuthentication;
    readonly params: Readonly<Record<string, string | undefined>>;
    readonly dpop?: DpopProver | undefined;
  },
): Promise<TokenResponse> {
  const { metadata, auth, params, dpop } = request;
  if (metadata.token_endpoint === undefined) throw new AuthorizationError({ reason: 'token', message: `the authorization server ${metadata.issuer} has no token_endpoint` });
  const endpoint = new URL(metadata.token_endpoint);
  const method = chooseAuthMethod(metadata, auth.client, auth.privateKey !== undefined);
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) body.set(name, value);
  const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' };
  const { clientId, clientSecret } = auth.client;
  if (method === 'client_secret_basic' && clientSecret !== undefined) {
    // RFC 6749 §2.3.1: the id and secret are form-encoded, then joined with ':' and base64-encoded.
    headers.Authorization = `Basic ${btoa(`${formEncode(clientId)}:${formEncode(clientSecret)}`)}`;
  } else if (method === 'client_secret_post' && clientSecret !== undefined) {
    body.set('client_id', clientId);
    body.set('client_secret', clientSecret);
  } else if (method === 'private_key_jwt' && auth.privateKey !== undefined) {
    // RFC 7523 §3: iss and sub are the client id, aud identifies the authorization server (its issuer identifier).
    const now = Math.floor(Date.now() / 1000);
    const assertion = await signJwt(auth.privateKey, { typ: 'JWT' }, { iss: clientId, sub: clientId, aud: metadata.issuer, iat: now, exp: now + 300, jti: randomToken(16) });
    body.set('client_id', clientId);
    body.set('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    body.set('client_assertion', assertion);
  } else {
    body.set('client_id', clientId);
  }
  for (let attempt = 0; ; attempt++) {
    const sent = { ...headers, ...(dpop === undefined ? {} : { DPoP: await dpop.proof('POST', endpoint) }) };
    const answer = await callJson(http, { url: endpoint, init: { method: 'POST', headers: sent, body: body.toString() }, reason: 'token' });
    dpop?.nonce(endpoint.origin, answer.headers.get('dpop-nonce'));
    const value = answer.body as Record<string, unknown> | undefined;
    if (answer.status === 400 && value?.error === 'use_dpop_nonce' && dpop !== undefined && attempt === 0) continue;
    if (answer.status < 200 || answer.status > 299 || typeof value?.access_token !== 'string' || typeof value.token_type !== 'string') {
      const error = typeof value?.error === 'string' ? `${value.error}${typeof value.error_description === 'string' ? `: ${value.error_description}` : ''}` : `HTTP ${answer.status}`;
      throw new AuthorizationError({
        reason: 'token',
        message: `the token endpoint ${endpoint.href} refused the ${params.grant_type ?? 'token'} request (${error.slice(0, 300)})`,
        status: answer.status,
        ...(typeof value?.error === 'string' ? { oauthError: value.error.slice(0, 100) } : {}),
      });
    }
    return {
      access_token: value.access_token,
      token_type: value.token_type,
      ...(typeof value.expires_in === 'number' ? { expires_in: value.expires_in } : {}),
      ...(typeof value.refresh_token === 'string' ? { refresh_token: value.refresh_token } : {}),
      ...(typeof value.scope === 'string' ? { scope: value.scope } : {}),
    };
  }
}

/**
 * Registers the client (RFC 7591 §3.1) with `clientMetadata`, asking for the auth method the server supports.
 * @throws AuthorizationError `registration` when the server refuses or answers no `client_id`
 */
export async function registerClient(http: OAuthHttp, metadata: AuthorizationServerMetadata, clientMetadata: Readonly<Record<string, unknown>>): Promise<OAuthClientInformation> {
  if (metadata.registration_endpoint === undefined) throw new AuthorizationError({ reason: 'registration', message: `the authorization server ${metadata.issuer} has no registration_endpoint` });
  const endpoint = new URL(metadata.registration_endpoint);
  const supported = metadata.token_endpoint_auth_methods_supported;
  const method = clientMetadata.token_endpoint_auth_method ?? (supported === undefined || supported.includes('none') ? 'none' : supported.includes('client_secret_basic') ? 'client_secret_basic' : supported[0]);
  const answer = await callJson(http, {
    url: endpoint,
    init: { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify({ ...clientMetadata, token_endpoint_auth_method: method }) },
    reason: 'registration',
  });
  const value = answer.body as Record<string, unknown> | undefined;
  if (answer.status < 200 || answer.status > 299 || typeof value?.client_id !== 'string') {
    const error = typeof value?.error === 'string' ? value.error : `HTTP ${answer.status}`;
    throw new AuthorizationError({ reason: 'registration', message: `dynamic client registration at ${endpoint.href} failed (${error.slice(0, 300)})` });
  }
  return {
    clientId: value.client_id,
    ...(typeof value.client_secret === 'string' ? { clientSecret: value.client_secret } : {}),
    ...(typeof value.token_endpoint_auth_method === 'string' ? { tokenEndpointAuthMethod: value.token_endpoint_auth_method } : {}),
    ...(typeof value.client_secret_expires_at === 'number' && value.client_secret_expires_at > 0 ? { clientSecretExpiresAt: value.client_secret_expires_at * 1000 } : {}),
  };
}
