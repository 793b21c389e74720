/**
 * Tool definitions that the spec allows but that widely used hosts (or the model APIs behind them) are known to
 * refuse. Each rule names the hosts and the public reports it comes from; a rule is only here when such a report
 * shows the refusal (an error message quoted from the host or API). The doctor reports a match as a warning: the
 * server is right by the spec, yet its tools fail there — often the whole list, not just the one tool.
 */

/** One known host refusal. */
export interface HostSchemaRule {
  /** Stable id, kebab-case. */
  readonly id: string;
  /** The hosts or model APIs that refuse it. */
  readonly hosts: readonly string[];
  /** What the host refuses, one sentence (used in the finding's message). */
  readonly refusal: string;
  /** Where the refusal is shown: a public issue or the host's documentation (URL). */
  readonly source: string;
  /** More reports of the same refusal (URLs). */
  readonly seeAlso?: readonly string[];
  /**
   * Where the tool breaks the rule: JSON pointers into the tool definition (e.g. `/inputSchema/properties/tags`), empty
   * when it does not.
   */
  test(tool: Readonly<Record<string, unknown>>): readonly string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pointerPart(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Keywords whose value is one subschema. */
const SUBSCHEMA = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties', 'additionalItems'];
/** Keywords whose value is an array of subschemas. */
const SUBSCHEMA_ARRAYS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
/** Keywords whose value maps names to subschemas. */
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

type Visit = (node: Record<string, unknown>, pointer: string) => void;

/** Calls `visit` on every subschema of `schema` (itself included), with its JSON pointer; depth bounded to 64. */
function walkSchema(schema: unknown, at: { readonly pointer: string; readonly depth: number }, visit: Visit): void {
  const { pointer, depth } = at;
  if (!isRecord(schema) || depth > 64) return;
  visit(schema, pointer);
  const walk = (child: unknown, path: string): void => walkSchema(child, { pointer: `${pointer}/${path}`, depth: depth + 1 }, visit);
  for (const key of SUBSCHEMA) {
    const child = schema[key];
    // `items` may be an array in draft-07 (tuple form).
    if (Array.isArray(child)) child.forEach((item, i) => walk(item, `${key}/${i}`));
    else walk(child, key);
  }
  for (const key of SUBSCHEMA_ARRAYS) {
    const list = schema[key];
    if (Array.isArray(list)) list.forEach((item, i) => walk(item, `${key}/${i}`));
  }
  for (const key of SUBSCHEMA_MAPS) {
    const map = schema[key];
    if (isRecord(map)) for (const [name, child] of Object.entries(map)) walk(child, `${key}/${pointerPart(name)}`);
  }
}

function declaresArray(node: Record<string, unknown>): boolean {
  const type = node.type;
  return type === 'array' || (Array.isArray(type) && type.includes('array'));
}

/** The host rules, most often hit first. */
export const HOST_SCHEMA_RULES: readonly HostSchemaRule[] = [
  {
    id: 'root-combinator',
    hosts: ['Claude (Anthropic Messages API: Claude Code, Claude Desktop)'],
    refusal: 'an inputSchema with "oneOf", "allOf" or "anyOf" at its root is refused, and the request that carries the tool list fails',
    source: 'https://github.com/anthropics/claude-code/issues/5319',
    seeAlso: ['https://github.com/mobile-next/mobile-mcp/issues/344', 'https://github.com/zereight/gitlab-mcp/pull/551'],
    test(tool) {
      const schema = tool.inputSchema;
      if (!isRecord(schema)) return [];
      return ['oneOf', 'allOf', 'anyOf'].filter((key) => key in schema).map((key) => `/inputSchema/${key}`);
    },
  },
  {
    id: 'array-without-items',
    hosts: ['OpenAI function calling (Codex, GPT models)', 'VS Code (GitHub Copilot Chat)'],
    refusal: 'a property of "type": "array" without "items" is refused ("array schema missing items", "tool parameters array type must have items")',
    source: 'https://github.com/mark3labs/mcphost/issues/35',
    seeAlso: ['https://github.com/agentscope-ai/ReMe/issues/84', 'https://github.com/ruvnet/ruflo/issues/1294'],
    test(tool) {
      const found: string[] = [];
      walkSchema(tool.inputSchema, { pointer: '/inputSchema', depth: 0 }, (node, pointer) => {
        if (declaresArray(node) && !('items' in node) && !('prefixItems' in node)) found.push(pointer);
      });
      return found;
    },
  },
  {
    id: 'name-pattern',
    hosts: ['Claude Desktop and claude.ai', 'OpenAI function calling (Codex)'],
    refusal: 'a tool name outside ^[a-zA-Z0-9_-]{1,64}$ (a dot, or more than 64 characters, both allowed by the spec) is refused and the server\'s tools are not loaded',
    source: 'https://github.com/barryw/ImmichMCP/issues/4',
    seeAlso: ['https://github.com/openai/codex/issues/8174', 'https://github.com/jamiepine/voicebox/issues/590'],
    test(tool) {
      const name = tool.name;
      return typeof name === 'string' && !/^[a-zA-Z0-9_-]{1,64}$/.test(name) ? ['/name'] : [];
    },
  },
];
