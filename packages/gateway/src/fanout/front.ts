/**
 * The front: the catalog served by the gateway's `McpServer`. Each catalog item is registered on the front with a
 * handler that forwards to its upstream's client (fixed arguments set, progress relayed, cancellation passed on);
 * a sync registers what is new, removes what is gone and re-registers what changed, so the front's own list-changed
 * notifications (one per list per burst) tell hosts what moved. A call that fails on the upstream's connection
 * takes the upstream out (the pool reconnects it) and answers a tool error naming it.
 *
 * This is the gateway's assembly seam: the front could equally be made of one proxy server per upstream mounted
 * under its prefix; the pool and the catalog do not change with it.
 */
import type { Logger } from '@switchboard/jsonrpc';
import { McpError, McpErrorCode, type CallToolResult } from '@switchboard/mcp';
import { RequestTimeoutError } from '@switchboard/mcp/client';
import { ToolError, type McpServer, type RequestContext } from '@switchboard/mcp/server';
import { failureForFront, upstreamLoss } from '../proxy/results.js';
import { upstreamLogger } from '../upstreamLogger.js';
import type { CatalogPrompt, CatalogResource, CatalogSnapshot, CatalogTool } from './catalog.js';
import type { UpstreamPool } from './pool.js';

interface Registered {
  readonly key: string;
  readonly dispose: () => void;
}

/** See the module comment. */
export class FrontRegistrar {
  readonly #server: McpServer;
  readonly #pool: UpstreamPool;
  readonly #logger: Logger;
  readonly #tools = new Map<string, Registered>();
  readonly #prompts = new Map<string, Registered>();
  readonly #resources = new Map<string, Registered>();

  constructor(options: { readonly server: McpServer; readonly pool: UpstreamPool; readonly logger: Logger }) {
    this.#server = options.server;
    this.#pool = options.pool;
    this.#logger = options.logger;
  }

  /** Makes the front serve exactly `snapshot`. */
  sync(snapshot: CatalogSnapshot): void {
    this.#syncKind(this.#tools, snapshot.tools, (entry) => this.#registerTool(entry));
    this.#syncKind(this.#prompts, snapshot.prompts, (entry) => this.#registerPrompt(entry));
    this.#syncKind(this.#resources, snapshot.resources, (entry) => this.#registerResource(entry));
  }

  /** Removes everything registered. */
  clear(): void {
    for (const registered of [this.#tools, this.#prompts, this.#resources]) {
      for (const entry of registered.values()) entry.dispose();
      registered.clear();
    }
  }

  #syncKind<T>(registered: Map<string, Registered>, wanted: ReadonlyMap<string, T>, register: (entry: T) => (() => void) | undefined): void {
    for (const [name, entry] of registered) {
      if (!wanted.has(name)) {
        entry.dispose();
        registered.delete(name);
      }
    }
    for (const [name, entry] of wanted) {
      const key = JSON.stringify(entry);
      const current = registered.get(name);
      if (current?.key === key) continue;
      current?.dispose();
      registered.delete(name);
      const dispose = register(entry);
      if (dispose !== undefined) registered.set(name, { key, dispose });
    }
  }

  #registerTool(entry: CatalogTool): (() => void) | undefined {
    const { tool } = entry;
    try {
      return this.#server.tool(
        entry.name,
        {
          ...(tool.title === undefined ? {} : { title: tool.title }),
          ...(tool.description === undefined ? {} : { description: tool.description }),
          inputSchema: tool.inputSchema,
          ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
          ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
          ...(tool.icons === undefined ? {} : { icons: tool.icons }),
          ...(tool._meta === undefined ? {} : { _meta: tool._meta }),
        },
        // The front forwards the upstream's result as it is; the typed result of a declared outputSchema does
        // not apply to a result the gateway did not make.
        ((args: Record<string, unknown>, ctx: RequestContext) => this.#callTool(entry, args, ctx)) as never,
      );
    } catch (error) {
      this.#logger.warn(`Tool "${entry.name}" of upstream "${entry.upstream}" is left out: ${(error as Error).message}`);
      return undefined;
    }
  }

  async #callTool(entry: CatalogTool, args: Record<string, unknown>, ctx: RequestContext): Promise<CallToolResult> {
    const client = this.#pool.client(entry.upstream);
    if (client === undefined) throw new ToolError(`Upstream "${entry.upstream}" is unavailable`);
    try {
      return await client.callTool(
        { name: entry.upstreamName, arguments: entry.fixedArguments === undefined ? args : { ...args, ...entry.fixedArguments } },
        {
          signal: ctx.signal,
          onprogress: (progress) => {
            void ctx.progress(progress.progress, progress.total, progress.message);
          },
        },
      );
    } catch (error) {
      throw this.#failure(entry.upstream, error, true);
    }
  }

  /**
   * An upstream failure as the front answers it, a tool's as an `isError` result. A lost connection (as opposed to an
   * answer of the upstream): the pool takes the upstream out (its health says how it ended) and the caller is told
   * only that, never the client error's stderr line, command or address; a timeout says so; the upstream's own
   * errors as the proxy answers them (`failureForFront`: -32603 without its text).
   */
  #failure(upstream: string, error: unknown, tool: boolean): unknown {
    const loss = upstreamLoss(error);
    if (loss !== undefined) this.#pool.reportFailure(upstream, error);
    const said = loss !== undefined ? `Upstream "${upstream}" is unavailable: ${loss}` : error instanceof RequestTimeoutError ? `Upstream "${upstream}" did not answer in time` : undefined;
    if (said === undefined) return failureForFront(error, undefined, upstreamLogger(this.#logger, upstream));
    return tool ? new ToolError(said) : new McpError(McpErrorCode.InternalError, said);
  }

  #registerPrompt(entry: CatalogPrompt): (() => void) | undefined {
    const { prompt } = entry;
    try {
      return this.#server.prompt(
        entry.name,
        {
          ...(prompt.title === undefined ? {} : { title: prompt.title }),
          ...(prompt.description === undefined ? {} : { description: prompt.description }),
          ...(prompt.arguments === undefined ? {} : { arguments: prompt.arguments }),
          ...(prompt.icons === undefined ? {} : { icons: prompt.icons }),
        },
        async (args, ctx) => {
          const client = this.#pool.client(entry.upstream);
          if (client === undefined) throw new McpError(McpErrorCode.InternalError, `Upstream "${entry.upstream}" is unavailable`);
          try {
            return await client.getPrompt({ name: entry.upstreamName, arguments: args as Record<string, string> }, { signal: ctx.signal });
          } catch (error) {
            throw this.#failure(entry.upstream, error, false);
          }
        },
      );
    } catch (error) {
      this.#logger.warn(`Prompt "${entry.name}" of upstream "${entry.upstream}" is left out: ${(error as Error).message}`);
      return undefined;
    }
  }

  #registerResource(entry: CatalogResource): (() => void) | undefined {
    const { uri, ...definition } = entry.resource;
    try {
      return this.#server.resource(uri, definition, async (read, ctx) => {
        const client = this.#pool.client(entry.upstream);
        if (client === undefined) throw new McpError(McpErrorCode.InternalError, `Upstream "${entry.upstream}" is unavailable`);
        try {
          return await client.readResource({ uri: read }, { signal: ctx.signal });
        } catch (error) {
          throw this.#failure(entry.upstream, error, false);
        }
      });
    } catch (error) {
      this.#logger.warn(`Resource "${uri}" of upstream "${entry.upstream}" is left out: ${(error as Error).message}`);
      return undefined;
    }
  }
}
