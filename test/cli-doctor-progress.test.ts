/**
 * The doctor's progress display off a terminal: one plain line per finished check on stderr, nothing on stdout,
 * no escape codes; the live display (a spinner) is driven in a real terminal by cli-doctor-tmux.test.ts.
 */
import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import type { DoctorProgress } from '../packages/cli/src/doctor/types.js';
import { captureIo } from '../packages/cli/src/cliIo.js';
import { progressDisplay } from '../packages/cli/src/progress.js';

describe('the doctor progress display without a terminal', () => {
  it('writes one line per finished check: its status in words, the findings, the reason, the duration', () => {
    // stderrIsTTY is not set: a stream given anyway is not drawn on.
    const io = captureIo({ stderrStream: process.stderr });
    const display = progressDisplay({ io, colors: pc.createColors(true) });
    const end = (over: Partial<Extract<DoctorProgress, { type: 'check-end' }>>): DoctorProgress => ({ type: 'check-end', id: 'stdio.hygiene', title: 'stdio hygiene', status: 'passed', findings: 0, durationMs: 120.4, ...over });
    display.onProgress({ type: 'check-start', id: 'stdio.hygiene', title: 'stdio hygiene' });
    display.onProgress({ type: 'check-note', id: 'stdio.hygiene', text: 'sending a malformed line' });
    display.onProgress(end({}));
    display.onProgress(end({ status: 'failed', findings: 2, worst: 'warning' }));
    display.onProgress(end({ status: 'failed', findings: 1 }));
    display.onProgress(end({ status: 'failed', reason: 'spawn nope ENOENT', durationMs: 9 }));
    display.onProgress(end({ status: 'skipped', durationMs: 0, reason: 'no connection' }));
    display.onProgress(end({ status: 'timed-out', durationMs: 2000, findings: 1 }));
    display.onProgress(end({ status: 'crashed', durationMs: 3, reason: 'TypeError: boom' }));
    display.close();
    display.close();
    expect(io.out()).toBe('');
    expect(io.err()).toBe(
      [
        '[doctor] stdio hygiene … ok (120 ms)',
        '[doctor] stdio hygiene … 2 findings (120 ms)',
        '[doctor] stdio hygiene … 1 finding (120 ms)',
        '[doctor] stdio hygiene … failed: spawn nope ENOENT (9 ms)',
        '[doctor] stdio hygiene … skipped: no connection',
        '[doctor] stdio hygiene … timed out after 2000 ms, 1 finding',
        '[doctor] stdio hygiene … crashed: TypeError: boom (3 ms)',
        '',
      ].join('\n'),
    );
  });
});
