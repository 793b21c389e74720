/**
 * Who may see what: one visibility function ({@link McpServerOptions.visibility}) decides, per caller, which tools,
 * prompts, resources and resource templates exist. The lists leave out what it hides, and a call, read, `get` or
 * completion naming a hidden item is answered exactly as one naming an unknown item (the same code, message and
 * data), so a caller can never learn that a hidden item exists. A catalog search over the tools calls
 * {@link visibleTool} / {@link visibleEntries} here, so list, search and call apply the same rule.
 *
 * A tool that needs OAuth scopes (`ToolDefinition.scopes`) is hidden the same way from an authenticated caller that
 * lacks one of them (`protocol/auth/authInfo.ts` `scopesGranted`; MCP 2026-07-28 server/tools.mdx "Capabilities":
 * the lists "MAY vary by the authorization presented on the request"). Over HTTP such a call never gets here: the
 * handler answers it 403 `insufficient_scope` first (`transports/http/server/auth/`), asking {@link toolScopesFor}.
 *
 * Cost: with no visibility function (and no mounted server that has one, and no tool that needs scopes) the lists are the registry's frozen
 * arrays, as before. With one, every list request calls it once per item (O(items) per page request, one small
 * object per item checked) and its results are the caller's own: modern-era list results are then
 * `cacheScope: "private"` (MCP 2026-07-28 server/utilities/caching.mdx: "private" caches "MUST NOT be shared
 * across authorization contexts"; the same scope on every page of one list).
 *
 * @see MCP 2026-07-28 server/tools.mdx, server/prompts.mdx, server/resources.mdx "Error Handling" (unknown names
 *   are -32602; an unknown resource is resource-not-found)
 */
import type { ServerRequestContext } from './context.js';
import type { JsonRpcParams } from '@switchboard/jsonrpc';
import { page, type ListKind } from './pagination.js';
import type { Registry, RegistryEntries } from './registry.js';
import type { Visibility, VisibilityCaller, VisibilityItem } from './options.js';
import { scopesGranted } from '../protocol/auth/authInfo.js';

/**
 * The `visibility` option, checked.
 * @throws TypeError when it is neither a function nor `undefined`
 */
export function visibilityOption(value: unknown): Visibility | undefined {
  if (value === undefined || typeof value === 'function') return value as Visibility | undefined;
  throw new TypeError(`Invalid option visibility: expected a function (item, caller) => boolean, got ${value === null ? 'null' : typeof value}`);
}

/** What the checks need from a server: its registry and its visibility function. */
export interface VisibilityHost {
  readonly registry: Registry;
  readonly visibility: Visibility | undefined;
}

const ITEM_KIND = { tools: 'tool', prompts: 'prompt', resources: 'resource', resourceTemplates: 'resourceTemplate' } as const;

/**
 * The caller of a request, from its handler context (`ctx`, a {@link ServerRequestContext}).
 * @param ctx the dispatcher's handler context
 */
export function callerOf(ctx: unknown): VisibilityCaller {
  const c = ctx as ServerRequestContext;
  return { authInfo: c.authInfo, clientInfo: c.clientInfo, era: c.facts.era ?? 'legacy', protocolVersion: c.facts.protocolVersion, sessionId: c.session?.id };
}

/**
 * Whether the lists depend on the caller (a visibility function here, or on an item of a mounted server, or a tool
 * that needs scopes).
 */
export function listsPerCaller(host: VisibilityHost): boolean {
  return host.visibility !== undefined || host.registry.gated > 0 || host.registry.scoped > 0;
}

/** The item `entry` of list `kind` as a visibility function is asked about it. */
export function itemOf<K extends ListKind>(kind: K, entry: RegistryEntries[K]): VisibilityItem {
  const descriptor = entry.descriptor;
  const name = 'uriTemplate' in descriptor ? descriptor.uriTemplate : 'uri' in descriptor ? descriptor.uri : descriptor.name;
  return { kind: ITEM_KIND[kind], name, descriptor } as VisibilityItem;
}

/**
 * Whether `entry` of list `kind` is visible to `caller`: the scopes a tool needs, its mounted server's rule, then
 * this server's.
 */
export function isVisible<K extends ListKind>(host: VisibilityHost, target: { readonly kind: K; readonly entry: RegistryEntries[K] }, caller: VisibilityCaller): boolean {
  if (target.kind === 'tools' && !scopesGranted(caller.authInfo, (target.entry as RegistryEntries['tools']).scopes)) return false;
  return ruleAllows(host, target, caller);
}

/** Whether the visibility rules (a mounted server's, then this server's) show `entry` to `caller`, scopes aside. */
function ruleAllows<K extends ListKind>(host: VisibilityHost, target: { readonly kind: K; readonly entry: RegistryEntries[K] }, caller: VisibilityCaller): boolean {
  const { kind, entry } = target;
  if (entry.gate !== undefined && !entry.gate(caller)) return false;
  const visibility = host.visibility;
  return visibility === undefined || visibility(itemOf(kind, entry), caller) === true;
}

/**
 * `items` (the descriptors of list `kind`, one per entry in registration order, as the registry builds them)
 * less those hidden from the caller of `ctx`; the same array when nothing is hidden from anyone.
 */
export function visibleItems(host: VisibilityHost, list: { readonly kind: ListKind; readonly items: readonly unknown[] }, ctx: unknown): readonly unknown[] {
  if (!listsPerCaller(host)) return list.items;
  const { kind, items } = list;
  const caller = callerOf(ctx);
  // Only tools' scopes make the lists differ (no visibility function, no mounted server's rule): a list depends on
  // the caller's scopes alone, so it is kept per scope set (see scopedLists).
  if (host.visibility === undefined && host.registry.gated === 0) {
    if (kind !== 'tools' || typeof caller.authInfo !== 'object' || caller.authInfo === null) return items;
    return scopedList(host, items, caller);
  }
  const out: unknown[] = [];
  let i = 0;
  for (const entry of host.registry.mapOf(kind).values()) {
    if (isVisible(host, { kind, entry }, caller)) out.push(items[i]);
    i++;
  }
  return out;
}

/**
 * The tools lists already filtered, per registry list (a new array after every change, so a change drops them) and
 * per scope set of the caller (its granted scopes, sorted): a caller's next `tools/list` costs a lookup, not a walk
 * of every tool. At most {@link MAX_SCOPE_SETS} scope sets per list (then they are all dropped).
 */
const scopedLists = new WeakMap<readonly unknown[], Map<string, readonly unknown[]>>();
const MAX_SCOPE_SETS = 256;

function scopedList(host: VisibilityHost, items: readonly unknown[], caller: VisibilityCaller): readonly unknown[] {
  const granted = (caller.authInfo as { scopes?: unknown }).scopes;
  const key = Array.isArray(granted) ? JSON.stringify([...new Set(granted.filter((g): g is string => typeof g === 'string'))].sort()) : '';
  let perSet = scopedLists.get(items);
  const kept = perSet?.get(key);
  if (kept !== undefined) return kept;
  const out: unknown[] = [];
  let i = 0;
  for (const entry of host.registry.tools.values()) {
    if (scopesGranted(caller.authInfo, entry.scopes)) out.push(items[i]);
    i++;
  }
  if (perSet === undefined) {
    perSet = new Map<string, readonly unknown[]>();
    scopedLists.set(items, perSet);
  }
  if (perSet.size >= MAX_SCOPE_SETS) perSet.clear();
  const frozen = Object.freeze(out);
  perSet.set(key, frozen);
  return frozen;
}

/**
 * One page of list `kind` for the caller of `ctx` (`items`: the registry's descriptors of that list). When lists
 * depend on the caller, a modern-era page is `cacheScope: "private"` on every page (MCP 2026-07-28
 * server/utilities/caching.mdx: "private" results "MUST NOT be shared across authorization contexts", and "the
 * same cacheScope MUST be used on all pages of one list"); the modern-era rules keep a scope the result carries.
 */
export function listPage(
  host: VisibilityHost & { readonly pageSize: number },
  list: { readonly kind: ListKind; readonly items: readonly unknown[]; readonly params: JsonRpcParams | undefined; readonly ctx: unknown },
): Record<string, unknown> {
  const { kind, params, ctx } = list;
  if (!listsPerCaller(host)) return page({ kind, items: list.items, pageSize: host.pageSize }, params);
  const result = page({ kind, items: visibleItems(host, list, ctx), pageSize: host.pageSize }, params);
  if ((ctx as ServerRequestContext).facts.era === 'modern') result.cacheScope = 'private';
  return result;
}

/** The entries of list `kind` visible to the caller of `ctx`, in registration order (for a catalog search). */
export function visibleEntries<K extends ListKind>(host: VisibilityHost, kind: K, ctx: unknown): RegistryEntries[K][] {
  const entries = [...host.registry.mapOf(kind).values()];
  if (!listsPerCaller(host)) return entries;
  const caller = callerOf(ctx);
  return entries.filter((entry) => isVisible(host, { kind, entry }, caller));
}

/** The tool `name` when it exists and the caller of `ctx` may see it; `undefined` otherwise (hidden = unknown). */
export function visibleTool(host: VisibilityHost, name: string, ctx: unknown): RegistryEntries['tools'] | undefined {
  return listsPerCaller(host) ? visibleToCaller(host, name, callerOf(ctx)) : host.registry.tools.get(name);
}

/** The tool `name` when it exists and `caller` may see it; `undefined` otherwise. */
export function visibleToCaller(host: VisibilityHost, name: string, caller: VisibilityCaller): RegistryEntries['tools'] | undefined {
  const entry = host.registry.tools.get(name);
  if (entry === undefined || !listsPerCaller(host)) return entry;
  return isVisible(host, { kind: 'tools', entry }, caller) ? entry : undefined;
}

/**
 * The scopes tool `name` needs, for a transport that refuses a call before dispatch (HTTP 403
 * `insufficient_scope`): `undefined` for an unknown tool, one that needs none, or one the visibility rules hide
 * from `caller` for another reason (so the refusal cannot reveal that a hidden tool exists).
 */
export function toolScopesFor(host: VisibilityHost, name: string, caller: VisibilityCaller | undefined): readonly string[] | undefined {
  const entry = host.registry.tools.get(name);
  const scopes = entry?.scopes;
  if (scopes === undefined || caller === undefined) return scopes;
  return ruleAllows(host, { kind: 'tools', entry: entry as RegistryEntries['tools'] }, caller) ? scopes : undefined;
}

/** What the operations read of one list: an entry by name, and every entry in registration order. */
export interface EntryLookup<E> {
  get(key: string): E | undefined;
  values(): Iterable<E>;
}

/**
 * A lookup of list `kind` that answers `undefined` for an entry hidden from the caller of `ctx` and skips it when
 * walking, so the unknown-item refusal serves both (one code path: the answers cannot differ).
 */
export function visibleLookup<K extends ListKind>(host: VisibilityHost, kind: K, ctx: unknown): EntryLookup<RegistryEntries[K]> {
  const map = host.registry.mapOf(kind);
  if (!listsPerCaller(host)) return map;
  let caller: VisibilityCaller | undefined;
  const shown = (entry: RegistryEntries[K]): boolean => isVisible(host, { kind, entry }, (caller ??= callerOf(ctx)));
  return {
    get: (key) => {
      const entry = map.get(key);
      return entry !== undefined && shown(entry) ? entry : undefined;
    },
    // Template matching walks the entries in order: the hidden ones are skipped.
    *values() {
      for (const entry of map.values()) if (shown(entry)) yield entry;
    },
  };
}
