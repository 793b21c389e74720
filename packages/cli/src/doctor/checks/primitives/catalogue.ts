/**
 * The catalogue checks: read each list the server's capabilities declare (and probe those it does not declare),
 * then hold what was listed to the definition rules, then estimate what the tool list costs a model's context.
 */
import { toolSearchTools } from '@switchboard/mcp';
import type { McpClient } from '@switchboard/mcp/client';
import { TOKEN_ERROR, TOKEN_WARNING } from '../../requirements/primitives.js';
import type { Check, CheckContext } from '../../types.js';
import { catalogueProblems } from './definitions.js';
import { HOST_SCHEMA_RULES } from './hostSchemaRules.js';
import { LIST_METHODS, quote, readList, type ListMethod, type ListOutcome } from './pages.js';
import { catalogueTokens, tokenMethodText } from './tokenCount.js';

/** The capability that declares each list. */
const CAPABILITY: Readonly<Record<ListMethod, 'tools' | 'resources' | 'prompts'>> = {
  'tools/list': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resources',
  'prompts/list': 'prompts',
};

/** The budget of a probe of a list the server does not declare, milliseconds. */
const PROBE_TIMEOUT_MS = 2_000;

/** The connected client, or `undefined` when the connect step's client cannot be had (the connect step says why). */
export async function connectedClient(ctx: CheckContext): Promise<McpClient | undefined> {
  try {
    return await ctx.client();
  } catch {
    return undefined;
  }
}

/** A wire error's code and message, or a local error's text, for evidence. */
export function errorText(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (typeof code === 'number') return `JSON-RPC error ${code}: ${typeof message === 'string' ? message : ''}`;
    if (typeof message === 'string') return message;
  }
  return String(error);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function distinct(items: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const text = JSON.stringify(item);
    if (seen.has(text)) return false;
    seen.add(text);
    return true;
  });
}

function reportDeclared(ctx: CheckContext, method: ListMethod, outcome: ListOutcome): void {
  switch (outcome.kind) {
    case 'complete':
      return;
    case 'endless': {
      const why = outcome.stop === 'cursor-loop' ? `the cursor ${JSON.stringify(outcome.cursor)} was answered twice with the same page` : `there was still a "nextCursor" after ${outcome.pages} pages`;
      const evidence = outcome.stop === 'cursor-loop' ? [`→ ${quote({ method, params: { cursor: outcome.cursor } })}`, `← ${outcome.answer}`] : [`last cursor sent: ${quote(outcome.cursor)}`];
      ctx.report('primitives.endless-pagination', { message: `Pagination of ${method} never ends: ${why} (stopped after ${outcome.pages} pages)`, evidence });
      return;
    }
    case 'malformed':
      ctx.report('primitives.list-failed', { message: `The ${method} result is malformed: ${outcome.reason}`, evidence: [outcome.answer] });
      return;
    case 'failed':
      ctx.report('primitives.list-failed', { message: `The server declares "${CAPABILITY[method]}" but ${method} failed${outcome.pages > 0 ? ` on page ${outcome.pages + 1}` : ''}: ${errorText(outcome.error)}`, evidence: [errorText(outcome.error)] });
      return;
  }
}

/** Reads each list; fills `facts.tools`, `resources`, `resourceTemplates`, `prompts` for the declared ones. */
async function readCatalogue(ctx: CheckContext): Promise<void> {
  const client = await connectedClient(ctx);
  if (client === undefined) return;
  const capabilities = client.serverCapabilities as Record<string, unknown>;
  for (const method of Object.keys(LIST_METHODS) as ListMethod[]) {
    if (ctx.signal.aborted) return;
    const declared = isRecord(capabilities[CAPABILITY[method]]);
    ctx.progress(`reading ${method}`);
    // An undeclared list is only probed: a server that never answers unknown methods must not cost the whole budget.
    const timeoutMs = declared ? ctx.requestTimeoutMs : Math.min(ctx.requestTimeoutMs, PROBE_TIMEOUT_MS);
    const outcome = await readList({ client, method, timeoutMs, signal: ctx.signal, now: () => ctx.env.now() });
    if (ctx.signal.aborted) return;
    if (declared) {
      reportDeclared(ctx, method, outcome);
      if (outcome.kind === 'complete') ctx.facts[LIST_METHODS[method]] = outcome.items;
      // A looping list repeats its pages: the items it kept repeating are its finding, not duplicates as well.
      else if (outcome.kind === 'endless') ctx.facts[LIST_METHODS[method]] = distinct(outcome.items);
    } else if (outcome.kind === 'complete' || outcome.kind === 'endless') {
      // Answered without the capability: a client that follows the capabilities never sees these items.
      const count = outcome.items.length;
      ctx.report('primitives.list-not-declared', {
        message: `${method} answered with ${count} item${count === 1 ? '' : 's'} although the server does not declare "${CAPABILITY[method]}"`,
        evidence: [`capabilities: ${quote(capabilities, 300)}`, `${method} → ${quote(outcome.items.slice(0, 3), 300)}`],
        ...(count === 0 ? { severity: 'info' as const } : {}),
      });
    }
  }
}

async function checkDefinitions(ctx: CheckContext): Promise<void> {
  const { tools, resources, resourceTemplates, prompts } = ctx.facts;
  if (tools === undefined && resources === undefined && resourceTemplates === undefined && prompts === undefined) return;
  const client = await connectedClient(ctx);
  if (client === undefined) return;
  const catalogue = { ...(tools === undefined ? {} : { tools }), ...(resources === undefined ? {} : { resources }), ...(resourceTemplates === undefined ? {} : { resourceTemplates }), ...(prompts === undefined ? {} : { prompts }) };
  for (const problem of await catalogueProblems(catalogue, client.protocolVersion)) {
    ctx.report(problem.id, { message: problem.message, evidence: problem.evidence, revision: client.protocolVersion, ...(problem.severity === undefined ? {} : { severity: problem.severity }) });
  }
}

/**
 * What `tools/list` would cost in tool-search mode: a search tool and a call tool listed instead of the catalog
 * (`toolSearchTools`: Switchboard's `McpServerOptions.toolSearch`, FastMCP's search transforms), so the operator sees
 * what the mode would save. The pinned tools a server might keep listed are not counted.
 */
async function searchModeTokens(ctx: CheckContext): Promise<number> {
  const { total } = await catalogueTokens(toolSearchTools() as unknown as readonly Readonly<Record<string, unknown>>[], 0, ctx.signal);
  return total;
}

async function checkTokens(ctx: CheckContext): Promise<void> {
  const tools = ctx.facts.tools;
  if (tools === undefined) return;
  const { total, method, largest } = await catalogueTokens(tools, 3, ctx.signal);
  // An estimate is reported under its own key, so that a reader of the JSON never takes it for an o200k_base count.
  const estimated = method === 'o200k_base' ? '' : 'Estimated';
  ctx.facts.measurements[`tools/list.tokens${estimated}`] = total;
  const withSearch = tools.length === 0 ? undefined : await searchModeTokens(ctx);
  if (withSearch !== undefined) ctx.facts.measurements[`tools/list.tokensWithSearch${estimated}`] = withSearch;
  const searchText = withSearch === undefined ? '' : `; listed as tool search (search_tools + call_tool) about ${withSearch.toLocaleString('en-US')}`;
  ctx.progress(`${tools.length} tools, about ${total} tokens (${tokenMethodText(method)})${searchText}`);
  if (total > TOKEN_WARNING) {
    ctx.report('primitives.token-cost', {
      message: `The ${tools.length.toLocaleString('en-US')} tools cost about ${total.toLocaleString('en-US')} tokens of a model's context (${tokenMethodText(method)}), above ${(total >= TOKEN_ERROR ? TOKEN_ERROR : TOKEN_WARNING).toLocaleString('en-US')}${searchText}`,
      evidence: largest.map((t) => `largest tool: ${t.name} (${t.tokens.toLocaleString('en-US')} tokens)`),
      ...(total >= TOKEN_ERROR ? { severity: 'error' as const } : {}),
    });
  }
}

/** The catalogue checks, in order. */
export const CATALOGUE_CHECKS: readonly Check[] = [
  {
    id: 'primitives.catalogue',
    title: 'tools, resources and prompts lists',
    area: 'primitives',
    transports: ['stdio', 'http'],
    requirements: ['primitives.list-not-declared', 'primitives.list-failed', 'primitives.endless-pagination'],
    run: readCatalogue,
  },
  {
    id: 'primitives.definitions',
    title: 'tool definitions and schemas',
    area: 'primitives',
    transports: ['stdio', 'http'],
    requirements: [
      'primitives.input-schema-not-object',
      'primitives.input-schema-invalid',
      'primitives.schema-dialect',
      'primitives.schema-unresolved-ref',
      ...HOST_SCHEMA_RULES.map((rule) => `primitives.host-${rule.id}`),
      'primitives.tool-name-invalid',
      'primitives.duplicate-name',
      'primitives.item-invalid',
      'primitives.missing-description',
      'primitives.output-schema-invalid',
    ],
    run: checkDefinitions,
  },
  {
    id: 'primitives.token-cost',
    title: 'tool catalogue token cost',
    area: 'primitives',
    transports: ['stdio', 'http'],
    requirements: ['primitives.token-cost'],
    run: checkTokens,
  },
];
