/**
 * Composition: `server.mount(prefix, other)` serves another server's tools, prompts, resources, resource templates
 * and completions from this one, under a namespace (`namespace.ts`). The other server's entries are entered in
 * this server's registry as they are (compiled schemas, handlers, completions), renamed: a call through this
 * server runs the other server's handler in this server's request pipeline, with this server's `ctx` (logging,
 * progress, elicitation and sampling in both eras, cancellation), with no second dispatch and no copy of the
 * arguments; resource links its tools and prompts return to its own resources are renamed too. The mount watches
 * the other registry: what the other server registers or removes later appears or goes here too (with this
 * server's list-changed notifications), and a later registration on either side that would make a name exist
 * twice is refused by the registration itself, with a `TypeError` naming both owners.
 *
 * What does not cross: the other server's options (page size, cache hints, limits) and its own endpoint's state
 * (its sessions, subscriptions, tasks); this server's govern. Its visibility function does cross: an item it
 * hides stays hidden here (asked about the item under its own name, for the same caller).
 *
 * @see MCP 2025-11-25 server/tools.mdx "Tool Names", "List Changed Notification"; server/resources.mdx
 *   "Subscriptions"
 */
import type { Logger } from '@switchboard/jsonrpc';
import type { ReadResourceResult, ServerCapabilities } from '../protocol/types.js';
import { checkToolDefinition } from './definitions.js';
import { checkMountPrefix, prefixedName, prefixedUri, prefixedUriTemplate, unprefixedUri } from './namespace.js';
import type { ListKind } from './pagination.js';
import { isRecord } from './params.js';
import type { EntryOrigin, Registry, RegistryChange, RegistryEntries } from './registry.js';
import type { RequestContext } from './types.js';
import type { Visibility, VisibilityCaller } from './options.js';
import { UriTemplate } from './uriTemplate.js';
import { itemOf } from './visibility.js';

/** What composition needs of one server: made by `McpServer` for itself, read only here. */
export interface MountPointOptions {
  readonly registry: Registry;
  readonly visibility: Visibility | undefined;
  /** The server's current capabilities (`McpServer.capabilities`). */
  readonly capabilities: () => ServerCapabilities;
  /** Forgets the server's derived capabilities (a mounted server's configured ones joined or left). */
  readonly invalidateCapabilities: () => void;
  /** `McpServer.notifyResourceUpdated` of the server. */
  readonly notifyResourceUpdated: (uri: string) => Promise<void>;
}

/** One server's side of composition: the servers mounted on it, those it is mounted on, and its update relays. */
export class MountPoint {
  readonly options: MountPointOptions;
  /** Prefix → the mount point of the server mounted there. */
  readonly mounted = new Map<string, MountPoint>();
  /** The servers this one is mounted on (a server may be mounted on several, or on one under several prefixes). */
  readonly parents = new Map<MountPoint, number>();
  /** Relays of this server's resource updates to the servers it is mounted on. */
  readonly relays = new Set<(uri: string) => Promise<void>>();

  constructor(options: MountPointOptions) {
    this.options = options;
  }

  get name(): string {
    return this.options.registry.name;
  }

  /** `local` (this server's own publication of a resource update) joined with its relays to the servers above. */
  resourceUpdated(uri: string, local: Promise<void>): Promise<void> {
    if (this.relays.size === 0) return local;
    return Promise.all([local, ...[...this.relays].map((relay) => relay(uri))]).then(() => undefined);
  }

  /** Whether `other` is this server or one it is mounted on, at any depth. */
  reaches(other: MountPoint): boolean {
    if (other === this) return true;
    for (const parent of this.parents.keys()) if (parent.reaches(other)) return true;
    return false;
  }
}

/** The key an entry of the mounted server has here. @throws TypeError when it cannot be namespaced */
function mountedKey(kind: ListKind, key: string, prefix: string): string {
  if (kind === 'tools' || kind === 'prompts') return prefixedName(prefix, key);
  return kind === 'resources' ? prefixedUri(prefix, key) : prefixedUriTemplate(prefix, key);
}

/** A read result whose contents name the mounted server's URIs, named as this server serves them. */
function withPrefixedContents(prefix: string, result: unknown): unknown {
  if (result instanceof Promise) return result.then((r: unknown) => withPrefixedContents(prefix, r));
  if (!isRecord(result) || !Array.isArray(result.contents)) return result;
  const contents = result.contents.map((c: unknown) => (isRecord(c) && typeof c.uri === 'string' ? { ...c, uri: prefixedUri(prefix, c.uri) } : c));
  return { ...result, contents };
}

/** Whether the server of `registry` serves `uri` itself (a static resource, or a URI one of its templates matches). */
function serves(registry: Registry, uri: string): boolean {
  if (registry.resources.has(uri)) return true;
  for (const entry of registry.templates.values()) if (entry.template.match(uri) !== undefined) return true;
  return false;
}

/**
 * A content block naming a resource the mounted server serves (`resource_link`, or an embedded `resource`), named
 * as this server serves it; any other block (a link elsewhere, `https:` say) as it is.
 * @see MCP 2025-11-25 server/tools.mdx "Resource Links", "Embedded Resources"
 */
function relinkedBlock(block: unknown, relink: (uri: string) => string | undefined): unknown {
  if (!isRecord(block)) return block;
  if (block.type === 'resource_link' && typeof block.uri === 'string') {
    const uri = relink(block.uri);
    return uri === undefined ? block : { ...block, uri };
  }
  if (block.type === 'resource' && isRecord(block.resource) && typeof block.resource.uri === 'string') {
    const uri = relink(block.resource.uri);
    return uri === undefined ? block : { ...block, resource: { ...block.resource, uri } };
  }
  return block;
}

/** `result` (a tool result or a prompt result) with its resource links relinked; the same object when none is. */
function relinked(result: unknown, relink: (uri: string) => string | undefined): unknown {
  if (result instanceof Promise) return result.then((r: unknown) => relinked(r, relink));
  if (!isRecord(result)) return result;
  if (Array.isArray(result.content)) {
    // Most results hold no resource block: they are returned as they are, with no copy.
    if (!result.content.some((b: unknown) => isRecord(b) && (b.type === 'resource_link' || b.type === 'resource'))) return result;
    const content = result.content.map((b: unknown) => relinkedBlock(b, relink));
    return content.some((b, i) => b !== (result.content as unknown[])[i]) ? { ...result, content } : result;
  }
  if (Array.isArray(result.messages)) {
    let changed = false;
    const messages = result.messages.map((m: unknown) => {
      if (!isRecord(m)) return m;
      const content = relinkedBlock(m.content, relink);
      if (content === m.content) return m;
      changed = true;
      return { ...m, content };
    });
    return changed ? { ...result, messages } : result;
  }
  return result;
}

/** How one mount renames and wraps the entries of the mounted server. */
class Translation {
  readonly #prefix: string;
  readonly #child: MountPoint;
  readonly #logger: Logger;
  /** The URI here of a URI the mounted server serves; `undefined` for any other. */
  readonly #relink: (uri: string) => string | undefined;

  constructor(prefix: string, child: MountPoint, logger: Logger) {
    this.#prefix = prefix;
    this.#child = child;
    this.#logger = logger;
    const below = child.options.registry;
    this.#relink = (uri) => (serves(below, uri) ? prefixedUri(prefix, uri) : undefined);
  }

  /** Who owns the entry `key` of list `kind` here, as a conflict names it. */
  owner(kind: ListKind, key: string, inner: string | undefined): string {
    const what = kind === 'resourceTemplates' ? 'resource template' : kind.slice(0, -1);
    const via = inner === undefined ? '' : `, from its ${inner}`;
    return `mounted server "${this.#child.name}" (prefix "${this.#prefix}") as its ${what} "${key}"${via}`;
  }

  /** The entry here of the mounted server's `entry` at `key` (its key here: `at`). */
  entry<K extends ListKind>(kind: K, at: string, change: { readonly key: string; readonly entry: RegistryEntries[K] }): RegistryEntries[K] {
    const { key, entry } = change;
    const origin: EntryOrigin = { owner: this.owner(kind, key, entry.owner), gate: this.#gate(kind, entry) };
    const prefix = this.#prefix;
    switch (kind) {
      case 'tools': {
        const tool = entry as RegistryEntries['tools'];
        const legacyDescriptor = tool.legacyDescriptor === undefined ? undefined : { ...tool.legacyDescriptor, name: at };
        // Links to the mounted server's own resources are renamed so the client can read them here.
        const relink = this.#relink;
        const handler = (args: never, ctx: RequestContext): unknown => relinked(tool.handler(args, ctx), relink);
        return { ...tool, ...origin, descriptor: { ...tool.descriptor, name: at }, legacyDescriptor, handler } as RegistryEntries[K];
      }
      case 'prompts': {
        const prompt = entry as RegistryEntries['prompts'];
        const relink = this.#relink;
        const handler = (args: Readonly<Record<string, string>>, ctx: RequestContext): unknown => relinked(prompt.handler(args, ctx), relink);
        return { ...prompt, ...origin, descriptor: { ...prompt.descriptor, name: at }, handler } as RegistryEntries[K];
      }
      case 'resources': {
        const resource = entry as RegistryEntries['resources'];
        // The mounted server's handler is asked for its own URI and answers with its own URIs (renamed here).
        const handler = (_uri: string, ctx: RequestContext): ReadResourceResult | Promise<ReadResourceResult> =>
          withPrefixedContents(prefix, resource.handler(key, ctx)) as ReadResourceResult;
        return { ...resource, ...origin, descriptor: { ...resource.descriptor, uri: at }, handler } as RegistryEntries[K];
      }
      case 'resourceTemplates': {
        const template = entry as RegistryEntries['resourceTemplates'];
        const handler = (uri: string, variables: Record<string, string | readonly string[]>, ctx: RequestContext): ReadResourceResult | Promise<ReadResourceResult> =>
          withPrefixedContents(prefix, template.handler(unprefixedUri(prefix, uri), variables, ctx)) as ReadResourceResult;
        // The prefix is literal text before the template: the same variables match the renamed URIs.
        const renamed = { ...template, ...origin, descriptor: { ...template.descriptor, uriTemplate: at }, template: new UriTemplate(at), handler };
        return renamed as RegistryEntries[K];
      }
    }
  }

  /** The key of `key` of list `kind` here, checked as a registration here would be. @throws TypeError */
  key(kind: ListKind, key: string): string {
    const at = mountedKey(kind, key, this.#prefix);
    // The renamed tool must pass this server's name rule (MCP 2025-11-25 / 2026-07-28 server/tools.mdx "Tool
    // Names": 1-128 characters of A-Z a-z 0-9 _ - .; longer is refused, outside the portable rule warned).
    if (kind === 'tools') checkToolDefinition({ name: at, definition: {}, handler: noop }, this.#logger);
    return at;
  }

  /** The mounted server's visibility rule (and its own mounted servers') for `entry`, for the caller here. */
  #gate<K extends ListKind>(kind: K, entry: RegistryEntries[K]): ((caller: VisibilityCaller) => boolean) | undefined {
    const visibility = this.#child.options.visibility;
    const inner = entry.gate;
    if (visibility === undefined) return inner;
    const item = itemOf(kind, entry);
    return (caller: VisibilityCaller) => (inner === undefined || inner(caller)) && visibility(item, caller) === true;
  }
}

const KINDS: readonly ListKind[] = ['tools', 'prompts', 'resources', 'resourceTemplates'];

/**
 * Mounts `child` on `parent` under `prefix` (see the module comment and `McpServer.mount`).
 * @returns the unmount function (idempotent)
 * @throws TypeError on a bad prefix, a prefix already mounted here, a cycle, a name that would exist twice
 *   (naming both owners), or an entry that cannot be namespaced; nothing is mounted then
 */
export function mountServer(mount: { readonly parent: MountPoint; readonly child: MountPoint; readonly prefix: string }): () => void {
  const { parent, child, prefix } = mount;
  checkMountPrefix(prefix);
  const above = parent.options.registry;
  const below = child.options.registry;
  const taken = parent.mounted.get(prefix);
  if (taken !== undefined) throw new TypeError(`Cannot mount server "${child.name}": prefix "${prefix}" is already mounted on server "${parent.name}" (by server "${taken.name}")`);
  if (parent.reaches(child)) throw new TypeError(`Cannot mount server "${child.name}" on server "${parent.name}": it would serve itself (a server cannot be mounted on itself or on a server mounted on it)`);
  const translation = new Translation(prefix, child, above.logger);

  // Everything is checked before anything is added: a refused mount leaves both servers as they were.
  const initial: { kind: ListKind; key: string; at: string; entry: RegistryEntries[ListKind] }[] = [];
  for (const kind of KINDS) {
    for (const [key, entry] of below.mapOf(kind)) {
      const at = translation.key(kind, key);
      above.claim(kind, at, translation.owner(kind, key, entry.owner));
      initial.push({ kind, key, at, entry });
    }
  }
  const removers = new Map<string, () => void>();
  const slot = (kind: ListKind, key: string): string => `${kind}\u0000${key}`;
  const add = (kind: ListKind, key: string, entry: RegistryEntries[ListKind]): void => {
    const at = mountedKey(kind, key, prefix);
    removers.set(slot(kind, key), above.addEntry(kind, at, translation.entry(kind, at, { key, entry })));
  };
  for (const { kind, key, entry } of initial) add(kind, key, entry);

  // Later registrations on the mounted server: refused before they happen when their name here is taken.
  const unguard = below.guard((kind, key) => above.claim(kind, translation.key(kind, key), translation.owner(kind, key, undefined)));
  const unwatch = below.watch((change: RegistryChange) => {
    const { kind, key, entry } = change;
    if (entry !== undefined) {
      add(kind, key, entry);
      return;
    }
    removers.get(slot(kind, key))?.();
    removers.delete(slot(kind, key));
  });
  // One source per mount (the same server may be mounted twice): unmounting one leaves the other's.
  const capabilities = (): ServerCapabilities => child.options.capabilities();
  above.mountedCapabilities.add(capabilities);
  parent.options.invalidateCapabilities();
  // MCP 2025-11-25 server/resources.mdx "Subscriptions": a change the mounted server publishes reaches this
  // server's subscribers under the URI they subscribed to (the renamed one).
  const relay = (uri: string): Promise<void> => parent.options.notifyResourceUpdated(prefixedUri(prefix, uri));
  child.relays.add(relay);
  parent.mounted.set(prefix, child);
  child.parents.set(parent, (child.parents.get(parent) ?? 0) + 1);

  let mounted = true;
  return () => {
    if (!mounted) return;
    mounted = false;
    unguard();
    unwatch();
    for (const remove of removers.values()) remove();
    removers.clear();
    above.mountedCapabilities.delete(capabilities);
    parent.options.invalidateCapabilities();
    child.relays.delete(relay);
    parent.mounted.delete(prefix);
    const count = (child.parents.get(parent) ?? 1) - 1;
    if (count === 0) child.parents.delete(parent);
    else child.parents.set(parent, count);
  };
}

function noop(): void {}
