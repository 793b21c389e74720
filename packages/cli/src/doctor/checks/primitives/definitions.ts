/**
 * The rules a listed catalogue is held to, as pure functions of what was listed: tool names (MCP 2025-11-25
 * server/tools.mdx "Tool Names"), unique names, required fields, descriptions, `inputSchema` and `outputSchema`
 * (object roots, validity, dialect, self-contained), and the host rules of `hostSchemaRules.ts`. Each rule yields at
 * most one observation, naming every item that breaks it (the evidence quotes the first few).
 */
import type { Severity } from '../../types.js';
import { HOST_SCHEMA_RULES } from './hostSchemaRules.js';
import { dialectOf, inspectSchema, loadSchemaCompilers, type SchemaDialect } from './jsonSchema.js';
import { quote } from './pages.js';

/** One rule broken, by one or more items. */
export interface DefinitionProblem {
  /** The requirement id. */
  readonly id: string;
  readonly message: string;
  readonly evidence: readonly string[];
  readonly severity?: Severity;
}

/** What was listed (a list not read is `undefined`). */
export interface Catalogue {
  readonly tools?: readonly Readonly<Record<string, unknown>>[];
  readonly resources?: readonly Readonly<Record<string, unknown>>[];
  readonly resourceTemplates?: readonly Readonly<Record<string, unknown>>[];
  readonly prompts?: readonly Readonly<Record<string, unknown>>[];
}

/** Items quoted in one observation's evidence at most. */
const EVIDENCE_ITEMS = 5;

type Record_ = Readonly<Record<string, unknown>>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nameOf(item: Record_, key = 'name'): string {
  const value = item[key];
  if (typeof value === 'string') return value;
  return value === undefined ? `(no ${key})` : `(${key} ${quote(value, 40)})`;
}

/** Collects, per requirement, the items that break it, then words one observation each. */
class Problems {
  readonly #byId = new Map<string, { names: string[]; evidence: string[]; severity?: Severity }>();

  add(id: string, facts: { readonly name: string; readonly evidence: string; readonly severity?: Severity }): void {
    let entry = this.#byId.get(id);
    if (entry === undefined) {
      entry = { names: [], evidence: [] };
      this.#byId.set(id, entry);
    }
    entry.names.push(facts.name);
    if (entry.evidence.length < EVIDENCE_ITEMS) entry.evidence.push(facts.evidence);
    if (facts.severity !== undefined) entry.severity = facts.severity;
  }

  list(word: (id: string, names: readonly string[]) => string): DefinitionProblem[] {
    return [...this.#byId].map(([id, entry]) => ({ id, message: word(id, entry.names), evidence: entry.evidence, ...(entry.severity === undefined ? {} : { severity: entry.severity }) }));
  }
}

function shownNames(names: readonly string[]): string {
  const shown = names.slice(0, 8).map((n) => `"${n}"`).join(', ');
  return names.length > 8 ? `${shown} and ${names.length - 8} more` : shown;
}

const SPEC_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Why a tool name breaks MCP 2025-11-25 "Tool Names", or `undefined`. */
export function toolNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'it is empty';
  if (name.length > 128) return `it has ${name.length} characters (at most 128)`;
  const bad = [...new Set([...name].filter((c) => !/[A-Za-z0-9_.-]/.test(c)))];
  if (bad.length > 0) return `it contains ${bad.map((c) => JSON.stringify(c)).join(', ')} (only A-Z, a-z, 0-9, "_", "-" and "." are allowed)`;
  return SPEC_NAME.test(name) ? undefined : 'it breaks the rule';
}

function checkSchema(facts: {
  readonly problems: Problems;
  readonly tool: string;
  readonly field: 'inputSchema' | 'outputSchema';
  readonly schema: Record<string, unknown>;
  readonly revision: string;
}): void {
  const { problems, tool, field, schema, revision } = facts;
  const invalidId = field === 'inputSchema' ? 'primitives.input-schema-invalid' : 'primitives.output-schema-invalid';
  const { dialect, declared } = dialectOf(schema, revision);
  if (declared && dialect !== '2020-12' && revision >= '2025-11-25') {
    problems.add('primitives.schema-dialect', { name: `${tool} (${field})`, evidence: `${tool} ${field}.$schema: ${quote(schema.$schema, 200)}` });
  }
  const verdict = inspectSchema(schema, dialect === 'unknown' ? ('2020-12' satisfies SchemaDialect) : dialect);
  if (verdict.ok) return;
  if (verdict.kind === 'invalid') problems.add(invalidId, { name: tool, evidence: `${tool} ${field}: ${verdict.reason} in ${quote(schema, 300)}` });
  else if (verdict.kind === 'unresolved-ref') problems.add('primitives.schema-unresolved-ref', { name: tool, evidence: `${tool} ${field}: ${verdict.reason}` });
  // `dialect-unsupported` (draft-04, draft-06): the dialect finding above already says so.
}

function checkTool(problems: Problems, tool: Record_, revision: string): void {
  const name = nameOf(tool);
  if (typeof tool.name !== 'string') {
    problems.add('primitives.item-invalid', { name, evidence: `tool without a string "name": ${quote(tool, 300)}` });
  } else if (revision >= '2025-11-25') {
    const why = toolNameProblem(tool.name);
    if (why !== undefined) problems.add('primitives.tool-name-invalid', { name, evidence: `${quote(tool.name, 200)}: ${why}` });
  }
  for (const field of ['title', 'description'] as const) {
    if (tool[field] !== undefined && typeof tool[field] !== 'string') problems.add('primitives.item-invalid', { name, evidence: `${name} "${field}" is ${quote(tool[field], 200)}, not a string` });
  }
  for (const field of ['annotations', 'execution', '_meta'] as const) {
    if (tool[field] !== undefined && !isRecord(tool[field])) problems.add('primitives.item-invalid', { name, evidence: `${name} "${field}" is ${quote(tool[field], 200)}, not an object` });
  }
  if (tool.description === undefined || (typeof tool.description === 'string' && tool.description.trim() === '')) {
    problems.add('primitives.missing-description', { name, evidence: quote({ name: tool.name, description: tool.description ?? null }, 200) });
  }
  const input = tool.inputSchema;
  if (!isRecord(input) || input.type !== 'object') {
    const why = !isRecord(input) ? (input === undefined ? 'no "inputSchema"' : `"inputSchema" is ${quote(input, 100)}`) : input.type === undefined ? 'no "type" at the root' : `root "type" is ${quote(input.type, 60)}`;
    problems.add('primitives.input-schema-not-object', { name, evidence: `${name}: ${why}: ${quote(input ?? null, 300)}` });
  }
  if (isRecord(input)) checkSchema({ problems, tool: name, field: 'inputSchema', schema: input, revision });
  const output = tool.outputSchema;
  if (output !== undefined) {
    if (!isRecord(output)) {
      problems.add('primitives.output-schema-invalid', { name, evidence: `${name}: "outputSchema" is ${quote(output, 200)}, not a schema object` });
    } else {
      if (revision <= '2025-11-25' && output.type !== 'object') {
        problems.add('primitives.output-schema-invalid', { name, evidence: `${name}: outputSchema root "type" is ${quote(output.type ?? null, 60)}, not "object" (revision ${revision}): ${quote(output, 300)}` });
      }
      checkSchema({ problems, tool: name, field: 'outputSchema', schema: output, revision });
    }
  }
}

function checkHostRules(problems: Problems, tools: readonly Record_[]): void {
  for (const rule of HOST_SCHEMA_RULES) {
    for (const tool of tools) {
      // A name the spec's own rule already flags is not flagged twice.
      if (rule.id === 'name-pattern' && typeof tool.name === 'string' && toolNameProblem(tool.name) !== undefined) continue;
      const where = rule.test(tool);
      if (where.length > 0) problems.add(`primitives.host-${rule.id}`, { name: nameOf(tool), evidence: `${nameOf(tool)}: ${where.slice(0, 3).join(', ')}${where.length > 3 ? ` and ${where.length - 3} more` : ''}` });
    }
  }
}

function checkDuplicates(problems: Problems, facts: { readonly kind: string; readonly items: readonly Record_[]; readonly key: string }): void {
  const seen = new Map<string, number>();
  facts.items.forEach((item, index) => {
    const value = item[facts.key];
    if (typeof value !== 'string') return;
    const first = seen.get(value);
    if (first === undefined) seen.set(value, index);
    else problems.add('primitives.duplicate-name', { name: `${facts.kind} ${value}`, evidence: `${facts.kind} ${facts.key} ${quote(value, 200)} at positions ${first} and ${index}` });
  });
}

function checkRequired(problems: Problems, facts: { readonly kind: string; readonly items: readonly Record_[]; readonly keys: readonly string[] }): void {
  for (const item of facts.items) {
    const missing = facts.keys.filter((key) => typeof item[key] !== 'string');
    if (missing.length > 0) problems.add('primitives.item-invalid', { name: `${facts.kind} ${nameOf(item, facts.keys[0])}`, evidence: `${facts.kind} without a string ${missing.map((k) => `"${k}"`).join(', ')}: ${quote(item, 300)}` });
  }
}

const WORDING: Readonly<Record<string, (names: string) => string>> = {
  'primitives.input-schema-not-object': (n) => `The inputSchema of ${n} is not an object schema`,
  'primitives.input-schema-invalid': (n) => `The inputSchema of ${n} is not a valid JSON Schema`,
  'primitives.output-schema-invalid': (n) => `The outputSchema of ${n} is not a valid object schema`,
  'primitives.schema-dialect': (n) => `Schemas declare a dialect other than 2020-12: ${n}`,
  'primitives.schema-unresolved-ref': (n) => `Schemas of ${n} point at other documents with "$ref"`,
  'primitives.tool-name-invalid': (n) => `Tool names break the spec's naming rules: ${n}`,
  'primitives.duplicate-name': (n) => `Names listed more than once: ${n}`,
  'primitives.item-invalid': (n) => `Listed items lack required fields or have fields of the wrong type: ${n}`,
  'primitives.missing-description': (n) => `Tools without a description: ${n}`,
};

/** The problems of a catalogue read at `revision` (the negotiated one). */
export async function catalogueProblems(catalogue: Catalogue, revision: string): Promise<DefinitionProblem[]> {
  await loadSchemaCompilers();
  const problems = new Problems();
  const tools = catalogue.tools ?? [];
  for (const tool of tools) checkTool(problems, tool, revision);
  checkDuplicates(problems, { kind: 'tool', items: tools, key: 'name' });
  checkHostRules(problems, tools);
  checkRequired(problems, { kind: 'resource', items: catalogue.resources ?? [], keys: ['uri', 'name'] });
  checkDuplicates(problems, { kind: 'resource', items: catalogue.resources ?? [], key: 'uri' });
  checkRequired(problems, { kind: 'resource template', items: catalogue.resourceTemplates ?? [], keys: ['uriTemplate', 'name'] });
  checkDuplicates(problems, { kind: 'resource template', items: catalogue.resourceTemplates ?? [], key: 'uriTemplate' });
  checkRequired(problems, { kind: 'prompt', items: catalogue.prompts ?? [], keys: ['name'] });
  checkDuplicates(problems, { kind: 'prompt', items: catalogue.prompts ?? [], key: 'name' });
  return problems.list((id, names) => {
    const word = WORDING[id];
    const shown = shownNames(names);
    if (word !== undefined) return word(shown);
    const rule = HOST_SCHEMA_RULES.find((r) => `primitives.host-${r.id}` === id);
    return rule === undefined ? shown : `Some hosts refuse ${shown}: ${rule.refusal}`;
  });
}
