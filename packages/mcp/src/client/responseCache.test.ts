// The 2026-07-28 response cache: freshness, keys, scope, bounds and invalidation (MCP 2026-07-28
// server/utilities/caching.mdx), on a clock the test moves.
import { describe, expect, it } from 'vitest';
import { cacheKeyOf, freshnessOf, ResponseCache, type CachedResponse, type SharedResponseStore } from './responseCache.js';

function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

const tools = (ttlMs: unknown, cacheScope: unknown = 'private', extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  tools: [{ name: 'a', inputSchema: { type: 'object' } }],
  resultType: 'complete',
  ttlMs,
  cacheScope,
  ...extra,
});

class MapStore implements SharedResponseStore {
  readonly map = new Map<string, CachedResponse>();
  get(key: string): CachedResponse | undefined {
    return this.map.get(key);
  }
  set(key: string, entry: CachedResponse): void {
    this.map.set(key, entry);
  }
  delete(key: string): void {
    this.map.delete(key);
  }
}

describe('cache keys', () => {
  it('are the method and the params that affect the result, in any member order, without _meta', () => {
    expect(cacheKeyOf('tools/list', undefined)).toBe('tools/list');
    expect(cacheKeyOf('tools/list', { _meta: { progressToken: 1 } })).toBe('tools/list');
    expect(cacheKeyOf('tools/list', { cursor: 'c1' })).toBe('tools/list {"cursor":"c1"}');
    // An empty cursor is a cursor (a page of its own), not the first page.
    expect(cacheKeyOf('tools/list', { cursor: '' })).toBe('tools/list {"cursor":""}');
    expect(cacheKeyOf('resources/read', { uri: 'a://b', x: { q: 1, p: 2 } })).toBe(cacheKeyOf('resources/read', { x: { p: 2, q: 1 }, uri: 'a://b' }));
    expect(cacheKeyOf('resources/read', { uri: 'a://b' })).not.toBe(cacheKeyOf('resources/read', { uri: 'a://c' }));
  });

  it('do not exist for other methods nor for multi round-trip retries', () => {
    expect(cacheKeyOf('tools/call', { name: 'x' })).toBeUndefined();
    expect(cacheKeyOf('prompts/get', { name: 'x' })).toBeUndefined();
    expect(cacheKeyOf('resources/read', { uri: 'a://b', inputResponses: {} })).toBeUndefined();
    expect(cacheKeyOf('resources/read', { uri: 'a://b', requestState: 's' })).toBeUndefined();
  });

  it('read ttlMs as 0 when it is absent, negative or not a number', () => {
    expect(freshnessOf({})).toBe(0);
    expect(freshnessOf({ ttlMs: -5 })).toBe(0);
    expect(freshnessOf({ ttlMs: '100' })).toBe(0);
    expect(freshnessOf({ ttlMs: Number.NaN })).toBe(0);
    expect(freshnessOf({ ttlMs: 250 })).toBe(250);
  });
});

describe('ResponseCache', () => {
  it('serves a result while now < received + ttlMs, then not', async () => {
    const c = clock();
    const cache = new ResponseCache({ origin: 'http://s/mcp', now: c.now });
    await cache.store('tools/list', {}, tools(1000));
    expect(await cache.get('tools/list', undefined)).toEqual(tools(1000));
    c.advance(999);
    expect(await cache.get('tools/list', { _meta: { progressToken: 7 } })).toEqual(tools(1000));
    c.advance(1);
    expect(await cache.get('tools/list', {})).toBeUndefined();
  });

  it('never stores a result with ttlMs 0, absent or negative, and a 0 forgets the older entry', async () => {
    const c = clock();
    const cache = new ResponseCache({ origin: 'o', now: c.now });
    await cache.store('tools/list', {}, tools(0));
    await cache.store('prompts/list', {}, { prompts: [], resultType: 'complete' });
    await cache.store('resources/list', {}, { resources: [], ttlMs: -1 });
    expect(cache.size).toBe(0);
    await cache.store('tools/list', {}, tools(1000));
    await cache.store('tools/list', {}, tools(0));
    expect(await cache.get('tools/list', {})).toBeUndefined();
  });

  it('never stores an input_required result, a retry, or another method', async () => {
    const cache = new ResponseCache({ origin: 'o' });
    await cache.store('resources/read', { uri: 'a://x' }, { resultType: 'input_required', inputRequests: {}, ttlMs: 1000 });
    await cache.store('resources/read', { uri: 'a://x', inputResponses: { k: { action: 'accept' } } }, { contents: [], resultType: 'complete', ttlMs: 1000 });
    await cache.store('resources/read', { uri: 'a://x', requestState: 'st' }, { contents: [], resultType: 'complete', ttlMs: 1000 });
    await cache.store('tools/call', { name: 'x' }, { content: [], ttlMs: 1000 });
    expect(cache.size).toBe(0);
    // A result without resultType is complete (MCP 2026-07-28 basic/index.mdx "ResultType").
    await cache.store('resources/read', { uri: 'a://x' }, { contents: [{ uri: 'a://x', text: 'X' }], ttlMs: 1000 });
    expect(await cache.get('resources/read', { uri: 'a://x' })).toEqual({ contents: [{ uri: 'a://x', text: 'X' }], ttlMs: 1000 });
    // The retry of that read is never answered from the cache.
    expect(await cache.get('resources/read', { uri: 'a://x', requestState: 'st' })).toBeUndefined();
  });

  it('keeps each page under its own cursor', async () => {
    const cache = new ResponseCache({ origin: 'o' });
    await cache.store('tools/list', {}, tools(1000, 'private', { nextCursor: 'p2' }));
    await cache.store('tools/list', { cursor: 'p2' }, { tools: [{ name: 'b' }], ttlMs: 1000 });
    expect(await cache.get('tools/list', {})).toMatchObject({ nextCursor: 'p2' });
    expect(await cache.get('tools/list', { cursor: 'p2' })).toEqual({ tools: [{ name: 'b' }], ttlMs: 1000 });
    expect(await cache.get('tools/list', { cursor: 'p3' })).toBeUndefined();
  });

  it('hands out copies: what a caller changes never reaches the cache', async () => {
    const cache = new ResponseCache({ origin: 'o' });
    const received = tools(1000);
    await cache.store('tools/list', {}, received);
    (received.tools as unknown[]).length = 0;
    const first = (await cache.get('tools/list', {}))!;
    (first.tools as { name: string }[])[0]!.name = 'changed';
    expect(await cache.get('tools/list', {})).toEqual(tools(1000));
  });

  it('holds at most maxEntries, the least recently used going first', async () => {
    const cache = new ResponseCache({ origin: 'o', maxEntries: 2 });
    const read = (uri: string): Record<string, unknown> => ({ contents: [{ uri, text: uri }], ttlMs: 60_000 });
    await cache.store('resources/read', { uri: 'a://1' }, read('a://1'));
    await cache.store('resources/read', { uri: 'a://2' }, read('a://2'));
    expect(await cache.get('resources/read', { uri: 'a://1' })).toBeDefined(); // a://1 is now the most recent
    await cache.store('resources/read', { uri: 'a://3' }, read('a://3'));
    expect(cache.size).toBe(2);
    expect(await cache.get('resources/read', { uri: 'a://2' })).toBeUndefined();
    expect(await cache.get('resources/read', { uri: 'a://1' })).toEqual(read('a://1'));
    expect(await cache.get('resources/read', { uri: 'a://3' })).toEqual(read('a://3'));
    expect(() => new ResponseCache({ origin: 'o', maxEntries: 0 })).toThrow(new RangeError('Invalid option maxEntries: expected a positive integer, got 0'));
  });

  it('drops a list on its list-changed notification, and a read on its resources/updated', async () => {
    const cache = new ResponseCache({ origin: 'o' });
    await cache.store('tools/list', {}, tools(60_000));
    await cache.store('tools/list', { cursor: 'p2' }, tools(60_000));
    await cache.store('prompts/list', {}, { prompts: [], ttlMs: 60_000 });
    await cache.store('resources/list', {}, { resources: [], ttlMs: 60_000 });
    await cache.store('resources/templates/list', {}, { resourceTemplates: [], ttlMs: 60_000 });
    await cache.store('resources/read', { uri: 'a://1' }, { contents: [], ttlMs: 60_000 });
    await cache.store('resources/read', { uri: 'a://2' }, { contents: [], ttlMs: 60_000 });
    await cache.invalidate('notifications/message', { level: 'info', data: 'x' });
    expect(cache.size).toBe(7);
    await cache.invalidate('notifications/tools/list_changed', undefined);
    expect(await cache.get('tools/list', {})).toBeUndefined();
    expect(await cache.get('tools/list', { cursor: 'p2' })).toBeUndefined();
    expect(await cache.get('prompts/list', {})).toBeDefined();
    await cache.invalidate('notifications/resources/updated', { uri: 'a://1' });
    expect(await cache.get('resources/read', { uri: 'a://1' })).toBeUndefined();
    expect(await cache.get('resources/read', { uri: 'a://2' })).toBeDefined();
    await cache.invalidate('notifications/resources/list_changed', {});
    expect(await cache.get('resources/list', {})).toBeUndefined();
    expect(await cache.get('resources/templates/list', {})).toBeUndefined();
    await cache.invalidate('notifications/prompts/list_changed', {});
    expect(cache.size).toBe(1);
  });

  it('forgetList drops every page of one list only', async () => {
    const cache = new ResponseCache({ origin: 'o' });
    await cache.store('tools/list', {}, tools(60_000));
    await cache.store('tools/list', { cursor: 'p2' }, tools(60_000));
    await cache.store('prompts/list', {}, { prompts: [], ttlMs: 60_000 });
    cache.forgetList('tools/list');
    expect(cache.size).toBe(1);
    expect(await cache.get('prompts/list', {})).toBeDefined();
  });

  it('shares public results only, keyed by the server, and never private ones', async () => {
    const shared = new MapStore();
    const c = clock();
    const one = new ResponseCache({ origin: 'http://s/mcp', shared, now: c.now });
    const two = new ResponseCache({ origin: 'http://s/mcp', shared, now: c.now });
    const otherServer = new ResponseCache({ origin: 'http://t/mcp', shared, now: c.now });
    await one.store('tools/list', {}, tools(1000, 'public'));
    await one.store('resources/read', { uri: 'a://me' }, { contents: [{ uri: 'a://me', text: 'mine' }], ttlMs: 1000, cacheScope: 'private' });
    // A result without cacheScope is private.
    await one.store('prompts/list', {}, { prompts: [], ttlMs: 1000 });
    expect([...shared.map.keys()]).toEqual(['http://s/mcp\ntools/list']);
    expect(await two.get('tools/list', {})).toEqual(tools(1000, 'public'));
    expect(await two.get('resources/read', { uri: 'a://me' })).toBeUndefined();
    expect(await two.get('prompts/list', {})).toBeUndefined();
    expect(await otherServer.get('tools/list', {})).toBeUndefined();
    // Freshness counts from when the first client received it.
    c.advance(1000);
    expect(await two.get('tools/list', {})).toBeUndefined();
  });

  it('drops shared entries on notifications too', async () => {
    const shared = new MapStore();
    const one = new ResponseCache({ origin: 'o', shared });
    const two = new ResponseCache({ origin: 'o', shared });
    await one.store('tools/list', {}, tools(60_000, 'public'));
    await one.store('resources/read', { uri: 'a://1' }, { contents: [], ttlMs: 60_000, cacheScope: 'public' });
    await two.invalidate('notifications/tools/list_changed', {});
    await two.invalidate('notifications/resources/updated', { uri: 'a://1' });
    expect(shared.map.size).toBe(0);
  });
});
