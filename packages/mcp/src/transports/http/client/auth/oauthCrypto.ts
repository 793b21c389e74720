/**
 * The cryptography an OAuth client needs, on Web Crypto (`globalThis.crypto`, runtime-neutral, no dependency): PKCE
 * S256 (RFC 7636 §4), random `state`, and signing JWTs (RFC 7515 compact form) for `private_key_jwt` client
 * authentication (RFC 7523 §2.2) and DPoP proofs (RFC 9449 §4.2). The client only signs; verifying tokens is the
 * resource server's job.
 */

type WebCryptoKey = Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>;

function subtle(): typeof globalThis.crypto.subtle {
  if (globalThis.crypto?.subtle === undefined) throw new TypeError('OAuth needs Web Crypto (globalThis.crypto.subtle), which this runtime lacks');
  return globalThis.crypto.subtle;
}

/** Base64url without padding (RFC 7515 §2). */
export function base64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** `n` random bytes as base64url. */
export function randomToken(bytes = 32): string {
  return base64Url(globalThis.crypto.getRandomValues(new Uint8Array(bytes)));
}

/**
 * A PKCE pair (RFC 7636 §4.1, §4.2): a 43-character verifier from 32 random bytes and its S256 challenge,
 * `BASE64URL(SHA256(ASCII(code_verifier)))`.
 */
export async function pkcePair(): Promise<{ readonly verifier: string; readonly challenge: string }> {
  const verifier = randomToken(32);
  const digest = await subtle().digest('SHA-256', new TextEncoder().encode(verifier));
  return { verifier, challenge: base64Url(new Uint8Array(digest)) };
}

/** The JWS algorithms the client signs with, and their Web Crypto parameters. */
const ALGORITHMS = {
  ES256: { import: { name: 'ECDSA', namedCurve: 'P-256' }, sign: { name: 'ECDSA', hash: 'SHA-256' } },
  ES384: { import: { name: 'ECDSA', namedCurve: 'P-384' }, sign: { name: 'ECDSA', hash: 'SHA-384' } },
  RS256: { import: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, sign: { name: 'RSASSA-PKCS1-v1_5' } },
  PS256: { import: { name: 'RSA-PSS', hash: 'SHA-256' }, sign: { name: 'RSA-PSS', saltLength: 32 } },
  EdDSA: { import: { name: 'Ed25519' }, sign: { name: 'Ed25519' } },
} as const;

/** A JWS algorithm the client can sign with. */
export type JwsAlgorithm = keyof typeof ALGORITHMS;

/** Whether `alg` is one the client signs with. */
export function isJwsAlgorithm(alg: string): alg is JwsAlgorithm {
  return Object.hasOwn(ALGORITHMS, alg);
}

/** A private key ready to sign, with its algorithm. */
export interface SigningKey {
  readonly alg: JwsAlgorithm;
  readonly key: WebCryptoKey;
  /** The public half as a JWK (DPoP puts it in the proof's header). */
  readonly publicJwk?: Readonly<Record<string, string>>;
}

/**
 * Imports a PKCS #8 private key in PEM (`-----BEGIN PRIVATE KEY-----`) for signing with `alg`.
 * @throws TypeError when the PEM is not PKCS #8 or the key does not fit `alg`
 */
export async function importPrivateKeyPem(pem: string, alg: JwsAlgorithm): Promise<SigningKey> {
  const body = /-----BEGIN PRIVATE KEY-----([\s\S]*?)-----END PRIVATE KEY-----/.exec(pem)?.[1];
  if (body === undefined) throw new TypeError('Invalid private key: expected a PKCS #8 PEM ("-----BEGIN PRIVATE KEY-----")');
  const der = Uint8Array.from(atob(body.replace(/\s+/g, '')), (c) => c.charCodeAt(0));
  const key = await subtle().importKey('pkcs8', der, ALGORITHMS[alg].import, false, ['sign']);
  return { alg, key };
}

/**
 * A fresh key pair for DPoP (RFC 9449 §4.1: the public key goes in each proof's `jwk` header), `ES256` unless the
 * authorization server accepts only others.
 */
export async function generateSigningKey(alg: JwsAlgorithm = 'ES256'): Promise<SigningKey> {
  const params = alg === 'RS256' || alg === 'PS256' ? { ...ALGORITHMS[alg].import, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) } : ALGORITHMS[alg].import;
  const pair = (await subtle().generateKey(params, true, ['sign', 'verify'])) as { privateKey: WebCryptoKey; publicKey: WebCryptoKey };
  const jwk = (await subtle().exportKey('jwk', pair.publicKey)) as Record<string, unknown>;
  const publicJwk: Record<string, string> = {};
  for (const name of ['kty', 'crv', 'x', 'y', 'n', 'e']) if (typeof jwk[name] === 'string') publicJwk[name] = jwk[name];
  return { alg, key: pair.privateKey, publicJwk };
}

/** The RFC 7638 thumbprint of a public JWK (SHA-256, base64url): the `jkt` a DPoP-bound token carries. */
export async function jwkThumbprint(jwk: Readonly<Record<string, string>>): Promise<string> {
  const members = jwk.kty === 'EC' ? ['crv', 'kty', 'x', 'y'] : jwk.kty === 'RSA' ? ['e', 'kty', 'n'] : ['crv', 'kty', 'x'];
  const canonical = `{${members.map((m) => `"${m}":${JSON.stringify(jwk[m] ?? '')}`).join(',')}}`;
  return base64Url(new Uint8Array(await subtle().digest('SHA-256', new TextEncoder().encode(canonical))));
}

/** Signs a JWT (RFC 7519) in compact form: `alg` from the key, the given extra header fields and the claims. */
export async function signJwt(key: SigningKey, header: Readonly<Record<string, unknown>>, claims: Readonly<Record<string, unknown>>): Promise<string> {
  const encode = (value: unknown): string => base64Url(new TextEncoder().encode(JSON.stringify(value)));
  const input = `${encode({ ...header, alg: key.alg })}.${encode(claims)}`;
  const signature = await subtle().sign(ALGORITHMS[key.alg].sign, key.key, new TextEncoder().encode(input));
  return `${input}.${base64Url(new Uint8Array(signature))}`;
}
