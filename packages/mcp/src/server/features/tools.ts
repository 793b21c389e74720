/**
 * `tools/list` and `tools/call`, on the request context alone.
 *
 * @see MCP 2025-11-25 server/tools.mdx
 */
import { ErrorCode, JsonRpcError, JsonRpcLocalError, LocalErrorCode, type JsonRpcParams } from '@switchboard/jsonrpc';
import { MissingClientCapabilityError, ResourceNotFoundError } from '../../protocol/errors.js';
import { isLegacyRevision } from '../../protocol/revisions.js';
import type { CallToolResult } from '../../protocol/types.js';
import type { ServerRequestContext } from '../context.js';
import { isRecord, namedCall, paramsRecord } from '../params.js';
import { InputRequiredSignal } from '../inputRound.js';
import type { ToolEntry } from '../registry.js';
import { invalidResult, toolContentProblem } from '../results.js';
import type { ValidationOutcome } from '../schema.js';
import type { ToolTasks } from '../tasks/toolTasks.js';
import { CORE_TASKS_REVISION } from '../tasks/wire.js';
import { withMeta, type FeatureHost } from './featureHost.js';
import { listPage, visibleLookup } from '../visibility.js';

/**
 * A model-visible tool failure. Thrown from a tool handler it becomes
 * `{ isError: true, content: [{ type: "text", text: message }] }` (MCP 2025-11-25 server/tools.mdx "Error Handling");
 * any other exception is logged and answered with a generic `isError` result carrying none of its text.
 */
export class ToolError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ToolError';
  }
}

/**
 * `tools/list`: one page. A legacy-era client sees no `outputSchema` without an object root; at 2025-11-25
 * task-capable tools carry `execution.taskSupport`.
 */
export function listTools(host: FeatureHost, params: JsonRpcParams | undefined, ctx: unknown): Record<string, unknown> {
  const facts = (ctx as ServerRequestContext).facts;
  const registry = host.registry;
  const items = facts.era === 'modern' ? registry.list('tools') : facts.protocolVersion === CORE_TASKS_REVISION ? registry.toolsWithTaskSupport() : registry.legacyTools();
  return listPage(host, { kind: 'tools', items, params, ctx });
}

/**
 * `tools/call` (MCP 2025-11-25 server/tools.mdx "Error Handling"): unknown tool → -32602; arguments that
 * fail the inputSchema → `isError: true` with the validation message (SEP-1303, B40 — applied to every
 * revision so the behaviour is deterministic); a {@link ToolError} → `isError: true` with its message; any
 * other exception → `isError: true` with a generic text (the exception goes to the logger only). A synchronous
 * tool is answered in the same turn, with no promise and no object beyond the result.
 */
export class ToolCalls {
  readonly #host: FeatureHost;
  readonly #tasks: ToolTasks | undefined;

  /**
   * @param host the server's registry, logger and result checking
   * @param tasks where a task-capable tool's call may become a task
   */
  constructor(host: FeatureHost, tasks?: ToolTasks) {
    this.#host = host;
    this.#tasks = tasks;
  }

  /** Answers one `tools/call`; `ctx` is the dispatcher's handler context (a {@link ServerRequestContext}). */
  call(params: JsonRpcParams | undefined, ctx: unknown): CallToolResult | Promise<CallToolResult> {
    const p = paramsRecord(params);
    // A tool hidden from the caller is unknown to it: the same -32602 (visibility.ts).
    const { entry: tool, args: rawArgs } = namedCall(p, visibleLookup(this.#host, 'tools', ctx), 'tool');
    const call = withMeta(ctx, p);
    // Task-capable tools (and 2025-11-25 `params.task`) go to the task runner, which runs #execute itself.
    if (this.#tasks !== undefined && (tool.task !== undefined || p.task !== undefined)) {
      const routed = this.#tasks.route({ name: tool.descriptor.name, task: tool.task, params: p, ctx: call, run: (c) => this.#execute(tool, rawArgs, c) });
      if (routed !== undefined) return routed as unknown as Promise<CallToolResult>;
    }
    return this.#execute(tool, rawArgs, call);
  }

  #execute(tool: ToolEntry, rawArgs: Record<string, unknown>, call: ServerRequestContext): CallToolResult | Promise<CallToolResult> {
    const outcome = tool.input.validate(rawArgs);
    if (!(outcome instanceof Promise)) {
      if (outcome !== undefined && outcome.error !== undefined) return invalidArguments(tool, outcome.error);
      return this.#run(tool, outcome === undefined ? rawArgs : outcome.value, call);
    }
    return outcome.then((o) => (o.error !== undefined ? invalidArguments(tool, o.error) : this.#run(tool, o.value, call)));
  }

  #run(tool: ToolEntry, args: unknown, call: ServerRequestContext): CallToolResult | Promise<CallToolResult> {
    let result: CallToolResult | Promise<CallToolResult>;
    try {
      result = tool.handler(args as never, call);
    } catch (error) {
      return this.#failure(tool, error, call);
    }
    return result instanceof Promise
      ? result.then(
          (r) => this.#check(tool, r, call),
          (error: unknown) => this.#failure(tool, error, call),
        )
      : this.#check(tool, result, call);
  }

  /**
   * What an exception escaping a tool handler becomes. A missing client capability is -32021 from 2026-07-28
   * (MCP 2026-07-28 basic/index.mdx "Error Codes") and a tool error naming the capability before it; a wire
   * error the author threw is the answer; anything else, the client's own error answers included
   * (`ClientRequestError`), is a generic failure of the tool.
   */
  #failure(tool: ToolEntry, error: unknown, call: ServerRequestContext): CallToolResult {
    const name = tool.descriptor.name;
    if (error instanceof ToolError) return toolErrorResult(error.message);
    // An input request without an answer yet: the modern-era rules answer input_required (inputRound.ts).
    if (error instanceof InputRequiredSignal) throw error;
    if (error instanceof MissingClientCapabilityError) {
      const revision = call.facts.protocolVersion;
      if (revision !== undefined && !isLegacyRevision(revision)) throw error;
      const names = Object.keys(error.requiredCapabilities).map((n) => `"${n}"`).join(', ');
      return toolErrorResult(`Tool "${name}" failed: the client did not declare the ${names} capability`);
    }
    if (error instanceof JsonRpcError && !(error instanceof ResourceNotFoundError)) throw error;
    // B25: a server-to-client request that could not be sent says why (the text is this library's, never the
    // handler's): the client cannot answer it on this exchange.
    if (error instanceof JsonRpcLocalError && error.code === LocalErrorCode.SendFailed) return toolErrorResult(`Tool "${name}" failed: ${error.message}`);
    // A cancelled call gets no response at all (the Peer suppresses it); its abort is not a failure to report.
    if (call.signal.aborted) this.#host.logger.debug(`Tool "${name}" stopped after cancellation`, { error });
    else this.#host.logger.error(`Tool "${name}" failed`, { error });
    return toolErrorResult(`Tool "${name}" failed: internal error`);
  }

  #check(tool: ToolEntry, returned: CallToolResult, call: ServerRequestContext): CallToolResult | Promise<CallToolResult> {
    const name = tool.descriptor.name;
    const logger = this.#host.logger;
    const result = withTextBlock(returned);
    if (!isRecord(result) || !Array.isArray(result.content)) {
      logger.error(`Tool "${name}" returned a value that is not a CallToolResult (an object with a "content" array, or "structuredContent")`);
      throw new JsonRpcError(ErrorCode.InternalError, 'Internal error');
    }
    const problem = this.#host.checkResults ? toolContentProblem(result.content) : undefined;
    if (problem !== undefined) throw invalidResult(logger, `Tool "${name}"`, problem);
    // B41 / MCP 2025-06-18+ server/tools.mdx "Output Schema": a success result MUST conform to the outputSchema.
    if (tool.output === undefined || result.isError === true) return result;
    if (result.structuredContent === undefined) {
      throw invalidResult(logger, `Tool "${name}"`, 'no "structuredContent", which its outputSchema requires on success');
    }
    const verdict = (check: ValidationOutcome | undefined): CallToolResult => {
      if (check !== undefined && check.error !== undefined) {
        logger.error(`Tool "${name}" returned structuredContent that does not match its outputSchema: ${check.error}`);
        throw new JsonRpcError(ErrorCode.InternalError, 'Internal error');
      }
      // Up to 2025-11-25 structuredContent is an object (MCP 2025-11-25 server/tools.mdx "Structured Content"); a
      // legacy-era client gets any other value through the serialized text block alone.
      if (tool.legacyDescriptor !== undefined && call.facts.era !== 'modern' && !isRecord(result.structuredContent)) {
        const { structuredContent: _modernOnly, ...rest } = result;
        return rest;
      }
      return result;
    };
    const check = tool.output.validate(result.structuredContent);
    return check instanceof Promise ? check.then(verdict) : verdict(check);
  }
}

/**
 * A result with `structuredContent` and no `content` gets the serialized JSON as its one text block (MCP
 * 2026-07-28 server/tools.mdx "Structured Content": `content` is required, and a tool returning structured
 * content SHOULD also return it serialized in a text block).
 */
function withTextBlock(result: CallToolResult): CallToolResult {
  if (!isRecord(result) || result.content !== undefined || !Object.hasOwn(result, 'structuredContent')) return result;
  return { ...result, content: [{ type: 'text', text: JSON.stringify(result.structuredContent) }] };
}

function invalidArguments(tool: ToolEntry, problem: string): CallToolResult {
  return toolErrorResult(`Invalid arguments for tool "${tool.descriptor.name}": ${problem}`);
}

function toolErrorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
