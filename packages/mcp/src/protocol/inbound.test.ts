/**
 * The inbound step, table-tested over revisions × methods × session states. The wire texts are pinned against
 * the server in test/inbound-wire.test.ts.
 */
import type { JsonRpcNotification, JsonRpcRequest } from '@switchboard/jsonrpc';
import { describe, expect, it } from 'vitest';
import { EMPTY_ENVELOPE, PROTOCOL_VERSION_META_KEY } from './envelope.js';
import {
  isModernOnlyRequest,
  INBOUND_REFUSALS,
  TASKS_EXTENSION,
  classifyInbound,
  classifyInboundBatch,
  eraRefusalOf,
  inboundRefusal,
  inboundRefusalOf,
  isInboundRefusal,
  modernEnvelopeRefusalOf,
  modernMethodRefusalOf,
  type InboundFacts,
} from './inbound.js';
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

/** A well-formed modern-era request: the two required `_meta` fields, and `meta` over them. */
const modern = (method: string, meta: Record<string, unknown> = {}, params: Record<string, unknown> = {}): JsonRpcRequest =>
  req(method, { ...params, _meta: { [PROTOCOL_VERSION_META_KEY]: '2026-07-28', [CAPS]: {}, ...meta } });
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const EVERY_REVISION_NEWEST_FIRST = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const dualEra = (serverCapabilities: ServerCapabilities = ALL_CAPABILITIES, session?: InboundFacts['session']): InboundFacts =>
  session === undefined ? { servedRevisions: PROTOCOL_REVISIONS, serverCapabilities } : { session, servedRevisions: PROTOCOL_REVISIONS, serverCapabilities };
const invalidEnvelope = (problem: string) => ({ refusal: 'invalidEnvelope', code: -32602, message: `Invalid params: ${problem}` });
const unsupported = (requested: string, supported: readonly string[]) => ({
  refusal: 'unsupportedRevision',
  code: -32022,
  message: `Unsupported protocol version: "${requested}" (this server supports ${supported.join(', ')})`,
  data: { supported: [...supported], requested },
});
/** A session-based revision claimed in `_meta`: -32022 too, saying it is negotiated with initialize. */
const legacyClaimed = (requested: string, supported: readonly string[]) => ({
  refusal: 'legacyRevisionClaimed',
  code: -32022,
  message: `Unsupported protocol version: "${requested}" is negotiated with initialize, not claimed in _meta (this server supports ${supported.join(', ')})`,
  data: { supported: [...supported], requested },
});
const TASKS_NEEDED = { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } };

describe('classifyInbound: the modern era (a version claim in params._meta)', () => {
  it('the default server is dual-era: a well-formed claim of 2026-07-28 is served statelessly, with or without a session', () => {
    for (const session of [undefined, { revision: '2025-11-25' as const, initialized: true }, { revision: '2024-11-05' as const, initialized: false }]) {
      for (const method of ['server/discover', 'subscriptions/listen', 'tools/list', 'tools/call', 'resources/list', 'resources/templates/list', 'resources/read', 'prompts/list', 'prompts/get', 'completion/complete']) {
        const message = modern(method);
        expect({ method, verdict: classifyInbound(message, dualEra(ALL_CAPABILITIES, session)) }).toEqual({
          method,
          verdict: { era: 'modern', revision: '2026-07-28', row: methodRow(method), envelope: { protocolVersion: '2026-07-28', clientCapabilities: {} } },
        });
        expect(inboundRefusalOf(message, dualEra(ALL_CAPABILITIES, session))).toBeUndefined();
      }
    }
    expect(classifyInbound(modern('tools/list'), facts())).toMatchObject({ era: 'modern' });
  });

  it('the envelope it parses is the whole _meta: client info, log level, progress token, trace context', () => {
    const meta = { 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' }, 'io.modelcontextprotocol/logLevel': 'notice', progressToken: 9, traceparent: 't', tracestate: 's' };
    expect(classifyInbound(modern('tools/call', meta, { name: 'x' }), dualEra())).toEqual({
      era: 'modern', revision: '2026-07-28', row: methodRow('tools/call'),
      envelope: { protocolVersion: '2026-07-28', clientCapabilities: {}, clientInfo: { name: 'c', version: '1' }, logLevel: 'notice', progressToken: 9, traceparent: 't', tracestate: 's' },
    });
  });

  it('a required _meta field missing or malformed is -32602 naming the field (protocolVersion and clientCapabilities are required, clientInfo is not)', () => {
    const version = `"${PROTOCOL_VERSION_META_KEY}" in params._meta must be a non-empty string`;
    const capabilities = `"${CAPS}" is required in params._meta (an object)`;
    // The claim itself present but not a non-empty string: still a claim (no silent fall back to the legacy era).
    for (const claim of [7, '', null, true, {}, ['2026-07-28']]) {
      expect(classifyInbound(req('tools/list', { _meta: { [PROTOCOL_VERSION_META_KEY]: claim, [CAPS]: {} } }), dualEra())).toEqual(invalidEnvelope(version));
    }
    // clientCapabilities is required even on server/discover and tools/list; clientInfo is not.
    for (const method of ['server/discover', 'tools/list', 'tools/call']) {
      expect(classifyInbound(claiming('2026-07-28', method), dualEra())).toEqual(invalidEnvelope(capabilities));
    }
    for (const value of [null, 'all', [], 1, true]) expect(classifyInbound(modern('tools/list', { [CAPS]: value }), dualEra())).toEqual(invalidEnvelope(capabilities));
    for (const value of [{ name: 'c' }, { version: '1' }, 'c', null, { name: 1, version: '1' }]) {
      expect(classifyInbound(modern('tools/list', { 'io.modelcontextprotocol/clientInfo': value }), dualEra())).toEqual(
        invalidEnvelope('"io.modelcontextprotocol/clientInfo" in params._meta must be an object with string "name" and "version"'),
      );
    }
    for (const value of ['verbose', 'INFO', 3, null]) {
      expect(classifyInbound(modern('tools/list', { 'io.modelcontextprotocol/logLevel': value }), dualEra())).toEqual(
        invalidEnvelope('"io.modelcontextprotocol/logLevel" in params._meta must be one of debug, info, notice, warning, error, critical, alert, emergency'),
      );
    }
    for (const value of [true, null, {}, [1]]) {
      expect(classifyInbound(modern('tools/list', { progressToken: value }), dualEra())).toEqual(invalidEnvelope('"progressToken" in params._meta must be a string or a number'));
    }
    // Every logging level is accepted, and so are a string or integer progress token.
    for (const level of ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']) {
      expect(inboundRefusalOf(modern('tools/list', { 'io.modelcontextprotocol/logLevel': level }), dualEra())).toBeUndefined();
    }
    for (const token of ['p', 0, 7]) expect(inboundRefusalOf(modern('tools/list', { progressToken: token }), dualEra())).toBeUndefined();
  });

  it('an unsupported version is -32022 with data.supported newest first and data.requested, with or without a session', () => {
    for (const session of [undefined, { revision: '2025-11-25' as const, initialized: true }]) {
      for (const requested of ['2099-01-01', '1900-01-01', 'v999.0.0', '2026-07-29']) {
        expect(classifyInbound(req('tools/list', { _meta: { [PROTOCOL_VERSION_META_KEY]: requested, [CAPS]: {} } }), dualEra(ALL_CAPABILITIES, session))).toEqual(unsupported(requested, EVERY_REVISION_NEWEST_FIRST));
      }
    }
    // A legacy revision is negotiated by initialize, never claimed in _meta.
    expect(classifyInbound(modern('tools/list', { [PROTOCOL_VERSION_META_KEY]: '2025-11-25' }), dualEra())).toEqual(legacyClaimed('2025-11-25', EVERY_REVISION_NEWEST_FIRST));
    // A server that serves only the legacy revisions names them.
    const legacyOnly: InboundFacts = { servedRevisions: LEGACY_REVISIONS, serverCapabilities: ALL_CAPABILITIES };
    for (const method of METHODS) {
      expect({ method, verdict: classifyInbound(modern(method), legacyOnly) }).toEqual({ method, verdict: unsupported('2026-07-28', ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']) });
    }
  });

  it('the methods 2026-07-28 removed, and the client features, are -32601 naming the revision; an unknown method is -32601', () => {
    const removed = ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe', 'tasks/result', 'tasks/list', 'sampling/createMessage', 'elicitation/create', 'roots/list'];
    for (const method of removed) {
      expect(classifyInbound(modern(method), dualEra())).toEqual({ refusal: 'methodNotInRevision', code: -32601, message: `Method not found: "${method}" (not a method of 2026-07-28)` });
    }
    for (const method of ['notifications/initialized', 'notifications/cancelled', 'notifications/tools/list_changed']) {
      expect(classifyInbound(modern(method), dualEra())).toEqual({ refusal: 'notificationAsRequest', code: -32601, message: `Method not found: "${method}"` });
    }
    expect(classifyInbound(modern('tools/nope'), dualEra())).toEqual({ refusal: 'unknownMethod', code: -32601, message: 'Method not found: "tools/nope"' });
    expect(classifyInbound(modern('__proto__'), dualEra())).toEqual({ refusal: 'unknownMethod', code: -32601, message: 'Method not found: "__proto__"' });
  });

  it('a server capability not advertised is -32601 naming it; discover and listen need none', () => {
    const toolsOnly = dualEra({ tools: {} });
    const cases = [['prompts/list', 'prompts'], ['prompts/get', 'prompts'], ['resources/list', 'resources'], ['resources/templates/list', 'resources'], ['resources/read', 'resources'], ['completion/complete', 'completions']] as const;
    for (const [method, capability] of cases) {
      expect(classifyInbound(modern(method), toolsOnly)).toEqual({ refusal: 'capabilityNotAdvertised', code: -32601, message: `Method not found: "${method}" (the server does not advertise the "${capability}" capability)` });
    }
    const none = dualEra({});
    expect(classifyInbound(modern('tools/call'), none)).toMatchObject({ refusal: 'capabilityNotAdvertised', code: -32601 });
    for (const method of ['server/discover', 'subscriptions/listen']) expect(inboundRefusalOf(modern(method), none)).toBeUndefined();
  });

  it('tasks/* without the tasks extension declared is -32021 with data.requiredCapabilities an object; declared, it passes', () => {
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      expect(classifyInbound(modern(method, {}, { taskId: 't1' }), dualEra())).toEqual({
        refusal: 'missingClientCapability',
        code: -32021,
        message: `Missing required client capability: "${method}" needs the "${TASKS_EXTENSION}" extension`,
        data: TASKS_NEEDED,
      });
      for (const capabilities of [{ extensions: {} }, { extensions: null }, { extensions: { other: {} } }, { tasks: {} }]) {
        expect(inboundRefusalOf(modern(method, { [CAPS]: capabilities }), dualEra())).toMatchObject({ refusal: 'missingClientCapability', data: TASKS_NEEDED });
      }
      expect(classifyInbound(modern(method, { [CAPS]: { extensions: { [TASKS_EXTENSION]: {} } } }), dualEra())).toMatchObject({ era: 'modern', row: methodRow(method) });
    }
  });

  it('the rungs in order: envelope (-32602), version (-32022), method and server capability (-32601), client capability (-32021)', () => {
    // A malformed envelope and an unsupported version: the envelope first.
    expect(classifyInbound(req('nope', { _meta: { [PROTOCOL_VERSION_META_KEY]: '2099-01-01' } }), dualEra())).toMatchObject({ refusal: 'invalidEnvelope' });
    // An unsupported version and an unknown method: the version first.
    expect(classifyInbound(modern('nope', { [PROTOCOL_VERSION_META_KEY]: '2099-01-01' }), dualEra())).toMatchObject({ refusal: 'unsupportedRevision' });
    // A removed method behind a capability not advertised: -32601 either way, the method rung named.
    expect(classifyInbound(modern('resources/subscribe'), dualEra({}))).toMatchObject({ refusal: 'methodNotInRevision' });
    // tasks/get without the extension on a server with no capability at all: the client rung still decides.
    expect(classifyInbound(modern('tasks/get'), dualEra({}))).toMatchObject({ refusal: 'missingClientCapability' });
    // The split entry points used by the HTTP ladder agree with the whole step.
    const messages = [req('tools/list', { _meta: { [PROTOCOL_VERSION_META_KEY]: 7 } }), modern('tools/list', { [PROTOCOL_VERSION_META_KEY]: '2099-01-01' }), modern('ping'), modern('tasks/get'), modern('tools/list')];
    for (const message of messages) {
      const split = modernEnvelopeRefusalOf(message, PROTOCOL_REVISIONS) ?? modernMethodRefusalOf(message, ALL_CAPABILITIES);
      expect(split).toEqual(inboundRefusalOf(message, dualEra()));
    }
    // Called only for a message a transport classified modern: no claim at all is a missing envelope.
    expect(modernEnvelopeRefusalOf(req('tools/list'), PROTOCOL_REVISIONS)).toEqual({ refusal: 'invalidEnvelope', code: -32602, message: 'Invalid params: params._meta is required' });
    expect(modernMethodRefusalOf({ ...note('notifications/cancelled'), params: { _meta: { [PROTOCOL_VERSION_META_KEY]: '2026-07-28' } } }, {})).toBeUndefined();
  });

  it('a modern-only server (revisions: ["2026-07-28"]) refuses initialize with -32022 naming its versions', () => {
    const modernOnly: InboundFacts = { servedRevisions: ['2026-07-28'], serverCapabilities: ALL_CAPABILITIES };
    expect(classifyInbound(req('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }), modernOnly)).toEqual(unsupported('2025-11-25', ['2026-07-28']));
    expect(classifyInbound(req('initialize', { protocolVersion: '2025-06-18' }), modernOnly)).toEqual(unsupported('2025-06-18', ['2026-07-28']));
    expect(classifyInbound(req('initialize'), modernOnly)).toEqual(unsupported('', ['2026-07-28']));
    expect(classifyInbound(req('initialize', { protocolVersion: 5 }), modernOnly)).toEqual(unsupported('', ['2026-07-28']));
    // A modern claim on initialize is the method rung's, on any server: initialize is not a 2026-07-28 method.
    expect(classifyInbound(modern('initialize'), modernOnly)).toMatchObject({ refusal: 'methodNotInRevision', code: -32601 });
    // Its modern requests are served; an unclaimed request finds no session.
    expect(classifyInbound(modern('tools/list'), modernOnly)).toMatchObject({ era: 'modern' });
    expect(classifyInbound(req('tools/list'), modernOnly)).toMatchObject({ refusal: 'notInitialized' });
    expect(classifyInbound(modern('tools/list', { [PROTOCOL_VERSION_META_KEY]: '2025-11-25' }), modernOnly)).toEqual(unsupported('2025-11-25', ['2026-07-28']));
  });

  it('a request without params, or with a _meta that is no object, is no claim: legacy rules (a 2026 request must carry params._meta)', () => {
    expect(classifyInbound(req('tools/list'), facts())).toMatchObject({ refusal: 'notInitialized' });
    expect(classifyInbound(req('tools/list', { _meta: 'x' }), facts())).toMatchObject({ refusal: 'notInitialized' });
    expect(classifyInbound(req('tools/list', [{ _meta: { [PROTOCOL_VERSION_META_KEY]: '2026-07-28' } }]), facts())).toMatchObject({ refusal: 'notInitialized' });
    // A claim inherited through the prototype is no claim either.
    const meta = Object.create({ [PROTOCOL_VERSION_META_KEY]: '2026-07-28', [CAPS]: {} }) as Record<string, unknown>;
    expect(classifyInbound(req('tools/list', { _meta: meta }), facts())).toMatchObject({ refusal: 'notInitialized' });
  });

  it('a notification with a claim: only the claim is checked (no clientCapabilities), an unknown one has no row; refusals are never answered', () => {
    const claimed = (method: string, claim: unknown = '2026-07-28', params: Record<string, unknown> = {}): JsonRpcNotification => note(method, { ...params, _meta: { [PROTOCOL_VERSION_META_KEY]: claim } });
    expect(classifyInbound(claimed('notifications/cancelled', '2026-07-28', { requestId: 1 }), dualEra())).toEqual({
      era: 'modern', revision: '2026-07-28', row: methodRow('notifications/cancelled'), envelope: { protocolVersion: '2026-07-28' },
    });
    // Not a notification the client sends at 2026-07-28: ignored by the receiver.
    for (const method of ['notifications/initialized', 'notifications/roots/list_changed', 'notifications/progress', 'nope']) {
      expect(classifyInbound(claimed(method), dualEra())).toMatchObject({ era: 'modern', row: undefined });
    }
    expect(classifyInbound(claimed('notifications/cancelled', 7), dualEra())).toEqual(invalidEnvelope(`"${PROTOCOL_VERSION_META_KEY}" in params._meta must be a non-empty string`));
    expect(classifyInbound(claimed('notifications/cancelled', '2099-01-01'), dualEra())).toEqual(unsupported('2099-01-01', EVERY_REVISION_NEWEST_FIRST));
  });

  it('a batch is refused whole without a 2025-03-26 session, whatever its members claim', () => {
    for (const session of [undefined, { revision: '2025-11-25' as const, initialized: true }]) {
      expect(classifyInboundBatch([modern('tools/list'), modern('server/discover')], dualEra(ALL_CAPABILITIES, session))).toMatchObject({ refusal: 'batchNotAllowed', code: -32600 });
    }
  });
});

describe('classifyInbound: the legacy era', () => {
  it('before initialize: initialize and ping are accepted, a modern-only request lacks its envelope, every other request is "not initialized"', () => {
    for (const method of METHODS) {
      const verdict = classifyInbound(req(method), facts());
      if (isModernOnlyRequest(method)) {
        expect(verdict).toMatchObject({ refusal: 'invalidEnvelope', code: -32602 });
      } else if (method === 'initialize' || method === 'ping') {
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
      else if (!row.clientToServer.includes(revision)) expected = inboundRefusal('methodNotInRevision', { method, revision });
      else expected = { era: 'legacy', revision, row, envelope: EMPTY_ENVELOPE };
      expect({ method, verdict }).toEqual({ method, verdict: expected });
    }
  });

  it('the concrete cases: elicitation/create is no client request, tasks/* exist at 2025-11-25 only, a notification as a request is -32601', () => {
    expect(classifyInbound(req('tasks/get'), facts('2025-11-25'))).toMatchObject({ era: 'legacy', revision: '2025-11-25' });
    expect(classifyInbound(req('tasks/get'), facts('2025-06-18'))).toEqual({ refusal: 'methodNotInRevision', code: -32601, message: 'Method not found: "tasks/get" (not a method of 2025-06-18)' });
    expect(classifyInbound(req('elicitation/create'), facts('2025-11-25'))).toEqual({ refusal: 'methodNotInRevision', code: -32601, message: 'Method not found: "elicitation/create" (not a method of 2025-11-25)' });
    expect(classifyInbound(req('notifications/initialized'), facts('2025-11-25'))).toEqual({ refusal: 'notificationAsRequest', code: -32601, message: 'Method not found: "notifications/initialized"' });
    expect(classifyInbound(req('server/discover'), facts('2025-11-25'))).toEqual({ refusal: 'methodNotInRevision', code: -32601, message: 'Method not found: "server/discover" (not a method of 2025-11-25)' });
    expect(classifyInbound(req('subscriptions/listen'), facts('2025-11-25'))).toMatchObject({ refusal: 'methodNotInRevision' });
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
    const verdict = classifyInboundBatch([req('initialize'), req('tools/list'), req('ping')], facts('2025-03-26'));
    expect(verdict).toMatchObject([{ refusal: 'alreadyInitialized' }, { era: 'legacy', revision: '2025-03-26' }, { era: 'legacy', revision: '2025-03-26' }]);
  });

  it('a batch holding a modern-era message is refused whole, as over HTTP (the modern era has no batches)', () => {
    expect(classifyInboundBatch([req('tools/list'), modern('tools/list')], facts('2025-03-26'))).toEqual({
      refusal: 'batchNotAllowed', code: -32600, message: 'Invalid Request: JSON-RPC batches are not accepted at 2026-07-28',
    });
    expect(classifyInboundBatch([req('tools/list'), claiming('v9')], facts('2025-03-26'))).toMatchObject({ refusal: 'batchNotAllowed' });
  });
});

describe('the refusal table', () => {
  it('names, codes and placeholders', () => {
    expect(Object.fromEntries(Object.entries(INBOUND_REFUSALS).map(([name, row]) => [name, row.code]))).toEqual({
      unsupportedRevision: -32022, legacyRevisionClaimed: -32022, invalidEnvelope: -32602, headerMismatch: -32020, missingClientCapability: -32021,
      notInitialized: -32600, alreadyInitialized: -32600, unknownMethod: -32601,
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
    expect(eraRefusalOf(claiming('2025-11-25'), served)).toMatchObject({ refusal: 'legacyRevisionClaimed', code: -32022 });
    expect(eraRefusalOf(claiming('2026-07-28'), ['2025-11-25', '2026-07-28'])).toBeUndefined();
  });
});
