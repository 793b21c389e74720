/**
 * DPoP-bound access tokens on the resource-server side (RFC 9449): a request presents `Authorization: DPoP <token>`
 * with a `DPoP` header holding a proof — a JWT signed by the client's key, carrying that public key — made for this
 * very request. The proof is checked as RFC 9449 §4.3 lists (type `dpop+jwt`, an asymmetric algorithm, a public
 * `jwk`, the signature, `htm` and `htu` equal to this request, `iat` recent, `ath` the token's hash, `jti` never
 * seen before), and the token must be bound to that key (`cnf.jkt` is the key's thumbprint, §6.1). Used `jti` values
 * are claimed in a {@link RequestStateStore} (the same single-use contract as request states: a Redis store serves
 * both, e.g. `SET NX PXAT`), so a captured proof cannot be replayed on any instance that shares it.
 */
import type * as Jose from 'jose';
import type { RequestStateStore } from '../../../../stores/requestStateStore.js';
import { loadJose } from './joseLoader.js';

/** Default {@link DpopOptions.maxProofAgeSeconds}. */
export const DEFAULT_DPOP_MAX_PROOF_AGE_SECONDS = 60;
/** Default {@link DpopOptions.algorithms}. */
export const DEFAULT_DPOP_ALGORITHMS: readonly string[] = Object.freeze(['ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519', 'RS256', 'PS256']);

/** The `dpop` option of {@link HttpAuthOptions}: DPoP-bound tokens accepted (RFC 9449). */
export interface DpopOptions {
  /**
   * Whether every token must be DPoP-bound: a bearer token is then refused (401), and the metadata says
   * `dpop_bound_access_tokens_required: true` (RFC 9728 §2).
   * @default false (bearer tokens without `cnf.jkt` are accepted too)
   */
  readonly required?: boolean;
  /** The proof algorithms accepted (`dpop_signing_alg_values_supported`). @default {@link DEFAULT_DPOP_ALGORITHMS} */
  readonly algorithms?: readonly string[];
  /** How old (or how far ahead, for clock skew) a proof's `iat` may be, in seconds (RFC 9449 §11.1). @default 60 */
  readonly maxProofAgeSeconds?: number;
  /**
   * Where used proof ids (`jti`) are claimed, so a proof is accepted once (RFC 9449 §11.1). Share one across
   * instances behind one endpoint.
   * @default a fresh `InMemoryRequestStateStore` (one process)
   */
  readonly replayStore?: RequestStateStore;
}

/** What a proof must match. */
export interface DpopExpectation {
  /** The request's method. */
  readonly method: string;
  /** The request's URL as the client addressed it (no query). */
  readonly url: string;
  /** The access token the proof comes with (its hash is `ath`). */
  readonly token: string;
}

/** The settings a proof is checked with. */
export interface DpopSettings {
  readonly algorithms: readonly string[];
  readonly maxAgeSeconds: number;
  readonly replayStore: RequestStateStore;
}

/** A proof accepted: the thumbprint of its key (RFC 7638), which the token's `cnf.jkt` must equal. */
export interface DpopProofVerdict {
  readonly jkt: string;
}

/** Why a proof is refused (answered 401 `invalid_dpop_proof`). */
export interface DpopProofRefusal {
  readonly refusedProof: string;
}

/** base64url of SHA-256 over the token's ASCII (RFC 9449 §4.2 `ath`). */
async function tokenHash(token: string, jose: typeof Jose): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(token));
  return jose.base64url.encode(new Uint8Array(digest));
}

/** `url` without query and fragment, scheme and host lower case, default port elided (RFC 9449 §4.3 item 9). */
function htuForm(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return undefined;
  }
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'];

/**
 * Checks one DPoP proof against the request (RFC 9449 §4.3, the items in order) and claims its `jti`.
 * @param proof - The `DPoP` header's value (one header: several joined by `, ` do not parse as one JWT).
 * @returns The key's thumbprint, or why the proof is refused.
 */
export async function verifyDpopProof(proof: string, expect: DpopExpectation, settings: DpopSettings): Promise<DpopProofVerdict | DpopProofRefusal> {
  const jose = await loadJose('DPoP proof verification');
  let jwk: Jose.JWK | undefined;
  let payload: Jose.JWTPayload;
  try {
    // Items 2–7: one well-formed JWT, `typ: dpop+jwt`, an allowed asymmetric `alg`, the signature under the `jwk`
    // header, which must be a public key.
    const result = await jose.jwtVerify(proof, async (header) => {
      jwk = header.jwk;
      if (jwk === undefined || PRIVATE_MEMBERS.some((m) => m in (jwk as object))) throw new Error('the proof carries no public jwk');
      return jose.importJWK(jwk, header.alg);
    }, { typ: 'dpop+jwt', algorithms: [...settings.algorithms] });
    payload = result.payload;
  } catch {
    return { refusedProof: 'the DPoP proof is not a valid dpop+jwt signed by the key it carries' };
  }
  // Item 3: the required claims.
  const { jti, htm, htu, iat, ath } = payload as { jti?: unknown; htm?: unknown; htu?: unknown; iat?: unknown; ath?: unknown };
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256 || typeof htm !== 'string' || typeof htu !== 'string' || typeof iat !== 'number') {
    return { refusedProof: 'the DPoP proof lacks jti, htm, htu or iat' };
  }
  // Items 8–9: made for this method and URL.
  if (htm !== expect.method) return { refusedProof: 'the DPoP proof was made for another HTTP method' };
  if (htuForm(htu) === undefined || htuForm(htu) !== htuForm(expect.url)) return { refusedProof: 'the DPoP proof was made for another URL' };
  // Item 11: recent (both ways: clocks differ).
  const nowSeconds = Date.now() / 1000;
  if (Math.abs(nowSeconds - iat) > settings.maxAgeSeconds) return { refusedProof: 'the DPoP proof is too old or from the future (iat)' };
  // Item 12: bound to this token.
  if (ath !== (await tokenHash(expect.token, jose))) return { refusedProof: 'the DPoP proof was made for another access token (ath)' };
  const jkt = await jose.calculateJwkThumbprint(jwk as Jose.JWK, 'sha256');
  // RFC 9449 §11.1: a proof is accepted once within its window. The key's thumbprint is part of the record's name
  // (two clients' ids cannot collide), the record lasts as long as the proof could be accepted.
  const fresh = await settings.replayStore.claim(`dpop:${jkt}:${jti}`, (iat + settings.maxAgeSeconds) * 1000 + 1000);
  if (!fresh) return { refusedProof: 'the DPoP proof was used before (replay)' };
  return { jkt };
}

/** The `cnf.jkt` of a token's claims (RFC 9449 §6.1), if any. */
export function boundThumbprint(claims: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const cnf = claims?.cnf;
  if (typeof cnf !== 'object' || cnf === null) return undefined;
  const jkt = (cnf as { jkt?: unknown }).jkt;
  return typeof jkt === 'string' ? jkt : undefined;
}
