import type { JsonRpcRequest } from '@switchboard/jsonrpc';
import { describe, expect, it } from 'vitest';
import { EMPTY_ENVELOPE, PROTOCOL_VERSION_META_KEY, envelopeProblem, parseRequestEnvelope, protocolVersionClaim } from './envelope.js';

const request = (params?: unknown): JsonRpcRequest => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', ...(params === undefined ? {} : { params }) }) as JsonRpcRequest;
const modernMeta = {
  [PROTOCOL_VERSION_META_KEY]: '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { sampling: {} },
  'io.modelcontextprotocol/clientInfo': { name: 'probe', version: '1' },
  'io.modelcontextprotocol/logLevel': 'warning',
  progressToken: 'p1',
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  tracestate: 'vendor=1',
};

describe('request envelope', () => {
  it('a modern request: every protocol field of its _meta', () => {
    expect(parseRequestEnvelope(request({ name: 'x', _meta: modernMeta }))).toEqual({
      protocolVersion: '2026-07-28',
      clientCapabilities: { sampling: {} },
      clientInfo: { name: 'probe', version: '1' },
      logLevel: 'warning',
      progressToken: 'p1',
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      tracestate: 'vendor=1',
    });
  });

  it('a legacy request: the progress token only, the modern keys ignored', () => {
    const { [PROTOCOL_VERSION_META_KEY]: _claim, ...rest } = modernMeta;
    expect(parseRequestEnvelope(request({ _meta: { ...rest, progressToken: 7 } }))).toEqual({ protocolVersion: undefined, progressToken: 7 });
  });

  it('no params, no _meta, a _meta that is no object, no token: the shared empty envelope', () => {
    for (const params of [undefined, {}, { _meta: null }, { _meta: [1] }, { _meta: 'x' }, [1, 2], { _meta: { progressToken: true } }]) {
      expect(parseRequestEnvelope(request(params))).toBe(EMPTY_ENVELOPE);
    }
    expect(EMPTY_ENVELOPE).toEqual({ protocolVersion: undefined });
  });

  it('a claim that is no string is still a claim, the empty string', () => {
    for (const value of [null, 20260728, {}, true]) {
      const message = request({ _meta: { [PROTOCOL_VERSION_META_KEY]: value } });
      expect(protocolVersionClaim(message)).toBe('');
      expect(parseRequestEnvelope(message)).toEqual({ protocolVersion: '' });
    }
    expect(protocolVersionClaim(request({ _meta: { progressToken: 1 } }))).toBeUndefined();
    expect(protocolVersionClaim(request())).toBeUndefined();
  });

  it('a claim inherited from the prototype is no claim', () => {
    const meta = Object.create({ [PROTOCOL_VERSION_META_KEY]: '2026-07-28' }) as Record<string, unknown>;
    expect(protocolVersionClaim(request({ _meta: meta }))).toBeUndefined();
  });

  it('a polluted Object.prototype gives no request a field: _meta, a token, capabilities or client info are read only when own', () => {
    const proto = Object.prototype as Record<string, unknown>;
    const names = ['_meta', 'progressToken', 'io.modelcontextprotocol/clientCapabilities', 'io.modelcontextprotocol/logLevel', 'traceparent', 'name', 'version'];
    proto['progressToken'] = 'inherited';
    proto['io.modelcontextprotocol/clientCapabilities'] = {};
    proto['io.modelcontextprotocol/logLevel'] = 'debug';
    proto['traceparent'] = 'inherited';
    proto['name'] = 'inherited';
    proto['version'] = '1';
    try {
      const claim = { [PROTOCOL_VERSION_META_KEY]: '2026-07-28' };
      expect(parseRequestEnvelope(JSON.parse('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{}}}') as JsonRpcRequest)).toBe(EMPTY_ENVELOPE);
      expect(parseRequestEnvelope(request({ _meta: { ...claim, 'io.modelcontextprotocol/clientInfo': {} } }))).toEqual({ protocolVersion: '2026-07-28' });
      expect(envelopeProblem(request({ _meta: claim }))).toMatch(/clientCapabilities" is required/);
      expect(envelopeProblem(request({ _meta: { ...modernMeta, 'io.modelcontextprotocol/clientInfo': {} } }))).toMatch(/clientInfo" in params._meta must be/);
      // Own members are still read, through the copy.
      expect(parseRequestEnvelope(request({ name: 'x', _meta: modernMeta }))).toMatchObject({ progressToken: 'p1', logLevel: 'warning', clientInfo: { name: 'probe', version: '1' } });
      expect(envelopeProblem(request({ _meta: modernMeta }))).toBeUndefined();
      proto['_meta'] = { progressToken: 9 };
      expect(parseRequestEnvelope(request({ name: 'x' }))).toBe(EMPTY_ENVELOPE);
      // The shared empty envelope has no prototype to inherit through.
      expect(EMPTY_ENVELOPE.progressToken).toBeUndefined();
    } finally {
      for (const name of names) delete proto[name];
    }
  });

  it('reads through no getter Object.prototype was given', () => {
    Object.defineProperty(Object.prototype, 'progressToken', { configurable: true, get(this: unknown) { return this === Object.prototype ? undefined : 'got'; } });
    try {
      expect(parseRequestEnvelope(request({ _meta: {} }))).toBe(EMPTY_ENVELOPE);
    } finally {
      delete (Object.prototype as Record<string, unknown>)['progressToken'];
    }
  });

  it('a params or _meta not made by JSON.parse is read by its own members of those names only', () => {
    const meta = Object.assign(Object.create({ progressToken: 'inherited' }) as Record<string, unknown>, { traceparent: 't' });
    Object.defineProperty(meta, 'unrelated', { enumerable: true, get: () => { throw new Error('boom'); } });
    expect(parseRequestEnvelope(request({ _meta: meta }))).toBe(EMPTY_ENVELOPE);
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { _meta: { progressToken: 3 } });
    expect(parseRequestEnvelope(request(bare))).toEqual({ protocolVersion: undefined, progressToken: 3 });
  });

  it('fields of the wrong type are left out', () => {
    const envelope = parseRequestEnvelope(request({
      _meta: {
        [PROTOCOL_VERSION_META_KEY]: '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': 'all',
        'io.modelcontextprotocol/clientInfo': { name: 'probe' },
        'io.modelcontextprotocol/logLevel': 'verbose',
        progressToken: null,
        traceparent: 1,
      },
    }));
    expect(envelope).toEqual({ protocolVersion: '2026-07-28' });
  });

  it('is frozen', () => {
    expect(Object.isFrozen(parseRequestEnvelope(request({ _meta: modernMeta })))).toBe(true);
    expect(Object.isFrozen(parseRequestEnvelope(request({ _meta: { progressToken: 1 } })))).toBe(true);
    expect(Object.isFrozen(EMPTY_ENVELOPE)).toBe(true);
  });
});

describe('envelopeProblem: what a modern-era message lacks', () => {
  const claim = { [PROTOCOL_VERSION_META_KEY]: '2026-07-28' };
  it('a well-formed request: nothing, with or without the optional fields', () => {
    expect(envelopeProblem(request({ _meta: modernMeta }))).toBeUndefined();
    expect(envelopeProblem(request({ _meta: { ...claim, 'io.modelcontextprotocol/clientCapabilities': {} } }))).toBeUndefined();
  });

  it('names the first field missing or malformed, in the order protocolVersion, clientCapabilities, clientInfo, logLevel, progressToken', () => {
    expect(envelopeProblem(request())).toBe('params._meta is required');
    expect(envelopeProblem(request({ _meta: [claim] }))).toBe('params._meta is required');
    expect(envelopeProblem(request({ _meta: { [PROTOCOL_VERSION_META_KEY]: '' } }))).toBe('"io.modelcontextprotocol/protocolVersion" in params._meta must be a non-empty string');
    expect(envelopeProblem(request({ _meta: { ...claim, 'io.modelcontextprotocol/logLevel': 'x' } }))).toBe('"io.modelcontextprotocol/clientCapabilities" is required in params._meta (an object)');
    const caps = { ...claim, 'io.modelcontextprotocol/clientCapabilities': {} };
    expect(envelopeProblem(request({ _meta: { ...caps, 'io.modelcontextprotocol/clientInfo': { name: 'n' }, 'io.modelcontextprotocol/logLevel': 'x' } }))).toBe(
      '"io.modelcontextprotocol/clientInfo" in params._meta must be an object with string "name" and "version"',
    );
    expect(envelopeProblem(request({ _meta: { ...caps, 'io.modelcontextprotocol/logLevel': 'x', progressToken: true } }))).toMatch(/^"io\.modelcontextprotocol\/logLevel"/);
    expect(envelopeProblem(request({ _meta: { ...caps, progressToken: true } }))).toBe('"progressToken" in params._meta must be a string or a number');
  });

  it('a notification needs only the claim', () => {
    expect(envelopeProblem({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: claim } })).toBeUndefined();
    expect(envelopeProblem({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: { [PROTOCOL_VERSION_META_KEY]: 1 } } })).toMatch(/must be a non-empty string$/);
  });
});
