/**
 * The rules a `tools/call` result is held to on the client. An `isError: true` result is the tool reporting its
 * failure: it is returned as is, and its `structuredContent` is NOT checked against the tool's `outputSchema` (field
 * bug B41; MCP 2025-11-25 server/tools.mdx "Output Schema" applies to successful results). Otherwise, when the
 * tool's `outputSchema` is known from a listing, `structuredContent` must be present and valid (MCP 2025-11-25
 * server/tools.mdx: "Clients SHOULD validate structured results against this schema").
 *
 * Schemas are compiled once per listing with `@cfworker/json-schema`, which never dereferences a network `$ref`
 * (MCP 2026-07-28 basic/index.mdx "JSON Schema Usage").
 */
import { Validator, type OutputUnit } from '@cfworker/json-schema';
import type { Logger } from '@switchboard/jsonrpc';
import { schemaDraftOf } from '../protocol/schemaDialect.js';
import type { CallToolResult, Tool } from '../protocol/types.js';
import { InvalidResultError } from './errors.js';

type Check = (value: unknown) => string | undefined;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(errors: readonly OutputUnit[]): string {
  const pick = errors[errors.length - 1];
  return pick === undefined ? 'invalid' : `${pick.instanceLocation.replace(/^#/, 'structuredContent')}: ${pick.error}`;
}

/** The output schemas of the tools last listed, compiled lazily (a tool never called costs nothing). */
export class OutputSchemas {
  readonly #schemas = new Map<string, Record<string, unknown>>();
  readonly #checks = new Map<string, Check | null>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Records the output schemas of a listed page (a tool listed again replaces its schema). */
  remember(tools: readonly Tool[]): void {
    for (const tool of tools) {
      this.#checks.delete(tool.name);
      if (isRecord(tool.outputSchema)) this.#schemas.set(tool.name, tool.outputSchema);
      else this.#schemas.delete(tool.name);
    }
  }

  /** Forgets every schema (the tool list changed). */
  clear(): void {
    this.#schemas.clear();
    this.#checks.clear();
  }

  /**
   * Checks a result of tool `name`; returns it unchanged.
   * @throws InvalidResultError when the result is not an object with a `content` array, or, for a result without
   *   `isError: true` of a tool with a known `outputSchema`, when `structuredContent` is missing or invalid
   */
  check(name: string, result: unknown): CallToolResult {
    if (!isRecord(result) || !Array.isArray(result.content)) {
      // A task result (`resultType: "task"`) is refused before this; `content` is required (MCP 2025-11-25 schema.ts).
      throw new InvalidResultError({ method: 'tools/call', reason: `the result of tool "${name}" has no "content" array`, result });
    }
    if (result.isError === true) return result as unknown as CallToolResult;
    const check = this.#check(name);
    if (check === undefined) return result as unknown as CallToolResult;
    if (!('structuredContent' in result) || result.structuredContent === undefined) {
      throw new InvalidResultError({ method: 'tools/call', reason: `tool "${name}" declares an "outputSchema" but its result has no "structuredContent"`, result });
    }
    const problem = check(result.structuredContent);
    if (problem !== undefined) throw new InvalidResultError({ method: 'tools/call', reason: `the "structuredContent" of tool "${name}" does not match its "outputSchema": ${problem}`, result });
    return result as unknown as CallToolResult;
  }

  #check(name: string): Check | undefined {
    const known = this.#checks.get(name);
    if (known !== undefined) return known ?? undefined;
    const schema = this.#schemas.get(name);
    if (schema === undefined) return undefined;
    let check: Check | null = null;
    try {
      const validator = new Validator(schema, schemaDraftOf(schema), true);
      check = (value) => {
        let outcome: ReturnType<Validator['validate']>;
        try {
          outcome = validator.validate(value);
        } catch (error) {
          // A `$ref` outside the schema (a network one is never fetched): the schema cannot be applied.
          this.#logger.warn('Tool output schema cannot be applied: results not checked', { tool: name, error });
          this.#checks.set(name, null);
          return undefined;
        }
        return outcome.valid ? undefined : describe(outcome.errors);
      };
    } catch (error) {
      // A schema the validator cannot compile is the server's mistake; its results are returned unchecked.
      this.#logger.warn('Tool output schema cannot be compiled: results not checked', { tool: name, error });
    }
    this.#checks.set(name, check);
    return check ?? undefined;
  }
}
