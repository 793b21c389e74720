import { describe, expect, it } from 'vitest';
import { MCP_METHODS, methodExists, methodRow } from './methods.js';
import { LEGACY_REVISIONS, PROTOCOL_REVISIONS, type ProtocolRevision } from './revisions.js';

/** Each revision's method lists, copied from its schema.ts unions (ClientRequest, …) to pin the table. */
const COMMON_REQUESTS = ['completion/complete', 'prompts/get', 'prompts/list', 'resources/list', 'resources/read', 'resources/templates/list', 'tools/call', 'tools/list'];
const LEGACY_REQUESTS = [...COMMON_REQUESTS, 'initialize', 'logging/setLevel', 'ping', 'resources/subscribe', 'resources/unsubscribe'];
const TASKS = ['tasks/cancel', 'tasks/get', 'tasks/list', 'tasks/result'];
/** The 2026-07-28 tasks extension (io.modelcontextprotocol/tasks): its methods are not in the core schema.ts unions. */
const TASKS_EXTENSION_REQUESTS = ['tasks/cancel', 'tasks/get', 'tasks/update'];
const LISTS_CHANGED = ['notifications/prompts/list_changed', 'notifications/resources/list_changed', 'notifications/resources/updated', 'notifications/tools/list_changed'];
const SCHEMA: Record<ProtocolRevision, Record<'clientRequest' | 'clientNotification' | 'serverRequest' | 'serverNotification', string[]>> = {
  '2024-11-05': {
    clientRequest: LEGACY_REQUESTS,
    clientNotification: ['notifications/cancelled', 'notifications/initialized', 'notifications/progress', 'notifications/roots/list_changed'],
    serverRequest: ['ping', 'roots/list', 'sampling/createMessage'],
    serverNotification: ['notifications/cancelled', 'notifications/message', 'notifications/progress', ...LISTS_CHANGED],
  },
  '2025-03-26': {
    clientRequest: LEGACY_REQUESTS,
    clientNotification: ['notifications/cancelled', 'notifications/initialized', 'notifications/progress', 'notifications/roots/list_changed'],
    serverRequest: ['ping', 'roots/list', 'sampling/createMessage'],
    serverNotification: ['notifications/cancelled', 'notifications/message', 'notifications/progress', ...LISTS_CHANGED],
  },
  '2025-06-18': {
    clientRequest: LEGACY_REQUESTS,
    clientNotification: ['notifications/cancelled', 'notifications/initialized', 'notifications/progress', 'notifications/roots/list_changed'],
    serverRequest: ['elicitation/create', 'ping', 'roots/list', 'sampling/createMessage'],
    serverNotification: ['notifications/cancelled', 'notifications/message', 'notifications/progress', ...LISTS_CHANGED],
  },
  '2025-11-25': {
    clientRequest: [...LEGACY_REQUESTS, ...TASKS],
    clientNotification: ['notifications/cancelled', 'notifications/initialized', 'notifications/progress', 'notifications/roots/list_changed', 'notifications/tasks/status'],
    serverRequest: ['elicitation/create', 'ping', 'roots/list', 'sampling/createMessage', ...TASKS],
    serverNotification: ['notifications/cancelled', 'notifications/elicitation/complete', 'notifications/message', 'notifications/progress', 'notifications/tasks/status', ...LISTS_CHANGED],
  },
  '2026-07-28': {
    clientRequest: [...COMMON_REQUESTS, 'server/discover', 'subscriptions/listen', ...TASKS_EXTENSION_REQUESTS],
    clientNotification: ['notifications/cancelled'],
    serverRequest: [],
    serverNotification: ['notifications/cancelled', 'notifications/message', 'notifications/progress', 'notifications/subscriptions/acknowledged', 'notifications/tasks', ...LISTS_CHANGED],
  },
};

function table(revision: ProtocolRevision, kind: 'request' | 'notification', direction: 'clientToServer' | 'serverToClient'): string[] {
  return [...MCP_METHODS.values()].filter((row) => row.kind === kind && methodExists(row, revision, direction)).map((row) => row.method).sort();
}

describe('method table', () => {
  it.each(PROTOCOL_REVISIONS)('%s: the methods of each direction and kind are the schema.ts unions', (revision) => {
    const schema = SCHEMA[revision];
    expect(table(revision, 'request', 'clientToServer')).toEqual([...schema.clientRequest].sort());
    expect(table(revision, 'notification', 'clientToServer')).toEqual([...schema.clientNotification].sort());
    expect(table(revision, 'request', 'serverToClient')).toEqual([...schema.serverRequest].sort());
    expect(table(revision, 'notification', 'serverToClient')).toEqual([...schema.serverNotification].sort());
  });

  it('capabilities: the server capability of each server feature, the client one of each client feature', () => {
    const needs = Object.fromEntries([...MCP_METHODS.values()].filter((r) => r.kind === 'request' && r.capability !== undefined).map((r) => [r.method, r.capability]));
    expect(needs).toEqual({
      'logging/setLevel': { holder: 'server', capability: 'logging' },
      'completion/complete': { holder: 'server', capability: 'completions' },
      'tools/list': { holder: 'server', capability: 'tools' },
      'tools/call': { holder: 'server', capability: 'tools' },
      'resources/list': { holder: 'server', capability: 'resources' },
      'resources/templates/list': { holder: 'server', capability: 'resources' },
      'resources/read': { holder: 'server', capability: 'resources' },
      'resources/subscribe': { holder: 'server', capability: 'resources', flag: 'subscribe' },
      'resources/unsubscribe': { holder: 'server', capability: 'resources', flag: 'subscribe' },
      'prompts/list': { holder: 'server', capability: 'prompts' },
      'prompts/get': { holder: 'server', capability: 'prompts' },
      'sampling/createMessage': { holder: 'client', capability: 'sampling' },
      'roots/list': { holder: 'client', capability: 'roots' },
      'elicitation/create': { holder: 'client', capability: 'elicitation' },
      'tasks/get': { holder: 'receiver', capability: 'tasks' },
      'tasks/result': { holder: 'receiver', capability: 'tasks' },
      'tasks/list': { holder: 'receiver', capability: 'tasks' },
      'tasks/cancel': { holder: 'receiver', capability: 'tasks' },
    });
    expect(methodRow('ping')?.capability).toBeUndefined();
  });

  it('eras: the handshake rules are legacy, discover and listen modern, the features both', () => {
    for (const method of ['initialize', 'notifications/initialized', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe', 'ping']) {
      expect(methodRow(method)).toMatchObject({ revisions: [...LEGACY_REVISIONS], eras: ['legacy'] });
    }
    for (const method of ['server/discover', 'subscriptions/listen']) expect(methodRow(method)).toMatchObject({ revisions: ['2026-07-28'], eras: ['modern'] });
    expect(methodRow('tools/call')).toMatchObject({ revisions: [...PROTOCOL_REVISIONS], eras: ['legacy', 'modern'] });
    expect(methodRow('elicitation/create')?.revisions).toEqual(['2025-06-18', '2025-11-25']);
    // Core tasks at 2025-11-25, the extension's tasks/get and tasks/cancel at 2026-07-28; tasks/result and tasks/list are gone.
    for (const method of ['tasks/get', 'tasks/cancel']) expect(methodRow(method)).toMatchObject({ clientToServer: ['2025-11-25', '2026-07-28'], serverToClient: ['2025-11-25'], eras: ['legacy', 'modern'] });
    for (const method of ['tasks/result', 'tasks/list']) expect(methodRow(method)).toMatchObject({ clientToServer: ['2025-11-25'], eras: ['legacy'] });
    expect(methodRow('tasks/update')).toMatchObject({ kind: 'request', clientToServer: ['2026-07-28'], serverToClient: [], eras: ['modern'] });
    expect(methodRow('notifications/tasks')).toMatchObject({ kind: 'notification', clientToServer: [], serverToClient: ['2026-07-28'], eras: ['modern'] });
  });

  it('an unknown name has no row, and rows are frozen', () => {
    expect(methodRow('tools/nope')).toBeUndefined();
    expect(methodRow('__proto__')).toBeUndefined();
    expect(Object.isFrozen(methodRow('tools/call'))).toBe(true);
  });
});
