import { runInNewContext } from 'node:vm';
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

  it('an async method that rejects is no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', record);
    try {
      // A host's async method: `void` accepts it (the rule below guards against just that).
      // eslint-disable-next-line @typescript-eslint/no-misused-promises
      const logger = neverThrowing({ debug() {}, info() {}, warn() {}, error: async () => Promise.reject(new Error('async logger broke')) });
      logger.error('x');
      // A promise of another realm, and a thenable whose then throws.
      const foreign = neverThrowing({ debug() {}, info() {}, warn: () => runInNewContext('Promise.reject(new Error("foreign"))') as void, error() {} });
      foreign.warn('y');
      const thenable = neverThrowing({ debug: () => ({ then: () => { throw new Error('then broke'); } }) as unknown as void, info() {}, warn() {}, error() {} });
      thenable.debug('z');
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
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
