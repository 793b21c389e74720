/**
 * Reading request params: the -32602 refusals every MCP method shares (MCP 2025-11-25 schema.ts).
 */
import { ErrorCode, JsonRpcError, type JsonRpcParams } from '@switchboard/jsonrpc';
import { echo } from '@switchboard/jsonrpc';

/** The frozen `{}` answered by methods with an empty result, and used for absent params. */
export const EMPTY_RESULT: Readonly<Record<string, never>> = Object.freeze({});

/** -32602 `Invalid params: <detail>`. */
export function invalidParams(detail: string, data?: unknown): JsonRpcError {
  return new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${detail}`, data);
}

/** Whether `value` is a non-array object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The params as an object (absent params are `{}`); positional params are -32602. */
export function paramsRecord(params: JsonRpcParams | undefined): Record<string, unknown> {
  if (params === undefined) return EMPTY_RESULT;
  if (!isRecord(params)) throw invalidParams('params must be an object');
  return params;
}

/** `params[key]` when it is a string; otherwise -32602. */
export function requireString(params: Record<string, unknown>, key: string): string {
  const value = params[key];
  if (typeof value !== 'string') throw invalidParams(`"${echo(key)}" must be a string`);
  return value;
}

/**
 * The `name` and `arguments` of a `tools/call` or `prompts/get`: an unknown name is -32602 (MCP 2025-11-25
 * server/tools.mdx and server/prompts.mdx "Error Handling"); `arguments` is optional, but when present it is an
 * object, `null` included as not one (B09; MCP 2025-11-25 schema.ts CallToolRequestParams, GetPromptRequestParams).
 * An entry hidden from the caller is not in `registry` (`visibility.ts`), so it is refused exactly as unknown.
 */
export function namedCall<E>(p: Record<string, unknown>, registry: { get(key: string): E | undefined }, what: 'tool' | 'prompt'): { name: string; entry: E; args: Record<string, unknown> } {
  const name = requireString(p, 'name');
  const entry = registry.get(name);
  if (entry === undefined) throw invalidParams(`unknown ${what} "${echo(name)}"`, { name: echo(name) });
  const args = p.arguments === undefined ? EMPTY_RESULT : p.arguments;
  if (!isRecord(args)) throw invalidParams('"arguments" must be an object');
  return { name, entry, args };
}

/** Drops keys whose value is undefined, so descriptors serialize without them. */
export function compact<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) if (value[key] === undefined) delete value[key];
  return value;
}

