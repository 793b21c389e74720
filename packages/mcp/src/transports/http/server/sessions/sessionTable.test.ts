/**
 * The session table's record of a session never runs ahead of its live copy: a state change (the handshake's
 * `notifications/initialized`, a log level) is stamped with the copy's last activity, not the moment the write is
 * made. Otherwise, with one instance, a reaper pass could find the copy idle but the record not yet, let go of the
 * copy here only, and leave a record from which a request after the idle timeout rebuilt the session (200 instead of
 * 404, and a record the in-memory store kept for ever).
 */
import { silentLogger } from '@switchboard/jsonrpc';
import { describe, expect, it } from 'vitest';
import { InMemorySessionStore, type SessionStateJson } from '../../../../stores/sessionStore.js';
import type { SessionEntry } from './sessionEntry.js';
import { SessionTable } from './sessionTable.js';

const STATE: SessionStateJson = { protocolVersion: '2025-11-25', clientCapabilities: {}, serverCapabilities: {}, logLevelRank: 0, subscriptions: [], initializeRequestId: 0, initialized: true };

describe('SessionTable.link', () => {
  it('stamps a state change and a negotiated revision with the live copy\'s last activity, never later', async () => {
    const store = new InMemorySessionStore();
    const table = new SessionTable({ store, logger: silentLogger, maxSessions: 10, maxSessionsPerCaller: 10, idleMs: 100, handshakeMs: 100, graceMs: 0 });
    try {
      expect(await table.admit({ sessionId: 's1', kind: 'streamable-http', caller: undefined, group: '', streamPrefix: 'p', opener: null })).toBeUndefined();
      // The copy's last request was 5 s ago (a state change may land well after the request that caused it).
      const lastActivity = Date.now() - 5_000;
      const transport = { sessionId: 's1', lastActivity, requestInFlight: false, streamOpen: false, close: () => Promise.resolve() };
      table.add({ kind: 'streamable-http', transport, session: undefined } as unknown as SessionEntry);
      table.link('s1').recordProtocolVersion('2025-11-25');
      expect(await table.link('s1').recordState?.(STATE)).toBe(true);
      expect((await store.get('s1'))?.lastActivity).toBe(lastActivity);
    } finally {
      await table.close();
    }
  });
});
