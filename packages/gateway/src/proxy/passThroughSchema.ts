/**
 * The schema of a mirrored tool: listed exactly as the upstream listed it, never validated here. The upstream
 * validates the arguments it receives (MCP 2025-11-25 server/tools.mdx "Error Handling": invalid arguments are the
 * server's to report), so a second validation in the proxy would only cost time and could disagree with the
 * upstream's own reading of its schema (its dialect, its formats). It is a Standard Schema (the form
 * `McpServer.tool` takes besides a JSON Schema) whose JSON Schema output is the upstream's object itself and whose
 * `validate` hands the value back untouched.
 *
 * @see https://standardschema.dev (Standard Schema v1 and Standard JSON Schema)
 */
import type { JsonSchema, StandardSchemaV1 } from '@switchboard/mcp/server';

/** A result of `validate`: the value as it came (one frozen shape per call would not save anything: `value` differs). */
interface Passed { readonly value: unknown }

/** A Standard Schema that lists `schema` verbatim and accepts every value unchanged. */
export function passThroughSchema(schema: JsonSchema): StandardSchemaV1 {
  const standard = {
    version: 1 as const,
    vendor: 'switchboard-proxy',
    validate: (value: unknown): Passed => ({ value }),
    jsonSchema: { input: (): JsonSchema => schema, output: (): JsonSchema => schema },
  };
  return { '~standard': standard };
}
