/**
 * The {@link EventStore} checks of the conformance kit, from what `InMemoryEventStore` promises: event ids unique in
 * the whole store (across instances of a shared one, and after a stream was evicted and written again), bound to
 * their stream so a replay never crosses a stream or a session, replayed in order after the given id and
 * idempotently; bounded per stream, per session (by streams and by bytes: a session over its budget only ever
 * loses its own streams) and in total.
 *
 * A stream id is named as the Streamable HTTP transport names them: `<session token>.<n>`; the session is the part
 * before the last `.`.
 * @see MCP 2025-11-25 basic/transports.mdx "Resumability and Redelivery": the server "MUST NOT replay messages
 *   that would have been delivered on a different stream"; event IDs "MUST be globally unique across all streams
 *   within that session".
 */
import type { JsonRpcMessage } from '@switchboard/jsonrpc';
import type { EventStore, PrimingEvent } from '../../stores/eventStore.js';
import { assertEqual, assertTrue, makeCheck, type CheckContext, type ConformanceFactory, type ConformanceEventStoreLimits, type StoreCheck } from './conformanceKit.js';

function message(id: number): JsonRpcMessage {
  return { jsonrpc: '2.0', id, result: {} };
}

/** What a replay after `lastEventId` sends, and the stream id it returns (`undefined` for `''`). */
async function replay(store: EventStore, lastEventId: string): Promise<{ stream: string | undefined; events: [string, JsonRpcMessage | PrimingEvent][] }> {
  const events: [string, JsonRpcMessage | PrimingEvent][] = [];
  const stream = await store.replayEventsAfter(lastEventId, {
    send: (id, m) => {
      events.push([id, m]);
    },
  });
  return { stream: stream === '' ? undefined : stream, events };
}

async function streamOf(store: EventStore, eventId: string): Promise<string | undefined> {
  assertTrue(typeof store.getStreamIdForEventId === 'function', 'getStreamIdForEventId is implemented (the transport checks the owner of a Last-Event-ID with it)');
  const stream = await store.getStreamIdForEventId!(eventId);
  return stream === '' ? undefined : stream;
}

function checkId(id: unknown): string {
  assertTrue(typeof id === 'string' && id.length > 0 && !/[\r\n\0]/.test(id), `storeEvent returns a non-empty id without CR, LF or NUL, got ${JSON.stringify(id)}`);
  return id as string;
}

/** The event store checks, for `factory`. */
export function eventStoreChecks(factory: ConformanceFactory<EventStore, ConformanceEventStoreLimits>, deliveryTimeoutMs: number): StoreCheck[] {
  const open = (ctx: CheckContext, limits: ConformanceEventStoreLimits = {}, space = ctx.space()) => ctx.open(factory, space, limits);
  const store = (s: EventStore) => async (stream: string, m: JsonRpcMessage | PrimingEvent, size?: number) => checkId(await s.storeEvent(stream, m, size));
  const check = (name: string, body: (ctx: CheckContext) => Promise<void>) => makeCheck({ store: 'EventStore', name, deliveryTimeoutMs }, body);
  return [
    check('replay sends, in order, every later event of the same stream only, and again when asked again', async (ctx) => {
      const s = await open(ctx);
      const priming = await store(s)('S.1', {});
      const a = await store(s)('S.1', message(1));
      await store(s)('S.2', message(9));
      await store(s)('T.1', message(8));
      const b = await store(s)('S.1', message(2));
      assertTrue(new Set([priming, a, b]).size === 3, 'event ids are unique');
      assertEqual(await streamOf(s, a), 'S.1', 'the stream of an event id');
      for (let round = 1; round <= 2; round++) {
        assertEqual(await replay(s, priming), { stream: 'S.1', events: [[a, message(1)], [b, message(2)]] }, `replay #${round} after the priming event`);
      }
      assertEqual(await replay(s, b), { stream: 'S.1', events: [] }, 'replay after the last event');
    }),
    check('an id never issued, malformed, or of a deleted stream replays nothing', async (ctx) => {
      const s = await open(ctx);
      const a = await store(s)('S.1', message(1));
      await store(s)('S.1', message(2));
      // A sequence number never issued: the largest exact one (a store may start its numbers high, from a clock).
      for (const bad of ['nonsense', '', `S.1.${Number.MAX_SAFE_INTEGER}`, `${a}x`, 'S.1', 'S.1.-1', 'S.1.0']) {
        assertEqual(await replay(s, bad), { stream: undefined, events: [] }, `replay after ${JSON.stringify(bad)}`);
      }
      assertTrue(typeof s.deleteStream === 'function', 'deleteStream is implemented (ended sessions free their events)');
      await s.deleteStream!('S.1');
      assertEqual(await streamOf(s, a), undefined, 'the stream of an id of a deleted stream');
      assertEqual(await replay(s, a), { stream: undefined, events: [] }, 'replay after an id of a deleted stream');
    }),
    check("an id of one session never replays another session's stream, and names no other stream", async (ctx) => {
      const s = await open(ctx);
      const mine = await store(s)('alice.1', message(1));
      const theirs = await store(s)('bob.1', message(2));
      await store(s)('alice.1', message(3));
      await store(s)('bob.1', message(4));
      assertEqual(await streamOf(s, theirs), 'bob.1', "bob's id names bob's stream");
      const seen = await replay(s, mine);
      assertEqual(seen.stream, 'alice.1', "alice's replay stream");
      assertEqual(seen.events.map(([, m]) => m), [message(3)], "alice's replay holds only alice's later events");
      // An id that names alice's stream with a sequence number taken from bob's stream replays at most alice's events.
      const forged = await replay(s, `alice.1.${theirs.slice(theirs.lastIndexOf('.') + 1)}`);
      assertTrue(forged.events.every(([id]) => id.startsWith('alice.1.')), 'a forged id never reaches another stream');
    }),
    check('keeps maxEventsPerStream events per stream; a resume from a dropped id replays what is left', async (ctx) => {
      const s = await open(ctx, { maxEventsPerStream: 2 });
      const first = await store(s)('A.1', message(1));
      await store(s)('A.1', message(2));
      await store(s)('A.1', message(3));
      assertEqual((await replay(s, first)).events.map(([, m]) => m), [message(2), message(3)], 'replay after a dropped event');
    }),
    check('keeps maxStreams streams in all, dropping the least recently written', async (ctx) => {
      const s = await open(ctx, { maxStreams: 2 });
      const a = await store(s)('a.1', message(1));
      const b = await store(s)('b.1', message(1));
      await store(s)('a.1', message(2));
      await store(s)('c.1', message(1));
      assertEqual(await streamOf(s, a), 'a.1', 'the stream written most recently survives');
      assertEqual(await streamOf(s, b), undefined, 'the least recently written stream is gone');
    }),
    check("a session over maxStreamsPerSession loses its own least recently written stream, never another session's", async (ctx) => {
      const s = await open(ctx, { maxStreamsPerSession: 3 });
      const victim = await store(s)('victim.1', message(1));
      const attackerFirst = await store(s)('attacker.1', message(1));
      const attackerSecond = await store(s)('attacker.2', message(1));
      await store(s)('attacker.3', message(1));
      await store(s)('attacker.1', message(2)); // written again: the attacker's most recent now
      let newest = '';
      for (let i = 4; i < 40; i++) newest = await store(s)(`attacker.${i}`, message(i));
      assertEqual(await streamOf(s, victim), 'victim.1', "the victim's stream");
      assertEqual(await streamOf(s, attackerSecond), undefined, "the attacker's least recently written stream");
      assertEqual(await streamOf(s, attackerFirst), undefined, "the attacker's first stream, pushed out later");
      assertEqual(await streamOf(s, newest), 'attacker.39', "the attacker's newest stream");
    }),
    check('an evicted stream written again never repeats an event id', async (ctx) => {
      const s = await open(ctx, { maxStreamsPerSession: 1 });
      const ids = [await store(s)('s.1', message(1)), await store(s)('s.1', message(2))];
      await store(s)('s.2', message(1)); // evicts s.1
      ids.push(await store(s)('s.1', message(3)), await store(s)('s.1', message(4)));
      assertEqual(new Set(ids).size, 4, 'distinct ids');
    }),
    check('bounds the bytes of a session: its oldest streams go first, then the oldest events of the stream being written', async (ctx) => {
      const s = await open(ctx, { maxBytesPerSession: 1000 });
      const other = await store(s)('other.1', message(1), 900);
      const old = await store(s)('s.1', message(1), 600);
      const kept = await store(s)('s.2', message(1), 600); // s over 1000: s.1 goes
      assertEqual(await streamOf(s, old), undefined, "the session's oldest stream");
      await store(s)('s.2', message(2), 600); // s.2 alone over budget: its oldest event goes
      assertEqual((await replay(s, kept)).events.map(([, m]) => m), [message(2)], 'what is left of the stream being written');
      assertEqual(await streamOf(s, other), 'other.1', "another session's stream");
    }),
    check('instances sharing the store: ids never collide, and one replays what another stored, in order', async (ctx) => {
      const space = ctx.space();
      const a = await open(ctx, {}, space);
      const b = await open(ctx, {}, space);
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push(await store(i % 2 === 0 ? a : b)('x.1', message(i)), await store(i % 2 === 0 ? b : a)('y.1', message(i)));
      assertEqual(new Set(ids).size, ids.length, 'ids from both instances are distinct');
      const seen = await replay(b, ids[0]!);
      assertEqual(seen.stream, 'x.1', 'the stream replayed on the other instance');
      assertEqual(seen.events.map(([, m]) => m), Array.from({ length: 9 }, (_, i) => message(i + 1)), 'every later event of the stream, in order');
      assertEqual(await streamOf(a, ids[1]!), 'y.1', "the stream of an id the other instance issued");
    }),
  ];
}
