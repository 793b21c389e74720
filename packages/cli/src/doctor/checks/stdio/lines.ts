/**
 * What the lines of a stdio session say on their own, without knowing what was asked: text that is not a JSON-RPC
 * message (MCP 2025-11-25 basic/transports.mdx "stdio": nothing else on stdout), CR before LF (B12) and a leading
 * byte order mark (B13). Pure over the lines read.
 */
import { STDIO_IDS } from '../../requirements/stdio.js';
import type { Observation, StdioLine } from '../../types.js';
import { isProtocolLine, quoteLine, responseOf, short } from './probeMessages.js';

/** How many offending lines a finding quotes. */
const QUOTED = 3;

/** One finding of the line rules: the requirement id and what to say. */
export interface LineFinding {
  readonly id: string;
  readonly observation: Observation;
}

/** Where a line sits: before the first response of the session, or after the n-th. */
function position(lines: readonly StdioLine[], index: number): string {
  const answersBefore = lines.slice(0, index).filter((line) => responseOf(line) !== undefined).length;
  return answersBefore === 0 ? 'before the first answer' : `after ${answersBefore} answer${answersBefore === 1 ? '' : 's'}`;
}

function quoted(lines: readonly StdioLine[], indexes: readonly number[]): string[] {
  const shown = indexes.slice(0, QUOTED).map((i) => `stdout line ${i + 1}: ${lines[i]!.raw}`);
  return indexes.length > QUOTED ? [...shown, `… ${indexes.length - QUOTED} more`] : shown;
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/** The line-level findings of a session's stdout, in requirement order. */
export function lineFindings(lines: readonly StdioLine[]): LineFinding[] {
  const findings: LineFinding[] = [];
  const notProtocol = lines.flatMap((line, i) => (isProtocolLine(line) ? [] : [i]));
  if (notProtocol.length > 0) {
    const first = notProtocol[0]!;
    const raw = lines[first]!.raw;
    const what = raw.replace(/^\uFEFF/, '').replace(/\r$/, '') === '' ? 'is empty' : `is not a JSON-RPC message: ${quoteLine(short(raw))}`;
    findings.push({
      id: STDIO_IDS.stdoutNotProtocol,
      observation: {
        message: `stdout line ${first + 1}, ${position(lines, first)}, ${what}${notProtocol.length > 1 ? ` (${count(notProtocol.length, 'such line')} in all)` : ''}`,
        evidence: quoted(lines, notProtocol),
      },
    });
  }
  const crlf = lines.flatMap((line, i) => (line.raw.endsWith('\r') ? [i] : []));
  if (crlf.length > 0) {
    findings.push({
      id: STDIO_IDS.crlf,
      observation: { message: `${count(crlf.length, 'line')} of ${lines.length} on stdout end with CR LF, not LF alone`, evidence: quoted(lines, crlf) },
    });
  }
  const bom = lines.flatMap((line, i) => (line.raw.startsWith('\uFEFF') ? [i] : []));
  if (bom.length > 0) {
    findings.push({
      id: STDIO_IDS.bom,
      observation: { message: `${count(bom.length, 'line')} on stdout start with a UTF-8 byte order mark (EF BB BF), the first is line ${bom[0]! + 1}`, evidence: quoted(lines, bom) },
    });
  }
  return findings;
}
