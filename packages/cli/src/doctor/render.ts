/**
 * The human report of a doctor run: a header (target, server, the eras and revisions it speaks), the findings not
 * muted grouped by severity (each titled by what was found, with its evidence as seen, the revision it was seen at,
 * the rule, spec section or public source, the SDK whose default causes it, likely causes and fix — an info finding
 * has neither causes nor fix), the muted findings one line each, the measurements,
 * the checks line and a verdict with the exit code's meaning. Pure: a report and a terminal shape in, text out,
 * wrapped to the terminal width (wrap-ansi, so colours and wide characters count right). Every string of the report
 * may carry a server's words (its name, tool names in messages, evidence as seen): each is made safe for the
 * terminal (`terminalText`) before it is coloured and wrapped.
 */
import wrapAnsi from 'wrap-ansi';
import { terminalText } from '../terminalText.js';
import type { CheckOutcome, DoctorReport, Finding, Severity } from './types.js';
import { TOKEN_ENCODING, tokenMethodText } from './checks/primitives/tokenCount.js';

/** The colour functions the report uses (picocolors' `createColors()` fits; identity functions for none). */
export interface RenderColors {
  /** Wraps text for headings (picocolors' `bold`, or the identity). */
  readonly bold: (text: string) => string;
  /** Wraps text for evidence and notes (picocolors' `dim`, or the identity). */
  readonly dim: (text: string) => string;
  /** Wraps text for errors (picocolors' `red`, or the identity). */
  readonly red: (text: string) => string;
  /** Wraps text for warnings (picocolors' `yellow`, or the identity). */
  readonly yellow: (text: string) => string;
  /** Wraps text for info findings (picocolors' `blue`, or the identity). */
  readonly blue: (text: string) => string;
  /** Wraps text for passed checks (picocolors' `green`, or the identity). */
  readonly green: (text: string) => string;
}

/** How to render. */
export interface RenderOptions {
  /** The colours to use. @default no colour */
  readonly colors?: RenderColors;
  /** The width to wrap to, in columns. @default 100 */
  readonly columns?: number;
}

const plain = (text: string): string => text;
const NO_COLORS: RenderColors = { bold: plain, dim: plain, red: plain, yellow: plain, blue: plain, green: plain };

/** The mark of each severity (the progress display's marks too). */
export const SEVERITY_MARK: Readonly<Record<Severity, string>> = { error: '✖', warning: '⚠', info: 'ℹ' };

const HEADINGS: Readonly<Record<Severity, string>> = { error: 'Errors', warning: 'Warnings', info: 'Info' };

/** Narrowest width the report wraps to, whatever the terminal says. */
const MIN_COLUMNS = 40;

const number = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** Milliseconds as read: one decimal under 10 ms, whole ones above. */
function msText(value: number): string {
  return `${(Math.abs(value) < 10 ? number : whole).format(value)} ms`;
}

/**
 * Evidence as it was seen, made visible: the text as is (it is the exact bytes), with every character a terminal
 * would hide or act on written as an escape (`\r`, `\t`, `\x1b`, `\ufeff`); its line feeds stay line breaks
 * (`terminalText`'s `evidence` layout).
 */
export function visibleEvidence(text: string): string {
  return terminalText(text, 'evidence');
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** A word quoted when it would not survive a shell as it is. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The target as a user would type it. */
export function targetText(target: DoctorReport['target']): string {
  return terminalText(target.transport === 'http' ? (target.url ?? '') : [target.command ?? '', ...(target.args ?? [])].map(shellWord).join(' '));
}

function measurementText(key: string, value: number): string {
  if (key === 'tools/list.tokens') return `${number.format(value)} (estimated with gpt-tokenizer, ${TOKEN_ENCODING})`;
  if (key === 'tools/list.tokensEstimated') return `${number.format(value)} (${tokenMethodText('estimate')})`;
  // The same list as tool search would show it (search_tools + call_tool), counted the same way.
  if (key === 'tools/list.tokensWithSearch') return `${number.format(value)} (as tool search, ${TOKEN_ENCODING})`;
  if (key === 'tools/list.tokensWithSearchEstimated') return `${number.format(value)} (as tool search, ${tokenMethodText('estimate')})`;
  return /Ms(\.|$)/.test(key) ? msText(value) : number.format(value);
}

function checksLine(checks: readonly CheckOutcome[]): string {
  const of = (status: CheckOutcome['status']): CheckOutcome[] => checks.filter((c) => c.status === status);
  // Checks that share a reason are named together, the reason once ("a, b, c: the server asks for no credentials").
  const named = (list: readonly CheckOutcome[]): string => {
    const byReason = new Map<string | undefined, string[]>();
    for (const c of list) byReason.set(c.reason, [...(byReason.get(c.reason) ?? []), c.id]);
    return [...byReason].map(([reason, ids]) => terminalText(reason === undefined ? ids.join(', ') : `${ids.join(', ')}: ${reason}`)).join('; ');
  };
  const parts = [`${of('passed').length} passed`];
  const failed = of('failed');
  const said = failed.filter((c) => c.reason !== undefined);
  if (failed.length > said.length) parts.push(`${failed.length - said.length} with findings`);
  if (said.length > 0) parts.push(`${said.length} failed (${named(said)})`);
  for (const [status, label] of [['skipped', 'skipped'], ['timed-out', 'timed out'], ['crashed', 'crashed']] as const) {
    const list = of(status);
    if (list.length > 0) parts.push(`${list.length} ${label} (${named(list)})`);
  }
  return `${plural(checks.length, 'check')}: ${parts.join(', ')}`;
}

function verdict(report: DoctorReport): string {
  const { errors, warnings, infos, muted, failOn, exitCode } = report.summary;
  const crashed = report.checks.some((c) => c.status === 'crashed');
  const timedOut = report.checks.some((c) => c.status === 'timed-out');
  const failing = failOn === 'warning' ? errors + warnings : errors;
  const what = failOn === 'warning' ? 'a warning or an error' : 'an error';
  const meaning =
    exitCode === 2
      ? 'could not connect'
      : exitCode === 0
        ? failOn === 'warning' || warnings === 0
          ? 'nothing above info'
          : 'no error (--fail-on error: warnings do not fail the run)'
        : [...(failing > 0 ? [`${what} was found`] : []), ...(crashed ? ['a check crashed (the doctor’s own failure)'] : []), ...(timedOut ? ['a check timed out'] : [])].join(', ');
  return `Verdict: ${plural(errors, 'error')}, ${plural(warnings, 'warning')}, ${infos} info${muted === 0 ? '' : `, ${muted} muted`} · exit code ${exitCode}: ${meaning}`;
}

/**
 * Renders a report for a terminal.
 * @returns the text, each line ending with `\n`
 */
export function renderReport(report: DoctorReport, options: RenderOptions = {}): string {
  const c = options.colors ?? NO_COLORS;
  const columns = Math.max(MIN_COLUMNS, options.columns ?? 100);
  const lines: string[] = [];
  /** Adds `text` wrapped to the width, the first line after `first`, the next ones after `rest` (plain spaces: its length is the room taken). */
  const para = (text: string, first = '', rest = first): void => {
    const wrapped = wrapAnsi(text, columns - rest.length, { hard: true, trim: true });
    wrapped.split('\n').forEach((line, i) => lines.push(`${i === 0 ? first : rest}${line}`.trimEnd()));
  };
  const field = (label: string, text: string): void => para(text, `${c.dim(label.padEnd(9))}`, ' '.repeat(9));

  para(`${c.bold('switchboard doctor')} ${report.doctor.version} · ${report.target.transport} · ${targetText(report.target)}`);
  const server = report.server;
  field('Server', server === undefined ? (report.connected ? 'gave no serverInfo' : 'not reached') : terminalText(`${server.name} ${server.version}${server.title === undefined ? '' : ` (${server.title})`}`));
  if (report.connected) {
    const { legacy, modern, dualEra } = report.eras;
    const list = (revisions: readonly string[]): string => (revisions.length === 0 ? 'none' : terminalText(revisions.join(', ')));
    field('Eras', `legacy: ${list(legacy)} · modern: ${list(modern)} · ${dualEra ? 'dual-era (both eras)' : legacy.length + modern.length === 0 ? 'no revision confirmed' : `${legacy.length > 0 ? 'legacy' : 'modern'} era only`}`);
  }
  field('Run', `${report.startedAt} · ${msText(report.durationMs)}`);

  for (const severity of ['error', 'warning', 'info'] as const) {
    const group = report.findings.filter((f) => f.severity === severity && f.muted === undefined);
    if (group.length === 0) continue;
    const color = severity === 'error' ? c.red : severity === 'warning' ? c.yellow : c.blue;
    lines.push('', c.bold(`${HEADINGS[severity]} (${group.length})`));
    for (const finding of group) renderFinding(finding, { color, c, para, lines });
  }
  const muted = report.findings.filter((f) => f.muted !== undefined);
  if (muted.length > 0) {
    lines.push('', c.bold(`Muted (${muted.length})`));
    for (const f of muted) {
      const by = f.muted === 'ignore' ? `--ignore ${f.id}` : 'the baseline';
      para(`${c.dim(`${SEVERITY_MARK[f.severity]} ${terminalText(f.id)}`)}  ${terminalText(f.title)} ${c.dim(`(${f.severity}, muted by ${terminalText(by)}${f.sdk === undefined ? '' : `; the default of ${terminalText(f.sdk.package)}`})`)}`, '  ', '    ');
    }
  }
  if (report.findings.length === 0) lines.push('', c.green('No findings'));

  const measurements = Object.entries(report.measurements);
  if (measurements.length > 0) {
    lines.push('', c.bold('Measurements'));
    const width = Math.max(...measurements.map(([key]) => key.length));
    for (const [key, value] of measurements) para(measurementText(key, value), `  ${terminalText(key).padEnd(width)}  `, ' '.repeat(width + 4));
  }
  lines.push('');
  para(checksLine(report.checks));
  const exit = report.summary.exitCode;
  para(c.bold((exit === 0 ? c.green : exit === 1 ? c.yellow : c.red)(verdict(report))));
  return `${lines.join('\n')}\n`;
}

function renderFinding(
  finding: Finding,
  ctx: { readonly color: (text: string) => string; readonly c: RenderColors; readonly para: (text: string, first?: string, rest?: string) => void; readonly lines: string[] },
): void {
  const { color, c, para, lines } = ctx;
  const t = (text: string): string => terminalText(text, 'block');
  lines.push('');
  para(`${color(SEVERITY_MARK[finding.severity])} ${c.bold(terminalText(finding.id))}  ${terminalText(finding.title)}`, '', '  ');
  para(t(finding.message), '  ');
  if (finding.evidence.length > 0) {
    lines.push(`  ${c.dim('Evidence:')}`);
    for (const evidence of finding.evidence) visibleEvidence(evidence).split('\n').forEach((line, i) => para(line, i === 0 ? '    ' : '      ', '      '));
  }
  if (finding.revision !== undefined) para(`Seen at: ${terminalText(finding.revision)}`, '  ', '    ');
  para(`Rule: ${terminalText(finding.rule)}`, '  ', '    ');
  if (finding.spec !== null) para(terminalText(`Spec: MCP ${finding.spec.revision} ${finding.spec.page} “${finding.spec.section}”`), '  ', '    ');
  if (finding.source !== undefined) para(`Source: ${terminalText(finding.source)}`, '  ', '    ');
  if (finding.sdk !== undefined) {
    const { sdk } = finding;
    para(t(`Cause: the default of ${sdk.package} ${sdk.versions}: ${sdk.behaviour}. The server's own handlers cannot change it; what can: ${sdk.remedy}.`), '  ', '    ');
  }
  // An info finding is knowledge: nothing to fix, so no causes and no fix.
  if (finding.severity === 'info') return;
  if (finding.causes.length > 0) {
    lines.push('  Likely causes:');
    finding.causes.forEach((cause, i) => para(t(cause), `    ${i + 1}. `, ' '.repeat(7)));
  }
  para(`Fix: ${t(finding.fix)}`, '  ', '    ');
}
