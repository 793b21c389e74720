/**
 * Reads a whole list (`tools/list`, …) page by page with raw requests, as the server sent it. Raw, not the client's
 * `listAll…`: the modern era's response cache would answer a second read itself, the modern `listTools` drops tools
 * whose `x-mcp-header` annotations are invalid, and an endless cursor must be quoted. The guards are the client's:
 * at most {@link MAX_PAGES} pages, and a cursor answered before that is answered again with the very same page is a
 * loop (MCP 2025-11-25 server/utilities/pagination.mdx; cursors are opaque, so a repeated cursor alone is not one).
 */
import type { McpClient } from '@switchboard/mcp/client';

/** Pages read at most (the client's default `maxPages`). */
export const MAX_PAGES = 100;

/** The list methods and the key of their items. */
export const LIST_METHODS = {
  'tools/list': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'prompts/list': 'prompts',
} as const;

export type ListMethod = keyof typeof LIST_METHODS;

/** How reading a list ended. */
export type ListOutcome =
  | {
      readonly kind: 'complete';
      readonly items: readonly Record<string, unknown>[];
      readonly pages: number;
      /** Wall time of the first page, milliseconds. */
      readonly firstPageMs: number;
    }
  | {
      readonly kind: 'endless';
      readonly items: readonly Record<string, unknown>[];
      readonly pages: number;
      readonly firstPageMs: number;
      /** `cursor-loop`: a cursor got the same page again; `max-pages`: still a `nextCursor` after {@link MAX_PAGES}. */
      readonly stop: 'cursor-loop' | 'max-pages';
      /** The cursor last sent. */
      readonly cursor: string;
      /** The answer to it, as JSON (cut). */
      readonly answer: string;
    }
  | {
      readonly kind: 'malformed';
      readonly pages: number;
      readonly reason: string;
      /** The result, as JSON (cut). */
      readonly answer: string;
    }
  | { readonly kind: 'failed'; readonly pages: number; readonly error: unknown };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON of a value, cut to `limit` characters. */
export function quote(value: unknown, limit = 500): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

/** What {@link readList} is given. */
export interface ReadListOptions {
  readonly client: McpClient;
  readonly method: ListMethod;
  /** Per request, milliseconds. */
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  /** A monotonic clock, milliseconds. */
  readonly now: () => number;
}

/** Reads every page of `method`; never throws (a failure is an outcome). */
export async function readList(options: ReadListOptions): Promise<ListOutcome> {
  const { client, method, timeoutMs, signal, now } = options;
  const key = LIST_METHODS[method];
  const items: Record<string, unknown>[] = [];
  const answered = new Map<string, string>();
  let cursor: string | undefined;
  let firstPageMs = 0;
  for (let pages = 0; ; ) {
    if (pages === MAX_PAGES) return { kind: 'endless', items, pages, firstPageMs, stop: 'max-pages', cursor: cursor ?? '', answer: '' };
    let result: unknown;
    const started = now();
    try {
      result = await client.request(method, cursor === undefined ? {} : { cursor }, { timeoutMs, signal });
    } catch (error) {
      // An answer over the doctor's line limit: the stdio connector's local error, told as such (not the server's).
      const cut = (error as { data?: { truncatedBytes?: unknown } } | null)?.data?.truncatedBytes;
      return { kind: 'failed', pages, error: typeof cut === 'number' ? new Error((error as Error).message) : error };
    }
    if (pages === 0) firstPageMs = now() - started;
    pages++;
    if (!isRecord(result)) return { kind: 'malformed', pages, reason: 'the result is not an object', answer: quote(result) };
    const list = result[key];
    if (!Array.isArray(list)) return { kind: 'malformed', pages, reason: `the result has no "${key}" array`, answer: quote(result) };
    const next = result.nextCursor;
    if (next !== undefined && typeof next !== 'string') return { kind: 'malformed', pages, reason: '"nextCursor" is not a string', answer: quote(result) };
    if (cursor !== undefined) {
      const text = JSON.stringify([list, next ?? null]);
      if (answered.get(cursor) === text) return { kind: 'endless', items, pages, firstPageMs, stop: 'cursor-loop', cursor, answer: quote(result) };
      answered.set(cursor, text);
    }
    const stray = list.findIndex((item) => !isRecord(item));
    if (stray !== -1) return { kind: 'malformed', pages, reason: `item ${stray} of "${key}" is not an object`, answer: quote(list[stray]) };
    items.push(...(list as Record<string, unknown>[]));
    if (next === undefined) return { kind: 'complete', items, pages, firstPageMs };
    cursor = next;
  }
}
