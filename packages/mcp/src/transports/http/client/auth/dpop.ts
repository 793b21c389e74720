/**
 * DPoP proofs (RFC 9449): one key pair per client, a fresh proof per request (`jti` unique, §4.2), `ath` when an
 * access token goes with it (§4.2, §7.1), and the nonce each server last sent (`DPoP-Nonce`, §8 for the
 * authorization server, §9 for the resource server).
 */
import { base64Url, generateSigningKey, randomToken, signJwt, type SigningKey } from './oauthCrypto.js';
import type { DpopProver } from './tokenEndpoint.js';

/** Nonces kept (one per origin); the oldest is dropped beyond. */
const MAX_NONCES = 64;

/** A {@link DpopProver} with its own ES256 key, made on first use. */
export class DpopKey implements DpopProver {
  #key: Promise<SigningKey> | undefined;
  readonly #nonces = new Map<string, string>();

  /**
   * A proof for `method` on `url` (RFC 9449 §4.2: `typ` `dpop+jwt`, the public `jwk`, claims `jti`, `htm`, `htu`
   * without query and fragment, `iat`, `nonce` when the origin sent one, `ath` = base64url(SHA-256(token))).
   */
  async proof(method: string, url: URL, accessToken?: string): Promise<string> {
    this.#key ??= generateSigningKey('ES256');
    const key = await this.#key;
    const htu = `${url.origin}${url.pathname}`;
    const nonce = this.#nonces.get(url.origin);
    const ath = accessToken === undefined ? undefined : base64Url(new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(accessToken))));
    return signJwt(
      key,
      { typ: 'dpop+jwt', jwk: key.publicJwk },
      { jti: randomToken(16), htm: method, htu, iat: Math.floor(Date.now() / 1000), ...(nonce === undefined ? {} : { nonce }), ...(ath === undefined ? {} : { ath }) },
    );
  }

  nonce(origin: string, value: string | null): void {
    if (value === null || value === '' || value.length > 1024) return;
    this.#nonces.delete(origin);
    this.#nonces.set(origin, value);
    if (this.#nonces.size > MAX_NONCES) {
      const oldest = this.#nonces.keys().next().value;
      if (oldest !== undefined) this.#nonces.delete(oldest);
    }
  }
}
