/**
 * Checks the client's answer to an input request (modern era: an entry of `inputResponses`; legacy era: the result
 * of a server → client request) against the request it answers, so a handler gets either a well-formed result or
 * a typed error, never a malformed object:
 * - `elicitation/create` → `ElicitResult`: `action` one of `accept`, `decline`, `cancel`; `content` only with
 *   `accept`, only in form mode, and then matching the `requestedSchema` that was sent (the restricted subset of
 *   form elicitation: a flat object of string, number, integer, boolean and enum properties, `required`; members
 *   it does not name are allowed, as primitives, unless it says `additionalProperties: false`);
 * - `sampling/createMessage` → `CreateMessageResult`: `role`, `content` (a block, or an array of blocks), `model`,
 *   `stopReason?`;
 * - `roots/list` → `ListRootsResult`: `roots`, an array of `{ uri, name? }` whose `uri` is a `file://` URI.
 * Every result may carry `_meta` (an object) and members of its own (MCP results are open objects).
 *
 * @see MCP 2026-07-28 client/elicitation.mdx ("Requested Schema", "Response Actions"), client/sampling.mdx,
 *   client/roots.mdx ("Root": `uri` MUST be a `file://` URI), basic/patterns/mrtr.mdx ("malformed inputResponses ⇒
 *   a JSON-RPC error"); the same shapes in MCP 2025-11-25 schema.ts `ElicitResult`, `CreateMessageResult`,
 *   `ListRootsResult`
 */
import { ErrorCode, echo } from '@switchboard/jsonrpc';
import { McpError } from '../protocol/errors.js';
import { isRecord } from './params.js';

/** What an answer is checked against: the input request as it was sent (its method and params). */
export interface AnsweredRequest {
  readonly method: string;
  readonly params?: Readonly<Record<string, unknown>>;
}

/**
 * The client's answer to one of the server's input requests does not fit the request: -32602 Invalid params. On a
 * modern-era request (an entry of `inputResponses`) it is the answer to the request, and the handler never runs;
 * on a legacy-era session a handler's `ctx.elicit` / `ctx.sample` / `ctx.listRoots` rejects with it (escaping the
 * handler, the request is answered with it too). The message names the answer and what is wrong, in this
 * library's words (client input quoted is cut to 200 characters).
 */
export class InvalidInputResponseError extends McpError {
  /** The method of the input request the answer was for, e.g. `roots/list`. */
  readonly method: string;
  /** The answer's key in `inputResponses` (modern era); `undefined` for a legacy-era result. */
  readonly key: string | undefined;
  /** What is wrong with the answer. */
  readonly problem: string;

  /** @param facts the request answered (`method`, `key` when modern) and what is wrong */
  constructor(facts: { readonly method: string; readonly key?: string; readonly problem: string }) {
    const what = facts.key === undefined ? `the client's answer to ${facts.method}` : `input response "${echo(facts.key)}" (${facts.method})`;
    super(ErrorCode.InvalidParams, `Invalid params: ${what}: ${facts.problem}`);
    this.name = 'InvalidInputResponseError';
    this.method = facts.method;
    this.key = facts.key;
    this.problem = facts.problem;
  }
}

/**
 * What is wrong with `response` as the answer to `request`, or `undefined` when it fits (see the module comment).
 * A request of a method this file does not know is not checked.
 */
export function inputResponseProblem(request: AnsweredRequest, response: unknown): string | undefined {
  if (!isRecord(response)) return 'must be an object';
  if (response._meta !== undefined && !isRecord(response._meta)) return '"_meta" must be an object';
  switch (request.method) {
    case 'elicitation/create':
      return elicitProblem(request.params, response);
    case 'sampling/createMessage':
      return sampledProblem(response);
    case 'roots/list':
      return rootsProblem(response);
    default:
      return undefined;
  }
}

/**
 * The same check, throwing.
 * @throws InvalidInputResponseError when `response` does not fit `request`
 */
export function checkInputResponse(request: AnsweredRequest, response: unknown, key?: string): void {
  const problem = inputResponseProblem(request, response);
  if (problem !== undefined) throw new InvalidInputResponseError({ method: request.method, key, problem });
}

/** What an `inputResponses` entry is checked against once the request has been answered: method and, for a form, its schema. */
export function answeredRequestOf(request: AnsweredRequest): AnsweredRequest {
  if (request.method !== 'elicitation/create' || request.params === undefined) return { method: request.method };
  const { mode, requestedSchema } = request.params;
  const params: Record<string, unknown> = {};
  if (mode !== undefined) params.mode = mode;
  if (requestedSchema !== undefined) params.requestedSchema = requestedSchema;
  return { method: request.method, params };
}

const ACTIONS: ReadonlySet<unknown> = new Set(['accept', 'decline', 'cancel']);

/** MCP 2026-07-28 client/elicitation.mdx "Response Actions" and "Requested Schema". */
function elicitProblem(params: Readonly<Record<string, unknown>> | undefined, response: Record<string, unknown>): string | undefined {
  const { action, content } = response;
  if (!ACTIONS.has(action)) return '"action" must be "accept", "decline" or "cancel"';
  if (content === undefined) return action === 'accept' ? missingRequired(params?.requestedSchema, {}) : undefined;
  if (action !== 'accept') return `"content" is sent only with "accept", not with "${String(action)}"`;
  if (params?.mode === 'url') return '"content" is not sent in URL mode';
  if (!isRecord(content)) return '"content" must be an object';
  return contentProblem(params?.requestedSchema, content);
}

/** The `content` of an accepted form against its `requestedSchema`. */
function contentProblem(schema: unknown, content: Record<string, unknown>): string | undefined {
  const properties = isRecord(schema) && isRecord(schema.properties) ? schema.properties : undefined;
  // JSON Schema: members the schema does not name are allowed unless it says `additionalProperties: false` (clients
  // in the field send such members; they still must be primitives).
  const closed = isRecord(schema) && schema.additionalProperties === false;
  for (const [name, value] of Object.entries(content)) {
    // MCP 2026-07-28 schema.ts ElicitResult: content values are strings, numbers, booleans or string arrays.
    const primitive = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || (Array.isArray(value) && value.every((v) => typeof v === 'string'));
    if (!primitive) return `"content.${echo(name)}" must be a string, number, boolean or array of strings`;
    const property = properties !== undefined && Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (property === undefined) {
      if (closed) return `"content.${echo(name)}" was not asked for`;
      continue;
    }
    const problem = isRecord(property) ? valueProblem(property, value) : undefined;
    if (problem !== undefined) return `"content.${echo(name)}" ${problem}`;
  }
  return missingRequired(schema, content);
}

function missingRequired(schema: unknown, content: Record<string, unknown>): string | undefined {
  const required = isRecord(schema) && Array.isArray(schema.required) ? schema.required : [];
  for (const name of required) if (typeof name === 'string' && !Object.hasOwn(content, name)) return `"content.${echo(name)}" is required`;
  return undefined;
}

/** The enum values of a property: `enum`, or the `const` of each `oneOf` / `anyOf` member (titled enums). */
function choicesOf(schema: Readonly<Record<string, unknown>>): readonly unknown[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum as readonly unknown[];
  const titled = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  return titled?.map((member) => (isRecord(member) ? member.const : undefined));
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:\S*$/;

/** One primitive property (MCP 2026-07-28 client/elicitation.mdx "Supported Schema Types"). */
function valueProblem(schema: Readonly<Record<string, unknown>>, value: unknown): string | undefined {
  const type = schema.type;
  if (type === 'array') {
    if (!Array.isArray(value)) return 'must be an array of strings';
    const items = isRecord(schema.items) ? choicesOf(schema.items) : undefined;
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) return `must have at least ${schema.minItems} items`;
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) return `must have at most ${schema.maxItems} items`;
    if (items !== undefined && !value.every((v) => items.includes(v))) return 'must hold only the offered values';
    return undefined;
  }
  const choices = choicesOf(schema);
  if (choices !== undefined && !choices.includes(value)) return 'must be one of the offered values';
  switch (type) {
    case 'string': {
      if (typeof value !== 'string') return 'must be a string';
      if (typeof schema.minLength === 'number' && value.length < schema.minLength) return `must have at least ${schema.minLength} characters`;
      if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) return `must have at most ${schema.maxLength} characters`;
      const format = schema.format;
      const pattern = format === 'email' ? EMAIL : format === 'date' ? DATE : format === 'date-time' ? DATE_TIME : format === 'uri' ? URI : undefined;
      if (pattern !== undefined && !pattern.test(value)) return `must be in the ${String(format)} format`;
      return undefined;
    }
    case 'number':
    case 'integer': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return type === 'integer' ? 'must be an integer' : 'must be a number';
      if (type === 'integer' && !Number.isInteger(value)) return 'must be an integer';
      if (typeof schema.minimum === 'number' && value < schema.minimum) return `must be at least ${schema.minimum}`;
      if (typeof schema.maximum === 'number' && value > schema.maximum) return `must be at most ${schema.maximum}`;
      return undefined;
    }
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be a boolean';
    default:
      return undefined;
  }
}

const ROLES: ReadonlySet<unknown> = new Set(['user', 'assistant']);

/** MCP 2026-07-28 client/sampling.mdx; schema.ts `CreateMessageResult` (a `SamplingMessage` plus `model`, `stopReason?`). */
function sampledProblem(response: Record<string, unknown>): string | undefined {
  if (!ROLES.has(response.role)) return '"role" must be "user" or "assistant"';
  if (typeof response.model !== 'string') return '"model" must be a string';
  if (response.stopReason !== undefined && typeof response.stopReason !== 'string') return '"stopReason" must be a string';
  const content = response.content;
  if (Array.isArray(content)) {
    for (const [i, block] of content.entries()) {
      const problem = blockProblem(block);
      if (problem !== undefined) return `"content[${i}]" ${problem}`;
    }
    return undefined;
  }
  const problem = blockProblem(content);
  return problem === undefined ? undefined : `"content" ${problem}`;
}

/** One sampling content block: text, image, audio, tool_use or tool_result, with its required members. */
function blockProblem(block: unknown): string | undefined {
  if (!isRecord(block)) return 'must be a content block (an object)';
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? undefined : 'must have a string "text"';
    case 'image':
    case 'audio':
      return typeof block.data === 'string' && typeof block.mimeType === 'string' ? undefined : 'must have string "data" and "mimeType"';
    case 'tool_use':
      return typeof block.id === 'string' && typeof block.name === 'string' && isRecord(block.input) ? undefined : 'must have string "id" and "name" and an object "input"';
    case 'tool_result':
      return typeof block.toolUseId === 'string' && Array.isArray(block.content) ? undefined : 'must have a string "toolUseId" and a "content" array';
    default:
      return 'must have "type" text, image, audio, tool_use or tool_result';
  }
}

/** MCP 2026-07-28 client/roots.mdx "Root": `uri` MUST be a `file://` URI; `name` optional. */
function rootsProblem(response: Record<string, unknown>): string | undefined {
  const roots = response.roots;
  if (!Array.isArray(roots)) return '"roots" must be an array';
  for (const [i, root] of roots.entries()) {
    if (!isRecord(root)) return `"roots[${i}]" must be an object`;
    if (typeof root.uri !== 'string' || !root.uri.startsWith('file://')) return `"roots[${i}].uri" must be a file URI`;
    if (root.name !== undefined && typeof root.name !== 'string') return `"roots[${i}].name" must be a string`;
    if (root._meta !== undefined && !isRecord(root._meta)) return `"roots[${i}]._meta" must be an object`;
  }
  return undefined;
}
