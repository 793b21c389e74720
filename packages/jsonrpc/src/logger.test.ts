import { describe, expect, it } from 'vitest';
import { neverThrowing, silentLogger, type Logger } from './logger.js';

describe('neverThrowing', () => {
  it('passes every line on, with the host logger as this, and drops the lines whose logger throws', () => {
    const seen: string[] = [];
    const host = {
      prefix: 'host',
      debug(this: { prefix: string }, m: string) {
        seen.push(`${this.prefix} debug ${m}`);
      },
      info(this: { prefix: string }, m: string, f?: Record<string, unknown>) {
        seen.push(`${this.prefix} info ${m} ${JSON.stringify(f)}`);
      },
      warn(): void {
        throw new Error('warn broke');
      },
      error(): void {
        throw 'not even an Error'; // eslint-disable-line @typescript-eslint/only-throw-error
      },
    };
    const logger = neverThrowing(host);
    logger.debug('a');
    logger.info('b', { n: 1 });
    expect(() => logger.warn('c')).not.toThrow();
    expect(() => logger.error('d', { error: new Error('x') })).not.toThrow();
    expect(seen).toEqual(['host debug a', 'host info b {"n":1}']);
  });

  it('survives a logger missing a method (a host written in JavaScript)', () => {
    const partial = { warn: () => {} } as unknown as Logger;
    expect(() => neverThrowing(partial).error('x')).not.toThrow();
  });

  it('wraps once: its own results and the silent logger come back as they are', () => {
    const once = neverThrowing({ debug() {}, info() {}, warn() {}, error() {} });
    expect(neverThrowing(once)).toBe(once);
    expect(neverThrowing(silentLogger)).toBe(silentLogger);
    expect(Object.isFrozen(once)).toBe(true);
  });
});
