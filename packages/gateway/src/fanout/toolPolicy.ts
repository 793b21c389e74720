/**
 * What of an upstream's tools the gateway shows, and how: an allow list and a deny list (names, `*` matching any
 * run of characters), renames, and fixed arguments. A fixed argument is the gateway's, not the caller's: it is
 * removed from the listed `inputSchema` (its property and its `required` entry), so a host neither sees nor fills
 * it, and it is set on every call, over anything the caller sent under that name. Every rule names the tool as the
 * upstream lists it.
 */
import type { Tool } from '@switchboard/mcp';

/** The tool rules of one upstream (see the module comment). */
export interface ToolPolicy {
  /** Only these tools are shown (names or `*` patterns, as the upstream names them). @default every tool */
  readonly allow?: readonly string[];
  /** These tools are never shown, whatever `allow` says (names or `*` patterns). @default none */
  readonly deny?: readonly string[];
  /** New names, by upstream name (before the namespace prefix is added). @default none */
  readonly rename?: Readonly<Record<string, string>>;
  /**
   * Hidden arguments, by upstream tool name: each is removed from the listed schema and set on every call.
   * @default none
   */
  readonly fixedArguments?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** One upstream tool as the gateway shows it. */
export interface PolicedTool {
  /** The name the upstream knows it by (what a call sends upstream). */
  readonly upstreamName: string;
  /** The name after `rename`, before the namespace prefix. */
  readonly name: string;
  /** The listing entry: the upstream's, with the fixed arguments gone from its `inputSchema`. */
  readonly tool: Tool;
  /** The arguments set on every call, when the policy fixes some. */
  readonly fixedArguments: Readonly<Record<string, unknown>> | undefined;
}

/** A `*` pattern as a regular expression (the rest of the name matched literally). */
function patternRegExp(pattern: string): RegExp {
  const literal = pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${literal.join('.*')}$`, 'su');
}

/** Whether `name` matches one of `patterns`. */
function matchesAny(name: string, patterns: readonly RegExp[]): boolean {
  return patterns.some((pattern) => pattern.test(name));
}

/** The input schema without the fixed arguments' properties and `required` entries. */
function withoutArguments(schema: Tool['inputSchema'], fixed: Readonly<Record<string, unknown>>): Tool['inputSchema'] {
  const hidden = new Set(Object.keys(fixed));
  const out: Record<string, unknown> = { ...schema };
  const properties = schema.properties;
  if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
    out.properties = Object.fromEntries(Object.entries(properties).filter(([key]) => !hidden.has(key)));
  }
  if (Array.isArray(schema.required)) out.required = schema.required.filter((key) => typeof key !== 'string' || !hidden.has(key));
  return out;
}

/**
 * A compiled {@link ToolPolicy}: one visibility decision for listing and calling (a tool it hides is neither
 * listed nor callable through the gateway, since only what it returns is ever registered on the front).
 */
export class CompiledToolPolicy {
  readonly #allow: readonly RegExp[] | undefined;
  readonly #deny: readonly RegExp[];
  readonly #policy: ToolPolicy;

  /** @throws TypeError when a rename is not a non-empty string */
  constructor(policy: ToolPolicy = {}) {
    this.#policy = policy;
    this.#allow = policy.allow?.map(patternRegExp);
    this.#deny = (policy.deny ?? []).map(patternRegExp);
    for (const [from, to] of Object.entries(policy.rename ?? {})) {
      if (typeof to !== 'string' || to.length === 0) throw new TypeError(`Invalid tools.rename["${from}"]: expected a non-empty string, got ${JSON.stringify(to)}`);
    }
  }

  /** Whether the policy hides anything (an allow or a deny list). */
  get filters(): boolean {
    return this.#allow !== undefined || this.#deny.length > 0;
  }

  /** Whether the upstream's tool `upstreamName` is shown. */
  visible(upstreamName: string): boolean {
    if (this.#allow !== undefined && !matchesAny(upstreamName, this.#allow)) return false;
    return !matchesAny(upstreamName, this.#deny);
  }

  /** The shown tools of one upstream listing, renamed and with their fixed arguments hidden, in listing order. */
  apply(tools: readonly Tool[]): PolicedTool[] {
    const shown: PolicedTool[] = [];
    for (const tool of tools) {
      if (!this.visible(tool.name)) continue;
      const fixed = Object.hasOwn(this.#policy.fixedArguments ?? {}, tool.name) ? this.#policy.fixedArguments?.[tool.name] : undefined;
      const name = Object.hasOwn(this.#policy.rename ?? {}, tool.name) ? (this.#policy.rename?.[tool.name] ?? tool.name) : tool.name;
      shown.push({
        upstreamName: tool.name,
        name,
        tool: fixed === undefined ? tool : { ...tool, inputSchema: withoutArguments(tool.inputSchema, fixed) },
        fixedArguments: fixed,
      });
    }
    return shown;
  }

  /**
   * The `rename` and `fixedArguments` entries that name no tool of `tools` (a typo, or a tool the upstream renamed
   * or dropped): they change nothing, which an operator should hear about.
   */
  unmatched(tools: readonly Tool[]): string[] {
    const listed = new Set(tools.map((t) => t.name));
    const rules = [
      ...Object.keys(this.#policy.rename ?? {}).map((name) => ({ name, field: 'rename' })),
      ...Object.keys(this.#policy.fixedArguments ?? {}).map((name) => ({ name, field: 'fixedArguments' })),
    ];
    return rules.filter((r) => !listed.has(r.name)).map((r) => `tools.${r.field}["${r.name}"]`);
  }
}
