/**
 * Which JSON Schema dialect a tool's schema is written in, for the validator both sides use (`@cfworker/json-schema`):
 * the one its `$schema` names when the validator knows it, else 2020-12, the default dialect.
 *
 * @see MCP 2025-11-25 basic/index.mdx "JSON Schema Usage" (2020-12 when no `$schema` is given, SEP-1613)
 */

/**
 * The dialects the validator knows (its `SchemaDraft`, written out: `@switchboard/mcp` builds the validator into its
 * own files and ships no declarations of it).
 */
export type SchemaDraft = '4' | '7' | '2019-09' | '2020-12';

/** `$schema` URIs of the dialects the validator knows (a trailing `#` is ignored). */
const DRAFTS: ReadonlyMap<string, SchemaDraft> = new Map<string, SchemaDraft>([
  ['https://json-schema.org/draft/2020-12/schema', '2020-12'],
  ['https://json-schema.org/draft/2019-09/schema', '2019-09'],
  ['http://json-schema.org/draft-07/schema', '7'],
  ['http://json-schema.org/draft-04/schema', '4'],
]);

/** The dialect `schema` declares with `$schema`; 2020-12 when it declares none, or one the validator does not know. */
export function schemaDraftOf(schema: { readonly $schema?: unknown }): SchemaDraft {
  const declared = typeof schema.$schema === 'string' ? schema.$schema.replace(/#$/, '') : undefined;
  return (declared !== undefined ? DRAFTS.get(declared) : undefined) ?? '2020-12';
}
