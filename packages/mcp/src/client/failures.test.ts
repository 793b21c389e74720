/**
 * Which budget a timed-out request ran out of (failures.ts `clientFailure`). The engine's timer may fire a little
 * before `Date.now()` says the cap has come; one CI run reported a 100 ms cap's timeout as the 150 ms idle budget's.
 */
import { JsonRpcLocalError, LocalErrorCode } from '@switchboard/jsonrpc';
import { describe, expect, it } from 'vitest';
import { RequestTimeoutError } from '../protocol/clientErrors.js';
import { clientFailure } from './failures.js';

const timedOut = (elapsedMs: number, timeoutMs: number, maxTotalTimeoutMs: number | undefined): unknown =>
  clientFailure(new JsonRpcLocalError(LocalErrorCode.RequestTimeout, 'Request timed out'), {
    method: 'tools/call',
    timeoutMs,
    maxTotalTimeoutMs,
    sentAt: Date.now() - elapsedMs,
    endFacts: undefined,
  });

describe('clientFailure: a timeout names the budget that ran out', () => {
  it('a cap shorter than the idle budget is what ran out, even when the clock reads it a little early', () => {
    expect(timedOut(99, 150, 100)).toMatchObject({ constructor: RequestTimeoutError, timeoutMs: 100 });
  });

  it('otherwise the idle budget, unless the request is as old as the cap (within a timer slack)', () => {
    expect(timedOut(200, 150, 1000)).toMatchObject({ timeoutMs: 150 });
    expect(timedOut(999, 150, 1000)).toMatchObject({ timeoutMs: 1000 });
    expect(timedOut(200, 150, undefined)).toMatchObject({ timeoutMs: 150 });
  });
});
