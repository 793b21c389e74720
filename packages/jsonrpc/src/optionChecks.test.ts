import { describe, expect, it } from 'vitest';
import { checkCount, checkCountOption, checkMs, checkMsOption, msError } from './optionChecks.js';
import { MAX_TIMER_MS } from './timers.js';

const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
  return 'accepted';
};

describe('option checks', () => {
  it('checkMs refuses what is not a duration in its rule, and says what it expected and got', () => {
    expect(checkMs('x', 0)).toBe(0);
    expect(checkMs('x', MAX_TIMER_MS)).toBe(MAX_TIMER_MS);
    expect(refusal(() => checkMs('x', MAX_TIMER_MS + 1))).toBe(`RangeError: Invalid x: expected a number of milliseconds from 0 to ${MAX_TIMER_MS}, got ${MAX_TIMER_MS + 1}`);
    expect(refusal(() => checkMs('x', Infinity))).toMatch(/^RangeError: .* got Infinity$/);
    expect(refusal(() => checkMs('x', Number.NaN, { max: Infinity }))).toBe('RangeError: Invalid x: expected a number of milliseconds from 0 (or Infinity), got NaN');
    expect(checkMs('x', Infinity, { max: Infinity, integer: true })).toBe(Infinity);
    expect(checkMs('x', 1.5)).toBe(1.5);
    expect(refusal(() => checkMs('task TTL', 1.5, { integer: true }))).toBe(`RangeError: Invalid task TTL: expected a whole number of milliseconds from 0 to ${MAX_TIMER_MS}, got 1.5`);
    expect(refusal(() => checkMs('x', 0, { above: 0 }))).toBe(`RangeError: Invalid x: expected a number of milliseconds above 0, at most ${MAX_TIMER_MS}, got 0`);
    expect(checkMs('x', 0.5, { above: 0 })).toBe(0.5);
    expect(refusal(() => checkMs('x', 2, { min: 3 }))).toMatch(/from 3 to/);
    // Not a number: a TypeError that quotes a string and never prints an object's text.
    expect(refusal(() => checkMs('x', '5000'))).toBe('TypeError: Invalid x: expected a number of milliseconds, got "5000"');
    expect(refusal(() => checkMs('x', undefined))).toBe('TypeError: Invalid x: expected a number of milliseconds, got undefined');
    expect(refusal(() => checkMs('x', { toString: () => 'secret' }))).toBe('TypeError: Invalid x: expected a number of milliseconds, got an object');
    expect(refusal(() => checkMs('x', [1]))).toMatch(/got an array$/);
    expect(refusal(() => checkMs('x', () => 1))).toMatch(/got a function$/);
    expect(refusal(() => checkMs('x', 5n))).toMatch(/got 5n$/);
  });

  it('msError returns what checkMs throws, and nothing for a value in range', () => {
    expect(msError('x', 5)).toBeUndefined();
    expect(msError('x', -1)).toEqual(new RangeError(`Invalid x: expected a number of milliseconds from 0 to ${MAX_TIMER_MS}, got -1`));
    expect(msError('x', 'a')).toBeInstanceOf(TypeError);
  });

  it('checkMsOption lets an option be left out and names the option', () => {
    expect(checkMsOption('idleTimeoutMs', undefined)).toBeUndefined();
    expect(checkMsOption('idleTimeoutMs', 10)).toBe(10);
    expect(() => checkMsOption('idleTimeoutMs', -1)).toThrow(new RangeError(`Invalid option idleTimeoutMs: expected a number of milliseconds from 0 to ${MAX_TIMER_MS}, got -1`));
  });

  it('checkCount refuses what is not a safe integer in its rule', () => {
    expect(checkCount('x', 1)).toBe(1);
    expect(refusal(() => checkCount('option maxBodyBytes', 0))).toBe('RangeError: Invalid option maxBodyBytes: expected a positive integer, got 0');
    expect(refusal(() => checkCount('x', 1.5))).toBe('RangeError: Invalid x: expected a positive integer, got 1.5');
    expect(refusal(() => checkCount('x', Number.NaN))).toBe('RangeError: Invalid x: expected a positive integer, got NaN');
    expect(refusal(() => checkCount('x', 2 ** 53))).toMatch(/^RangeError: .*got 9007199254740992$/);
    expect(refusal(() => checkCount('x', Infinity))).toBe('RangeError: Invalid x: expected a positive integer, got Infinity');
    expect(checkCount('x', Infinity, { infinite: true })).toBe(Infinity);
    expect(refusal(() => checkCount('x', 0, { infinite: true }))).toBe('RangeError: Invalid x: expected a positive integer or Infinity, got 0');
    expect(checkCount('x', 0, { min: 0 })).toBe(0);
    expect(refusal(() => checkCount('x', -1, { min: 0 }))).toBe('RangeError: Invalid x: expected an integer of 0 or more, got -1');
    expect(refusal(() => checkCount('x', 101, { max: 100 }))).toBe('RangeError: Invalid x: expected an integer from 1 to 100, got 101');
    expect(refusal(() => checkCount('x', '3'))).toBe('TypeError: Invalid x: expected a positive integer, got "3"');
    expect(refusal(() => checkCount('x', null))).toBe('TypeError: Invalid x: expected a positive integer, got null');
  });

  it('checkCountOption lets an option be left out and names the option', () => {
    expect(checkCountOption('maxSessions', undefined)).toBeUndefined();
    expect(() => checkCountOption('maxSessions', 0)).toThrow(new RangeError('Invalid option maxSessions: expected a positive integer, got 0'));
  });
});
