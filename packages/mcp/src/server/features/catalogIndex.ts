/**
 * The searchable index of a server's tools behind tool-search mode: BM25+ ranking (`bm25.ts`) over each tool's name
 * (and title), description and argument names, and a regular-expression mode over the same fields.
 *
 * The index follows the registry: {@link CatalogIndex.changed} (the registry's change event for tools) marks it
 * stale, and the microtask after a burst of registrations (or the next query, if it comes first) rebuilds it, in
 * time linear in the catalog's words. A query never rebuilds it.
 *
 * Regular expressions run on `re2js` (RE2 in pure JS: linear-time matching whatever the pattern, because a regular
 * expression sent by a client must not be able to stall the process with catastrophic backtracking, as a
 * JavaScript `RegExp` would on `(a+)+$`). It is loaded on the first regex query (`import()`), so a server that
 * never gets one pays nothing for it at start-up. It is an optional peer dependency of `@switchboard/mcp` (the
 * library stays under its install-size budget; `@switchboard/gateway` depends on it): without it, a regex query
 * is answered with a {@link CatalogQueryError} that names the package, and word queries work as ever.
 */
import type { RE2JS } from 're2js';
import type * as Re2Module from 're2js';
import type { Registry, ToolEntry } from '../registry.js';
import { Bm25Index } from './bm25.js';

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

/** The answer to a regex query when the optional `re2js` package is not installed. */
const RE2_MISSING = 'regular-expression search is not available on this server: install the optional package re2js';

/** A query that cannot be run: its text says why (a regular expression that does not compile). */
export class CatalogQueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CatalogQueryError';
  }
}

/**
 * Relative weight of each field in the ranking, in the order of {@link fieldsOf}: a word of the name says more about
 * what the tool is than a word of its description; an argument name is between.
 */
const FIELD_BOOSTS = [3, 1, 1.5] as const;

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

/** The argument names of a tool: the top-level properties of its `inputSchema`. */
function argumentNames(entry: ToolEntry): string[] {
  const properties = entry.descriptor.inputSchema.properties;
  return typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
}

/** The texts indexed for a tool: name and title, description, argument names. */
function fieldsOf(entry: ToolEntry): [string, string, string] {
  const { name, title, description } = entry.descriptor;
  return [title === undefined ? name : `${name} ${title}`, description ?? '', argumentNames(entry).join(' ')];
}

/** The index of one registry's tools (see the module comment). */
export class CatalogIndex {
  readonly #registry: Registry;
  readonly #bm25 = new Bm25Index({ tokenize, processTerm, boosts: FIELD_BOOSTS });
  /** The tools by document number, as last indexed. */
  #entries: ToolEntry[] = [];
  /** Each tool's name, title, argument names and description joined by line feeds (the regex prefilter's text). */
  #haystacks: string[] = [];
  #re2: Promise<typeof Re2Module> | undefined;
  #stale = true;
  #rebuildQueued = false;

  /** @param registry the tools indexed */
  constructor(registry: Registry) {
    this.#registry = registry;
  }

  /** The registry's tools changed: the index is rebuilt once, after the burst (a microtask), or at the next query. */
  changed(): void {
    this.#stale = true;
    if (this.#rebuildQueued) return;
    this.#rebuildQueued = true;
    queueMicrotask(() => {
      this.#rebuildQueued = false;
      this.#rebuild();
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
    if (q.regex === true) return this.#regex(q, await (this.#re2 ??= import('re2js').catch(() => Promise.reject(new CatalogQueryError(RE2_MISSING)))));
    return this.rank(q);
  }

  /** {@link CatalogIndex.query} by words: synchronous. */
  rank(q: CatalogQuery): ToolEntry[] {
    this.#rebuild();
    const entries = this.#entries;
    return this.#bm25.search(q.query, { limit: q.limit, accept: (doc) => q.accept(entries[doc]!) }).map((doc) => entries[doc]!);
  }

  #regex(q: CatalogQuery, module: typeof Re2Module): ToolEntry[] {
    const { RE2JS: Re2 } = module;
    let pattern: RE2JS;
    let prefilter: RE2JS | undefined;
    try {
      pattern = Re2.compile(q.query, Re2.CASE_INSENSITIVE);
      // One test of a tool's fields joined by line feeds first: multiline, it matches wherever a field alone would
      // (`^`, `$` at each field's ends), so a miss rules the tool out in one call instead of one per field. Not for
      // patterns whose anchors or flags could tell the joined text from a field (`\A`, `\z`, inline flags).
      prefilter = /\\[Az]|\(\?/.test(q.query) ? undefined : Re2.compile(q.query, Re2.CASE_INSENSITIVE | Re2.MULTILINE);
    } catch (error) {
      throw new CatalogQueryError(error instanceof Error ? error.message : String(error));
    }
    this.#rebuild();
    const entries = this.#entries;
    const haystacks = this.#haystacks;
    // Where it matched: 0 name or title, 1 an argument name, 2 the description.
    const tiers: ToolEntry[][] = [[], [], []];
    for (let i = 0; i < entries.length; i++) {
      if (prefilter !== undefined && !prefilter.test(haystacks[i]!)) continue;
      const entry = entries[i]!;
      if (!q.accept(entry)) continue;
      const { name, title, description } = entry.descriptor;
      if (pattern.test(name) || (title !== undefined && pattern.test(title))) {
        tiers[0]!.push(entry);
        if (tiers[0]!.length >= q.limit) break;
      } else if (argumentNames(entry).some((arg) => pattern.test(arg))) tiers[1]!.push(entry);
      else if (description !== undefined && pattern.test(description)) tiers[2]!.push(entry);
    }
    return tiers.flat().slice(0, q.limit);
  }

  /** Indexes the registry's tools as they are now, if they changed since the last time. */
  #rebuild(): void {
    if (!this.#stale) return;
    this.#stale = false;
    this.#entries = [...this.#registry.tools.values()];
    this.#bm25.build(this.#entries.map(fieldsOf));
    this.#haystacks = this.#entries.map((entry) => {
      const { name, title, description } = entry.descriptor;
      return [name, title ?? '', ...argumentNames(entry), description ?? ''].join('\n');
    });
  }
}
