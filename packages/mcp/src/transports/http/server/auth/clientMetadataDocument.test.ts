/**
 * The hardened Client ID Metadata Document fetcher, in process with an injected `fetch` (it records every URL it
 * is asked for, so a refused client id is seen to cost no fetch): the URL rules, private and loopback hosts (literal,
 * `localhost`, resolved), redirects, size and time bounds, the `client_id` rule, the cache.
 */
import { describe, expect, it } from 'vitest';
import { ClientMetadataError, clientMetadataFetcher, isPrivateAddress } from './clientMetadataDocument.js';

const GOOD = 'https://client.example.com/oauth/metadata.json';

function recordingFetch(answer: (url: string) => Response | Promise<Response>): { fetch: (url: string, init: RequestInit) => Promise<Response>; urls: string[]; inits: RequestInit[] } {
  const urls: string[] = [];
  const inits: RequestInit[] = [];
  return {
    urls,
    inits,
    fetch: async (url, init) => {
      urls.push(url);
      inits.push(init);
      return answer(url);
    },
  };
}

const json = (value: unknown, init: ResponseInit = {}): Response => new Response(JSON.stringify(value), { status: 200, headers: { 'content-type': 'application/json' }, ...init });

describe('clientMetadataFetcher', () => {
  it('fetches a good document once (no redirects followed), then serves it from the cache', async () => {
    const doc = { client_id: GOOD, client_name: 'Client', redirect_uris: ['http://127.0.0.1:3334/callback'] };
    const rec = recordingFetch(() => json(doc));
    const fetcher = clientMetadataFetcher({ fetch: rec.fetch });
    expect(await fetcher(GOOD)).toEqual(doc);
    expect(await fetcher(GOOD)).toEqual(doc);
    expect(rec.urls).toEqual([GOOD]);
    expect(rec.inits[0]?.redirect).toBe('manual');
  });

  it.each([
    ['http://client.example.com/meta.json', 'not https'],
    ['https://client.example.com/', 'no path'],
    ['https://user:pw@client.example.com/meta.json', 'user info'],
    ['https://client.example.com/meta.json#frag', 'fragment'],
    ['https://client.example.com/a/../meta.json', 'dot segments'],
    ['https://localhost/meta.json', 'private or loopback'],
    ['https://127.0.0.1/meta.json', 'private or loopback'],
    ['https://[::1]/meta.json', 'private or loopback'],
    ['https://10.1.2.3/meta.json', 'private or loopback'],
    ['https://169.254.169.254/latest/meta-data', 'private or loopback'],
    ['not a url', 'not a URL'],
  ])('refuses %s (%s) without fetching', async (clientId, reason) => {
    const rec = recordingFetch(() => json({ client_id: clientId }));
    await expect(clientMetadataFetcher({ fetch: rec.fetch })(clientId)).rejects.toThrow(reason);
    expect(rec.urls).toEqual([]);
  });

  it('refuses a name that resolves to a private address; allowPrivateNetworks lets a development setup through', async () => {
    const rec = recordingFetch(() => json({ client_id: GOOD }));
    await expect(clientMetadataFetcher({ fetch: rec.fetch, resolveAddresses: () => Promise.resolve(['93.184.216.34', '192.168.1.5']) })(GOOD)).rejects.toThrow(/resolves to a private/);
    expect(rec.urls).toEqual([]);
    const local = 'https://localhost:8443/meta.json';
    const dev = recordingFetch(() => json({ client_id: local }));
    expect((await clientMetadataFetcher({ fetch: dev.fetch, allowPrivateNetworks: true })(local)).client_id).toBe(local);
  });

  it.each<[string, () => Response | Promise<Response>, RegExp]>([
    ['a redirect', () => new Response(null, { status: 302, headers: { location: 'https://169.254.169.254/' } }), /redirects/],
    ['a 404', () => new Response('no', { status: 404 }), /HTTP 404/],
    ['a document over maxBytes', () => json({ client_id: GOOD, pad: 'x'.repeat(5000) }), /larger than 1024 bytes/],
    ['not JSON', () => new Response('<html>', { status: 200 }), /not JSON/],
    ['another client_id', () => json({ client_id: 'https://evil.example/meta.json' }), /client_id is not its URL/],
    ['a client_secret', () => json({ client_id: GOOD, client_secret: 's' }), /client_secret/],
    ['a shared-secret auth method', () => json({ client_id: GOOD, token_endpoint_auth_method: 'client_secret_basic' }), /shared secret/],
    ['a fetch that fails', () => Promise.reject(new TypeError('fetch failed')), /could not be fetched/],
  ])('refuses %s', async (_what, answer, reason) => {
    const fetcher = clientMetadataFetcher({ fetch: recordingFetch(answer).fetch, maxBytes: 1024 });
    const failure = fetcher(GOOD);
    await expect(failure).rejects.toThrow(reason);
    await expect(failure).rejects.toBeInstanceOf(ClientMetadataError);
  });

  it('gives up on a slow server after timeoutMs', async () => {
    const slow = (_url: string, init: RequestInit): Promise<Response> =>
      new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(new DOMException('timed out', 'TimeoutError')), { once: true }));
    await expect(clientMetadataFetcher({ fetch: slow, timeoutMs: 50 })(GOOD)).rejects.toThrow(/could not be fetched/);
  });

  it('refuses its limits out of range, saying which and what it takes', () => {
    expect(() => clientMetadataFetcher({ timeoutMs: 0 })).toThrow(new RangeError('Invalid option clientMetadataFetcher.timeoutMs: expected a number of milliseconds from 1 to 2147483647, got 0'));
    expect(() => clientMetadataFetcher({ cacheMaxEntries: -1 })).toThrow(new RangeError('Invalid option clientMetadataFetcher.cacheMaxEntries: expected an integer of 0 or more, got -1'));
    expect(() => clientMetadataFetcher({ maxBytes: '1' as never })).toThrow(TypeError);
  });

  it('classifies addresses (RFC 6890 special-purpose ranges)', () => {
    for (const address of ['127.0.0.1', '10.0.0.1', '172.16.0.1', '192.168.0.1', '169.254.1.1', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '224.0.0.1']) {
      expect([address, isPrivateAddress(address)]).toEqual([address, true]);
    }
    for (const address of ['93.184.216.34', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) expect([address, isPrivateAddress(address)]).toEqual([address, false]);
  });
});
