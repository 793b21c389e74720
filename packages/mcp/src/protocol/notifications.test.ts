import { describe, expect, it } from 'vitest';
import { LOGGING_LEVEL_RANK, cancelledNotification, missingClientCapability, parseCancelled, parseProgressToken, progressParams } from './notifications.js';

describe('shared notification helpers', () => {
  it('builds and parses notifications/cancelled', () => {
    expect(cancelledNotification({ requestId: 7, reason: 'user' })).toEqual({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'user' } });
    expect(cancelledNotification({ requestId: 'a' })).toEqual({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'a' } });
    expect(parseCancelled({ requestId: 7, reason: 'user' })).toEqual({ requestId: 7, reason: 'user' });
    expect(parseCancelled({ requestId: 'a', reason: 5 })).toEqual({ requestId: 'a' });
    expect([parseCancelled({ requestId: null }), parseCancelled([1]), parseCancelled(undefined)]).toEqual([undefined, undefined, undefined]);
  });

  it('builds progress params without undefined members and reads tokens', () => {
    expect(progressParams({ progressToken: 't', progress: 1 })).toEqual({ progressToken: 't', progress: 1 });
    expect(progressParams({ progressToken: 1, progress: 1, total: 2, message: 'm' })).toEqual({ progressToken: 1, progress: 1, total: 2, message: 'm' });
    expect([parseProgressToken({ progressToken: 'x' }), parseProgressToken({ progressToken: {} }), parseProgressToken(null)]).toEqual(['x', undefined, undefined]);
  });

  it('ranks logging levels and checks client capabilities', () => {
    expect([LOGGING_LEVEL_RANK.get('debug'), LOGGING_LEVEL_RANK.get('emergency'), LOGGING_LEVEL_RANK.get('loud')]).toEqual([0, 7, undefined]);
    expect(missingClientCapability({}, 'sampling/createMessage')).toBe('sampling');
    expect(missingClientCapability({ sampling: {} }, 'sampling/createMessage')).toBeUndefined();
    expect(missingClientCapability({}, 'elicitation/create')).toBe('elicitation');
    expect(missingClientCapability({}, 'roots/list')).toBe('roots');
    expect(missingClientCapability({}, 'ping')).toBeUndefined();
  });
});
