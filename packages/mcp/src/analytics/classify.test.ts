import { describe, expect, it } from 'vitest';
import { classifyOutcome, type ClassifiedOutcome, type OutcomeFacts } from './classify.js';

/** Every way a request can end, and its one class. */
const TABLE: readonly (readonly [string, OutcomeFacts, ClassifiedOutcome])[] = [
  ['a result', { kind: 'result' }, { class: 'ok' }],
  ['a result with isError: false', { kind: 'result', isError: false }, { class: 'ok' }],
  ['a tool result with isError: true', { kind: 'result', isError: true }, { class: 'tool_error' }],
  ['-32602 invalid params (unknown tool)', { kind: 'error', code: -32602 }, { class: 'protocol_error', code: -32602 }],
  ['-32601 method not found', { kind: 'error', code: -32601 }, { class: 'protocol_error', code: -32601 }],
  ['-32603 internal error', { kind: 'error', code: -32603 }, { class: 'protocol_error', code: -32603 }],
  ['-32020 header mismatch', { kind: 'error', code: -32020 }, { class: 'protocol_error', code: -32020 }],
  ['-32022 unsupported protocol version', { kind: 'error', code: -32022 }, { class: 'era_mismatch', code: -32022 }],
  ['429 rate limited', { kind: 'error', code: 429 }, { class: 'refused', code: 429 }],
  ['an HTTP refusal', { kind: 'refused', status: 403 }, { class: 'refused' }],
  ['an HTTP refusal whose body is a JSON-RPC error: its code kept', { kind: 'refused', status: 400, code: -32000 }, { class: 'refused', code: -32000 }],
  ['a request of an era the server does not serve', { kind: 'era_unserved' }, { class: 'era_mismatch' }],
  ['the engine: connection closed', { kind: 'local', code: 'connection_closed' }, { class: 'transport' }],
  ['the engine: send failed', { kind: 'local', code: 'send_failed' }, { class: 'transport' }],
  ['the engine: cancelled', { kind: 'cancelled' }, { class: 'cancelled' }],
  ['the engine: timeout', { kind: 'timeout' }, { class: 'timeout' }],
  ['the client: request_timeout', { kind: 'client', code: 'request_timeout' }, { class: 'timeout' }],
  ['the client: request_aborted', { kind: 'client', code: 'request_aborted' }, { class: 'cancelled' }],
  ['the client: connection_closed', { kind: 'client', code: 'connection_closed' }, { class: 'transport' }],
  ['the client: connection_refused', { kind: 'client', code: 'connection_refused' }, { class: 'transport' }],
  ['the client: spawn_failed', { kind: 'client', code: 'spawn_failed' }, { class: 'transport' }],
  ['the client: http_status', { kind: 'client', code: 'http_status' }, { class: 'refused' }],
  ['the client: negotiation_failed', { kind: 'client', code: 'negotiation_failed' }, { class: 'era_mismatch' }],
  ['the client: not_supported', { kind: 'client', code: 'not_supported' }, { class: 'era_mismatch' }],
  ['an unknown kind', { kind: 'nonsense' } as unknown as OutcomeFacts, { class: 'transport' }],
];

describe('classifyOutcome: exactly one class per ending', () => {
  it.each(TABLE)('%s', (_name, facts, expected) => {
    expect(classifyOutcome(facts)).toEqual(expected);
  });

  it('is pure: the same facts give the same class, and the facts are not changed', () => {
    const facts = Object.freeze({ kind: 'error', code: -32602 } as const);
    expect(classifyOutcome(facts)).toEqual(classifyOutcome(facts));
  });
});
