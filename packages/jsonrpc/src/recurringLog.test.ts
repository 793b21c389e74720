import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from './logger.js';
import { RecurringLog } from './recurringLog.js';

function collect(): { logger: Logger; lines: [string, string, Record<string, unknown> | undefined][] } {
  const lines: [string, string, Record<string, unknown> | undefined][] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => void lines.push([level, message, fields]);
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

describe('RecurringLog', () => {
  afterEach(() => void vi.useRealTimers());

  it('logs the first of a class, then a summary per interval and at the end', () => {
    vi.useFakeTimers();
    const { logger, lines } = collect();
    const log = new RecurringLog(logger, 1000);
    const refused = Object.assign(new Error('refused'), { code: 'http_status', status: 403 });
    const gone = Object.assign(new Error('gone'), { code: 'http_status', status: 404 });
    for (let i = 0; i < 50; i++) log.note('error', 'Response could not be sent', { error: refused });
    log.note('error', 'Response could not be sent', { error: gone });
    expect(lines.map(([level, message]) => `${level} ${message}`)).toEqual(['error Response could not be sent', 'error Response could not be sent']);
    vi.advanceTimersByTime(1000);
    log.note('error', 'Response could not be sent', { error: refused });
    expect(lines[2]?.[1]).toBe('Response could not be sent (50 more times, 51 in all; the latest error attached)');
    expect(lines[2]?.[2]).toMatchObject({ count: 51, since: 50 });
    log.note('error', 'Response could not be sent', { error: refused });
    log.flush();
    expect(lines.slice(3).map(([, , fields]) => fields?.['count'])).toEqual([52]);
  });

  it('survives a logger that throws', () => {
    const log = new RecurringLog({ debug() {}, info() {}, warn() {}, error: () => { throw new Error('broken'); } });
    expect(() => log.note('error', 'x', { error: new Error('y') })).not.toThrow();
  });
});
