/**
 * What an error response must look like, per revision: the codes MCP defines in the range it reserves, the shape of
 * an error response, and the trace of a stack in one. Pure functions over the wire values.
 *
 * @see MCP 2026-07-28 basic/index.mdx "Error Codes"; MCP 2025-11-25 schema.ts (error codes)
 */
import { McpErrorCode } from '@switchboard/mcp';

/** The lowest code of the range MCP reserves for its own codes (-32020…-32099, MCP 2026-07-28). */
const RESERVED_LOW = -32099;
const RESERVED_HIGH = -32020;

/** The codes MCP defines in -32020…-32099, whatever the revision (their meaning is fixed from 2026-07-28). */
const MODERN_DEFINED: readonly number[] = [McpErrorCode.HeaderMismatch, McpErrorCode.MissingRequiredClientCapability, McpErrorCode.UnsupportedProtocolVersion];

/** Codes retired at 2026-07-28: a server of that revision MUST NOT emit them. */
const RETIRED_AT_MODERN: readonly number[] = [McpErrorCode.ResourceNotFound, McpErrorCode.UrlElicitationRequired];

/** The MCP codes of the implementation-defined range that `revision` defines (for the finding's message). */
export function definedCodes(revision: string): number[] {
  if (revision >= '2026-07-28') return [...MODERN_DEFINED];
  return [McpErrorCode.ResourceNotFound, ...(revision === '2025-11-25' ? [McpErrorCode.UrlElicitationRequired] : []), ...MODERN_DEFINED];
}

/**
 * Why `code` should not be on the wire at `revision`, or `undefined`: a code in -32020…-32099 the revision does not
 * define, or (from 2026-07-28) a retired one.
 */
export function reservedCodeProblem(code: number, revision: string): string | undefined {
  const defined = definedCodes(revision);
  if (revision >= '2026-07-28' && RETIRED_AT_MODERN.includes(code)) return `${code} is retired at ${revision} (MCP defines ${defined.join(', ')} there)`;
  if (code < RESERVED_LOW || code > RESERVED_HIGH || defined.includes(code)) return undefined;
  return `${code} is in the range MCP reserves (-32020…-32099) but ${revision} does not define it (MCP defines ${defined.join(', ')})`;
}

/**
 * What is wrong with an error response's shape, or nothing: the id of the request (an HTTP refusal may leave it out
 * or send `null`, field bug B45), an integer `code`, a string `message`, no `result` beside `error`.
 */
export function errorShapeProblems(response: Readonly<Record<string, unknown>>, options: { readonly id: number | undefined; readonly httpRefusal: boolean }): string[] {
  const error = response.error;
  if (typeof error !== 'object' || error === null || Array.isArray(error)) return ['error is not an object'];
  const { code, message } = error as Record<string, unknown>;
  const problems: string[] = [];
  const idAbsent = response.id === undefined || response.id === null;
  if (options.id !== undefined && response.id !== options.id && !(options.httpRefusal && idAbsent)) problems.push(`id is ${JSON.stringify(response.id) ?? 'missing'}, not the request's ${options.id}`);
  if (typeof code !== 'number' || !Number.isInteger(code)) problems.push(`code is ${JSON.stringify(code) ?? 'missing'}, not an integer`);
  if (typeof message !== 'string') problems.push(`message is ${JSON.stringify(message) ?? 'missing'}, not a string`);
  if ('result' in response) problems.push('it has a result beside the error');
  return problems;
}

/** A stack frame as Node, Deno, browsers and Python print them: `at fn (/path/file.js:12:5)`, `File "x.py", line 3`. */
const STACK_FRAME = /\bat\s+(?:[^\s()]+\s+)?\(?(?:file:\/\/)?[^\s()"]*[/\\][^\s()"]*:\d+(?::\d+)?\)?|File "[^"]+", line \d+/;

/** The first stack frame quoted in an error object (message or data), or `undefined`. */
export function stackFrameIn(error: unknown): string | undefined {
  return STACK_FRAME.exec(stringsIn(error, 0).join('\n'))?.[0];
}

/** Every string in a JSON value (nested at most 8 deep). */
function stringsIn(value: unknown, depth: number): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null || depth > 8) return [];
  return Object.values(value).flatMap((v) => stringsIn(v, depth + 1));
}
