/**
 * Who the OAuth client is at one authorization server, in the order of MCP 2026-07-28
 * basic/authorization/client-registration.mdx "Client Registration Approaches": a pre-registered client, then a
 * Client ID Metadata Document URL (when the server advertises `client_id_metadata_document_supported`), then a
 * registration kept for this issuer, then dynamic client registration (RFC 7591), whose result is kept by issuer.
 */
import { AuthorizationError } from '../../../../protocol/clientErrors.js';
import type { AuthorizationServerMetadata } from '../../../../protocol/auth/metadata.js';
import type { OAuthHttp } from './discovery.js';
import { importPrivateKeyPem, isJwsAlgorithm } from './oauthCrypto.js';
import type { OAuthOptions } from './oauthOptions.js';
import type { OAuthClientInformation, OAuthStore } from './oauthStore.js';
import { registerClient, type ClientAuthentication } from './tokenEndpoint.js';

/** The `application_type` of RFC 7591 / OIDC Registration for a redirect URI: loopback or custom scheme is `native`. */
export function applicationTypeOf(redirectUri: string | undefined): string {
  if (redirectUri === undefined) return 'native';
  try {
    const url = new URL(redirectUri);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'native';
    return ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) ? 'native' : 'web';
  } catch {
    return 'native';
  }
}

/**
 * Whether a URL can be a CIMD `client_id`: `https` with a path, no fragment, no user info (MCP 2025-11-25
 * basic/authorization.mdx "Client ID Metadata Documents": the client_id MUST be an HTTPS URL with a path component).
 */
function isClientIdUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.pathname !== '/' && url.hash === '' && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

/**
 * The client's identity at `metadata`'s issuer. `interactive` (the authorization code grant) allows CIMD and dynamic
 * registration; the machine grants use a pre-registered client or one kept for the issuer.
 * @throws AuthorizationError `registration` when none applies
 */
export async function clientIdentity(facts: {
  readonly options: OAuthOptions;
  readonly store: OAuthStore;
  readonly http: OAuthHttp;
  readonly metadata: AuthorizationServerMetadata;
  readonly interactive: boolean;
}): Promise<ClientAuthentication> {
  const { options, store, http, metadata, interactive } = facts;
  const pre = options.client;
  if (pre !== undefined && (pre.issuer === undefined || pre.issuer === metadata.issuer)) {
    const client: OAuthClientInformation = {
      clientId: pre.clientId,
      ...(pre.clientSecret === undefined ? {} : { clientSecret: pre.clientSecret }),
      ...(pre.tokenEndpointAuthMethod === undefined ? {} : { tokenEndpointAuthMethod: pre.tokenEndpointAuthMethod }),
    };
    if (pre.privateKeyPem === undefined) return { client };
    const alg = pre.signingAlgorithm ?? 'ES256';
    if (!isJwsAlgorithm(alg)) throw new AuthorizationError({ reason: 'registration', message: `the signing algorithm "${alg}" is not one of ES256, ES384, RS256, PS256, EdDSA` });
    return { client, privateKey: await importPrivateKeyPem(pre.privateKeyPem, alg) };
  }
  const cimd = options.clientMetadataUrl;
  if (interactive && cimd !== undefined && metadata.client_id_metadata_document_supported === true && isClientIdUrl(cimd)) {
    return { client: { clientId: cimd, tokenEndpointAuthMethod: 'none' } };
  }
  const stored = await store.loadClient(metadata.issuer);
  if (stored !== undefined && (stored.clientSecretExpiresAt === undefined || stored.clientSecretExpiresAt > Date.now())) return { client: stored };
  if (interactive && options.dynamicRegistration !== false && metadata.registration_endpoint !== undefined) {
    const redirectUri = options.redirectUri;
    const registered = await registerClient(http, metadata, {
      client_name: 'Switchboard MCP client',
      redirect_uris: redirectUri === undefined ? [] : [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // MCP 2026-07-28 client-registration.mdx: clients MUST specify an appropriate application_type.
      application_type: applicationTypeOf(redirectUri),
      ...options.clientMetadata,
    });
    await store.saveClient(metadata.issuer, registered);
    return { client: registered };
  }
  throw new AuthorizationError({
    reason: 'registration',
    message: `no client identity for ${metadata.issuer}: no pre-registered client${interactive ? `, ${cimd === undefined ? 'no clientMetadataUrl' : 'no client_id_metadata_document_supported'}, ${metadata.registration_endpoint === undefined ? 'no registration_endpoint' : 'dynamic registration disabled'}` : ''}`,
  });
}
