/**
 * The upstream's catalog mirrored into the front server's registry: each tool, resource, template and prompt the
 * upstream lists is registered on the front with a handler that forwards to the upstream, and re-synced when the
 * upstream says a list changed (MCP 2025-11-25 server/tools.mdx "List Changed Notification"). Every page of the
 * upstream's lists is read (`listAll…`), so the front paginates with its own cursors.
 *
 * Why a mirror and not a raw JSON-RPC relay: the front is then an ordinary `McpServer`, so everything era-specific is
 * the server's own code, already conformance-tested — `initialize` and `server/discover`, the 2026-07-28 envelope,
 * header checks (`Mcp-Name`, `Mcp-Param-*` from the tools' `x-mcp-header`), `resultType`, cache hints, input rounds
 * with signed `requestState`, `subscriptions/listen`, sessions and their limits. A relay would have to translate
 * each of those by hand between eras. The cost is one registry lookup and one handler call per request (measured
 * in bench/gateway.mjs), and a listing that is as fresh as the upstream's last list-changed notification.
 *
 * Definitions are registered exactly as listed (name, title, description, schemas, annotations, icons, `_meta`); a
 * tool's arguments are not validated here (see passThroughSchema.ts). A definition the front refuses (a name or
 * URI template it cannot serve, invalid `x-mcp-header` annotations) is left out with a warning.
 */
import type { Logger } from '@switchboard/jsonrpc';
import type { CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate, Tool } from '@switchboard/mcp';
import type { CallToolParams, McpClient } from '@switchboard/mcp/client';
import type { CompletionHandler, McpServer, ToolDefinition, ToolHandler } from '@switchboard/mcp/server';
import type { Forwarder, Upstream, UpstreamRequest } from './forward.js';
import { passThroughSchema } from './passThroughSchema.js';
import { failureForFront } from './results.js';
import { frontTaskOption, type TaskBridge } from './taskBridge.js';

/** The four lists a server may have. */
export type MirroredList = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

interface Mirrored { readonly text: string; readonly dispose: () => void }

/** The names of the variables of an RFC 6570 template (`{a,b*}`, `{?q}`, `{x:3}` → a, b, q, x). */
export function templateVariables(template: string): string[] {
  const names: string[] = [];
  for (const match of template.matchAll(/\{[+#./;?&]?([^}]*)\}/g)) {
    for (const spec of (match[1] ?? '').split(',')) {
      const name = spec.replace(/\*$/, '').replace(/:\d+$/, '');
      if (name !== '' && !names.includes(name)) names.push(name);
    }
  }
  return names;
}

/** The upstream requests of the mirrored definitions, on the caller's upstream session. */
const callTool: UpstreamRequest<CallToolParams, CallToolResult> = (session, params, options) => session.client.callTool(params, options);
const readResource: UpstreamRequest<string, ReadResourceResult> = (session, uri, options) => session.client.readResource({ uri }, options);

/** Mirrors one upstream's lists into one front server; see the module comment. */
export class Mirror {
  readonly #server: McpServer;
  readonly #client: McpClient;
  readonly #forward: Forwarder;
  readonly #logger: Logger;
  readonly #completions: boolean;
  readonly #tasks: TaskBridge | undefined;
  readonly #entries: Record<MirroredList, Map<string, Mirrored>> = { tools: new Map(), resources: new Map(), resourceTemplates: new Map(), prompts: new Map() };
  /** Per list: the sync running now, and whether another must follow it (a change arrived meanwhile). */
  readonly #running = new Map<MirroredList, Promise<void>>();
  readonly #again = new Set<MirroredList>();
  /** Per list: the items the last successful read returned, as listed. */
  readonly #listed: Record<MirroredList, readonly (Tool | Resource | ResourceTemplate | Prompt)[]> = { tools: [], resources: [], resourceTemplates: [], prompts: [] };

  constructor(init: { readonly server: McpServer; readonly client: McpClient; readonly forward: Forwarder; readonly logger: Logger; readonly completions: boolean; readonly tasks?: TaskBridge }) {
    this.#server = init.server;
    this.#client = init.client;
    this.#forward = init.forward;
    this.#logger = init.logger;
    this.#completions = init.completions;
    this.#tasks = init.tasks;
  }

  /** Re-reads one list now (or once more after the read in progress); resolves when the front shows it. */
  sync(list: MirroredList): Promise<void> {
    const running = this.#running.get(list);
    if (running !== undefined) {
      this.#again.add(list);
      return running;
    }
    const run = (async () => {
      try {
        do {
          this.#again.delete(list);
          await this.#syncOnce(list);
        } while (this.#again.has(list));
      } finally {
        this.#running.delete(list);
      }
    })();
    this.#running.set(list, run);
    return run;
  }

  /** What the upstream listed at the last read of `list` (empty before the first). */
  listed(list: MirroredList): readonly (Tool | Resource | ResourceTemplate | Prompt)[] {
    return this.#listed[list];
  }

  /** Removes every mirrored definition. */
  clear(): void {
    for (const entries of Object.values(this.#entries)) {
      for (const entry of entries.values()) entry.dispose();
      entries.clear();
    }
  }

  async #syncOnce(list: MirroredList): Promise<void> {
    const client = this.#client;
    let items: readonly (Tool | Resource | ResourceTemplate | Prompt)[];
    try {
      items =
        list === 'tools' ? await client.listAllTools() : list === 'resources' ? await client.listAllResources() : list === 'resourceTemplates' ? await client.listAllResourceTemplates() : await client.listAllPrompts();
    } catch (error) {
      this.#logger.warn(`Proxy: listing the upstream's ${list} failed; the front keeps the last listing`, { error });
      return;
    }
    this.#listed[list] = items;
    const entries = this.#entries[list];
    const seen = new Set<string>();
    for (const item of items) {
      const key = list === 'resources' ? (item as Resource).uri : list === 'resourceTemplates' ? (item as ResourceTemplate).uriTemplate : (item).name;
      if (typeof key !== 'string' || seen.has(key)) continue;
      seen.add(key);
      const text = JSON.stringify(item);
      const old = entries.get(key);
      if (old?.text === text) continue;
      old?.dispose();
      entries.delete(key);
      try {
        entries.set(key, { text, dispose: this.#register(list, item) });
      } catch (error) {
        this.#logger.warn(`Proxy: the upstream's ${list} entry "${key.slice(0, 200)}" cannot be served by the front and is left out`, { error });
      }
    }
    for (const [key, entry] of entries) {
      if (seen.has(key)) continue;
      entry.dispose();
      entries.delete(key);
    }
  }

  #register(list: MirroredList, item: Tool | Resource | ResourceTemplate | Prompt): () => void {
    switch (list) {
      case 'tools':
        return this.#tool(item as Tool);
      case 'resources':
        return this.#resource(item as Resource);
      case 'resourceTemplates':
        return this.#template(item as ResourceTemplate);
      case 'prompts':
        return this.#prompt(item);
    }
  }

  #tool(tool: Tool): () => void {
    const client = this.#client;
    const forward = this.#forward;
    const name = tool.name;
    const { name: _name, inputSchema, outputSchema, execution: _execution, ...rest } = tool as Tool & { readonly execution?: unknown };
    const definition = {
      ...rest,
      inputSchema: passThroughSchema(inputSchema),
      ...(outputSchema === undefined ? {} : { outputSchema: passThroughSchema(outputSchema) }),
    };
    // Per call: the upstream's params (one object) and the forwarder's; the requester is made once per tool.
    const call: Upstream<CallToolParams, CallToolResult> = { request: callTool, tool: true };
    const plain: ToolHandler = (args, ctx) => forward.run(ctx, call, { name, arguments: args });
    // A tool the upstream runs as a task is task-capable on the front too (taskBridge.ts).
    const tasks = this.#tasks;
    const task = tasks === undefined ? undefined : frontTaskOption(tool, client);
    const handler: ToolHandler = tasks === undefined || task === undefined ? plain : (args, ctx) => (tasks.takes(ctx, task) ? tasks.run(name, args, ctx) : plain(args, ctx));
    // The schemas are Standard Schemas of unknown output: the handler's result type is the plain CallToolResult.
    return (this.#server as unknown as { tool(name: string, definition: ToolDefinition, handler: ToolHandler): () => void }).tool(name, task === undefined ? definition : { ...definition, task }, handler);
  }

  #resource(resource: Resource): () => void {
    const forward = this.#forward;
    const { uri: listed, ...rest } = resource;
    const read: Upstream<string, ReadResourceResult> = { request: readResource, tool: false };
    return this.#server.resource(listed, rest, (uri, ctx) => forward.run(ctx, read, uri));
  }

  #template(template: ResourceTemplate): () => void {
    const forward = this.#forward;
    const { uriTemplate, ...rest } = template;
    const complete = this.#completers(templateVariables(uriTemplate), { type: 'ref/resource', uri: uriTemplate });
    const read: Upstream<string, ReadResourceResult> = { request: readResource, tool: false };
    return this.#server.resourceTemplate(uriTemplate, { ...rest, ...(complete === undefined ? {} : { complete }) }, (uri, _variables, ctx) => forward.run(ctx, read, uri));
  }

  #prompt(prompt: Prompt): () => void {
    const forward = this.#forward;
    const { name, ...rest } = prompt;
    const complete = this.#completers((prompt.arguments ?? []).map((a) => a.name), { type: 'ref/prompt', name });
    const get: Upstream<Record<string, string>, GetPromptResult> = { request: (session, strings, options) => session.client.getPrompt({ name, arguments: strings }, options), tool: false };
    return this.#server.prompt(name, { ...rest, ...(complete === undefined ? {} : { complete }) }, (args, ctx) => {
      const strings: Record<string, string> = {};
      for (const [key, value] of Object.entries(args)) if (typeof value === 'string') strings[key] = value;
      return forward.run(ctx, get, strings);
    });
  }

  /** Completion of each argument forwarded as `completion/complete` with the same reference, when the upstream completes. */
  #completers(names: readonly string[], ref: { readonly type: 'ref/prompt'; readonly name: string } | { readonly type: 'ref/resource'; readonly uri: string }): Record<string, CompletionHandler> | undefined {
    if (!this.#completions || names.length === 0) return undefined;
    const client = this.#client;
    const completers: Record<string, CompletionHandler> = {};
    for (const name of names) {
      completers[name] = async (value, context) => {
        try {
          const result = await client.complete({ ref, argument: { name, value }, context: { arguments: { ...context.arguments } } });
          return result.completion.values;
        } catch (error) {
          // As every forwarded request's: the upstream's -32603 text and its connection's details stay here.
          throw failureForFront(error, undefined, this.#logger);
        }
      };
    }
    return completers;
  }
}
