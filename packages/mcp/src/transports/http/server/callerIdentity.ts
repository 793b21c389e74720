/**
 * Who the caller is: the authenticated principal, else the client's address — the peer's, or, behind reverse
 * proxies named in `trustProxy`, the nearest hop of `X-Forwarded-For` (or RFC 7239 `Forwarded`) that is not a
 * trusted proxy, read from the right. Every per-caller budget (sessions, connections, and the server's own) keys on
 * {@link callerKey}. Runtime-neutral (pure functions over strings).
 *
 * Why from the right: each proxy appends the address it received the request from, so the right end of the list
 * is written by proxies we trust and the left end by the client, who may write anything there. The first entry is
 * the one a client forges.
 *
 * @see RFC 7239 §5.2 (`for=`), §6 (node names: `unknown`, obfuscated `_x`, `[v6]:port`); MDN X-Forwarded-For
 *   "Security and privacy concerns" (use the rightmost entries written by trusted proxies).
 */
import { shownValue } from '@switchboard/jsonrpc/internal';

/**
 * Which peers are trusted reverse proxies, whose forwarding headers name the real client.
 * - `false` (default): none; forwarding headers are ignored, the caller is the peer.
 * - `true`: proxies on this host (`127.0.0.0/8`, `::1`), the usual nginx or Caddy in front on loopback.
 * - a list of addresses and CIDR ranges (`'10.0.0.0/8'`, `'192.0.2.7'`, `'fd00::/8'`, `'loopback'`).
 * - a function `(address, hop)` returning whether that address is a trusted proxy (`hop` 0 is the peer).
 */
export type TrustProxy = boolean | readonly string[] | ((address: string, hop: number) => boolean);

/** A compiled {@link TrustProxy}: whether the address at `hop` (0: the peer) is a trusted proxy. */
export type ProxyTrust = (address: string, hop: number) => boolean;

/** What {@link callerKey} reads from a request. */
export interface CallerSource {
  /** Authentication facts established upstream (Node: `req.auth`); `clientId` makes the principal. */
  readonly authInfo?: unknown;
  /** The peer's IP address; `undefined` when the runtime does not tell it. */
  readonly remoteAddress?: string | undefined;
  /** A request header by lower-case name. */
  header(name: string): string | undefined;
}

const LOOPBACK_RANGES = ['127.0.0.0/8', '::1/128'];

/** An address as 4 (IPv4) or 16 (IPv6) bytes; IPv4-mapped IPv6 as IPv4. `undefined` when not an IP literal. */
export function parseIp(text: string): Uint8Array | undefined {
  if (text.includes(':')) return parseIpv6(text);
  return parseIpv4(text);
}

function parseIpv4(text: string): Uint8Array | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i] as string;
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    out[i] = n;
  }
  return out;
}

function parseIpv6(text: string): Uint8Array | undefined {
  const zone = text.indexOf('%');
  const v = (zone === -1 ? text : text.slice(0, zone)).toLowerCase();
  const halves = v.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string): number[] | undefined => {
    if (half === '') return [];
    const out: number[] = [];
    const parts = half.split(':');
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i] as string;
      if (i === parts.length - 1 && part.includes('.')) {
        const v4 = parseIpv4(part);
        if (v4 === undefined) return undefined;
        out.push(((v4[0] as number) << 8) | (v4[1] as number), ((v4[2] as number) << 8) | (v4[3] as number));
      } else {
        if (!/^[0-9a-f]{1,4}$/.test(part)) return undefined;
        out.push(parseInt(part, 16));
      }
    }
    return out;
  };
  const head = groups(halves[0] as string);
  const tail = halves.length === 2 ? groups(halves[1] as string) : [];
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const all = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    bytes[i * 2] = (all[i] as number) >> 8;
    bytes[i * 2 + 1] = (all[i] as number) & 0xff;
  }
  // ::ffff:a.b.c.d is an IPv4 peer on a dual-stack socket.
  if (bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.slice(12);
  return bytes;
}

/**
 * The canonical text of an address: IPv4 dotted, IPv4-mapped IPv6 shown as IPv4, IPv6 in the RFC 5952 form (lower
 * case, leading zeros dropped, the longest run of two or more zero groups written `::`), so that `2001:db8:0:0::1`
 * and `2001:DB8::1` are one caller.
 */
function canonical(bytes: Uint8Array): string {
  if (bytes.length === 4) return bytes.join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] as number) << 8) | (bytes[i + 1] as number));
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (from: number, to: number): string => groups.slice(from, to).map((g) => g.toString(16)).join(':');
  return bestStart === -1 ? hex(0, 8) : `${hex(0, bestStart)}::${hex(bestStart + bestLength, 8)}`;
}

/** The longest node name of a forwarding header kept in a caller key (RFC 7239 obfuscated names are short). */
const MAX_NODE_CHARS = 64;

/**
 * The key of a caller known by its address: `address:<ip>`, where an IPv6 address outside loopback counts by its
 * /64 prefix (`address:2001:db8:1:2::/64`): one subscriber is routinely given a whole /64, so keying single
 * addresses would hand out a share per address to whoever holds one (the usual practice of rate limiters).
 */
export function addressKey(address: string): string {
  const ip = parseIp(address);
  if (ip === undefined || ip.length === 4 || ip.every((b, i) => b === (i === 15 ? 1 : 0))) return `address:${address}`;
  const prefix = new Uint8Array(16);
  prefix.set(ip.subarray(0, 8));
  return `address:${canonical(prefix)}/64`;
}

interface Range {
  readonly bytes: Uint8Array;
  readonly bits: number;
}

function parseRange(entry: string): Range {
  const trimmed = entry.trim();
  const slash = trimmed.indexOf('/');
  const ip = parseIp(slash === -1 ? trimmed : trimmed.slice(0, slash));
  if (ip === undefined) throw new TypeError(`Invalid option trustProxy: "${entry}" is not an IP address or CIDR range`);
  const width = ip.length * 8;
  let bits = width;
  if (slash !== -1) {
    const text = trimmed.slice(slash + 1);
    bits = /^\d{1,3}$/.test(text) ? Number(text) : NaN;
    // An IPv4-mapped range (::ffff:10.0.0.0/104) was parsed as IPv4: its prefix counts the 96 mapped bits.
    if (ip.length === 4 && trimmed.slice(0, slash).includes(':')) bits -= 96;
    if (!(bits >= 0 && bits <= width)) throw new TypeError(`Invalid option trustProxy: "${entry}" has an invalid prefix length`);
  }
  return { bytes: ip, bits };
}

function inRange(ip: Uint8Array, range: Range): boolean {
  if (ip.length !== range.bytes.length) return false;
  let left = range.bits;
  for (let i = 0; left > 0; i++, left -= 8) {
    const mask = left >= 8 ? 0xff : (0xff << (8 - left)) & 0xff;
    if (((ip[i] as number) & mask) !== ((range.bytes[i] as number) & mask)) return false;
  }
  return true;
}

/**
 * Compiles a {@link TrustProxy} option; `undefined` when no proxy is trusted.
 * @throws TypeError for a value that is not a boolean, an array of addresses or CIDR ranges, or a function.
 */
export function compileTrustProxy(value: TrustProxy | undefined): ProxyTrust | undefined {
  if (value === undefined || value === false) return undefined;
  if (typeof value === 'function') return value;
  if (value !== true && !Array.isArray(value)) {
    throw new TypeError(`Invalid option trustProxy: expected a boolean, an array of addresses or CIDR ranges, or a function, got ${shownValue(value)}`);
  }
  const entries: readonly unknown[] = value === true ? LOOPBACK_RANGES : value;
  const ranges: Range[] = [];
  for (const entry of entries) {
    if (typeof entry !== 'string') throw new TypeError(`Invalid option trustProxy: expected addresses or CIDR ranges as strings, got ${shownValue(entry)}`);
    if (entry.trim().toLowerCase() === 'loopback') ranges.push(...LOOPBACK_RANGES.map(parseRange));
    else ranges.push(parseRange(entry));
  }
  if (ranges.length === 0) return undefined;
  return (address) => {
    const ip = parseIp(address);
    return ip !== undefined && ranges.some((range) => inRange(ip, range));
  };
}

/** A node of a forwarding header as an address: `[v6]:port`, `v4:port`, quotes and brackets removed. */
function nodeAddress(node: string): string {
  let v = node.trim();
  if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) v = v.slice(1, -1).trim();
  if (v.startsWith('[')) {
    const close = v.indexOf(']');
    return close === -1 ? v : v.slice(1, close);
  }
  // One colon: IPv4 with a port (a bare IPv6 address has several).
  const colon = v.indexOf(':');
  if (colon !== -1 && colon === v.lastIndexOf(':')) v = v.slice(0, colon);
  const ip = parseIp(v);
  return ip === undefined ? v.slice(0, MAX_NODE_CHARS).toLowerCase() : canonical(ip);
}

/** `text` split at the commas outside quoted strings (RFC 7230 §3.2.6 quoted-string, with `\` escapes). */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const out: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === '\\') i++;
    else if (c === '"') quoted = !quoted;
    else if (!quoted && c === separator) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

/** The `for=` nodes of an RFC 7239 `Forwarded` header, left (client side) to right (nearest proxy). */
function forwardedFor(header: string): string[] {
  const out: string[] = [];
  for (const element of splitOutsideQuotes(header, ',')) {
    let found: string | undefined;
    for (const pair of splitOutsideQuotes(element, ';')) {
      const eq = pair.indexOf('=');
      if (eq !== -1 && pair.slice(0, eq).trim().toLowerCase() === 'for') found = pair.slice(eq + 1);
    }
    // An element without `for=` still stands for a hop whose client is not named.
    out.push(found === undefined ? 'unknown' : nodeAddress(found));
  }
  return out;
}

/**
 * The forwarding chain a request carries, left (the client's end) to right (the nearest proxy): the entries of
 * `X-Forwarded-For`, or, when the request has none, the `for=` nodes of RFC 7239 `Forwarded`. One header is read,
 * never a mix: a proxy that writes `Forwarded` only must drop a client's `X-Forwarded-For`.
 */
export function forwardingChain(header: (name: string) => string | undefined): string[] {
  const xff = header('x-forwarded-for');
  if (xff !== undefined) return xff.split(',').map(nodeAddress).filter((node) => node !== '');
  const forwarded = header('forwarded');
  return forwarded === undefined ? [] : forwardedFor(forwarded);
}

/**
 * The caller's address: the peer's, or, when the peer is a trusted proxy, the nearest entry of the forwarding chain
 * (read from the right) that is not a trusted proxy; the leftmost entry when every one is trusted. A peer the runtime
 * does not tell (Web handlers) counts as a trusted proxy when one is configured. `undefined` when neither the peer
 * nor a chain names anyone.
 */
export function callerAddress(source: CallerSource, trust: ProxyTrust | undefined): string | undefined {
  const peerText = source.remoteAddress;
  const peerIp = peerText === undefined ? undefined : parseIp(peerText);
  let address = peerText === undefined ? undefined : peerIp === undefined ? peerText : canonical(peerIp);
  if (trust === undefined) return address;
  if (address !== undefined && !trust(address, 0)) return address;
  const chain = forwardingChain((name) => source.header(name));
  for (let hop = 1, next = chain.pop(); next !== undefined; hop++, next = chain.pop()) {
    address = next;
    if (!trust(next, hop)) return next;
  }
  return address;
}

/**
 * Who opened a session, for its record (`SessionRecord.opener`): the issuer, subject and client of `authInfo` as JSON
 * text, or `null` without authentication facts.
 */
export function openerOf(authInfo: unknown): string | null {
  if (typeof authInfo !== 'object' || authInfo === null) return null;
  const { issuer, subject, clientId } = authInfo as { issuer?: unknown; subject?: unknown; clientId?: unknown };
  return JSON.stringify([typeof issuer === 'string' ? issuer : '', typeof subject === 'string' ? subject : '', typeof clientId === 'string' ? clientId : '']);
}

/** The principal of `authInfo`: its string `clientId` (the official SDK's `AuthInfo`), else `undefined`. */
export function principalOf(authInfo: unknown): string | undefined {
  const auth = authInfo as { clientId?: unknown } | null | undefined;
  return typeof auth === 'object' && auth !== null && typeof auth.clientId === 'string' && auth.clientId !== '' ? auth.clientId : undefined;
}

/**
 * The key every per-caller budget counts against: `client:<clientId>` for an authenticated principal, else
 * `address:<address>` with the address {@link callerAddress} finds (after `trustProxy`), else `undefined` (nothing
 * names the caller: a Web runtime without a peer address and no forwarding header). Loopback addresses get a key
 * too; whether a budget exempts them is the budget's decision (see {@link exemptFromShare}).
 */
export function callerKey(source: CallerSource, trust: ProxyTrust | undefined): string | undefined {
  const principal = principalOf(source.authInfo);
  if (principal !== undefined) return `client:${principal}`;
  if (trust === undefined) return peerKey(source.remoteAddress);
  const address = callerAddress(source, trust);
  return address === undefined ? undefined : addressKey(address);
}

/** The last peer address {@link peerKey} keyed, and its key: a keep-alive client sends every request from one. */
let lastPeer: string | undefined;
let lastPeerKey: string | undefined;

/** The caller key of a peer address when no proxy is trusted (what `callerKey` answers then: a function of it alone). */
function peerKey(peerText: string | undefined): string | undefined {
  if (peerText === undefined) return undefined;
  if (peerText === lastPeer) return lastPeerKey;
  const key = addressKey(callerAddress({ remoteAddress: peerText, authInfo: undefined, header: () => undefined }, undefined) as string);
  lastPeer = peerText;
  lastPeerKey = key;
  return key;
}

/**
 * Whether a caller key is exempt from a per-caller share: a loopback address, only while no proxy is trusted (then
 * it is a local client or an unconfigured proxy on this host, behind which every client would share one share).
 * Once `trustProxy` names the proxy, loopback callers are counted like any other.
 */
export function exemptFromShare(key: string | undefined, trust: ProxyTrust | undefined): boolean {
  if (key === undefined) return true;
  if (trust !== undefined || !key.startsWith('address:')) return false;
  const ip = parseIp(key.slice(8));
  return ip !== undefined && (ip.length === 4 ? ip[0] === 127 : ip.every((b, i) => b === (i === 15 ? 1 : 0)));
}
