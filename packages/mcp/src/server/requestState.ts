/**
 * Signed `requestState` for multi round-trip requests. The state a server hands out with an `input_required`
 * result comes back through the client, so it is attacker-controlled input: it is integrity-protected
 * (HMAC-SHA-256, or AES-256-GCM when encrypted), short-lived, and bound to the request that earned it (method,
 * params, principal); state that fails any check is refused (MCP 2026-07-28 basic/patterns/mrtr.mdx "Server
 * Requirements (Basic Workflow)" and "Security Considerations"). Binding does not make state single-use: a
 * server redeems a state at most once by keeping the ids of those used ({@link RequestStateCodec.openState} gives
 * the id and expiry; `stores/requestStateStore.ts` keeps them).
 *
 * Token text (URL-safe base64 segments, no padding):
 * - signed: `v1.<keyId>.<body>.<mac>`; `mac` = HMAC-SHA-256 of the text `v1.<keyId>.<body>`;
 * - encrypted: `v1e.<keyId>.<iv>.<sealed>`; `sealed` = AES-256-GCM of the body (96-bit random IV, 128-bit tag,
 *   additional data `v1e.<keyId>`).
 *
 * The body is the JSON `{"x": expiresAtMs, "n": nonce, "d": bindingDigest, "v": payload}` (`nonce`: 12 random
 * bytes, so no two issued states are alike), where `bindingDigest` is the
 * SHA-256 of the canonical JSON of `[method, principal ?? null, params]` with `_meta`, `inputResponses` and
 * `requestState` left out of `params` (so a retry, which adds them, matches its first attempt). Both keys of a
 * key id (HMAC and AES) are derived from its secret with HKDF-SHA-256, one `info` per purpose and key id.
 * Runtime-neutral: Web Crypto (`globalThis.crypto.subtle`), `TextEncoder`, `btoa`/`atob`.
 */
import { canonicalDigest } from '../protocol/digest.js';
import { echo } from '@switchboard/jsonrpc';

/** One signing key. */
export interface RequestStateKey {
  /** Names the key in the tokens it signs: 1–64 characters of `A–Z a–z 0–9 _ -`, unique in a keyring. */
  readonly id: string;
  /** The secret: at least 32 bytes (a string counts its UTF-8 bytes). Copied when the codec is built. */
  readonly secret: string | Uint8Array;
}

/** Options of {@link RequestStateCodec}. */
export interface RequestStateOptions {
  /**
   * Signing keys; the first signs, every one verifies (rotation: put the new key first, keep the old one until
   * the states it signed have expired). Servers behind one endpoint that may serve each other's retries share
   * the same keys.
   * @default one random 32-byte key made when the codec is built (state then survives neither a restart nor a
   * move to another process)
   */
  readonly keys?: readonly RequestStateKey[];
  /** Encrypt the payload with AES-256-GCM, so the client cannot read it. A codec opens only tokens of its own mode. @default false */
  readonly encrypt?: boolean;
  /** Lifetime of an issued state, ms (a positive integer). @default 600_000 */
  readonly ttlMs?: number;
  /** Largest state accepted or issued, in bytes of its text form (a positive integer). @default 65_536 */
  readonly maxBytes?: number;
  /** Clock, ms since the epoch. @default Date.now */
  readonly now?: () => number;
}

/** The request a state belongs to: it opens only on a request with the same three. */
export interface RequestStateBinding {
  /** The request's method, e.g. `tools/call`. */
  readonly method: string;
  /** The request's params as received; `_meta`, `inputResponses` and `requestState` are left out of the digest. */
  readonly params: unknown;
  /** Who asked (e.g. the authenticated subject); absent when there is none. */
  readonly principal?: string;
}

/** An authentic request state, opened by {@link RequestStateCodec.openState}. */
export interface OpenedRequestState {
  /** The payload it carries. */
  readonly value: unknown;
  /** When it expires (ms since the epoch): a record that it was used need not be kept longer. */
  readonly expiresAt: number;
  /**
   * Names this state (and no other): 22 characters of URL-safe base64, the first 128 bits of the SHA-256 of the
   * token. The token text is canonical (one spelling per token, see `isBase64Url`), so a state has one id.
   */
  readonly id: string;
}

/** The string codes of {@link RequestStateError}. */
export const RequestStateErrorCode = {
  /** Not a token this codec's format and mode produce (wrong shape, version, encoding or body). */
  Malformed: 'malformed',
  /** The MAC does not verify, or the sealed body does not decrypt: the token was altered or forged. */
  BadSignature: 'bad_signature',
  /** The state's lifetime (`ttlMs`) has passed. */
  Expired: 'expired',
  /** Authentic state presented on another request: other method, params or principal. */
  Rebound: 'rebound',
  /** Longer than `maxBytes`, on open or on issue. */
  TooLarge: 'too_large',
  /** Signed with a key id not in the keyring (retired, or another process's random key). */
  UnknownKey: 'unknown_key',
} as const;

/** The value of one of {@link RequestStateErrorCode}'s members. */
export type RequestStateErrorCodeValue = (typeof RequestStateErrorCode)[keyof typeof RequestStateErrorCode];

/**
 * A request state refused by {@link RequestStateCodec.open} (or too large to issue). A local error: the server
 * answers the request -32602; the message names the reason for logs, and a server may prefer one wire message
 * for every code so the answer tells a forger nothing.
 */
export class RequestStateError extends Error {
  /** Why; see {@link RequestStateErrorCode}. */
  readonly code: RequestStateErrorCodeValue;

  /** @param code why the state was refused; @param message the sentence for logs */
  constructor(code: RequestStateErrorCodeValue, message: string) {
    super(message);
    this.name = 'RequestStateError';
    this.code = code;
  }
}

const DEFAULT_TTL_MS = 600_000;
const DEFAULT_MAX_BYTES = 65_536;
const MIN_SECRET_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;
const SIGNED = 'v1';
const SEALED = 'v1e';
const IV_BYTES = 12;
const MAC_BYTES = 32;
/** Bytes of a state's id (see {@link OpenedRequestState.id}). */
const STATE_ID_BYTES = 16;
/** Random bytes in each issued body (see {@link RequestStateCodec.issue}). */
const NONCE_BYTES = 12;
/** Members of request params a retry adds; the digest leaves them out. */
const RETRY_MEMBERS: ReadonlySet<string> = new Set(['_meta', 'inputResponses', 'requestState']);

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** A Web Crypto key (named this way so the file compiles against the Web lib and Node's types alike). */
type WebCryptoKey = Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>;

/** Bytes Web Crypto accepts as input (a `Uint8Array` over a plain `ArrayBuffer`). */
type Bytes = Uint8Array<ArrayBuffer>;

/** A key id's Web Crypto keys, imported once. */
interface KeyEntry {
  readonly mac?: WebCryptoKey;
  readonly aes?: WebCryptoKey;
}

/**
 * Issues and opens signed (optionally encrypted) request states. Keys are imported on first use and kept;
 * each call then costs one SHA-256 digest and one MAC or cipher operation.
 *
 * @example
 * const codec = new RequestStateCodec({ keys: [{ id: 'k2', secret: process.env.STATE_KEY! }] });
 * const state = await codec.issue({ step: 1 }, { method: 'tools/call', params });
 * const payload = await codec.open(state, { method: 'tools/call', params: retryParams }); // { step: 1 }
 */
export class RequestStateCodec {
  readonly #secrets: ReadonlyMap<string, Bytes>;
  readonly #signer: string;
  readonly #encrypt: boolean;
  readonly #ttlMs: number;
  readonly #maxBytes: number;
  readonly #now: () => number;
  #keys: Promise<ReadonlyMap<string, KeyEntry>> | undefined;

  /**
   * @param options keys, mode, lifetime, size limit and clock
   * @throws TypeError when an option has the wrong type, or Web Crypto is missing
   * @throws RangeError when `keys` is empty, a key id is invalid or repeated, a secret is under 32 bytes, or
   * `ttlMs` / `maxBytes` is not a positive integer
   */
  constructor(options: RequestStateOptions = {}) {
    if (typeof options !== 'object' || options === null) throw new TypeError('Invalid request state options: expected an object');
    if (globalThis.crypto?.subtle === undefined) throw new TypeError('Cannot sign or open request state: Web Crypto (globalThis.crypto.subtle) is not available');
    const { keys, encrypt = false, ttlMs = DEFAULT_TTL_MS, maxBytes = DEFAULT_MAX_BYTES, now = Date.now } = options;
    if (typeof encrypt !== 'boolean') throw new TypeError('Invalid request state options: "encrypt" must be a boolean');
    if (typeof now !== 'function') throw new TypeError('Invalid request state options: "now" must be a function');
    this.#ttlMs = positiveInteger('ttlMs', ttlMs);
    this.#maxBytes = positiveInteger('maxBytes', maxBytes);
    this.#secrets = keys === undefined ? randomKeyring() : keyring(keys);
    this.#signer = this.#secrets.keys().next().value as string;
    this.#encrypt = encrypt;
    this.#now = now;
  }

  /**
   * Signs (and, with `encrypt`, seals) `payload` bound to `binding`, valid for `ttlMs` from now.
   *
   * @param payload any JSON value (serialized as `JSON.stringify` does; `undefined` opens as `undefined`)
   * @param binding the request the state belongs to
   * @returns the token, ASCII, at most `maxBytes` long
   * @throws RequestStateError (as a rejection) code `too_large` when the token would exceed `maxBytes`
   * @throws TypeError (as a rejection) when `payload` or `binding.params` is circular or holds a `bigint`
   */
  async issue(payload: unknown, binding: RequestStateBinding): Promise<string> {
    const [keys, digest] = await Promise.all([this.#keyring(), bindingDigest(binding)]);
    const key = keys.get(this.#signer) as KeyEntry;
    const value = JSON.stringify(payload);
    // A random nonce makes every issued state distinct (its id too): a state issued again for the same round in
    // the same millisecond must not count as used because an identical earlier one was.
    const nonce = toBase64Url(globalThis.crypto.getRandomValues(new Uint8Array(NONCE_BYTES)));
    const body = encoder.encode(`{"x":${this.#now() + this.#ttlMs},"n":"${nonce}","d":"${toBase64Url(digest)}"${value === undefined ? '' : `,"v":${value}`}}`);
    let token: string;
    if (this.#encrypt) {
      const head = `${SEALED}.${this.#signer}`;
      const iv = globalThis.crypto.getRandomValues(new Uint8Array(IV_BYTES));
      const sealed = await globalThis.crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: encoder.encode(head) }, key.aes as WebCryptoKey, body);
      token = `${head}.${toBase64Url(iv)}.${toBase64Url(new Uint8Array(sealed))}`;
    } else {
      const signed = `${SIGNED}.${this.#signer}.${toBase64Url(body)}`;
      const mac = await globalThis.crypto.subtle.sign('HMAC', key.mac as WebCryptoKey, encoder.encode(signed));
      token = `${signed}.${toBase64Url(new Uint8Array(mac))}`;
    }
    if (token.length > this.#maxBytes) throw tooLarge(token.length, this.#maxBytes);
    return token;
  }

  /**
   * Verifies `token` and returns its payload. Checked in this order: size, shape, key id, MAC (or decryption),
   * expiry, binding.
   *
   * @param token the `requestState` the client sent back
   * @param binding the request it came with
   * @throws RequestStateError (as a rejection) code `too_large`, `malformed`, `unknown_key`, `bad_signature`,
   * `expired` or `rebound`
   * @throws TypeError (as a rejection) when `binding.params` is circular or holds a `bigint`
   */
  async open(token: string, binding: RequestStateBinding): Promise<unknown> {
    return (await this.openState(token, binding)).value;
  }

  /**
   * {@link RequestStateCodec.open}, with what a server needs to redeem the state once: its expiry and its id.
   * @throws RequestStateError and TypeError as {@link RequestStateCodec.open}
   */
  async openState(token: string, binding: RequestStateBinding): Promise<OpenedRequestState> {
    if (typeof token !== 'string') throw malformed('not a string');
    if (token.length > this.#maxBytes) throw tooLarge(token.length, this.#maxBytes);
    const parts = token.split('.');
    const [version, keyId, first, second] = parts as [string, string, string, string];
    if (parts.length !== 4 || version !== (this.#encrypt ? SEALED : SIGNED)) throw malformed(`expected a "${this.#encrypt ? SEALED : SIGNED}" token`);
    if (!isBase64Url(first) || !isBase64Url(second)) throw malformed('not URL-safe base64');
    const [keys, digest] = await Promise.all([this.#keyring(), bindingDigest(binding)]);
    const key = keys.get(keyId);
    if (key === undefined) throw new RequestStateError(RequestStateErrorCode.UnknownKey, `Invalid request state: unknown key id "${echo(keyId)}"`);
    const body = this.#encrypt ? await unseal(key, token, { iv: first, sealed: second }) : await verify(key, token, second);
    const state = parseBody(body);
    const now = this.#now();
    if (now >= state.x) throw new RequestStateError(RequestStateErrorCode.Expired, `Invalid request state: expired ${now - state.x} ms ago`);
    if (state.d !== toBase64Url(digest)) throw new RequestStateError(RequestStateErrorCode.Rebound, 'Invalid request state: issued for another request (method, params or principal)');
    const hash = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', encoder.encode(token)));
    return { value: state.v, expiresAt: state.x, id: toBase64Url(hash.subarray(0, STATE_ID_BYTES)) };
  }

  /** The imported keys, one import per key id for the life of the codec. */
  #keyring(): Promise<ReadonlyMap<string, KeyEntry>> {
    this.#keys ??= importKeys(this.#secrets, this.#encrypt);
    return this.#keys;
  }
}

/** The decrypted body of a sealed token; `bad_signature` when the tag does not verify. */
async function unseal(key: KeyEntry, token: string, segments: { readonly iv: string; readonly sealed: string }): Promise<Bytes> {
  const iv = fromBase64Url(segments.iv);
  const sealed = fromBase64Url(segments.sealed);
  if (iv.length !== IV_BYTES) throw malformed('bad IV length');
  const head = token.slice(0, token.indexOf('.', SEALED.length + 1));
  try {
    return new Uint8Array(await globalThis.crypto.subtle.decrypt({ name: 'AES-GCM', iv, additionalData: encoder.encode(head) }, key.aes as WebCryptoKey, sealed));
  } catch {
    throw badSignature();
  }
}

/** The body of a signed token once its MAC verifies (constant-time, inside Web Crypto); else `bad_signature`. */
async function verify(key: KeyEntry, token: string, macText: string): Promise<Bytes> {
  const mac = fromBase64Url(macText);
  if (mac.length !== MAC_BYTES) throw badSignature();
  const signed = token.slice(0, token.length - macText.length - 1);
  if (!(await globalThis.crypto.subtle.verify('HMAC', key.mac as WebCryptoKey, mac, encoder.encode(signed)))) throw badSignature();
  return fromBase64Url(signed.slice(signed.lastIndexOf('.') + 1));
}

/** An authentic body's members; `malformed` if it is not the shape {@link RequestStateCodec.issue} writes. */
function parseBody(body: Uint8Array): { readonly x: number; readonly d: string; readonly v: unknown } {
  let state: unknown;
  try {
    state = JSON.parse(decoder.decode(body));
  } catch {
    throw malformed('the body is not JSON');
  }
  const { x, d, v } = (typeof state === 'object' && state !== null ? state : {}) as Record<string, unknown>;
  if (typeof x !== 'number' || typeof d !== 'string') throw malformed('the body lacks its expiry or binding');
  return { x, d, v };
}

/** SHA-256 of `[method, principal ?? null, params without the retry members]` as canonical JSON. */
function bindingDigest(binding: RequestStateBinding): Promise<Bytes> {
  const { method, params, principal } = binding;
  return canonicalDigest([method, principal ?? null, withoutRetryMembers(params)]);
}

function withoutRetryMembers(params: unknown): unknown {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return params ?? null;
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params)) if (!RETRY_MEMBERS.has(name)) kept[name] = value;
  return kept;
}

async function importKeys(secrets: ReadonlyMap<string, Bytes>, encrypt: boolean): Promise<ReadonlyMap<string, KeyEntry>> {
  const subtle = globalThis.crypto.subtle;
  const entries = await Promise.all(
    [...secrets].map(async ([id, secret]): Promise<[string, KeyEntry]> => {
      const base = await subtle.importKey('raw', secret, 'HKDF', false, ['deriveKey']);
      const derive = (purpose: string) => ({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: encoder.encode(`switchboard requestState v1 ${purpose} ${id}`) });
      if (encrypt) return [id, { aes: await subtle.deriveKey(derive('aes-256-gcm'), base, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']) }];
      return [id, { mac: await subtle.deriveKey(derive('hmac-sha-256'), base, { name: 'HMAC', hash: 'SHA-256', length: 256 }, false, ['sign', 'verify']) }];
    }),
  );
  return new Map(entries);
}

/** The secrets by key id, in keyring order (the first signs). */
function keyring(keys: readonly RequestStateKey[]): ReadonlyMap<string, Bytes> {
  if (!Array.isArray(keys)) throw new TypeError('Invalid request state options: "keys" must be an array');
  if (keys.length === 0) throw new RangeError('Invalid request state options: "keys" is empty');
  const secrets = new Map<string, Bytes>();
  for (const key of keys) {
    const { id, secret } = (key ?? {}) as Partial<RequestStateKey>;
    if (typeof id !== 'string') throw new TypeError('Invalid request state key: "id" must be a string');
    if (!KEY_ID.test(id)) throw new RangeError(`Invalid request state key: id "${echo(id)}" must be 1-64 characters of A-Z a-z 0-9 _ -`);
    if (secrets.has(id)) throw new RangeError(`Invalid request state key: id "${id}" appears twice`);
    let bytes: Bytes;
    if (typeof secret === 'string') bytes = encoder.encode(secret);
    else if (secret instanceof Uint8Array) bytes = secret.slice();
    else throw new TypeError(`Invalid request state key: the secret of "${id}" must be a string or a Uint8Array`);
    if (bytes.length < MIN_SECRET_BYTES) throw new RangeError(`Invalid request state key: the secret of "${id}" has ${bytes.length} bytes, at least ${MIN_SECRET_BYTES} needed`);
    secrets.set(id, bytes);
  }
  return secrets;
}

/** One random 32-byte key under a random id (so another process's state opens as `unknown_key`). */
function randomKeyring(): ReadonlyMap<string, Bytes> {
  const id = toBase64Url(globalThis.crypto.getRandomValues(new Uint8Array(6)));
  return new Map([[id, globalThis.crypto.getRandomValues(new Uint8Array(MIN_SECRET_BYTES))]]);
}

function positiveInteger(name: string, value: unknown): number {
  if (typeof value !== 'number') throw new TypeError(`Invalid request state options: "${name}" must be a number`);
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`Invalid request state options: "${name}" must be a positive integer, got ${value}`);
  return value;
}

function malformed(detail: string): RequestStateError {
  return new RequestStateError(RequestStateErrorCode.Malformed, `Invalid request state: malformed: ${detail}`);
}

function badSignature(): RequestStateError {
  return new RequestStateError(RequestStateErrorCode.BadSignature, 'Invalid request state: the signature does not verify');
}

function tooLarge(length: number, maxBytes: number): RequestStateError {
  return new RequestStateError(RequestStateErrorCode.TooLarge, `Request state too large: ${length} bytes, the limit is ${maxBytes}`);
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Whether `text` is unpadded URL-safe base64 in its one canonical spelling: its alphabet, a length base64 can have,
 * and zero in the bits of the last character that carry no byte (so no two tokens decode to the same bytes: a
 * token edited in those bits is refused, not silently accepted).
 */
function isBase64Url(text: string): boolean {
  const rest = text.length % 4;
  if (rest === 1 || !BASE64URL.test(text)) return false;
  if (rest === 0) return true;
  const last = ALPHABET.indexOf(text.charAt(text.length - 1));
  return (last & (rest === 2 ? 0b1111 : 0b11)) === 0;
}

/** Bytes of URL-safe base64 text already checked by {@link isBase64Url}. */
function fromBase64Url(text: string): Bytes {
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
