/**
 * The compiled registry of a server: tools (schemas compiled to validators at registration), resources,
 * resource templates and prompts, the frozen list each `…/list` serves, and one change event per list.
 *
 * @see MCP 2025-11-25 server/tools.mdx, server/resources.mdx, server/prompts.mdx
 */
import type { Logger } from '@switchboard/jsonrpc';
import type { Prompt, Resource, ResourceTemplate, Tool } from '../protocol/types.js';
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

/** A registered tool with its compiled schemas. */
export interface ToolEntry {
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
}
/** A registered static resource. */
export interface ResourceEntry { readonly descriptor: Resource; readonly handler: ResourceHandler; readonly cache: CachePolicy | undefined }
/** A registered resource template with its matcher. */
export interface TemplateEntry {
  readonly descriptor: ResourceTemplate;
  readonly template: UriTemplate;
  readonly handler: ResourceTemplateHandler;
  readonly complete: Readonly<Record<string, CompletionHandler>> | undefined;
  readonly cache: CachePolicy | undefined;
}
/** A registered prompt with the names of its required arguments. */
export interface PromptEntry {
  readonly descriptor: Prompt;
  readonly required: readonly string[];
  readonly handler: PromptHandler;
  readonly complete: Readonly<Record<string, CompletionHandler>> | undefined;
}

/** What is registered, compiled once; `onchange` hears of every addition and removal. */
export class Registry {
  readonly tools = new Map<string, ToolEntry>();
  readonly resources = new Map<string, ResourceEntry>();
  readonly templates = new Map<string, TemplateEntry>();
  readonly prompts = new Map<string, PromptEntry>();
  readonly #lists = new Map<ListKind, readonly unknown[]>();
  #legacyTools: readonly unknown[] | undefined = undefined;
  #toolsWithTaskSupport: readonly unknown[] | undefined;
  readonly #compile = createSchemaCompiler();
  readonly #logger: Logger;
  readonly #onchange: (kind: ListKind) => void;

  /** @param options `logger`: receives naming warnings; `onchange`: called after each list changes */
  constructor(options: { readonly logger: Logger; readonly onchange: (kind: ListKind) => void }) {
    this.#logger = options.logger;
    this.#onchange = options.onchange;
  }

  /** See `McpServer.tool`. @throws TypeError as documented there */
  addTool(name: string, definition: ToolDefinition, handler: ToolHandler<never>): () => void {
    checkToolDefinition({ name, definition, handler }, this.#logger);
    const task = toolTaskSettings(name, definition.task);
    refuseDuplicate(this.tools, name, 'Tool');
    const input = this.#compile(definition.inputSchema ?? { type: 'object' }, `inputSchema of tool "${name}"`);
    // B42 / MCP 2025-11-25 server/tools.mdx: every advertised inputSchema has an object root.
    if (input.json.type === undefined) {
      throw new TypeError(`Invalid inputSchema of tool "${name}": the root must declare "type": "object"`);
    }
    if (input.json.type !== 'object') throw new TypeError(`Invalid inputSchema of tool "${name}": the root type must be "object"`);
    // MCP 2026-07-28 basic/transports/streamable-http.mdx "Schema Extension": a bad annotation makes the tool invalid.
    const paramHeaders = compileParamHeaders(input.json, { toolName: name });
    // MCP 2026-07-28 server/tools.mdx: any JSON Schema; up to 2025-11-25 its root is an object (see legacyDescriptor).
    const output = definition.outputSchema === undefined ? undefined : this.#compile(definition.outputSchema, `outputSchema of tool "${name}"`);
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
    return this.#add('tools', this.tools, { key: name, entry: { descriptor, legacyDescriptor, paramHeaders, input, output, handler, task } });
  }

  /** See `McpServer.resource`. @throws TypeError as documented there */
  addResource(uri: string, definition: ResourceDefinition, handler: ResourceHandler): () => void {
    checkResourceDefinition(uri, definition, handler);
    refuseDuplicate(this.resources, uri, 'Resource');
    const { cache, ...listed } = definition;
    checkCachePolicy(cache, `resource "${uri}"`);
    return this.#add('resources', this.resources, { key: uri, entry: { descriptor: compact({ uri, ...listed }), handler, cache } });
  }

  /** See `McpServer.resourceTemplate`. @throws TypeError as documented there */
  addTemplate(uriTemplate: string, definition: ResourceTemplateDefinition, handler: ResourceTemplateHandler): () => void {
    checkResourceTemplateDefinition(uriTemplate, definition, handler);
    refuseDuplicate(this.templates, uriTemplate, 'Resource template');
    const { complete, cache, ...rest } = definition;
    checkCachePolicy(cache, `resource template "${uriTemplate}"`);
    const entry: TemplateEntry = { descriptor: compact({ uriTemplate, ...rest }), template: new UriTemplate(uriTemplate), handler, complete, cache };
    return this.#add('resourceTemplates', this.templates, { key: uriTemplate, entry });
  }

  /** See `McpServer.prompt`. @throws TypeError as documented there */
  addPrompt(name: string, definition: PromptDefinition, handler: PromptHandler): () => void {
    checkPromptDefinition(name, definition, handler);
    refuseDuplicate(this.prompts, name, 'Prompt');
    const { complete, ...rest } = definition;
    const required = (definition.arguments ?? []).filter((a) => a.required === true).map((a) => a.name);
    return this.#add('prompts', this.prompts, { key: name, entry: { descriptor: compact({ name, ...rest }), required, handler, complete } });
  }

  /** The descriptors of one list, frozen and cached until it changes. */
  list(kind: ListKind): readonly unknown[] {
    let list = this.#lists.get(kind);
    if (list === undefined) {
      const source = kind === 'tools' ? this.tools : kind === 'resources' ? this.resources : kind === 'resourceTemplates' ? this.templates : this.prompts;
      list = Object.freeze([...source.values()].map((e) => e.descriptor));
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
  #add<E>(kind: ListKind, map: Map<string, E>, added: { readonly key: string; readonly entry: E }): () => void {
    const { key, entry } = added;
    map.set(key, entry);
    this.#changed(kind);
    return () => {
      if (map.get(key) === entry && map.delete(key)) this.#changed(kind);
    };
  }

  #changed(kind: ListKind): void {
    this.#lists.delete(kind);
    if (kind === 'tools') {
      this.#legacyTools = undefined;
      this.#toolsWithTaskSupport = undefined;
    }
    this.#onchange(kind);
  }
}

function refuseDuplicate(map: ReadonlyMap<string, unknown>, key: string, what: string): void {
  if (map.has(key)) throw new TypeError(`${what} already registered: "${key}"`);
}
