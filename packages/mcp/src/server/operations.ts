/**
 * The era-neutral operations of a server: the method table every connection and `McpServer.handle` share. Each
 * operation is registered once and serves both eras: a modern-era request gets its input round and its result
 * decorated by `ModernEra.wrap`.
 */
import type { Dispatcher, MethodHandler } from '@switchboard/jsonrpc';
import type { Tool } from '../protocol/types.js';
import type { DispatchContext } from './connection.js';
import type { ServerRequestContext } from './context.js';
import type { ModernEra } from './eras/modern.js';
import { complete } from './features/completion.js';
import type { FeatureHost } from './features/featureHost.js';
import type { ListenStreams } from './features/listen.js';
import { getPrompt, listPrompts } from './features/prompts.js';
import { listResourceTemplates, listResources, readResource } from './features/resources.js';
import { ToolCalls, listTools } from './features/tools.js';
import { ToolSearch } from './features/toolSearch.js';
import type { ToolSearchOptions } from './options.js';
import { EMPTY_RESULT } from './params.js';
import type { ToolTasks } from './tasks/toolTasks.js';
import { listsPerCaller, visibleTool, type VisibilityHost } from './visibility.js';

/** What the operations are built on: the server's parts they call. */
export interface OperationParts {
  readonly host: FeatureHost;
  readonly modern: ModernEra;
  readonly listens: ListenStreams;
  readonly tasks: ToolTasks;
  /** The registry and visibility rule lists, calls and tool search check against (the mount point's). */
  readonly visibility: VisibilityHost;
  /** `McpServerOptions.toolSearch`: when set, `tools/list` and `tools/call` go through tool-search mode. */
  readonly toolSearch: ToolSearchOptions | undefined;
}

/**
 * Registers the operations on `dispatcher`.
 * @returns tool-search mode, when `parts.toolSearch` turned it on (the server tells it of catalog changes)
 */
export function registerOperations(dispatcher: Dispatcher<DispatchContext>, parts: OperationParts): ToolSearch | undefined {
  // MCP methods are either requests or notifications (MCP 2025-11-25 schema.ts ClientRequest /
  // ClientNotification): a request naming a notification is -32601 (B07), a notification naming a request is ignored.
  const { host, modern, listens } = parts;
  const request = (method: string, handler: MethodHandler<DispatchContext>): unknown => dispatcher.register(method, modern.wrap(method, handler), { kind: 'request' });
  const tools = new ToolCalls(host, parts.tasks);
  // MCP 2026-07-28 server/discover.mdx: servers MUST implement it.
  request('server/discover', () => modern.discover());
  request('subscriptions/listen', (params, ctx) => listens.listen(params, ctx as unknown as ServerRequestContext));
  // MCP 2025-11-25 basic/utilities/ping.mdx: answer promptly with an empty result, before initialize too.
  request('ping', () => EMPTY_RESULT);
  // Tool-search mode lists the search and call tools instead of the catalog (features/toolSearch.ts); the one
  // visibility function decides what it lists, finds and calls, as it does for tools/list.
  const visibility = parts.visibility;
  const visible = (tool: Tool, ctx: unknown): boolean => !listsPerCaller(visibility) || visibleTool(visibility, tool.name, ctx) !== undefined;
  const search = parts.toolSearch === undefined ? undefined : new ToolSearch({ registry: host.registry, calls: tools, pageSize: host.pageSize, visible }, parts.toolSearch);
  if (search === undefined) {
    request('tools/list', (params, ctx) => listTools(host, params, ctx));
    request('tools/call', (params, ctx) => tools.call(params, ctx));
  } else {
    request('tools/list', (params, ctx) => search.list(params, ctx));
    request('tools/call', (params, ctx) => search.call(params, ctx));
  }
  request('resources/list', (params, ctx) => listResources(host, params, ctx));
  request('resources/templates/list', (params, ctx) => listResourceTemplates(host, params, ctx));
  request('resources/read', (params, ctx) => readResource(host, params, ctx));
  request('prompts/list', (params, ctx) => listPrompts(host, params, ctx));
  request('prompts/get', (params, ctx) => getPrompt(host, params, ctx));
  request('completion/complete', (params, ctx) => complete(host, params, ctx));
  return search;
}
