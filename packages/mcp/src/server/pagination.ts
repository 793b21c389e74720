/**
 * List pagination: opaque cursors naming the list and the offset of the next page.
 *
 * @see MCP 2025-11-25 server/utilities/pagination.mdx
 */
import type { JsonRpcParams } from '@switchboard/jsonrpc';
import { echo } from '@switchboard/jsonrpc';
import { invalidParams, paramsRecord } from './params.js';

/** The four paginated lists, by their result member. */
export type ListKind = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

/** The cursor of the page of `kind` that starts at `offset`. */
export function encodeCursor(kind: ListKind, offset: number): string {
  return btoa(`${kind}:${offset}`);
}

/**
 * The offset a cursor names; -32602 (B44) when it is not a string, not one this server issued for `kind`, or
 * points outside `1 … length`.
 */
export function decodeCursor(kind: ListKind, cursor: unknown, length: number): number {
  if (typeof cursor !== 'string') throw invalidParams('"cursor" must be a string');
  let decoded: string;
  try {
    decoded = atob(cursor);
  } catch {
    throw invalidParams('invalid cursor', { cursor: echo(cursor) });
  }
  const sep = decoded.indexOf(':');
  const offset = Number(decoded.slice(sep + 1));
  if (sep < 0 || decoded.slice(0, sep) !== kind || !Number.isSafeInteger(offset) || offset <= 0 || offset > length) {
    throw invalidParams('invalid cursor', { cursor: echo(cursor) });
  }
  return offset;
}

/**
 * One page of the list `kind` (its `items`, `pageSize` per page) for the request `params` (`cursor` optional):
 * the whole list object when it fits one page, else a slice with `nextCursor` while more remain. Never page one
 * for a bad cursor.
 */
export function page(list: { readonly kind: ListKind; readonly items: readonly unknown[]; readonly pageSize: number }, params: JsonRpcParams | undefined): Record<string, unknown> {
  const { kind, items, pageSize } = list;
  const cursor = params === undefined ? undefined : paramsRecord(params).cursor;
  const offset = cursor === undefined ? 0 : decodeCursor(kind, cursor, items.length);
  const end = offset + pageSize;
  if (offset === 0 && end >= items.length) return { [kind]: items };
  const result: Record<string, unknown> = { [kind]: items.slice(offset, end) };
  if (end < items.length) result.nextCursor = encodeCursor(kind, end);
  return result;
}
