import { describe, expect, it } from 'vitest';
import { RequestStateCodec, RequestStateError, type RequestStateBinding, type RequestStateOptions } from './requestState.js';

const SECRET_A = 'a'.repeat(32);
const SECRET_B = 'b'.repeat(40);
const CALL: RequestStateBinding = { method: 'tools/call', params: { name: 'book', arguments: { city: 'Oslo', nights: 2 } } };
const TOKEN = /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const SEALED = /^v1e\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/;

function codec(options: RequestStateOptions = {}): RequestStateCodec {
  return new RequestStateCodec({ keys: [{ id: 'k1', secret: SECRET_A }], ...options });
}

/** The bytes of a URL-safe base64 segment, one char per byte. */
function binaryOf(segment: string): string {
  return atob(segment.replaceAll('-', '+').replaceAll('_', '/'));
}

function decode(segment: string): string {
  return new TextDecoder().decode(Uint8Array.from(binaryOf(segment), (c) => c.charCodeAt(0)));
}

function encode(text: string): string {
  const binary = String.fromCharCode(...new TextEncoder().encode(text));
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** `token` with segment `index` replaced. */
function withSegment(token: string, index: number, segment: string): string {
  const parts = token.split('.');
  parts[index] = segment;
  return parts.join('.');
}

/** One character of `text` changed (never to itself). */
function flip(text: string, at = 0): string {
  return `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RequestStateError);
  const { code, message, name } = error as RequestStateError;
  expect(name).toBe('RequestStateError');
  return { code, message };
}

describe('RequestStateCodec: signed state', () => {
  it('round trip: the payload comes back; the token is v1.<keyId>.<body>.<mac> with the body {x, n, d, v}', async () => {
    const c = codec({ now: () => 1_000 });
    const payload = { responses: { 'elicitation-0': { action: 'accept', content: { name: 'Ada' } } }, step: 2, note: 'ø ✓' };
    const token = await c.issue(payload, CALL);
    expect(token).toMatch(TOKEN);
    const [, keyId, body, mac] = token.split('.') as [string, string, string, string];
    expect(keyId).toBe('k1');
    expect(binaryOf(mac)).toHaveLength(32);
    const parsed = JSON.parse(decode(body)) as Record<string, unknown>;
    expect(parsed).toEqual({ x: 601_000, n: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/) as unknown, d: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) as unknown, v: payload });
    expect(await c.open(token, CALL)).toEqual(payload);
  });

  it('openState: the payload, the expiry and an id; the same payload issued twice in one millisecond is two states with two ids', async () => {
    for (const encrypt of [false, true]) {
      const c = codec({ now: () => 5_000, encrypt });
      const [a, b] = [await c.issue({ n: 1 }, CALL), await c.issue({ n: 1 }, CALL)];
      expect(a).not.toBe(b);
      const [openedA, openedB] = [await c.openState(a, CALL), await c.openState(b, CALL)];
      expect(openedA).toEqual({ value: { n: 1 }, expiresAt: 605_000, id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) as unknown });
      expect(openedB.id).not.toBe(openedA.id);
      expect((await c.openState(a, CALL)).id).toBe(openedA.id);
    }
  });

  it('any JSON value rounds trip; undefined opens as undefined', async () => {
    const c = codec();
    for (const payload of ['text', 0, -1.5, true, null, [], [1, [2]], {}]) expect(await c.open(await c.issue(payload, CALL), CALL)).toEqual(payload);
    expect(await c.open(await c.issue(undefined, CALL), CALL)).toBeUndefined();
  });

  it('a token opens with another codec holding the same key', async () => {
    const token = await codec().issue({ n: 1 }, CALL);
    expect(await new RequestStateCodec({ keys: [{ id: 'k1', secret: new TextEncoder().encode(SECRET_A) }] }).open(token, CALL)).toEqual({ n: 1 });
  });

  it('a tampered body, MAC or key id is refused', async () => {
    const c = new RequestStateCodec({ keys: [{ id: 'k1', secret: SECRET_A }, { id: 'k2', secret: SECRET_B }] });
    const token = await c.issue({ admin: false }, CALL);
    const [, , body, mac] = token.split('.') as [string, string, string, string];
    const forged = encode(decode(body).replace('"admin":false', '"admin":true'));
    expect(await refusal(c.open(withSegment(token, 2, forged), CALL))).toEqual({ code: 'bad_signature', message: 'Invalid request state: the signature does not verify' });
    expect((await refusal(c.open(withSegment(token, 2, flip(body, 5)), CALL))).code).toBe('bad_signature');
    expect((await refusal(c.open(withSegment(token, 3, flip(mac, 3)), CALL))).code).toBe('bad_signature');
    expect((await refusal(c.open(withSegment(token, 3, mac.slice(0, 40)), CALL))).code).toBe('bad_signature');
    expect((await refusal(c.open(withSegment(token, 3, ''), CALL))).code).toBe('bad_signature');
    expect((await refusal(c.open(withSegment(token, 1, 'k2'), CALL))).code).toBe('bad_signature');
    expect(await refusal(c.open(withSegment(token, 1, 'k9'), CALL))).toEqual({ code: 'unknown_key', message: 'Invalid request state: unknown key id "k9"' });
  });

  it('the same key id with another secret does not verify', async () => {
    const token = await codec().issue({ n: 1 }, CALL);
    const other = new RequestStateCodec({ keys: [{ id: 'k1', secret: SECRET_B }] });
    expect((await refusal(other.open(token, CALL))).code).toBe('bad_signature');
  });

  it('text that is not a token is malformed', async () => {
    const c = codec();
    const token = await c.issue({ n: 1 }, CALL);
    const cases = [
      '',
      'opaque',
      token.split('.').slice(0, 3).join('.'),
      `${token}.x`,
      withSegment(token, 0, 'v2'),
      withSegment(token, 0, 'v1e'),
      withSegment(token, 2, 'a+b/'),
      withSegment(token, 2, 'abcde'),
      42 as unknown as string,
    ];
    for (const text of cases) expect((await refusal(c.open(text, CALL))).code, String(text)).toBe('malformed');
    expect((await refusal(c.open('v1.k1', CALL))).message).toBe('Invalid request state: malformed: expected a "v1" token');
  });

  it('expires ttlMs after issue (injected clock)', async () => {
    let now = 5_000;
    const c = codec({ ttlMs: 1_000, now: () => now });
    const token = await c.issue({ n: 1 }, CALL);
    now = 5_999;
    expect(await c.open(token, CALL)).toEqual({ n: 1 });
    now = 6_000;
    expect(await refusal(c.open(token, CALL))).toEqual({ code: 'expired', message: 'Invalid request state: expired 0 ms ago' });
    now = 9_000;
    expect((await refusal(c.open(token, CALL))).message).toBe('Invalid request state: expired 3000 ms ago');
  });
});

describe('RequestStateCodec: binding', () => {
  const rebound = { code: 'rebound', message: 'Invalid request state: issued for another request (method, params or principal)' };

  it('refuses state presented on another method, other params or another principal', async () => {
    const c = codec();
    const token = await c.issue({ n: 1 }, CALL);
    expect(await refusal(c.open(token, { ...CALL, method: 'prompts/get' }))).toEqual(rebound);
    expect(await refusal(c.open(token, { ...CALL, params: { name: 'book', arguments: { city: 'Oslo', nights: 3 } } }))).toEqual(rebound);
    expect(await refusal(c.open(token, { ...CALL, params: { name: 'cancel', arguments: { city: 'Oslo', nights: 2 } } }))).toEqual(rebound);
    expect(await refusal(c.open(token, { ...CALL, params: undefined }))).toEqual(rebound);
    expect(await refusal(c.open(token, { ...CALL, principal: 'alice' }))).toEqual(rebound);

    const alices = await c.issue({ n: 1 }, { ...CALL, principal: 'alice' });
    expect(await c.open(alices, { ...CALL, principal: 'alice' })).toEqual({ n: 1 });
    expect(await refusal(c.open(alices, { ...CALL, principal: 'mallory' }))).toEqual(rebound);
    expect(await refusal(c.open(alices, { ...CALL, principal: '' }))).toEqual(rebound);
    expect(await refusal(c.open(alices, CALL))).toEqual(rebound);
  });

  it('member order, _meta, inputResponses and requestState do not change the binding', async () => {
    const c = codec();
    const first = {
      name: 'book',
      arguments: { city: 'Oslo', nights: 2 },
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
    };
    const token = await c.issue({ n: 1 }, { method: 'tools/call', params: first });
    const retry = {
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', progressToken: 7 },
      arguments: { nights: 2, city: 'Oslo' },
      inputResponses: { 'elicitation-0': { action: 'accept', content: { ok: true } } },
      requestState: token,
      name: 'book',
    };
    expect(await c.open(token, { method: 'tools/call', params: retry })).toEqual({ n: 1 });
    expect(await c.open(token, CALL)).toEqual({ n: 1 });
    // Only the top-level members are set aside: the same names inside arguments are params like any other.
    const nested = { ...retry, arguments: { nights: 2, city: 'Oslo', _meta: {} } };
    expect(await refusal(c.open(token, { method: 'tools/call', params: nested }))).toEqual(rebound);
  });
});

describe('RequestStateCodec: key rotation', () => {
  const oldKey = { id: 'old', secret: SECRET_A };
  const newKey = { id: 'new', secret: SECRET_B };

  it('the first key signs, every key verifies; a retired key id is unknown', async () => {
    const before = new RequestStateCodec({ keys: [oldKey] });
    const during = new RequestStateCodec({ keys: [newKey, oldKey] });
    const after = new RequestStateCodec({ keys: [newKey] });

    const oldToken = await before.issue({ n: 1 }, CALL);
    expect(await during.open(oldToken, CALL)).toEqual({ n: 1 });
    const newToken = await during.issue({ n: 2 }, CALL);
    expect(newToken.split('.')[1]).toBe('new');
    expect(await after.open(newToken, CALL)).toEqual({ n: 2 });
    expect(await refusal(after.open(oldToken, CALL))).toEqual({ code: 'unknown_key', message: 'Invalid request state: unknown key id "old"' });
    expect((await refusal(before.open(newToken, CALL))).code).toBe('unknown_key');
  });

  it('the default is a random key per codec: its state opens nowhere else', async () => {
    const one = new RequestStateCodec();
    const two = new RequestStateCodec();
    const token = await one.issue({ n: 1 }, CALL);
    expect(token).toMatch(TOKEN);
    expect(await one.open(token, CALL)).toEqual({ n: 1 });
    expect((await refusal(two.open(token, CALL))).code).toBe('unknown_key');
    expect((await refusal(two.open(withSegment(token, 1, (await two.issue(null, CALL)).split('.')[1] as string), CALL))).code).toBe('bad_signature');
  });

  it('a Uint8Array secret is copied: changing it afterwards changes nothing', async () => {
    const secret = new Uint8Array(32).fill(7);
    const c = new RequestStateCodec({ keys: [{ id: 'k', secret }] });
    const token = await c.issue({ n: 1 }, CALL);
    secret.fill(0);
    expect(await new RequestStateCodec({ keys: [{ id: 'k', secret: new Uint8Array(32).fill(7) }] }).open(token, CALL)).toEqual({ n: 1 });
    expect(await c.open(token, CALL)).toEqual({ n: 1 });
  });
});

describe('RequestStateCodec: encryption', () => {
  it('hides the payload, still binds, and refuses tampering', async () => {
    const c = codec({ encrypt: true });
    const payload = { secretWord: 'swordfish', step: 3 };
    const token = await c.issue(payload, CALL);
    expect(token).toMatch(SEALED);
    expect(token.split('.')[1]).toBe('k1');
    for (const segment of token.split('.')) {
      expect(segment).not.toContain('swordfish');
      expect(binaryOf(segment)).not.toContain('swordfish');
    }
    expect(binaryOf(token.split('.')[2] as string)).toHaveLength(12);
    expect(await c.open(token, CALL)).toEqual(payload);
    expect((await c.issue(payload, CALL)) === token).toBe(false); // a fresh IV each time

    expect((await refusal(c.open(token, { ...CALL, method: 'resources/read' }))).code).toBe('rebound');
    expect((await refusal(c.open(token, { ...CALL, principal: 'bob' }))).code).toBe('rebound');
    const [, , iv, sealed] = token.split('.') as [string, string, string, string];
    expect((await refusal(c.open(withSegment(token, 3, flip(sealed, 10)), CALL))).code).toBe('bad_signature');
    expect((await refusal(c.open(withSegment(token, 2, flip(iv, 0)), CALL))).code).toBe('bad_signature');
    expect((await refusal(c.open(withSegment(token, 2, iv.slice(0, 12)), CALL))).code).toBe('malformed');
  });

  it('expires like signed state', async () => {
    let now = 0;
    const c = codec({ encrypt: true, ttlMs: 10, now: () => now });
    const token = await c.issue({ n: 1 }, CALL);
    now = 10;
    expect((await refusal(c.open(token, CALL))).code).toBe('expired');
  });

  it('the key id is authenticated too', async () => {
    const c = new RequestStateCodec({ keys: [{ id: 'k1', secret: SECRET_A }, { id: 'k2', secret: SECRET_A }], encrypt: true });
    const token = await c.issue({ n: 1 }, CALL);
    expect((await refusal(c.open(withSegment(token, 1, 'k2'), CALL))).code).toBe('bad_signature');
  });

  it('a codec opens only tokens of its own mode', async () => {
    const signed = codec();
    const sealed = codec({ encrypt: true });
    expect(await refusal(signed.open(await sealed.issue({ n: 1 }, CALL), CALL))).toEqual({
      code: 'malformed',
      message: 'Invalid request state: malformed: expected a "v1" token',
    });
    expect((await refusal(sealed.open(await signed.issue({ n: 1 }, CALL), CALL))).message).toBe('Invalid request state: malformed: expected a "v1e" token');
  });
});

describe('RequestStateCodec: size', () => {
  it('refuses to open text over maxBytes before any other check', async () => {
    const c = codec({ maxBytes: 200 });
    expect(await refusal(c.open('x'.repeat(201), CALL))).toEqual({ code: 'too_large', message: 'Request state too large: 201 bytes, the limit is 200' });
    const small = await c.issue({ n: 1 }, CALL);
    expect(small.length).toBeLessThanOrEqual(200);
    expect((await refusal(codec({ maxBytes: small.length - 1 }).open(small, CALL))).code).toBe('too_large');
    expect(await codec({ maxBytes: small.length }).open(small, CALL)).toEqual({ n: 1 });
  });

  it('refuses to issue a token over maxBytes', async () => {
    const c = codec({ maxBytes: 1_024 });
    const { code, message } = await refusal(c.issue({ blob: 'z'.repeat(2_000) }, CALL));
    expect(code).toBe('too_large');
    expect(message).toMatch(/^Request state too large: \d+ bytes, the limit is 1024$/);
    expect((await refusal(codec({ maxBytes: 1_024, encrypt: true }).issue({ blob: 'z'.repeat(2_000) }, CALL))).code).toBe('too_large');
  });

  it('the default limit is 65 536 bytes', async () => {
    const c = codec();
    const near = await c.issue('y'.repeat(40_000), CALL);
    expect(await c.open(near, CALL)).toBe('y'.repeat(40_000));
    expect((await refusal(c.issue('y'.repeat(50_000), CALL))).code).toBe('too_large');
    expect((await refusal(c.open('y'.repeat(65_537), CALL))).code).toBe('too_large');
  });
});

describe('RequestStateCodec: options', () => {
  it('refuses bad options with a TypeError or RangeError', () => {
    const bad: [unknown, ErrorConstructor, string][] = [
      [null, TypeError, 'Invalid request state options: expected an object'],
      [{ keys: [] }, RangeError, 'Invalid request state options: "keys" is empty'],
      [{ keys: 'k' }, TypeError, 'Invalid request state options: "keys" must be an array'],
      [{ keys: [{ id: 'k1', secret: 'short' }] }, RangeError, 'Invalid request state key: the secret of "k1" has 5 bytes, at least 32 needed'],
      [{ keys: [{ id: 'k1', secret: new Uint8Array(31) }] }, RangeError, 'Invalid request state key: the secret of "k1" has 31 bytes, at least 32 needed'],
      [{ keys: [{ id: 'k1', secret: 42 }] }, TypeError, 'Invalid request state key: the secret of "k1" must be a string or a Uint8Array'],
      [{ keys: [{ id: 'a.b', secret: SECRET_A }] }, RangeError, 'Invalid request state key: id "a.b" must be 1-64 characters of A-Z a-z 0-9 _ -'],
      [{ keys: [{ id: '', secret: SECRET_A }] }, RangeError, 'Invalid request state key: id "" must be 1-64 characters of A-Z a-z 0-9 _ -'],
      [{ keys: [{ secret: SECRET_A }] }, TypeError, 'Invalid request state key: "id" must be a string'],
      [{ keys: [null] }, TypeError, 'Invalid request state key: "id" must be a string'],
      [{ keys: [{ id: 'k', secret: SECRET_A }, { id: 'k', secret: SECRET_B }] }, RangeError, 'Invalid request state key: id "k" appears twice'],
      [{ ttlMs: 0 }, RangeError, 'Invalid request state options: "ttlMs" must be a positive integer, got 0'],
      [{ ttlMs: 1.5 }, RangeError, 'Invalid request state options: "ttlMs" must be a positive integer, got 1.5'],
      [{ ttlMs: '60' }, TypeError, 'Invalid request state options: "ttlMs" must be a number'],
      [{ maxBytes: -1 }, RangeError, 'Invalid request state options: "maxBytes" must be a positive integer, got -1'],
      [{ maxBytes: Infinity }, RangeError, 'Invalid request state options: "maxBytes" must be a positive integer, got Infinity'],
      [{ encrypt: 'yes' }, TypeError, 'Invalid request state options: "encrypt" must be a boolean'],
      [{ now: 5 }, TypeError, 'Invalid request state options: "now" must be a function'],
    ];
    for (const [options, type, message] of bad) {
      expect(() => new RequestStateCodec(options as RequestStateOptions), JSON.stringify(options)).toThrow(new type(message));
      expect(() => new RequestStateCodec(options as RequestStateOptions)).toThrow(type);
    }
    expect(() => new RequestStateCodec({ keys: [{ id: 'x'.repeat(64), secret: 'é'.repeat(16) }] })).not.toThrow();
  });
});

describe('RequestStateCodec: volume', () => {
  it('10 000 issue + open pairs, signed and sealed, all open to their payload', async () => {
    for (const encrypt of [false, true]) {
      const c = codec({ encrypt });
      for (let i = 0; i < 10_000; i += 100) {
        const batch = Array.from({ length: 100 }, async (_, j) => {
          const binding = { method: 'tools/call', params: { name: 't', arguments: { i: i + j } } };
          return c.open(await c.issue({ i: i + j }, binding), binding);
        });
        expect(await Promise.all(batch)).toEqual(Array.from({ length: 100 }, (_, j) => ({ i: i + j })));
      }
    }
  });
});
