/**
 * The compiled registry of a server: tools (schemas compiled to validators at registration), resources,
 * resource templates and prompts, the frozen list each `…/list` serves, and one change event per list.
 *
 * @see MCP 2025-11-25 server/tools.mdx, server/resources.mdx, server/prompts.mdx
 */
import type { Logger } from '@switchboard/jsonrpc';
import type { Prompt, Resource, ResourceTemplate, ServerCapabilities, Tool } from '../protocol/types.js';
import { checkPromptDefinition, checkResourceDefinition, checkResourceTemplateDefinition, checkToolDefinition } from './definitions.js';
import type { ListKind } from './pagination.js';
import { compact } from './params.js';
import { compileParamHeaders, type ParamHeader } from '../protocol/paramHeaders.js';
import { createSchemaCompiler, type CompiledSchema } from './schema.js';
import { toolTaskSettings, type ToolTaskSettings } from './tasks/toolOption.js';
import type {
  CompletionHandler,
  PromptDefinition,
  PromptHandler,
  ResourceDefinition,
  ResourceHandler,
  ResourceTemplateDefinition,
  ResourceTemplateHandler,
  ToolDefinition,
  ToolHandler,
} from './types.js';
import { UriTemplate } from './uriTemplate.js';
import { checkCachePolicy, type CachePolicy } from './cachePolicy.js';
import type { VisibilityCaller } from './options.js';

/**
 * Where an entry comes from, when not from its own server's registration: a mounted server (`mount.ts`). Every
 * entry type carries it.
 */
export interface EntryOrigin {
  /** Who registered it, as a conflict names it (`mounted server "weather" (prefix "w")`); `undefined`: this server. */
  readonly owner?: string;
  /** The mounted server's own visibility rule for it, for a caller here (see `visibility.ts`); `undefined`: none. */
  readonly gate?: (caller: VisibilityCaller) => boolean;
}

/** A registered tool with its compiled schemas. */
export interface ToolEntry extends EntryOrigin {
  readonly descriptor: Tool;
  /**
   * The descriptor a legacy-era client sees when it differs: an `outputSchema` whose root is not an object exists
   * from 2026-07-28 only (MCP 2025-11-25 server/tools.mdx "Output Schema"), so it is left out before.
   */
  readonly legacyDescriptor: Tool | undefined;
  /** The arguments mirrored into `Mcp-Param-*` headers (`x-mcp-header`), compiled once. */
  readonly paramHeaders: readonly ParamHeader[];
  readonly input: CompiledSchema;
  readonly output: CompiledSchema | undefined;
  readonly handler: ToolHandler<never>;
  /** How the tool runs as a task; `undefined` when it is not task-capable. */
  readonly task: ToolTaskSettings | undefined;
  /** The OAuth scopes a caller needs ({@link ToolDefinition.scopes}), frozen; `undefined` when none. */
  readonly scopes?: readonly string[] | undefined;
}
/** A registered static resource. */
export interface ResourceEntry extends EntryOrigin { readonly descriptor: Resource; readonly handler: ResourceHandler; readonly cache: CachePolicy | undefined }
/** A registered resource template with its matcher. */
export interface TemplateEntry extends EntryOrigin {
  readonly descriptor: ResourceTemplate;
  readonly template: UriTemplate;
  readonly handler: ResourceTemplateHandler;
  readonly complete: Readonly<Record<string, CompletionHandler>> | undefined;
  readonly cache: CachePolicy | undefined;
}
/** A registered prompt with the names of its required arguments. */
export interface PromptEntry extends EntryOrigin {
  readonly descriptor: Prompt;
  readonly required: readonly string[];
  readonly handler: PromptHandler;
  readonly complete: Readonly<Record<string, CompletionHandler>> | undefined;
}

/** The entry type of each list. */
export interface RegistryEntries {
  readonly tools: ToolEntry;
  readonly resources: ResourceEntry;
  readonly resourceTemplates: TemplateEntry;
  readonly prompts: PromptEntry;
}

/** One addition (`entry` set) or removal (`entry` undefined) at `key` of list `kind`. */
export interface RegistryChange<K extends ListKind = ListKind> {
  readonly kind: K;
  readonly key: string;
  readonly entry: RegistryEntries[K] | undefined;
}

/** A check run before an entry is added at `key` of list `kind` (a mount's: the name it would have above); throws to refuse. */
export type RegistryGuard = (kind: ListKind, key: string) => void;

const WHAT: Readonly<Record<ListKind, string>> = { tools: 'Tool', resources: 'Resource', resourceTemplates: 'Resource template', prompts: 'Prompt' };

/** What is registered, compiled once; `onchange` hears of every addition and removal. */
export class Registry {
  /** The server's `serverInfo.name`, as conflicts name it. */
  readonly name: string;
  readonly tools = new Map<string, ToolEntry>();
  readonly resources = new Map<string, ResourceEntry>();
  readonly templates = new Map<string, TemplateEntry>();
  readonly prompts = new Map<string, PromptEntry>();
  /**
   * The capabilities of the servers mounted here (`mount.ts`), each read when this server's are derived, so the
   * union is advertised (see `CapabilityCache`).
   */
  readonly mountedCapabilities = new Set<() => ServerCapabilities>();
  readonly #lists = new Map<ListKind, readonly unknown[]>();
  #legacyTools: readonly unknown[] | undefined = undefined;
  #toolsWithTaskSupport: readonly unknown[] | undefined;
  readonly #compile = createSchemaCompiler();
  readonly #logger: Logger;
  readonly #onchange: (kind: ListKind) => void;
  readonly #guards = new Set<RegistryGuard>();
  readonly #watchers = new Set<(change: RegistryChange) => void>();
  #gated = 0;
  #scoped = 0;

  /**
   * @param options `name`: the server's, for conflict messages; `logger`: receives naming warnings; `onchange`:
   *   called after each list changes
   */
  constructor(options: { readonly name: string; readonly logger: Logger; readonly onchange: (kind: ListKind) => void }) {
    this.name = options.name;
    this.#logger = options.logger;
    this.#onchange = options.onchange;
  }

  /** The logger registration warnings go to. */
  get logger(): Logger {
    return this.#logger;
  }

  /** How many entries carry a mounted server's visibility rule ({@link EntryOrigin.gate}). */
  get gated(): number {
    return this.#gated;
  }

  /** How many tools need scopes ({@link ToolEntry.scopes}): lists then depend on the caller. */
  get scoped(): number {
    return this.#scoped;
  }

  /** The map of list `kind`. */
  mapOf<K extends ListKind>(kind: K): Map<string, RegistryEntries[K]> {
    const map = kind === 'tools' ? this.tools : kind === 'resources' ? this.resources : kind === 'resourceTemplates' ? this.templates : this.prompts;
    return map as Map<string, RegistryEntries[K]>;
  }

  /** Runs `guard` before every later addition; the disposer removes it. */
  guard(guard: RegistryGuard): () => void {
    this.#guards.add(guard);
    return () => this.#guards.delete(guard);
  }

  /** Calls `watcher` after every later addition and removal; the disposer removes it. */
  watch(watcher: (change: RegistryChange) => void): () => void {
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  }

  /**
   * Refuses, with a `TypeError` naming both owners, an entry at `key` of list `kind` that exists already here or
   * would exist twice on a server this one is mounted on (its guards).
   * @param newcomer who would register it, as the message names it @default this server
   */
  claim(kind: ListKind, key: string, newcomer?: string): void {
    const existing = this.mapOf(kind).get(key);
    if (existing !== undefined) {
      const holder = existing.owner ?? `server "${this.name}"`;
      throw new TypeError(`${WHAT[kind]} already registered on server "${this.name}": "${key}" (by ${holder}); refused: registered again by ${newcomer ?? `server "${this.name}"`}`);
    }
    for (const guard of this.#guards) guard(kind, key);
  }

  /** Adds a ready entry (a mounted server's, `mount.ts`) after {@link Registry.claim}; the disposer removes it. @throws TypeError as `claim` */
  addEntry<K extends ListKind>(kind: K, key: string, entry: RegistryEntries[K]): () => void {
    this.claim(kind, key, entry.owner);
    return this.#add(kind, this.mapOf(kind), { key, entry });
  }

  /** See `McpServer.tool`. @throws TypeError as documented there */
  addTool(name: string, definition: ToolDefinition, handler: ToolHandler<never>): () => void {
    checkToolDefinition({ name, definition, handler }, this.#logger);
    const task = toolTaskSettings(name, definition.task);
    const scopes = toolScopes(name, definition.scopes);
    this.claim('tools', name);
    const input = this.#compile(definition.inputSchema ?? { type: 'object' }, `inputSchema of tool "${name}"`);
    // B42 / MCP 2025-11-25 server/tools.mdx: every advertised inputSchema has an object root.
    if (input.json.type === undefined) {
      throw new TypeError(`Invalid inputSchema of tool "${name}": the root must declare "type": "object"`);
    }
    if (input.json.type !== 'object') throw new TypeError(`Invalid inputSchema of tool "${name}": the root type must be "object"`);
    // MCP 2026-07-28 basic/transports/streamable-http.mdx "Schema Extension": a bad annotation makes the tool invalid.
    const paramHeaders = compileParamHeaders(input.json, { toolName: name });
    // MCP 2026-07-28 server/tools.mdx: any JSON Schema; up to 2025-11-25 its root is an object (see legacyDescriptor).
    const output = definition.outputSchema === undefined ? undefined : this.#compile(definition.outputSchema, `outputSchema of tool "${name}"`, 'structuredContent');
    const descriptor: Tool = compact({
      name,
      title: definition.title,
      description: definition.description,
      inputSchema: input.json,
      outputSchema: output?.json,
      annotations: definition.annotations,
      icons: definition.icons,
      _meta: definition._meta,
    });
    const legacyDescriptor = output === undefined || output.json.type === 'object' ? undefined : compact({ ...descriptor, outputSchema: undefined });
    return this.#add('tools', this.tools, { key: name, entry: { descriptor, legacyDescriptor, paramHeaders, input, output, handler, task, scopes } });
  }

  /** See `McpServer.resource`. @throws TypeError as documented there */
  addResource(uri: string, definition: ResourceDefinition, handler: ResourceHandler): () => void {
    checkResourceDefinition(uri, definition, handler);
    this.claim('resources', uri);
    const { cache, ...listed } = definition;
    checkCachePolicy(cache, `resource "${uri}"`);
    return this.#add('resources', this.resources, { key: uri, entry: { descriptor: compact({ uri, ...listed }), handler, cache } });
  }

  /** See `McpServer.resourceTemplate`. @throws TypeError as documented there */
  addTemplate(uriTemplate: string, definition: ResourceTemplateDefinition, handler: ResourceTemplateHandler): () => void {
    checkResourceTemplateDefinition(uriTemplate, definition, handler);
    this.claim('resourceTemplates', uriTemplate);
    const { complete, cache, ...rest } = definition;
    checkCachePolicy(cache, `resource template "${uriTemplate}"`);
    const entry: TemplateEntry = { descriptor: compact({ uriTemplate, ...rest }), template: new UriTemplate(uriTemplate), handler, complete, cache };
    return this.#add('resourceTemplates', this.templates, { key: uriTemplate, entry });
  }

  /** See `McpServer.prompt`. @throws TypeError as documented there */
  addPrompt(name: string, definition: PromptDefinition, handler: PromptHandler): () => void {
    checkPromptDefinition(name, definition, handler);
    this.claim('prompts', name);
    const { complete, ...rest } = definition;
    const required = (definition.arguments ?? []).filter((a) => a.required === true).map((a) => a.name);
    return this.#add('prompts', this.prompts, { key: name, entry: { descriptor: compact({ name, ...rest }), required, handler, complete } });
  }

  /** The descriptors of one list, frozen and cached until it changes. */
  list(kind: ListKind): readonly unknown[] {
    let list = this.#lists.get(kind);
    if (list === undefined) {
      list = Object.freeze([...this.mapOf(kind).values()].map((e) => e.descriptor));
      this.#lists.set(kind, list);
    }
    return list;
  }

  /** The tools as a legacy-era client sees them (see {@link ToolEntry.legacyDescriptor}), cached until the list changes. */
  legacyTools(): readonly unknown[] {
    let list = this.#legacyTools;
    if (list === undefined) {
      const tools = [...this.tools.values()];
      list = tools.some((t) => t.legacyDescriptor !== undefined) ? Object.freeze(tools.map((t) => t.legacyDescriptor ?? t.descriptor)) : this.list('tools');
      this.#legacyTools = list;
    }
    return list;
  }

  /** Whether any registered tool is task-capable. */
  get hasTaskTools(): boolean {
    for (const tool of this.tools.values()) if (tool.task !== undefined) return true;
    return false;
  }

  /**
   * The `tools/list` entries of 2025-11-25: a task-capable tool carries `execution.taskSupport` (`"optional"` or
   * `"required"`; MCP 2025-11-25 schema.ts ToolExecution). Frozen and cached like {@link Registry.list}.
   */
  toolsWithTaskSupport(): readonly unknown[] {
    this.#toolsWithTaskSupport ??= Object.freeze(
      [...this.tools.values()].map((t) => (t.task === undefined ? (t.legacyDescriptor ?? t.descriptor) : { ...(t.legacyDescriptor ?? t.descriptor), execution: { taskSupport: t.task.required ? 'required' : 'optional' } })),
    );
    return this.#toolsWithTaskSupport;
  }

  /** Adds `entry` at `key` of `map` and announces the change of list `kind`; the disposer removes that very entry once. */
  #add<K extends ListKind>(kind: K, map: Map<string, RegistryEntries[K]>, added: { readonly key: string; readonly entry: RegistryEntries[K] }): () => void {
    const { key, entry } = added;
    map.set(key, entry);
    if (entry.gate !== undefined) this.#gated++;
    const scoped = kind === 'tools' && (entry as ToolEntry).scopes !== undefined;
    if (scoped) this.#scoped++;
    this.#changed({ kind, key, entry });
    return () => {
      if (map.get(key) !== entry || !map.delete(key)) return;
      if (entry.gate !== undefined) this.#gated--;
      if (scoped) this.#scoped--;
      this.#changed({ kind, key, entry: undefined });
    };
  }

  #changed(change: RegistryChange): void {
    const kind = change.kind;
    this.#lists.delete(kind);
    if (kind === 'tools') {
      this.#legacyTools = undefined;
      this.#toolsWithTaskSupport = undefined;
    }
    this.#onchange(kind);
    for (const watcher of this.#watchers) watcher(change);
  }
}

/**
 * A tool's `scopes` option, checked and frozen (`undefined` when absent or empty).
 * @throws TypeError when it is not an array of non-empty scope tokens (RFC 6749 §3.3: `%x21 / %x23-5B / %x5D-7E`)
 */
function toolScopes(name: string, value: unknown): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((s) => typeof s === 'string' && /^[\x21\x23-\x5B\x5D-\x7E]+$/.test(s))) {
    throw new TypeError(`Invalid scopes of tool "${name}": expected an array of OAuth scope tokens (RFC 6749 §3.3: visible ASCII, no space, quote or backslash), got ${JSON.stringify(value)}`);
  }
  return value.length === 0 ? undefined : Object.freeze([...new Set(value as string[])]);
}
