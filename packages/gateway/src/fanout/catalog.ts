/**
 * The merged catalog: what every `ready` upstream the gateway forwards (rather than mounts) lists, under its namespace (`<prefix>_<name>` for tools and
 * prompts; resources keep their URIs), after its tool rules (`toolPolicy.ts`). Built once and cached until an
 * upstream's listing changes (it became ready or down, or it announced a list change and was re-read). Names
 * that collide are refused: the upstream added first keeps the name, the other's item is left out with a warning.
 * Bounded: at most `maxTools` tools in all.
 */
import type { Logger } from '@switchboard/jsonrpc';
import type { Prompt, Resource, Tool } from '@switchboard/mcp';
import type { UpstreamPool } from './pool.js';
import type { CompiledToolPolicy } from './toolPolicy.js';

/** Default of the gateway's `maxCatalogTools`. */
export const DEFAULT_MAX_CATALOG_TOOLS = 10_000;

/** How one upstream's items are named and filtered in the catalog. */
export interface NamespaceRule {
  /** Put before each tool and prompt name with `_`; `''` leaves names as they are. */
  readonly prefix: string;
  readonly tools: CompiledToolPolicy;
}

/** A tool of the catalog. */
export interface CatalogTool {
  /** The name the gateway serves it under (namespaced). */
  readonly name: string;
  readonly upstream: string;
  /** The name the upstream knows it by. */
  readonly upstreamName: string;
  /** The listing entry as served (the front name, fixed arguments hidden). */
  readonly tool: Tool;
  readonly fixedArguments: Readonly<Record<string, unknown>> | undefined;
}

/** A prompt of the catalog. */
export interface CatalogPrompt {
  readonly name: string;
  readonly upstream: string;
  readonly upstreamName: string;
  readonly prompt: Prompt;
}

/** A static resource of the catalog (its URI unchanged). */
export interface CatalogResource {
  readonly upstream: string;
  readonly resource: Resource;
}

/** One build of the catalog. */
export interface CatalogSnapshot {
  /** Bumped by every build. */
  readonly version: number;
  readonly tools: ReadonlyMap<string, CatalogTool>;
  readonly prompts: ReadonlyMap<string, CatalogPrompt>;
  readonly resources: ReadonlyMap<string, CatalogResource>;
}

/** The namespaced name. */
export function namespaced(prefix: string, name: string): string {
  return prefix === '' ? name : `${prefix}_${name}`;
}

/** See the module comment. */
/** At most this many unmatched-rule warnings are remembered (and given). */
const MAX_WARNED_RULES = 1000;

export class MergedCatalog {
  readonly #pool: UpstreamPool;
  readonly #rule: (upstream: string) => NamespaceRule;
  readonly #includes: (upstream: string) => boolean;
  readonly #maxTools: number;
  readonly #logger: Logger;
  #snapshot: CatalogSnapshot | undefined;
  /** The unmatched rules already warned of (upstream + rule), so a rebuild does not repeat them. */
  readonly #warnedUnmatched = new Set<string>();
  #version = 0;

  /** @param options.includes which upstreams the catalog holds (the gateway mounts the others) @default every one */
  constructor(options: { readonly pool: UpstreamPool; readonly rule: (upstream: string) => NamespaceRule; readonly includes?: (upstream: string) => boolean; readonly maxTools: number; readonly logger: Logger }) {
    this.#pool = options.pool;
    this.#rule = options.rule;
    this.#includes = options.includes ?? (() => true);
    this.#maxTools = options.maxTools;
    this.#logger = options.logger;
  }

  /** Forgets the cached build: the next {@link snapshot} rebuilds. */
  invalidate(): void {
    this.#snapshot = undefined;
  }

  /** The catalog (built now if an upstream's listing changed since the last build). */
  get snapshot(): CatalogSnapshot {
    this.#snapshot ??= this.#build();
    return this.#snapshot;
  }

  #build(): CatalogSnapshot {
    const tools = new Map<string, CatalogTool>();
    const prompts = new Map<string, CatalogPrompt>();
    const resources = new Map<string, CatalogResource>();
    let dropped = 0;
    for (const upstream of this.#pool.names()) {
      if (!this.#includes(upstream)) continue;
      const listing = this.#pool.listing(upstream);
      if (listing === undefined) continue;
      const rule = this.#rule(upstream);
      for (const unmatched of rule.tools.unmatched(listing.tools)) {
        const key = `${upstream}\u0000${unmatched}`;
        if (this.#warnedUnmatched.has(key) || this.#warnedUnmatched.size >= MAX_WARNED_RULES) continue;
        this.#warnedUnmatched.add(key);
        this.#logger.warn(`Upstream "${upstream}": ${unmatched} names no tool it lists; the rule changes nothing`);
      }
      for (const shown of rule.tools.apply(listing.tools)) {
        const name = namespaced(rule.prefix, shown.name);
        const owner = tools.get(name);
        if (owner !== undefined) {
          this.#logger.warn(`Tool "${name}" of upstream "${upstream}" is left out: upstream "${owner.upstream}" serves that name`);
          continue;
        }
        if (tools.size >= this.#maxTools) {
          dropped++;
          continue;
        }
        tools.set(name, { name, upstream, upstreamName: shown.upstreamName, tool: { ...shown.tool, name }, fixedArguments: shown.fixedArguments });
      }
      for (const prompt of listing.prompts) {
        const name = namespaced(rule.prefix, prompt.name);
        const owner = prompts.get(name);
        if (owner !== undefined) {
          this.#logger.warn(`Prompt "${name}" of upstream "${upstream}" is left out: upstream "${owner.upstream}" serves that name`);
          continue;
        }
        prompts.set(name, { name, upstream, upstreamName: prompt.name, prompt: { ...prompt, name } });
      }
      for (const resource of listing.resources) {
        const owner = resources.get(resource.uri);
        if (owner !== undefined) {
          this.#logger.warn(`Resource "${resource.uri}" of upstream "${upstream}" is left out: upstream "${owner.upstream}" serves that URI`);
          continue;
        }
        resources.set(resource.uri, { upstream, resource });
      }
    }
    if (dropped > 0) this.#logger.warn(`The catalog holds at most ${this.#maxTools} tools (maxCatalogTools): ${dropped} left out`);
    return { version: ++this.#version, tools, prompts, resources };
  }
}
