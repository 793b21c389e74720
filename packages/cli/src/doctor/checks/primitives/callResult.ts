/**
 * The rules a `tools/call` result is held to (MCP 2025-11-25 server/tools.mdx "Tool Result", "Structured Content",
 * "Output Schema"): an object with a `content` array of valid blocks; for a success of a tool with an
 * `outputSchema`, `structuredContent` valid against it; `structuredContent` echoed in a text block. A result with
 * `isError: true` is the tool's own failure: its `structuredContent` is not held to the schema (field bug B41).
 */
import { compileSchema, dialectOf, loadSchemaCompilers } from './jsonSchema.js';
import { quote } from './pages.js';

/** One rule the result breaks. */
export interface ResultProblem {
  /** The requirement id. */
  readonly id: 'primitives.call-result-invalid' | 'primitives.structured-content-mismatch' | 'primitives.structured-content-no-text';
  readonly message: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isString = (value: unknown): boolean => typeof value === 'string';

/** Why a content block is invalid, or `undefined`. */
export function blockProblem(block: unknown): string | undefined {
  if (!isRecord(block)) return `is ${quote(block, 60)}, not an object`;
  switch (block.type) {
    case 'text':
      return isString(block.text) ? undefined : 'is a "text" block without a string "text"';
    case 'image':
    case 'audio':
      return isString(block.data) && isString(block.mimeType) ? undefined : `is an "${block.type}" block without string "data" and "mimeType"`;
    case 'resource_link':
      return isString(block.uri) && isString(block.name) ? undefined : 'is a "resource_link" block without string "uri" and "name"';
    case 'resource': {
      const resource = block.resource;
      if (!isRecord(resource) || !isString(resource.uri)) return 'is a "resource" block without a "resource" object with a string "uri"';
      return isString(resource.text) || isString(resource.blob) ? undefined : 'is a "resource" block whose resource has neither "text" nor "blob"';
    }
    default:
      return `has the unknown type ${quote(block.type, 60)}`;
  }
}

/** The problems of the result of tool `name` (its listed definition, when known), at `revision`. */
export async function resultProblems(facts: { readonly name: string; readonly result: unknown; readonly tool: Readonly<Record<string, unknown>> | undefined; readonly revision: string }): Promise<ResultProblem[]> {
  await loadSchemaCompilers();
  const { name, result, tool, revision } = facts;
  if (!isRecord(result)) return [{ id: 'primitives.call-result-invalid', message: `The result of tool "${name}" is not an object` }];
  const problems: ResultProblem[] = [];
  const content = result.content;
  if (!Array.isArray(content)) {
    problems.push({ id: 'primitives.call-result-invalid', message: `The result of tool "${name}" has no "content" array` });
  } else {
    const bad = content.map((block, i) => ({ i, why: blockProblem(block) })).filter((b) => b.why !== undefined);
    if (bad.length > 0) problems.push({ id: 'primitives.call-result-invalid', message: `Content block ${bad.map((b) => `${b.i} ${b.why}`).join('; ')} in the result of tool "${name}"` });
  }
  if (result.isError !== undefined && typeof result.isError !== 'boolean') problems.push({ id: 'primitives.call-result-invalid', message: `"isError" of the result of tool "${name}" is ${quote(result.isError, 60)}, not a boolean` });
  const structured = result.structuredContent;
  const hasStructured = 'structuredContent' in result && structured !== undefined;
  if (result.isError !== true) {
    const schema = tool?.outputSchema;
    if (isRecord(schema)) {
      if (!hasStructured) {
        problems.push({ id: 'primitives.structured-content-mismatch', message: `Tool "${name}" declares an outputSchema but its result has no "structuredContent"` });
      } else {
        const { dialect } = dialectOf(schema, revision);
        const verdict = compileSchema(schema, dialect === 'unknown' ? '2020-12' : dialect);
        const why = verdict.ok ? verdict.validate(structured) : undefined;
        if (why !== undefined) problems.push({ id: 'primitives.structured-content-mismatch', message: `The structuredContent of tool "${name}" does not match its outputSchema: ${why.replace(/^value/, 'structuredContent')}` });
      }
    }
  }
  if (hasStructured && Array.isArray(content) && !content.some((block) => isRecord(block) && block.type === 'text')) {
    problems.push({ id: 'primitives.structured-content-no-text', message: `The result of tool "${name}" has "structuredContent" but no text block carrying it` });
  }
  return problems;
}
