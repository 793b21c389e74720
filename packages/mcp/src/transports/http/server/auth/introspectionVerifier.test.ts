/**
 * `introspectionVerifier` (RFC 7662) and the verdict cache, in process with an injected `fetch`: the request it
 * sends (form body, client_secret_basic), what an answer becomes (active, inactive, another issuer), what makes it
 * reject (non-200, not JSON, too large, too slow: the handler answers 503), and the cache's bounds (count, time,
 * never past `exp`). The same verifier against a real endpoint over a socket: test/auth-resource-server.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { introspectionVerifier } from './introspectionVerifier.js';
import { TokenCache } from './tokenCache.js';
import type { AuthInfo } from '../../../../protocol/auth/authInfo.js';
import type { TokenVerifyRequest } from './authOptions.js';

const REQUEST: TokenVerifyRequest = { resource: 'https://mcp.example.com/mcp', audiences: ['https://mcp.example.com/mcp'], method: 'POST', url: 'https://mcp.example.com/mcp', header: () => undefined };
const ENDPOINT = 'https://as.example.com/introspect';

interface Seen {
  readonly url: string;
  readonly init: RequestInit;
}

function endpoint(answer: (body: URLSearchParams) => Response | Promise<Response>): { fetch: (url: string, init: RequestInit) => Promise<Response>; seen: Seen[] } {
  const seen: Seen[] = [];
  return {
    seen,
    fetch: async (url, init) => {
      seen.push({ url, init });
      return answer(new URLSearchParams(init.body as string));
    },
  };
}

const json = (value: unknown): Response => new Response(JSON.stringify(value), { status: 200, headers: { 'content-type': 'application/json' } });
const inAnHour = (): number => Math.floor(Date.now() / 1000) + 3600;

describe('introspectionVerifier', () => {
  it('posts the token as a form with client_secret_basic, and an active answer becomes the AuthInfo', async () => {
    const as = endpoint((body) => json(body.get('token') === 'opaque' ? { active: true, scope: 'a b', client_id: 'c1', sub: 'u1', aud: REQUEST.resource, exp: inAnHour(), iss: 'https://as.example.com' } : { active: false }));
    const verifier = introspectionVerifier({ endpoint: ENDPOINT, clientId: 'rs id', clientSecret: 's:cret', fetch: as.fetch });
    const info = (await verifier.verify('opaque', REQUEST)) as AuthInfo;
    expect(info).toMatchObject({ token: 'opaque', clientId: 'c1', scopes: ['a', 'b'], subject: 'u1', audience: [REQUEST.resource], issuer: 'https://as.example.com' });
    const init = as.seen[0]?.init as RequestInit & { headers: Record<string, string> };
    expect(init.method).toBe('POST');
    expect(init.redirect).toBe('manual');
    // RFC 6749 §2.3.1: form-urlencoded id and secret, then base64.
    expect(init.headers.authorization).toBe(`Basic ${btoa('rs%20id:s%3Acret')}`);
    expect(new URLSearchParams(init.body as string).get('token_type_hint')).toBe('access_token');
    expect(await verifier.verify('never', REQUEST)).toEqual({ refused: 'the access token is not active' });
  });

  it('refuses an answer from another issuer when issuer is set', async () => {
    const as = endpoint(() => json({ active: true, iss: 'https://evil.example', exp: inAnHour() }));
    expect(await introspectionVerifier({ endpoint: ENDPOINT, issuer: 'https://as.example.com', fetch: as.fetch }).verify('t', REQUEST)).toEqual({ refused: 'the access token was issued by another authorization server' });
  });

  it('refuses an nbf ahead beyond the clock tolerance (30 s, as jwtVerifier), accepts one within it (RFC 7662 §2.2)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const answer = (nbf: number) => endpoint(() => json({ active: true, nbf, exp: inAnHour() })).fetch;
    expect(await introspectionVerifier({ endpoint: ENDPOINT, fetch: answer(now + 600) }).verify('t', REQUEST)).toEqual({ refused: 'the access token is not valid yet (nbf)' });
    expect(await introspectionVerifier({ endpoint: ENDPOINT, fetch: answer(now + 10) }).verify('t', REQUEST)).toMatchObject({ token: 't' });
    expect(await introspectionVerifier({ endpoint: ENDPOINT, fetch: answer(now + 10), clockToleranceSeconds: 0 }).verify('t', REQUEST)).toEqual({ refused: 'the access token is not valid yet (nbf)' });
    expect(await introspectionVerifier({ endpoint: ENDPOINT, fetch: answer(now - 10), clockToleranceSeconds: 0 }).verify('t', REQUEST)).toMatchObject({ token: 't' });
    expect(() => introspectionVerifier({ endpoint: ENDPOINT, clockToleranceSeconds: -1 })).toThrow(RangeError);
  });

  it.each<[string, () => Response | Promise<Response>, RegExp]>([
    ['a 500', () => new Response('down', { status: 500 }), /HTTP 500/],
    ['a redirect', () => new Response(null, { status: 302, headers: { location: 'https://elsewhere.example/' } }), /HTTP 302/],
    ['not JSON', () => new Response('<html>', { status: 200 }), /JSON/],
    ['an array', () => json([]), /not a JSON object/],
    ['an answer over maxResponseBytes', () => json({ active: true, pad: 'x'.repeat(2000) }), /larger than 1024 bytes/],
  ])('rejects (the handler answers 503) on %s', async (_what, answer, reason) => {
    const verifier = introspectionVerifier({ endpoint: ENDPOINT, fetch: endpoint(answer).fetch, maxResponseBytes: 1024 });
    await expect(Promise.resolve(verifier.verify('t', REQUEST))).rejects.toThrow(reason);
  });

  it('rejects when the endpoint is slower than timeoutMs', async () => {
    const slow = (_url: string, init: RequestInit): Promise<Response> =>
      new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(new DOMException('timed out', 'TimeoutError')), { once: true }));
    await expect(Promise.resolve(introspectionVerifier({ endpoint: ENDPOINT, fetch: slow, timeoutMs: 30 }).verify('t', REQUEST))).rejects.toThrow(/timed out/);
  });

  it('keeps an active answer (one call for a repeated token), never an inactive one', async () => {
    const as = endpoint((body) => json(body.get('token') === 'good' ? { active: true, exp: inAnHour(), aud: REQUEST.resource } : { active: false }));
    const verifier = introspectionVerifier({ endpoint: ENDPOINT, fetch: as.fetch });
    for (let i = 0; i < 3; i++) await verifier.verify('good', REQUEST);
    for (let i = 0; i < 3; i++) await verifier.verify('bad', REQUEST);
    expect(as.seen.length).toBe(1 + 3);
  });

  it('refuses bad options', () => {
    expect(() => introspectionVerifier({ endpoint: 'ftp://as.example.com/x' })).toThrow(TypeError);
    expect(() => introspectionVerifier({ endpoint: ENDPOINT, clientId: 'only-id' })).toThrow(/together/);
    expect(() => introspectionVerifier({ endpoint: ENDPOINT, timeoutMs: 0 })).toThrow(RangeError);
    expect(() => introspectionVerifier({ endpoint: ENDPOINT, cacheMaxEntries: -1 })).toThrow(RangeError);
    expect(() => introspectionVerifier({ endpoint: ENDPOINT, maxResponseBytes: { toString: () => 'secret' } as never })).toThrow(
      new TypeError('Invalid option introspectionVerifier.maxResponseBytes: expected a positive integer, got an object'),
    );
    expect(() => introspectionVerifier({ endpoint: ENDPOINT, timeoutMs: 2 ** 31 })).toThrow(RangeError);
  });
});

describe('TokenCache', () => {
  const info = (token: string, expiresAt?: number): AuthInfo => ({ token, clientId: 'c', scopes: [], audience: [], ...(expiresAt === undefined ? {} : { expiresAt }) });

  it('holds at most maxEntries, the least recently used going first', () => {
    const cache = new TokenCache({ maxEntries: 2, maxAgeMs: 60_000 });
    cache.set('a', info('a'));
    cache.set('b', info('b'));
    expect(cache.get('a')?.token).toBe('a');
    cache.set('c', info('c'));
    expect([cache.get('a')?.token, cache.get('b'), cache.get('c')?.token, cache.size]).toEqual(['a', undefined, 'c', 2]);
  });

  it('never keeps a token past its exp, nor one already expired', () => {
    const cache = new TokenCache({ maxEntries: 10, maxAgeMs: 60_000 });
    cache.set('old', info('old', Math.floor(Date.now() / 1000) - 1));
    expect(cache.get('old')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps nothing with maxAgeMs 0', () => {
    const cache = new TokenCache({ maxEntries: 10, maxAgeMs: 0 });
    cache.set('a', info('a'));
    expect(cache.get('a')).toBeUndefined();
  });
});
