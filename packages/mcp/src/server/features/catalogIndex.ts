/**
 * The searchable index of a server's tools behind tool-search mode: BM25 ranking (MiniSearch's BM25+) over each
 * tool's name (and title), description and argument names, and a regular-expression mode over the same fields.
 *
 * The index follows the registry: {@link CatalogIndex.changed} (the registry's change event for tools) marks it
 * stale, and the next query, or the microtask after a burst of registrations, brings it up to date by adding and
 * discarding only the tools that changed. A query never rebuilds it.
 *
 * Both libraries are loaded on first use (`import()`), so a server that never searches pays nothing at start-up:
 * `minisearch` (BM25+, pure JS) and `re2js` (RE2 in pure JS: linear-time matching whatever the pattern, because a
 * regular expression sent by a client must not be able to stall the process with catastrophic backtracking, as a
 * JavaScript `RegExp` would on `(a+)+$`).
 */
import type MiniSearch from 'minisearch';
import type * as MiniSearchModule from 'minisearch';
import type { RE2JS } from 're2js';
import type * as Re2Module from 're2js';
import type { Registry, ToolEntry } from '../registry.js';

/** The fields of one indexed tool. */
interface ToolDocument {
  readonly id: string;
  /** The name and title. */
  readonly name: string;
  readonly description: string;
  /** The top-level property names of its `inputSchema`. */
  readonly args: string;
}

/** One query. */
export interface CatalogQuery {
  readonly query: string;
  /** Most tools returned. */
  readonly limit: number;
  /** A regular expression (RE2 syntax, case-insensitive) instead of words. */
  readonly regex?: boolean;
  /** Whether a tool may be returned (the caller's visibility); the ranking skips the others. */
  readonly accept: (tool: ToolEntry) => boolean;
}

/** A query that cannot be run: its text says why (a regular expression that does not compile). */
export class CatalogQueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CatalogQueryError';
  }
}

/**
 * Relative weight of each field in the ranking: a word of the name says more about what the tool is than a word of
 * its description; an argument name is between.
 */
const FIELD_BOOST = { name: 3, args: 1.5, description: 1 } as const;

/** English function words: matching them says nothing about a tool, and leaving them out keeps queries short. */
const STOP_WORDS: ReadonlySet<string> = new Set(
  'a an and are as at be by can do does for from how i in into is it its me my of on or that the their this to use used uses using want was what when which with you your'.split(' '),
);

/** Splits identifiers and prose into words: at non-alphanumerics and at camelCase boundaries (`getUserId` → get user id). */
export function tokenize(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t.length > 0);
}

/** A word as the index keeps it: lower case, a plural reduced to its singular (`issues` → issue, `queries` → query), function words dropped. */
export function processTerm(term: string): string | null {
  const word = term.toLowerCase();
  if (STOP_WORDS.has(word)) return null;
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

function documentOf(entry: ToolEntry): ToolDocument {
  const { name, title, description } = entry.descriptor;
  const properties = entry.descriptor.inputSchema.properties;
  const args = typeof properties === 'object' && properties !== null ? Object.keys(properties).join(' ') : '';
  return { id: name, name: title === undefined ? name : `${name} ${title}`, description: description ?? '', args };
}

/** The index of one registry's tools (see the module comment). */
export class CatalogIndex {
  readonly #registry: Registry;
  #search: MiniSearch<ToolDocument> | undefined;
  #loading: Promise<void> | undefined;
  #re2: Promise<typeof Re2Module> | undefined;
  /** What the index holds: the entry indexed under each name. */
  readonly #indexed = new Map<string, ToolEntry>();
  #stale = true;
  #syncQueued = false;

  /** @param registry the tools indexed */
  constructor(registry: Registry) {
    this.#registry = registry;
  }

  /** Loads the BM25 library now rather than at the first query (a server in tool-search mode calls this at construction). */
  preload(): Promise<void> {
    this.#loading ??= import('minisearch').then((module: typeof MiniSearchModule) => {
      this.#search = new module.default<ToolDocument>({
        fields: ['name', 'description', 'args'],
        tokenize,
        processTerm,
        searchOptions: { boost: FIELD_BOOST, combineWith: 'OR', tokenize, processTerm },
      });
      this.#sync();
    });
    return this.#loading;
  }

  /** The registry's tools changed: the index catches up once, after the burst (a microtask), or at the next query. */
  changed(): void {
    this.#stale = true;
    if (this.#search === undefined || this.#syncQueued) return;
    this.#syncQueued = true;
    queueMicrotask(() => {
      this.#syncQueued = false;
      this.#sync();
    });
  }

  /**
   * The tools matching `q`, best first, at most `q.limit`, all accepted by `q.accept`. Words: BM25+ over name and
   * title, description and argument names (any word may match; tools matching none are not returned). Regular
   * expression: every tool with a match in its name or title, an argument name, or its description, in that order
   * of where it matched, then registration order.
   * @throws CatalogQueryError when `q.regex` and the pattern is not a valid RE2 expression
   */
  async query(q: CatalogQuery): Promise<ToolEntry[]> {
    if (q.regex === true) return this.#regex(q, await (this.#re2 ??= import('re2js')));
    if (this.#search === undefined) await this.preload();
    return this.queryLoaded(q);
  }

  /** {@link CatalogIndex.query} by words once the library is loaded (after {@link CatalogIndex.preload}): synchronous. */
  queryLoaded(q: CatalogQuery): ToolEntry[] {
    const search = this.#search;
    if (search === undefined) throw new Error('CatalogIndex.queryLoaded before preload()');
    if (this.#stale) this.#sync();
    const found: ToolEntry[] = [];
    if (q.limit <= 0) return found;
    const tools = this.#registry.tools;
    for (const hit of search.search(q.query)) {
      const entry = tools.get(hit.id as string);
      if (entry === undefined || !q.accept(entry)) continue;
      found.push(entry);
      if (found.length >= q.limit) break;
    }
    return found;
  }

  #regex(q: CatalogQuery, module: typeof Re2Module): ToolEntry[] {
    let pattern: RE2JS;
    try {
      pattern = module.RE2JS.compile(q.query, module.RE2JS.CASE_INSENSITIVE);
    } catch (error) {
      throw new CatalogQueryError(error instanceof Error ? error.message : String(error));
    }
    // Where it matched: 0 name or title, 1 an argument name, 2 the description.
    const tiers: ToolEntry[][] = [[], [], []];
    for (const entry of this.#registry.tools.values()) {
      if (!q.accept(entry)) continue;
      const { name, title, description, inputSchema } = entry.descriptor;
      const properties = inputSchema.properties;
      const argNames = typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
      if (pattern.test(name) || (title !== undefined && pattern.test(title))) {
        tiers[0]!.push(entry);
        if (tiers[0]!.length >= q.limit) break;
      }
      else if (argNames.some((arg) => pattern.test(arg))) tiers[1]!.push(entry);
      else if (description !== undefined && pattern.test(description)) tiers[2]!.push(entry);
    }
    return tiers.flat().slice(0, q.limit);
  }

  /** Adds what was registered or replaced since the last sync, discards what was removed. */
  #sync(): void {
    const search = this.#search;
    if (search === undefined || !this.#stale) return;
    this.#stale = false;
    const tools = this.#registry.tools;
    for (const [name, entry] of this.#indexed) {
      if (tools.get(name) === entry) continue;
      search.discard(name);
      this.#indexed.delete(name);
    }
    for (const [name, entry] of tools) {
      if (this.#indexed.has(name)) continue;
      search.add(documentOf(entry));
      this.#indexed.set(name, entry);
    }
  }
}
