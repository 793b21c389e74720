/**
 * `switchboard explain <code|status|message>`: what a JSON-RPC/MCP error code, an HTTP status or an error message
 * means in MCP, per revision, with the likely causes in order, the fixes and the spec sections (`--json`: the
 * entries as data).
 */
import type { Explanation } from '../explain/entry.js';
import { explain } from '../explain/lookup.js';
import { ExitCode } from '../errors.js';
import type { Output } from '../output.js';

function revisionRange(revisions: readonly string[]): string {
  return revisions.length === 1 ? revisions[0]! : `${revisions[0]} … ${revisions.at(-1)}`;
}

/** Writes one entry for the terminal. */
export function printExplanation(output: Output, entry: Explanation): void {
  const c = output.colors;
  output.heading(entry.title);
  for (const meaning of entry.meanings) output.line(`  ${c.cyan(revisionRange(meaning.revisions))}: ${meaning.meaning}`);
  output.line(c.bold('  Likely causes, most likely first:'));
  entry.causes.forEach((cause, i) => output.line(`    ${i + 1}. ${cause}`));
  output.line(c.bold('  Fixes:'));
  entry.fixes.forEach((fix, i) => output.line(`    ${i + 1}. ${fix}`));
  output.line(`  ${c.bold('Spec:')} ${entry.spec.join('; ')}`);
  if (entry.fieldBugs !== undefined) output.line(`  ${c.bold('Field bugs:')} ${entry.fieldBugs.join(', ')} (docs/field-bugs.md)`);
}

/** Runs the command. */
export function explainCommand(options: { readonly output: Output; readonly query: string; readonly json: boolean }): number {
  const { output } = options;
  const answer = explain(options.query);
  if (options.json) {
    output.json({ query: options.query, read: answer.read, entries: answer.entries.map((entry) => ({ ...entry, pattern: entry.pattern?.source })) });
    return answer.entries.length === 0 ? ExitCode.Failure : ExitCode.Ok;
  }
  if (answer.entries.length === 0) {
    const what = answer.read === 'code' ? `the code ${options.query}: it is outside -32768…-32000, so it is the application's own (only the server's documentation says what it means)` : answer.read === 'status' ? `the HTTP status ${options.query}: MCP gives it no meaning of its own` : `the message "${options.query}"`;
    output.error(`No explanation for ${what}`);
    return ExitCode.Failure;
  }
  answer.entries.forEach((entry, i) => {
    if (i > 0) output.line();
    printExplanation(output, entry);
  });
  return ExitCode.Ok;
}
