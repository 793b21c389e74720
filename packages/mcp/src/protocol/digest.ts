/**
 * Canonical JSON and its SHA-256 digest: one text per JSON value whatever the order of its object members, so
 * two copies of the same request params (one re-serialized by a client on retry) digest alike. For JSON data
 * the text is that of RFC 8785 (JSON Canonicalization Scheme): members sorted by UTF-16 code units, numbers and
 * strings written as `JSON.stringify` writes them, no whitespace.
 */

const encoder = new TextEncoder();

/**
 * `value` as canonical JSON text. Follows `JSON.stringify` for what is not JSON data: `toJSON` is called, an
 * `undefined`, function or symbol member is left out (in an array it is `null`), a non-finite number is `null`.
 *
 * @throws TypeError when `value` is circular or holds a `bigint`
 * @example
 * canonicalJson({ b: [1, { d: true, c: null }], a: 'x' }); // '{"a":"x","b":[1,{"c":null,"d":true}]}'
 */
export function canonicalJson(value: unknown): string {
  return write(value, []) ?? 'null';
}

/**
 * The SHA-256 digest of {@link canonicalJson}`(value)` (UTF-8), 32 bytes. Web Crypto (`globalThis.crypto.subtle`).
 *
 * @throws TypeError (as a rejection) when `value` is circular or holds a `bigint`
 */
export async function canonicalDigest(value: unknown): Promise<Uint8Array<ArrayBuffer>> {
  const text = canonicalJson(value);
  return new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', encoder.encode(text)));
}

/** The text of `value`, or `undefined` where `JSON.stringify` leaves a member out. `ancestors`: cycle check. */
function write(value: unknown, ancestors: object[]): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('Cannot write canonical JSON: a bigint has no JSON form');
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'object':
      return value === null ? 'null' : writeObject(value, ancestors);
  }
}

function writeObject(value: object, ancestors: object[]): string | undefined {
  const toJSON: unknown = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return write((toJSON as () => unknown).call(value), ancestors);
  if (ancestors.includes(value)) throw new TypeError('Cannot write canonical JSON: the value is circular');
  ancestors.push(value);
  let text: string;
  if (Array.isArray(value)) {
    text = `[${value.map((item: unknown) => write(item, ancestors) ?? 'null').join(',')}]`;
  } else {
    const record = value as Record<string, unknown>;
    const members: string[] = [];
    for (const key of Object.keys(record).sort()) {
      const member = write(record[key], ancestors);
      if (member !== undefined) members.push(`${JSON.stringify(key)}:${member}`);
    }
    text = `{${members.join(',')}}`;
  }
  ancestors.pop();
  return text;
}
