/**
 * The {@link SessionStore} checks of the conformance kit, from what the HTTP handler's session table relies on
 * (`transports/http/server/sessions/sessionTable.ts`): a record reads back as written; `touch` changes only what it
 * names and never creates a record; counts and scans per caller see only that caller's records; a scan meets the
 * least recently active first and stops when told; instances sharing the store see each other's records.
 */
import type { SessionRecord, SessionStateJson, SessionStore } from '../../stores/sessionStore.js';
import { assertEqual, makeCheck, type CheckContext, type ConformanceFactory, type StoreCheck } from './conformanceKit.js';

function record(sessionId: string, caller: string | null, lastActivity: number): SessionRecord {
  return {
    sessionId,
    transport: 'streamable-http',
    caller,
    createdAt: lastActivity,
    lastActivity,
    phase: 'opened',
    ttlMs: 60_000,
    streamPrefix: `${sessionId}-token.`,
    protocolVersion: null,
  };
}

/** A record as compared: `state: null` and no `state` are the same (both: no MCP state yet). */
function plain(record: SessionRecord | undefined): SessionRecord | undefined {
  if (record === undefined || (record.state !== undefined && record.state !== null)) return record;
  const { state: _none, ...rest } = record;
  return rest;
}

async function scanIds(store: SessionStore, caller?: string, stopAfter = Infinity): Promise<string[]> {
  const ids: string[] = [];
  await store.scan((r) => {
    ids.push(r.sessionId);
    return ids.length < stopAfter;
  }, caller === undefined ? undefined : { caller });
  return ids;
}

/** The session store checks, for `factory`. */
export function sessionStoreChecks(factory: ConformanceFactory<SessionStore>, deliveryTimeoutMs: number): StoreCheck[] {
  const open = (ctx: CheckContext, space = ctx.space()) => ctx.open(factory, space, undefined);
  const check = (name: string, body: (ctx: CheckContext) => Promise<void>) => makeCheck({ store: 'SessionStore', name, deliveryTimeoutMs }, body);
  const now = Date.now();
  return [
    check('a record reads back as written; an unknown id reads undefined', async (ctx) => {
      const s = await open(ctx);
      const legacy: SessionRecord = { ...record('b', null, now), transport: 'legacy-sse', streamPrefix: null, phase: 'active', ttlMs: 0 };
      await s.create(record('a', 'alice', now));
      await s.create(legacy);
      assertEqual(plain(await s.get('a')), record('a', 'alice', now), 'the record of a');
      assertEqual(plain(await s.get('b')), legacy, 'a record with a null caller, a null prefix and a TTL of 0');
      assertEqual(await s.get('nope'), undefined, 'an unknown id');
    }),
    check('touch changes the activity, and the phase, TTL and revision when given; an unknown id is ignored', async (ctx) => {
      const s = await open(ctx);
      await s.create(record('a', 'alice', now));
      await s.touch('a', { at: now + 5 });
      assertEqual(plain(await s.get('a')), { ...record('a', 'alice', now), lastActivity: now + 5 }, 'after a plain touch');
      await s.touch('a', { at: now + 9, phase: 'active', ttlMs: 30_000, protocolVersion: '2025-11-25' });
      assertEqual(plain(await s.get('a')), { ...record('a', 'alice', now), lastActivity: now + 9, phase: 'active', ttlMs: 30_000, protocolVersion: '2025-11-25' }, 'after a full touch');
      await s.touch('ghost', { at: now });
      assertEqual(await s.get('ghost'), undefined, 'a touched unknown id');
      assertEqual(await s.count(), 1, 'the count after touching an unknown id');
    }),
    check('touch says whether the record is there: never false for a live one, never true for one deleted (a store that cannot tell says nothing)', async (ctx) => {
      const space = ctx.space();
      const a = await open(ctx, space);
      const b = await open(ctx, space);
      await a.create(record('s', 'alice', now));
      const live = await b.touch('s', { at: now + 1 });
      if (live === false) throw new Error(`touch of a live record resolved false`);
      await a.delete('s');
      const gone = await b.touch('s', { at: now + 2 });
      if (gone === true) throw new Error('touch of a record deleted by another instance resolved true');
      // The HTTP handler's cluster mode relies on it (a request of an ended session is 404 on every instance).
      assertEqual([live, gone].map((v) => v === undefined ? 'silent' : String(v)).join(','), live === undefined ? 'silent,silent' : 'true,false', 'a store tells for both or for neither');
    }),
    check("the session's MCP state reads back as written, a touch replaces it whole, and another instance reads it", async (ctx) => {
      const space = ctx.space();
      const a = await open(ctx, space);
      const b = await open(ctx, space);
      const state: SessionStateJson = {
        protocolVersion: '2025-11-25',
        clientInfo: { name: 'c', version: '1' },
        clientCapabilities: { elicitation: { form: {} } },
        serverCapabilities: { tools: { listChanged: true } },
        logLevelRank: 0,
        subscriptions: ['file:///a'],
        initializeRequestId: 0,
        initialized: false,
      };
      await a.create({ ...record('s', null, now), state });
      assertEqual((await b.get('s'))?.state, state, 'the state on the other instance');
      const next: SessionStateJson = { ...state, clientInfo: undefined, logLevelRank: 3, subscriptions: [], initialized: true };
      const { clientInfo: _gone, ...expected } = next;
      await b.touch('s', { at: now + 1, state: expected });
      assertEqual((await a.get('s'))?.state, expected, 'the state after a touch replaced it (clientInfo gone)');
      assertEqual((await a.get('s'))?.lastActivity, now + 1, 'the activity of that touch');
    }),
    check('the opener (who opened the session) reads back as written on another instance, and a touch keeps it', async (ctx) => {
      // The HTTP handler serves a session on another instance only to requests of the same opener (MCP 2025-11-25
      // basic/security_best_practices.mdx "Session Hijacking"): a store that drops it lets anyone holding the id in.
      const space = ctx.space();
      const a = await open(ctx, space);
      const b = await open(ctx, space);
      const opener = JSON.stringify({ issuer: 'https://as.example', subject: 'alice', clientId: 'app' });
      await a.create({ ...record('o', 'alice', now), opener });
      assertEqual((await b.get('o'))?.opener, opener, 'the opener on the other instance');
      await b.touch('o', { at: now + 1, phase: 'active' });
      assertEqual((await a.get('o'))?.opener, opener, 'the opener after a touch');
    }),
    check('counts all records and each caller\'s; a record without a caller counts under none', async (ctx) => {
      const s = await open(ctx);
      await s.create(record('a1', 'alice', now));
      await s.create(record('a2', 'alice', now + 1));
      await s.create(record('b1', 'bob', now + 2));
      await s.create(record('n1', null, now + 3));
      assertEqual([await s.count(), await s.count({ caller: 'alice' }), await s.count({ caller: 'bob' }), await s.count({ caller: 'carol' })], [4, 2, 1, 0], 'counts: all, alice, bob, carol');
      await s.create(record('a1', 'bob', now + 4)); // created again under another caller: replaced, not doubled
      assertEqual([await s.count(), await s.count({ caller: 'alice' }), await s.count({ caller: 'bob' })], [4, 1, 2], 'counts after a1 was created again for bob');
    }),
    check('a scan meets the least recently active first, a touch moves a record last, and it stops when told', async (ctx) => {
      const s = await open(ctx);
      for (const [i, id] of ['a', 'b', 'c', 'd'].entries()) await s.create(record(id, i % 2 === 0 ? 'even' : 'odd', now + i));
      await s.touch('a', { at: now + 10 });
      assertEqual(await scanIds(s), ['b', 'c', 'd', 'a'], 'the scan order');
      assertEqual(await scanIds(s, undefined, 2), ['b', 'c'], 'a scan stopped after two');
      assertEqual(await scanIds(s, 'even'), ['c', 'a'], "the scan of one caller's records");
      assertEqual(await scanIds(s, 'nobody'), [], "the scan of a caller with no records");
    }),
    check('delete removes a record from get, count and scan; an unknown id is ignored', async (ctx) => {
      const s = await open(ctx);
      await s.create(record('a', 'alice', now));
      await s.create(record('b', 'alice', now + 1));
      await s.delete('a');
      await s.delete('ghost');
      assertEqual([await s.get('a'), await s.count(), await s.count({ caller: 'alice' }), await scanIds(s)], [undefined, 1, 1, ['b']], 'get, counts and scan after the delete');
    }),
    check('instances sharing the store see each other\'s records, touches and deletes', async (ctx) => {
      const space = ctx.space();
      const a = await open(ctx, space);
      const b = await open(ctx, space);
      await a.create(record('x', 'alice', now));
      await a.create(record('y', 'bob', now + 1));
      assertEqual([await b.count(), await b.count({ caller: 'alice' }), plain(await b.get('x'))], [2, 1, record('x', 'alice', now)], 'what the other instance sees');
      await b.touch('x', { at: now + 7, phase: 'active' });
      assertEqual(await scanIds(a), ['y', 'x'], 'the first instance\'s scan after the other touched x');
      await b.delete('y');
      assertEqual(await a.count(), 1, 'the count after the other instance deleted y');
      const other = await open(ctx);
      assertEqual(await other.count(), 0, 'an instance of another space');
    }),
  ];
}
