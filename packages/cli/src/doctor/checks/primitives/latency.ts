/**
 * Latency and stability: `ping` (in the modern era, which has no `ping`, the client's `server/discover`) and the first
 * page of each declared list, three times each; the median goes to `measurements` (`latencyMs.ping`,
 * `latencyMs.tools/list`, …). A `tools/list` slower than {@link SLOW_LIST_MS} is read once only (the budget is
 * the user's) and reported. The `tools/list` reads are compared: a list whose names change between two reads in a
 * row is unstable (MCP 2026-07-28 server/tools.mdx "Capabilities": the set MAY change, announced by
 * `notifications/tools/list_changed`; the order SHOULD be deterministic). The doctor's client does not show the
 * checks its notifications, so a change from a server that declares `tools.listChanged` is reported as info: it may
 * have been announced.
 */
import { SLOW_LIST_MS } from '../../requirements/primitives.js';
import type { Check, CheckContext } from '../../types.js';
import { connectedClient, errorText } from './catalogue.js';
import type { ListMethod } from './pages.js';

/** Reads of each request. */
const ROUNDS = 3;

/** The median of a non-empty list of numbers. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toolNames(result: unknown): string[] | undefined {
  if (!isRecord(result) || !Array.isArray(result.tools)) return undefined;
  return result.tools.map((tool) => (isRecord(tool) && typeof tool.name === 'string' ? tool.name : JSON.stringify(tool)));
}

function compareNames(ctx: CheckContext, facts: { readonly first: readonly string[]; readonly second: readonly string[]; readonly listChanged: boolean }): void {
  const { first, second, listChanged } = facts;
  const added = second.filter((n) => !first.includes(n));
  const removed = first.filter((n) => !second.includes(n));
  const evidence = [`first read: ${JSON.stringify(first).slice(0, 240)}`, `second read: ${JSON.stringify(second).slice(0, 240)}`];
  if (added.length > 0 || removed.length > 0) {
    const change = [added.length > 0 ? `added ${added.map((n) => `"${n}"`).join(', ')}` : '', removed.length > 0 ? `removed ${removed.map((n) => `"${n}"`).join(', ')}` : ''].filter(Boolean).join(', ');
    ctx.report('primitives.list-unstable', {
      message: `Two reads of tools/list in a row differ: ${change}${listChanged ? ' (the server declares "listChanged": a notification may have announced it)' : ', and the server does not declare "listChanged"'}`,
      evidence,
      ...(listChanged ? { severity: 'info' as const } : {}),
    });
  } else if (first.some((n, i) => second[i] !== n)) {
    ctx.report('primitives.list-unstable', { message: 'Two reads of tools/list in a row list the same tools in a different order', evidence, severity: 'info' });
  }
}

async function measure(ctx: CheckContext): Promise<void> {
  const client = await connectedClient(ctx);
  if (client === undefined) return;
  const options = { timeoutMs: ctx.requestTimeoutMs, signal: ctx.signal };
  const now = (): number => ctx.env.now();
  ctx.progress('ping');
  const pings: number[] = [];
  for (let i = 0; i < ROUNDS && !ctx.signal.aborted; i++) {
    const started = now();
    try {
      await client.ping(options);
    } catch {
      // An unanswered ping is the protocol checks' to report; no latency is recorded.
      break;
    }
    pings.push(now() - started);
  }
  if (pings.length > 0) ctx.facts.measurements['latencyMs.ping'] = Math.round(median(pings));

  const capabilities = client.serverCapabilities as Record<string, unknown>;
  const lists: [ListMethod, boolean][] = [
    ['tools/list', isRecord(capabilities.tools)],
    ['resources/list', isRecord(capabilities.resources)],
    ['resources/templates/list', isRecord(capabilities.resources)],
    ['prompts/list', isRecord(capabilities.prompts)],
  ];
  const listChanged = isRecord(capabilities.tools) && capabilities.tools.listChanged === true;
  for (const [method, declared] of lists) {
    if (!declared || ctx.signal.aborted) continue;
    ctx.progress(`timing ${method}`);
    const times: number[] = [];
    const names: string[][] = [];
    for (let i = 0; i < ROUNDS && !ctx.signal.aborted; i++) {
      const started = now();
      let result: unknown;
      try {
        result = await client.request(method, {}, options);
      } catch (error) {
        // A failing list is the catalogue check's finding; a timeout here is slowness worth saying.
        if (method === 'tools/list' && (error as { code?: unknown }).code === 'request_timeout') {
          ctx.report('primitives.slow-list', { message: `tools/list gave no answer within ${ctx.requestTimeoutMs} ms`, evidence: [errorText(error)] });
        }
        break;
      }
      const elapsed = now() - started;
      times.push(elapsed);
      const listed = method === 'tools/list' ? toolNames(result) : undefined;
      if (listed !== undefined) names.push(listed);
      if (elapsed > SLOW_LIST_MS) break;
    }
    if (times.length === 0) continue;
    const typical = Math.round(median(times));
    ctx.facts.measurements[`latencyMs.${method}`] = typical;
    if (method !== 'tools/list') continue;
    if (typical > SLOW_LIST_MS) {
      ctx.report('primitives.slow-list', { message: `tools/list took ${typical} ms (above ${SLOW_LIST_MS} ms)`, evidence: times.map((t, i) => `read ${i + 1}: ${Math.round(t)} ms`) });
    }
    const [first, second] = names;
    if (first !== undefined && second !== undefined) compareNames(ctx, { first, second, listChanged });
  }
}

/** The latency check. */
export const LATENCY_CHECKS: readonly Check[] = [
  {
    id: 'primitives.latency',
    title: 'latency and list stability',
    area: 'primitives',
    transports: ['stdio', 'http'],
    requirements: ['primitives.slow-list', 'primitives.list-unstable'],
    run: measure,
  },
];
