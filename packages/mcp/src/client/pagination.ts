/**
 * The list helpers' loop: follow `nextCursor` until it is absent. Cursors are opaque: `""` is a cursor like any
 * other (MCP 2026-07-28 server/utilities/pagination.mdx; field bug B44), and a cursor seen before is followed again,
 * since a server may reuse one. Three guards stop a runaway server with an explicit error carrying the items read:
 * the page budget (`maxPages`), the byte budget (`maxBytes`: a server whose pages are each just under the answer
 * bound and whose cursor never ends would otherwise have the helper gather `maxPages` × 16 MiB), and a loop — a
 * cursor the server answered before answered again with the very same page.
 */
import { checkCount } from '@switchboard/jsonrpc/internal';
import { PaginationLimitError } from './errors.js';

/** One page as the helper sees it. */
export interface Page<T> {
  readonly items: readonly T[];
  /** The cursor of the next page; `undefined` on the last page. */
  readonly nextCursor: string | undefined;
}

/** What {@link collectPages} is given. */
export interface CollectPagesOptions<T> {
  /** The list method, for the error. */
  readonly method: string;
  /** Pages read at most. A positive integer. */
  readonly maxPages: number;
  /**
   * Size of the items gathered at most, counted as the length of their JSON text (UTF-16 code units: bytes for
   * ASCII). A positive number.
   */
  readonly maxBytes: number;
  /** Reads the page at `cursor` (`undefined`: the first page). */
  readonly page: (cursor: string | undefined) => Promise<Page<T>>;
}

/**
 * Every item of every page, in order.
 * @throws PaginationLimitError (`max_pages`, `max_bytes` or `cursor_loop`, with the items so far: for `max_bytes`
 *   every page read, the one that crossed the budget included); what `page` throws
 * @throws RangeError when `maxPages` is not a positive integer or `maxBytes` not a positive number (TypeError when
 *   `maxPages` is no number)
 */
export async function collectPages<T>(options: CollectPagesOptions<T>): Promise<T[]> {
  const { method, maxPages, maxBytes } = options;
  checkCount('option maxPages', maxPages);
  if (typeof maxBytes !== 'number' || Number.isNaN(maxBytes) || maxBytes <= 0) throw new RangeError(`Invalid maxBytes: expected a positive number, got ${String(maxBytes)}`);
  const items: T[] = [];
  /**
   * For each cursor followed, a fingerprint of the page it was answered with (its JSON's length and two 32-bit
   * hashes), to recognize a loop: keeping the JSON itself held a second copy of every page gathered.
   */
  const answered = new Map<string, string>();
  let cursor: string | undefined = undefined;
  let bytes = 0;
  for (let pages = 0; ; ) {
    if (pages === maxPages) throw new PaginationLimitError({ method, stop: 'max_pages', pages, items, bytes });
    const page = await options.page(cursor);
    pages++;
    const text = JSON.stringify([page.items, page.nextCursor ?? null]);
    if (cursor !== undefined) {
      const print = fingerprint(text);
      if (answered.get(cursor) === print) throw new PaginationLimitError({ method, stop: 'cursor_loop', pages, items, bytes });
      answered.set(cursor, print);
    }
    bytes += text.length;
    items.push(...page.items);
    if (bytes > maxBytes) throw new PaginationLimitError({ method, stop: 'max_bytes', pages, items, bytes, maxBytes });
    if (page.nextCursor === undefined) return items;
    cursor = page.nextCursor;
  }
}

/** The length of `text` and two 32-bit FNV-1a hashes of it (different offsets), as one string. */
function fingerprint(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x0100019d);
  }
  return `${text.length}:${(a >>> 0).toString(36)}:${(b >>> 0).toString(36)}`;
}
