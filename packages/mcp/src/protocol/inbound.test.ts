/**
 * The inbound step, table-tested over revisions × methods × session states. The wire texts are pinned against
 * the server in test/inbound-wire.test.ts.
 */
import type { JsonRpcNotification, JsonRpcRequest } from '@switchboard/jsonrpc';
import { describe, expect, it } from 'vitest';
import { EMPTY_ENVELOPE, PROTOCOL_VERSION_META_KEY } from './envelope.js';
import { INBOUND_REFUSALS, classifyInbound, classifyInboundBatch, eraRefusalOf, inboundRefusal, isInboundRefusal, type InboundFacts } from './inbound.js';
import { MCP_METHODS, methodRow } from './methods.js';
import { LEGACY_REVISIONS, PROTOCOL_REVISIONS, SERVED_REVISIONS, type LegacyRevision } from './revisions.js';
import type { ServerCapabilities } from './types.js';

const ALL_CAPABILITIES: ServerCapabilities = { logging: {}, tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {} };
const req = (method: string, params?: unknown): JsonRpcRequest => ({ jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) }) as JsonRpcRequest;
const note = (method: string, params?: unknown): JsonRpcNotification => ({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) }) as JsonRpcNotification;
const claiming = (version: unknown, method = 'tools/list'): JsonRpcRequest => req(method, { _meta: { [PROTOCOL_VERSION_META_KEY]: version } });

function facts(revision?: LegacyRevision, serverCapabilities: ServerCapabilities = ALL_CAPABILITIES): InboundFacts {
  return revision === undefined
    ? { servedRevisions: SERVED_REVISIONS, serverCapabilities }
    : { session: { revision, initialized: true }, servedRevisions: SERVED_REVISIONS, serverCapabilities };
}

const SESSION_STATES = [undefined, ...LEGACY_REVISIONS] as const;
const METHODS = [...MCP_METHODS.keys(), 'tools/nope'];

describe('classifyInbound: the modern era', () => {
  it.each(SESSION_STATES)('session %s: every method claiming 2026-07-28 is refused -32022 while only legacy revisions are served', (revision) => {
    for (const method of METHODS) {
      expect(classifyInbound(claiming('2026-07-28', method), facts(revision))).toEqual({
        refusal: 'unsupportedRevision',
        code: -32022,
        message: 'Unsupported protocol version: this endpoint serves the session-based revisions (send initialize first)',
        data: { supported: ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'], requested: '2026-07-28' },
      });
      expect(classifyInbound({ ...note(method), params: { _meta: { [PROTOCOL_VERSION_META_KEY]: '2026-07-28' } } }, facts(revision))).toMatchObject({ refusal: 'unsupportedRevision' });
    }
  });

  it('a malformed, unknown or legacy claim is refused too, echoing what was requested', () => {
    const served = { servedRevisions: PROTOCOL_REVISIONS, serverCapabilities: ALL_CAPABILITIES };
    for (const [claim, requested] of [[7, ''], ['2099-01-01', '2099-01-01'], ['2025-11-25', '2025-11-25']] as const) {
      expect(classifyInbound(claiming(claim), served)).toMatchObject({ refusal: 'unsupportedRevision', data: { requested, supported: [...PROTOCOL_REVISIONS] } });
    }
  });

  it('served: the method table of 2026-07-28 and the server capabilities decide, with or without a session', () => {
    for (const session of [undefined, { revision: '2025-11-25' as const, initialized: true }]) {
      const served: InboundFacts = { session, servedRevisions: PROTOCOL_REVISIONS, serverCapabilities: { tools: {} } };
      const envelope = { protocolVersion: '2026-07-28' };
      expect(classifyInbound(claiming('2026-07-28', 'tools/call'), served)).toEqual({ era: 'modern', revision: '2026-07-28', row: methodRow('tools/call'), envelope });
      expect(classifyInbound(claiming('2026-07-28', 'server/discover'), served)).toEqual({ era: 'modern', revision: '2026-07-28', row: methodRow('server/discover'), envelope });
      for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'tasks/get', 'sampling/createMessage']) {
        expect(classifyInbound(claiming('2026-07-28', method), served)).toEqual({ refusal: 'methodNotInRevision', code: -32601, message: `Method not found: "${method}"` });
      }
      expect(classifyInbound(claiming('2026-07-28', 'prompts/list'), served)).toMatchObject({ refusal: 'capabilityNotAdvertised' });
      expect(classifyInbound(claiming('2026-07-28', 'notifications/cancelled'), served)).toMatchObject({ refusal: 'notificationAsRequest' });
      const cancelled = { ...note('notifications/cancelled'), params: { _meta: { [PROTOCOL_VERSION_META_KEY]: '2026-07-28' } } };
      expect(classifyInbound(cancelled, served)).toMatchObject({ era: 'modern', row: methodRow('notifications/cancelled') });
      const initialized = { ...note('notifications/initialized'), params: { _meta: { [PROTOCOL_VERSION_META_KEY]: '2026-07-28' } } };
      expect(classifyInbound(initialized, served)).toMatchObject({ era: 'modern', row: undefined });
    }
  });
});

describe('classifyInbound: the legacy era', () => {
  it('before initialize: initialize and ping are accepted, every other request is "not initialized"', () => {
    for (const method of METHODS) {
      const verdict = classifyInbound(req(method), facts());
      if (method === 'initialize' || method === 'ping') {
        expect(verdict).toEqual({ era: 'legacy', revision: undefined, row: methodRow(method), envelope: EMPTY_ENVELOPE });
      } else {
        expect(verdict).toEqual({ refusal: 'notInitialized', code: -32600, message: 'Invalid Request: the session is not initialized: send "initialize" first' });
      }
    }
  });

  it.each(LEGACY_REVISIONS)('a %s session: the table over every method with every capability advertised', (revision) => {
    for (const method of METHODS) {
      const verdict = classifyInbound(req(method), facts(revision));
      const row = methodRow(method);
      let expected: unknown;
      if (method === 'initialize') expected = inboundRefusal('alreadyInitialized');
      else if (row === undefined) expected = inboundRefusal('unknownMethod', { method });
      else if (row.kind === 'notification') expected = inboundRefusal('notificationAsRequest', { method });
      else if (!row.clientToServer.includes(revision)) expected = inboundRefusal('methodNotInRevision', { method });
      else expected = { era: 'legacy', revision, row, envelope: EMPTY_ENVELOPE };
      expect({ method, verdict }).toEqual({ method, verdict: expected });
    }
  });

  it('the concrete cases: elicitation/create is no client request, tasks/* exist at 2025-11-25 only, a notification as a request is -32601', () => {
    expect(classifyInbound(req('tasks/get'), facts('2025-11-25'))).toMatchObject({ era: 'legacy', revision: '2025-11-25' });
    expect(classifyInbound(req('tasks/get'), facts('2025-06-18'))).toEqual({ refusal: 'methodNotInRevision', code: -32601, message: 'Method not found: "tasks/get"' });
    expect(classifyInbound(req('elicitation/create'), facts('2025-11-25'))).toEqual({ refusal: 'methodNotInRevision', code: -32601, message: 'Method not found: "elicitation/create"' });
    expect(classifyInbound(req('notifications/initialized'), facts('2025-11-25'))).toEqual({ refusal: 'notificationAsRequest', code: -32601, message: 'Method not found: "notifications/initialized"' });
    expect(classifyInbound(req('server/discover'), facts('2025-11-25'))).toEqual({ refusal: 'methodNotInRevision', code: -32601, message: 'Method not found: "server/discover"' });
    expect(classifyInbound(req('initialize'), facts('2024-11-05'))).toEqual({ refusal: 'alreadyInitialized', code: -32600, message: 'Invalid Request: the session is already initialized' });
  });

  it('capabilities not advertised: -32601 naming the capability (and flag); the advertised snapshot is what counts', () => {
    const none = facts('2025-11-25', {});
    const cases: readonly (readonly [method: string, capability: string])[] = [['tools/list', 'tools'], ['tools/call', 'tools'], ['resources/read', 'resources'], ['resources/subscribe', 'resources.subscribe'], ['prompts/get', 'prompts'], ['completion/complete', 'completions'], ['logging/setLevel', 'logging']];
    for (const [method, capability] of cases) {
      expect(classifyInbound(req(method), none)).toEqual({
        refusal: 'capabilityNotAdvertised',
        code: -32601,
        message: `Method not found: "${method}" (the server does not advertise the "${capability}" capability)`,
      });
    }
    expect(classifyInbound(req('resources/unsubscribe'), facts('2025-11-25', { resources: { subscribe: false } }))).toMatchObject({ message: 'Method not found: "resources/unsubscribe" (the server does not advertise the "resources.subscribe" capability)' });
    expect(classifyInbound(req('resources/unsubscribe'), facts('2025-11-25', { resources: { subscribe: true } }))).toMatchObject({ era: 'legacy' });
    expect(classifyInbound(req('ping'), none)).toMatchObject({ era: 'legacy' });
    expect(classifyInbound(req('tasks/list'), none)).toMatchObject({ era: 'legacy' });
  });

  it('a long unknown method is quoted in 200 characters', () => {
    const method = 'x'.repeat(5000);
    expect(classifyInbound(req(method), facts('2025-11-25'))).toEqual({ refusal: 'unknownMethod', code: -32601, message: `Method not found: "${'x'.repeat(200)}…"` });
  });

  it('notifications are never refused: known ones carry their row, others none, before initialize too', () => {
    for (const revision of SESSION_STATES) {
      expect(classifyInbound(note('notifications/cancelled', { requestId: 1 }), facts(revision))).toEqual({ era: 'legacy', revision, row: methodRow('notifications/cancelled'), envelope: EMPTY_ENVELOPE });
      expect(classifyInbound(note('notifications/initialized'), facts(revision))).toMatchObject({ era: 'legacy', row: methodRow('notifications/initialized') });
      for (const method of ['tools/list', 'notifications/tools/list_changed', 'nope']) expect(classifyInbound(note(method), facts(revision))).toMatchObject({ era: 'legacy', row: undefined });
    }
    expect(classifyInbound(note('notifications/tasks/status'), facts('2025-06-18'))).toMatchObject({ row: undefined });
    expect(classifyInbound(note('notifications/tasks/status'), facts('2025-11-25'))).toMatchObject({ row: methodRow('notifications/tasks/status') });
  });

  it('the envelope of an accepted request is its parsed _meta', () => {
    expect(classifyInbound(req('tools/call', { name: 't', _meta: { progressToken: 'tok' } }), facts('2025-11-25'))).toMatchObject({ envelope: { protocolVersion: undefined, progressToken: 'tok' } });
  });
});

describe('classifyInboundBatch', () => {
  it('refused whole unless the session negotiated 2025-03-26 and the transport carries batches', () => {
    const batch = [req('ping'), note('notifications/cancelled')];
    for (const revision of SESSION_STATES) {
      const verdict = classifyInboundBatch(batch, facts(revision));
      if (revision === '2025-03-26') {
        expect(isInboundRefusal(verdict)).toBe(false);
        expect(verdict).toEqual([classifyInbound(batch[0]!, facts(revision)), classifyInbound(batch[1]!, facts(revision))]);
      } else {
        expect(verdict).toEqual({ refusal: 'batchNotAllowed', code: -32600, message: `Invalid Request: JSON-RPC batches are not accepted at ${revision ?? 'an uninitialized session'}` });
      }
    }
    expect(classifyInboundBatch(batch, { ...facts('2025-03-26'), batches: false })).toMatchObject({ refusal: 'batchNotAllowed' });
  });

  it('each member is classified on its own', () => {
    const verdict = classifyInboundBatch([req('initialize'), req('tools/list'), claiming('2026-07-28')], facts('2025-03-26'));
    expect(verdict).toMatchObject([{ refusal: 'alreadyInitialized' }, { era: 'legacy', revision: '2025-03-26' }, { refusal: 'unsupportedRevision' }]);
  });
});

describe('the refusal table', () => {
  it('names, codes and placeholders', () => {
    expect(Object.fromEntries(Object.entries(INBOUND_REFUSALS).map(([name, row]) => [name, row.code]))).toEqual({
      unsupportedRevision: -32022, notInitialized: -32600, alreadyInitialized: -32600, unknownMethod: -32601,
      notificationAsRequest: -32601, methodNotInRevision: -32601, capabilityNotAdvertised: -32601, batchNotAllowed: -32600,
    });
    expect(inboundRefusal('unknownMethod')).toEqual({ refusal: 'unknownMethod', code: -32601, message: 'Method not found: "{method}"' });
    expect(inboundRefusal('batchNotAllowed', { revision: '2025-06-18' }, { x: 1 })).toEqual({ refusal: 'batchNotAllowed', code: -32600, message: 'Invalid Request: JSON-RPC batches are not accepted at 2025-06-18', data: { x: 1 } });
  });
});

describe('eraRefusalOf: the era rung alone', () => {
  const claiming = (value: unknown): JsonRpcRequest => ({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': value } } });
  it('refuses any claim of a revision not served, and nothing else', () => {
    const served = ['2025-11-25'] as const;
    expect(eraRefusalOf({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, served)).toBeUndefined();
    expect(eraRefusalOf(claiming('2026-07-28'), served)).toMatchObject({ refusal: 'unsupportedRevision', code: -32022, data: { supported: ['2025-11-25'], requested: '2026-07-28' } });
    // A legacy revision is no claim of the modern era, served or not.
    expect(eraRefusalOf(claiming('2025-11-25'), served)).toMatchObject({ refusal: 'unsupportedRevision' });
    expect(eraRefusalOf(claiming('2026-07-28'), ['2025-11-25', '2026-07-28'])).toBeUndefined();
  });
});
