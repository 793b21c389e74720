/**
 * The doctor's progress display on stderr, never stdout. On a terminal, a live task list: the running check behind a
 * spinner (yocto-spinner: small, ESM, takes the stream it draws on, leaves signals to us), each finished check as
 * a line with its mark and duration. Elsewhere (a pipe, a CI log), one plain line per finished check:
 * `[doctor] stdio hygiene … ok (120 ms)`. Titles, reasons and notes may carry a server's words: made safe
 * (`terminalText`, one line each).
 */
import yoctoSpinner, { type Spinner } from 'yocto-spinner';
import { SEVERITY_MARK } from './doctor/render.js';
import type { DoctorProgress } from './doctor/types.js';
import type { CliIo } from './cliIo.js';
import type { Colors } from './output.js';
import { terminalText } from './terminalText.js';

/** What the doctor command drives. */
export interface ProgressDisplay {
  /** Takes one event of the run (`DoctorOptions.onProgress`). */
  readonly onProgress: (event: DoctorProgress) => void;
  /** Stops a spinner still running (the run ended early) and ends the task list. Idempotent. */
  close(): void;
}

type CheckEnd = Extract<DoctorProgress, { type: 'check-end' }>;

const ms = (durationMs: number): string => `${Math.round(durationMs)} ms`;

/** How a finished check reads: its status in words, its findings, the reason, the duration. */
export function checkEndText(event: CheckEnd): string {
  const findings = `${event.findings} finding${event.findings === 1 ? '' : 's'}`;
  const reason = event.reason === undefined ? '' : `: ${terminalText(event.reason)}`;
  switch (event.status) {
    case 'passed':
      return `ok (${ms(event.durationMs)})`;
    case 'failed':
      return `${event.findings > 0 ? findings : 'failed'}${reason} (${ms(event.durationMs)})`;
    case 'skipped':
      return `skipped${reason}`;
    case 'timed-out':
      return `timed out after ${ms(event.durationMs)}${event.findings > 0 ? `, ${findings}` : ''}`;
    case 'crashed':
      return `crashed${reason} (${ms(event.durationMs)})`;
  }
}

/** The mark of a finished check on a terminal: ✔ passed, the worst finding's mark, ⚠ timed out, ✖ crashed, – skipped. */
function mark(event: CheckEnd, c: Colors): string {
  switch (event.status) {
    case 'passed':
      return c.green('✔');
    case 'failed': {
      const worst = event.worst ?? 'error';
      return (worst === 'error' ? c.red : worst === 'warning' ? c.yellow : c.blue)(SEVERITY_MARK[worst]);
    }
    case 'skipped':
      return c.dim('–');
    case 'timed-out':
      return c.yellow('⚠');
    case 'crashed':
      return c.red('✖');
  }
}

/**
 * The display for one run: live on `io.stderrStream` when `io.stderrIsTTY`, plain lines through `io.stderr`
 * otherwise.
 */
export function progressDisplay(options: { readonly io: CliIo; readonly colors: Colors }): ProgressDisplay {
  const { io, colors: c } = options;
  const stream = io.stderrIsTTY === true ? io.stderrStream : undefined;
  if (stream === undefined) {
    return {
      onProgress: (event) => {
        if (event.type === 'check-end') io.stderr(`[doctor] ${terminalText(event.title)} … ${checkEndText(event)}\n`);
      },
      close: () => {},
    };
  }
  let spinner: Spinner | undefined;
  let title = '';
  let drawn = false;
  return {
    onProgress: (event) => {
      drawn = true;
      if (event.type === 'check-start') {
        spinner?.stop();
        title = terminalText(event.title);
        spinner = yoctoSpinner({ text: title, stream, handleSignals: false }).start();
      } else if (event.type === 'check-note') {
        if (spinner !== undefined) spinner.text = `${title} ${c.dim(`· ${terminalText(event.text)}`)}`;
      } else {
        const line = `${mark(event, c)} ${terminalText(event.title)} ${c.dim(checkEndText(event))}`;
        if (spinner === undefined) stream.write(`${line}\n`);
        else spinner.stop(line);
        spinner = undefined;
      }
    },
    close: () => {
      spinner?.stop();
      spinner = undefined;
      // A blank line between the task list and the report that follows on the same terminal.
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}
