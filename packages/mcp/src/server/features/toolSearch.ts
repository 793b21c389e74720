/**
 * Tool-search mode (`McpServerOptions.toolSearch`): `tools/list` shows a search tool, a call tool and the pinned
 * tools instead of the whole catalog, so a catalog of hundreds of tools costs a model's context a few hundred
 * tokens; the model finds tools with the search tool (BM25 or a regular expression, `catalogIndex.ts`) and calls
 * them through the call tool, or directly.
 *
 * - The call tool calls the named tool exactly as `tools/call` does (`ToolCalls.call`: the same lookup and
 *   argument validation, the same request context, so progress, cancellation, 2026-07-28 input rounds and tasks
 *   behave as for a direct call). Only the call tool's own arguments (`name`, `arguments`) are checked here.
 * - Its annotations are the least permissive of the tools it can reach ({@link leastPermissiveAnnotations}).
 * - A direct `tools/call` of a tool that is not listed is served: search decides what is shown, not what may be
 *   called (as FastMCP's search transforms do). Who may call what is the visibility function's decision.
 *
 * **Visibility seam.** The server may hand this feature a {@link ToolVisibility} (`(tool, ctx) => boolean`, the
 * same function that filters `tools/list` and refuses `tools/call` per caller): search never returns a tool it
 * hides, the call tool answers for a hidden tool exactly as for an unknown one (-32602), and the call tool's
 * annotations aggregate only the tools the caller can reach. Without one, every tool is visible.
 */
import type { JsonRpcParams } from '@switchboard/jsonrpc';
import { checkCountOption } from '@switchboard/jsonrpc/internal';
import { echo } from '@switchboard/jsonrpc';
import { isModernRevision } from '../../protocol/revisions.js';
import { DEFAULT_CALL_TOOL_NAME, DEFAULT_SEARCH_TOOL_NAME, MAX_SEARCH_QUERY_LENGTH, toolSearchTools } from '../../protocol/toolSearchTools.js';
import type { CallToolResult, Tool, ToolAnnotations } from '../../protocol/types.js';
import type { ServerRequestContext } from '../context.js';
import type { ToolSearchOptions } from '../options.js';
import { page } from '../pagination.js';
import { compact, EMPTY_RESULT, invalidParams, isRecord, paramsRecord } from '../params.js';
import type { Registry, ToolEntry } from '../registry.js';
import { CORE_TASKS_REVISION } from '../tasks/wire.js';
import { CatalogIndex, CatalogQueryError } from './catalogIndex.js';
import type { ToolCalls } from './tools.js';

/** Default of `ToolSearchOptions.defaultResults`. */
export const DEFAULT_TOOL_SEARCH_RESULTS = 5;
/** Default of `ToolSearchOptions.maxResults`. */
export const DEFAULT_TOOL_SEARCH_MAX_RESULTS = 20;

/**
 * Whether `tool` is visible to the request `ctx` (the server's visibility function): a hidden tool is neither
 * listed, found nor callable through the call tool.
 */
export type ToolVisibility = (tool: Tool, ctx: ServerRequestContext) => boolean;

/** What tool-search mode is built on. */
export interface ToolSearchHost {
  readonly registry: Registry;
  /** `tools/call` itself: the call tool and direct calls go through it. */
  readonly calls: ToolCalls;
  /** See `McpServerOptions.pageSize`. */
  readonly pageSize: number;
  /** @default every tool visible */
  readonly visible?: ToolVisibility;
}

/** A portable tool name (MCP 2025-11-25 server/tools.mdx "Tool Names", within the conformance suite's 64). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

function nameOption(option: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !TOOL_NAME.test(value)) throw new TypeError(`Invalid option toolSearch.${option}: expected a tool name of 1–64 characters A-Z a-z 0-9 _ - ., got ${JSON.stringify(value)}`);
  return value;
}

/**
 * The annotations of a tool that may act as any of `tools` (the call tool), the least permissive of theirs, every
 * hint explicit. An absent hint means its default (MCP 2025-11-25 and 2026-07-28 schema.ts `ToolAnnotations`:
 * `readOnlyHint` default false, `destructiveHint` default true, `idempotentHint` default false, `openWorldHint`
 * default true), so a tool that says nothing counts as writing, destructive, not idempotent and open-world.
 * - `readOnlyHint`: true only when every tool is read-only.
 * - `destructiveHint`: true when any tool that is not read-only is destructive (the schema: "meaningful only when
 *   `readOnlyHint == false`"; a read-only tool "does not modify its environment", so it destroys nothing).
 * - `idempotentHint`: true only when every tool that is not read-only is idempotent (a read-only tool has "no
 *   additional effect on its environment" when called again).
 * - `openWorldHint`: true when any tool is open-world.
 * With no tool at all, the defaults: the least permissive reading.
 */
export function leastPermissiveAnnotations(tools: Iterable<Tool>): ToolAnnotations {
  let any = false;
  let readOnly = true;
  let destructive = false;
  let idempotent = true;
  let openWorld = false;
  for (const tool of tools) {
    any = true;
    const hints = tool.annotations ?? EMPTY_RESULT;
    if (hints.openWorldHint !== false) openWorld = true;
    if (hints.readOnlyHint === true) continue;
    readOnly = false;
    if (hints.destructiveHint !== false) destructive = true;
    if (hints.idempotentHint !== true) idempotent = false;
  }
  if (!any) return { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
  return { readOnlyHint: readOnly, destructiveHint: destructive, idempotentHint: idempotent, openWorldHint: openWorld };
}

/** A tool as `tools/list` shows it to this request: the legacy view before 2026-07-28, `execution` at 2025-11-25 (as `listTools`). */
function listedAs(entry: ToolEntry, ctx: ServerRequestContext): Tool {
  const facts = ctx.facts;
  if (facts.era === 'modern' || isModernRevision(facts.protocolVersion)) return entry.descriptor;
  const legacy = entry.legacyDescriptor ?? entry.descriptor;
  if (facts.protocolVersion !== CORE_TASKS_REVISION || entry.task === undefined) return legacy;
  return { ...legacy, execution: { taskSupport: entry.task.required ? 'required' : 'optional' } } as Tool;
}

function toolErrorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** The call's `arguments`: absent is `{}`, anything but an object -32602, as `tools/call` answers (params.ts `namedCall`). */
function argumentsOf(p: Record<string, unknown>): Record<string, unknown> {
  const args = p.arguments === undefined ? EMPTY_RESULT : p.arguments;
  if (!isRecord(args)) throw invalidParams('"arguments" must be an object');
  return args;
}

/** The first key of `args` outside `allowed` (both tools' schemas say `additionalProperties: false`). */
function unexpectedKey(args: Record<string, unknown>, allowed: readonly string[]): string | undefined {
  return Object.keys(args).find((key) => !allowed.includes(key));
}

/** Tool-search mode of one server (see the module comment). */
export class ToolSearch {
  readonly #host: ToolSearchHost;
  readonly #index: CatalogIndex;
  readonly #searchTool: Tool;
  readonly #callTool: Tool;
  readonly #pinned: ReadonlySet<string>;
  readonly #defaultResults: number;
  readonly #maxResults: number;
  /** The call tool's annotations over every tool, while no visibility function narrows them; reset on change. */
  #annotations: ToolAnnotations | undefined;

  /**
   * @param host the registry, `tools/call`, the page size and the visibility function
   * @param options see {@link ToolSearchOptions}
   * @throws TypeError when a name option is not a portable tool name, both names are equal, or `pinned` is not an
   *   array of strings; RangeError when `defaultResults` or `maxResults` is not a positive integer
   */
  constructor(host: ToolSearchHost, options: ToolSearchOptions) {
    this.#host = host;
    const searchName = nameOption('searchToolName', options.searchToolName, DEFAULT_SEARCH_TOOL_NAME);
    const callName = nameOption('callToolName', options.callToolName, DEFAULT_CALL_TOOL_NAME);
    if (searchName === callName) throw new TypeError(`Invalid option toolSearch: searchToolName and callToolName are both "${searchName}"`);
    const pinned = options.pinned ?? [];
    if (!Array.isArray(pinned) || pinned.some((name) => typeof name !== 'string')) throw new TypeError('Invalid option toolSearch.pinned: expected an array of tool names');
    this.#pinned = new Set(pinned);
    this.#maxResults = checkCountOption('toolSearch.maxResults', options.maxResults ?? DEFAULT_TOOL_SEARCH_MAX_RESULTS);
    this.#defaultResults = Math.min(checkCountOption('toolSearch.defaultResults', options.defaultResults ?? DEFAULT_TOOL_SEARCH_RESULTS), this.#maxResults);
    [this.#searchTool, this.#callTool] = toolSearchTools({ search: searchName, call: callName });
    this.#index = new CatalogIndex(host.registry);
  }

  /** The search tool's and the call tool's names. */
  get names(): readonly [string, string] {
    return [this.#searchTool.name, this.#callTool.name];
  }

  /** @throws TypeError when `name` is one of the two tools' (called before a tool of that name is registered) */
  refuseName(name: string): void {
    if (name === this.#searchTool.name || name === this.#callTool.name) {
      throw new TypeError(`Tool name "${name}" is taken by tool search (McpServerOptions.toolSearch): register it under another name, or set toolSearch.${name === this.#searchTool.name ? 'searchToolName' : 'callToolName'}`);
    }
  }

  /** The registry's tools changed: the index catches up and the call tool's annotations are recomputed. */
  changed(): void {
    this.#annotations = undefined;
    this.#index.changed();
  }

  /** `tools/list` in tool-search mode: the search tool, the call tool (with its annotations), the pinned tools. */
  list(params: JsonRpcParams | undefined, ctx: unknown): Record<string, unknown> {
    const call = ctx as ServerRequestContext;
    const items: Tool[] = [this.#searchTool, this.#callToolFor(call)];
    for (const name of this.#pinned) {
      const entry = this.#host.registry.tools.get(name);
      if (entry !== undefined && this.#visible(entry, call)) items.push(listedAs(entry, call));
    }
    return page({ kind: 'tools', items, pageSize: this.#host.pageSize }, params);
  }

  /** `tools/call` in tool-search mode: the two tools here, any other name as `tools/call` answers it. */
  call(params: JsonRpcParams | undefined, ctx: unknown): CallToolResult | Promise<CallToolResult> {
    const p = paramsRecord(params);
    if (p.name === this.#searchTool.name) return this.#search(argumentsOf(p), ctx as ServerRequestContext);
    if (p.name === this.#callTool.name) return this.#call(p, ctx as ServerRequestContext);
    return this.#host.calls.call(params, ctx);
  }

  #visible(entry: ToolEntry, ctx: ServerRequestContext): boolean {
    const visible = this.#host.visible;
    return visible === undefined || visible(entry.descriptor, ctx);
  }

  /**
   * The call tool as this request sees it: the annotations of what it reaches, and at 2025-11-25, when a tool it
   * reaches is task-capable, `execution.taskSupport: "optional"` (MCP 2025-11-25 basic/utilities/tasks.mdx
   * "Tool-Level Negotiation": a client asks for a task only of a tool that declares support); `params.task` then goes
   * with the named tool's call, which refuses it as `tools/call` would when that tool has no task support.
   */
  #callToolFor(ctx: ServerRequestContext): Tool {
    const tool = { ...this.#callTool, annotations: this.#callAnnotations(ctx) };
    if (ctx.facts.protocolVersion !== CORE_TASKS_REVISION || ctx.facts.era === 'modern') return tool;
    for (const entry of this.#host.registry.tools.values()) {
      if (entry.task !== undefined && this.#visible(entry, ctx)) return { ...tool, execution: { taskSupport: 'optional' } } as Tool;
    }
    return tool;
  }

  #callAnnotations(ctx: ServerRequestContext): ToolAnnotations {
    const tools = this.#host.registry.tools.values();
    if (this.#host.visible !== undefined) {
      const reachable: Tool[] = [];
      for (const entry of tools) if (this.#visible(entry, ctx)) reachable.push(entry.descriptor);
      return leastPermissiveAnnotations(reachable);
    }
    this.#annotations ??= Object.freeze(leastPermissiveAnnotations([...tools].map((e) => e.descriptor)));
    return this.#annotations;
  }

  #search(args: Record<string, unknown>, ctx: ServerRequestContext): CallToolResult | Promise<CallToolResult> {
    const invalid = (problem: string): CallToolResult => toolErrorResult(`Invalid arguments for tool "${this.#searchTool.name}": ${problem}`);
    const extra = unexpectedKey(args, ['query', 'limit', 'regex']);
    if (extra !== undefined) return invalid(`unexpected argument "${echo(extra)}"`);
    const { query, limit, regex } = args;
    if (typeof query !== 'string' || query.trim().length === 0) return invalid('"query" must be a non-empty string');
    if (query.length > MAX_SEARCH_QUERY_LENGTH) return invalid(`"query" is longer than ${MAX_SEARCH_QUERY_LENGTH} characters`);
    if (limit !== undefined && (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1)) return invalid('"limit" must be a positive integer');
    if (regex !== undefined && typeof regex !== 'boolean') return invalid('"regex" must be a boolean');
    const q = { query, limit: Math.min(limit ?? this.#defaultResults, this.#maxResults), accept: (entry: ToolEntry) => this.#visible(entry, ctx) };
    const answer = (found: readonly ToolEntry[]): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(found.map((entry) => listedAs(entry, ctx))) }] });
    // Words are ranked in this turn; a regular expression waits for its engine on the first use.
    if (regex !== true) return answer(this.#index.rank(q));
    return this.#index.query({ ...q, regex: true }).then(answer, (error: unknown) => {
      if (error instanceof CatalogQueryError) return invalid(`"query" is not a valid regular expression (RE2 syntax): ${echo(error.message)}`);
      throw error;
    });
  }

  #call(p: Record<string, unknown>, ctx: ServerRequestContext): CallToolResult | Promise<CallToolResult> {
    const args = argumentsOf(p);
    const invalid = (problem: string): CallToolResult => toolErrorResult(`Invalid arguments for tool "${this.#callTool.name}": ${problem}`);
    const extra = unexpectedKey(args, ['name', 'arguments']);
    if (extra !== undefined) return invalid(`unexpected argument "${echo(extra)}"`);
    const { name, arguments: inner } = args;
    if (typeof name !== 'string') return invalid('"name" must be a string');
    if (inner !== undefined && !isRecord(inner)) return invalid('"arguments" must be an object');
    const entry = this.#host.registry.tools.get(name);
    // A hidden tool is answered as an unknown one, in tools/call's words (params.ts namedCall).
    if (entry !== undefined && !this.#visible(entry, ctx)) throw invalidParams(`unknown tool "${echo(name)}"`, { name: echo(name) });
    // The named tool's call, as tools/call of it: the request's _meta (progress token) and 2025-11-25 `task` go with it.
    return this.#host.calls.call(compact({ name, arguments: inner, _meta: p._meta, task: p.task }), ctx);
  }
}
