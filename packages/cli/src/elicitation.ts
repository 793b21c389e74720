/**
 * Elicitation answered at the terminal: the server's message, then one question per field of the requested
 * schema (MCP 2025-11-25 client/elicitation.mdx "Requested Schema": a flat object of string, number, integer,
 * boolean and enum fields). Without a terminal the request is declined, and the CLI says so on stderr. Every server
 * value shown (the message, the URL, field titles, descriptions, choices, defaults) goes through `terminalText`.
 */
import type { ElicitParams, ElicitResult } from '@switchboard/mcp';
import type { CliIo } from './cliIo.js';
import type { Output } from './output.js';
import { terminalText } from './terminalText.js';

interface FieldSchema {
  readonly type?: string;
  readonly title?: string;
  readonly description?: string;
  readonly enum?: readonly unknown[];
  readonly oneOf?: readonly { readonly const?: unknown; readonly title?: string }[];
  readonly items?: { readonly enum?: readonly unknown[] };
  readonly default?: unknown;
}

/** How many times a field is asked again after an answer that does not fit it. */
const RETRIES = 3;

function choicesOf(field: FieldSchema): string[] | undefined {
  if (Array.isArray(field.enum)) return field.enum.map(String);
  if (field.oneOf !== undefined && Array.isArray(field.oneOf)) return field.oneOf.map((option: { readonly const?: unknown }) => String(option.const));
  return undefined;
}

/** Reads one typed answer; `undefined` means "no value" (empty line), `null` means it did not fit. */
function convert(answer: string, field: FieldSchema): unknown {
  const text = answer.trim();
  if (text === '') return undefined;
  const choices = choicesOf(field);
  if (choices !== undefined) {
    const index = Number(text);
    if (Number.isInteger(index) && index >= 1 && index <= choices.length) return choices[index - 1];
    return choices.includes(text) ? text : null;
  }
  switch (field.type ?? 'string') {
    case 'boolean':
      return /^(y|yes|true)$/i.test(text) ? true : /^(n|no|false)$/i.test(text) ? false : null;
    case 'number': {
      const value = Number(text);
      return Number.isFinite(value) ? value : null;
    }
    case 'integer': {
      const value = Number(text);
      return Number.isInteger(value) ? value : null;
    }
    case 'array': // multi-select enum: comma-separated values
      return text.split(',').map((item) => item.trim()).filter((item) => item !== '');
    default:
      return text;
  }
}

async function askField(ask: (question: string) => Promise<string>, entry: { readonly name: string; readonly field: FieldSchema; readonly required: boolean }): Promise<{ value: unknown } | 'cancel'> {
  const { name, field, required } = entry;
  const choices = choicesOf(field) ?? field.items?.enum?.map(String);
  const label = terminalText(field.title ?? name);
  const hints = [terminalText(field.type ?? 'string'), required ? 'required' : 'optional'];
  if (field.default !== undefined) hints.push(`default ${terminalText(JSON.stringify(field.default))}`);
  const list = choices === undefined ? '' : ` ${choices.map((choice, i) => `${i + 1}) ${terminalText(choice)}`).join('  ')}`;
  const question = `  ${label}${field.description === undefined ? '' : ` — ${terminalText(field.description)}`} (${hints.join(', ')})${list}: `;
  for (let attempt = 0; attempt <= RETRIES; attempt++) {
    const value = convert(await ask(question), field);
    if (value === undefined) {
      if (field.default !== undefined) return { value: field.default };
      if (!required) return { value: undefined };
    } else if (value !== null) {
      return { value };
    }
  }
  return 'cancel';
}

/**
 * Makes the client's elicitation handler for this run.
 * @param options `io`: where `ask` comes from (no `ask`: every request is declined); `output`: where notes go
 */
export function terminalElicitation(options: { readonly io: CliIo; readonly output: Output }): (params: ElicitParams) => Promise<ElicitResult> {
  const { io, output } = options;
  return async (params) => {
    const ask = io.ask;
    output.note(`${output.colors.cyan('server asks:')} ${terminalText(params.message, 'block')}`);
    if (ask === undefined) {
      output.note('switchboard: declined the server\'s question: stdin is not a terminal, so no one can answer it');
      return { action: 'decline' };
    }
    if (params.mode === 'url') {
      output.note(`  open: ${terminalText(params.url)}`);
      const done = await ask('  Done in the browser? (y = accept, n = decline) ');
      return { action: /^y/i.test(done.trim()) ? 'accept' : 'decline' };
    }
    const choice = (await ask('  Answer? (y = answer, n = decline, c = cancel) [y] ')).trim().toLowerCase();
    if (choice.startsWith('n')) return { action: 'decline' };
    if (choice.startsWith('c')) return { action: 'cancel' };
    const schema = (params.requestedSchema ?? {}) as { properties?: Record<string, FieldSchema>; required?: readonly string[] };
    const required = new Set(schema.required ?? []);
    const content: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(schema.properties ?? {})) {
      const answer = await askField(ask, { name, field, required: required.has(name) });
      if (answer === 'cancel') {
        output.note('switchboard: cancelled the server\'s question: no valid answer');
        return { action: 'cancel' };
      }
      if (answer.value !== undefined) content[name] = answer.value;
    }
    return { action: 'accept', content };
  };
}
