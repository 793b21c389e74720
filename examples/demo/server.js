// @ts-check
/**
 * The Switchboard demo server: the usual MCP examples on a sample shop database.
 *
 * - tools: `execute_sql` (one read-only statement, in a worker thread with a time limit; progress, a confirmation through elicitation above
 *   {@link CONFIRM_ROWS} rows, structured output), `convert` (length, mass, temperature), `get_time` (an IANA time
 *   zone), `add_numbers` (structured output). `convert` and `add_numbers` use zod 4 schemas; the others plain
 *   JSON Schema.
 * - resources: `sqlite://demo/schema/<table>` per table; the template `sqlite://demo/{table}/{id}` for one row,
 *   with completions for both variables.
 * - prompt: `code_review` (`language` with completions, optional `focus`).
 *
 * `main.js` serves it over Streamable HTTP or stdio, in both eras (a dual-era server, the default of `McpServer`):
 * the session-based revisions (2024-11-05 … 2025-11-25, which open with `initialize`) and 2026-07-28 (each request
 * carries its own `_meta`; no session). The handlers are the same for both; only the confirmation above
 * {@link CONFIRM_ROWS} rows travels differently (see {@link confirmLargeResult}).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { McpServer, ToolError } from '@switchboard/mcp/server';
import { ResourceNotFoundError } from '@switchboard/mcp';
import { QueryRefusedError, describeColumns, jsonCell, listTables, openDemoDatabase } from './database.js';
import { QueryRunner, QueryTimeoutError } from './query-runner.js';

/** @typedef {import('@switchboard/mcp/server').RequestContext} RequestContext */
/** @typedef {import('@switchboard/mcp/server').JsonSchema} JsonSchema */
/** @typedef {import('@switchboard/mcp').CallToolResult} CallToolResult */
/** @typedef {import('./database.js').SqlDatabase} SqlDatabase */

/** The demo's `serverInfo`. */
export const SERVER_INFO = Object.freeze({ name: 'switchboard-demo', version: '1.0.0' });

/** How a model should use this server: sent in the `initialize` result, and in `server/discover` on 2026-07-28. */
export const INSTRUCTIONS = 'A sample shop database (tables customers, products, orders, order_items) and a few small utilities. '
  + 'Read sqlite://demo/schema/<table> for a table\'s columns before writing SQL; execute_sql runs one read-only SELECT. '
  + 'Prices are integers in cents; timestamps are ISO 8601 text in UTC.';

/** Default of `execute_sql`'s `limit`. */
export const DEFAULT_LIMIT = 100;
/** Largest `limit` `execute_sql` accepts. */
export const MAX_LIMIT = 1000;
/** Above this many rows `execute_sql` asks the user (an `elicitation/create` form) before sending them. */
export const CONFIRM_ROWS = 500;
/** `execute_sql` reports progress after every this many rows (when the client sent a progress token). */
export const PROGRESS_EVERY_ROWS = 200;
/**
 * Pause (ms) between the last progress notification and the result. The official SDK client handles a
 * notification asynchronously but a response synchronously, so when both arrive in one read it has already
 * forgotten the progress token and reports the notification as an error (modelcontextprotocol/typescript-sdk#2580).
 */
const PROGRESS_SETTLE_MS = 50;

/** Languages offered by `code_review`'s `language` completion. */
export const LANGUAGES = Object.freeze(['bash', 'c', 'c#', 'c++', 'clojure', 'css', 'dart', 'elixir', 'erlang', 'go', 'haskell',
  'html', 'java', 'javascript', 'julia', 'kotlin', 'lua', 'ocaml', 'perl', 'php', 'python', 'r', 'ruby', 'rust', 'scala',
  'sql', 'swift', 'typescript', 'zig']);

/**
 * Units `convert` knows, by category. Linear units carry their size in the category's base unit (metre,
 * kilogram); temperatures convert through kelvin.
 * @type {Readonly<Record<string, { category: 'length' | 'mass', factor: number } | { category: 'temperature', toKelvin: (v: number) => number, fromKelvin: (k: number) => number }>>}
 */
const UNITS = {
  km: { category: 'length', factor: 1000 },
  m: { category: 'length', factor: 1 },
  cm: { category: 'length', factor: 0.01 },
  mm: { category: 'length', factor: 0.001 },
  mi: { category: 'length', factor: 1609.344 },
  yd: { category: 'length', factor: 0.9144 },
  ft: { category: 'length', factor: 0.3048 },
  in: { category: 'length', factor: 0.0254 },
  t: { category: 'mass', factor: 1000 },
  kg: { category: 'mass', factor: 1 },
  g: { category: 'mass', factor: 0.001 },
  mg: { category: 'mass', factor: 0.000_001 },
  lb: { category: 'mass', factor: 0.453_592_37 },
  oz: { category: 'mass', factor: 0.028_349_523_125 },
  C: { category: 'temperature', toKelvin: (v) => v + 273.15, fromKelvin: (k) => k - 273.15 },
  F: { category: 'temperature', toKelvin: (v) => ((v - 32) * 5) / 9 + 273.15, fromKelvin: (k) => ((k - 273.15) * 9) / 5 + 32 },
  K: { category: 'temperature', toKelvin: (v) => v, fromKelvin: (k) => k },
};
/** Other spellings accepted by `convert` (matched case-insensitively), to the symbols of {@link UNITS}. */
const UNIT_ALIASES = new Map(Object.entries({
  kilometer: 'km', kilometre: 'km', meter: 'm', metre: 'm', centimeter: 'cm', centimetre: 'cm', millimeter: 'mm', millimetre: 'mm',
  mile: 'mi', yard: 'yd', foot: 'ft', feet: 'ft', inch: 'in', inches: 'in', tonne: 't', kilogram: 'kg', gram: 'g', milligram: 'mg',
  pound: 'lb', lbs: 'lb', ounce: 'oz', celsius: 'C', c: 'C', fahrenheit: 'F', f: 'F', kelvin: 'K', k: 'K',
}));
/** The known symbols by category, for error messages: `km, m, … (length); …`. */
const KNOWN_UNITS = ['length', 'mass', 'temperature']
  .map((category) => `${Object.keys(UNITS).filter((u) => UNITS[u]?.category === category).join(', ')} (${category})`)
  .join('; ');

/** @param {string} text @returns {CallToolResult} */
function textResult(text) {
  return { content: [{ type: 'text', text }] };
}

/** @param {unknown} error */
function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The symbol of a unit name, or a model-readable error.
 * @param {string} name
 */
function resolveUnit(name) {
  const trimmed = name.trim();
  const lower = trimmed.toLowerCase();
  const symbol = [trimmed, lower].find((candidate) => Object.hasOwn(UNITS, candidate))
    ?? UNIT_ALIASES.get(lower) ?? UNIT_ALIASES.get(lower.replace(/s$/, ''));
  const unit = symbol === undefined ? undefined : UNITS[symbol];
  if (symbol === undefined || unit === undefined) throw new ToolError(`Unknown unit: "${name}"; known units: ${KNOWN_UNITS}`);
  return { symbol, unit };
}

/**
 * Converts `value` between two units of one category.
 * @param {number} value
 * @param {string} fromName
 * @param {string} toName
 * @returns {{ value: number, from: string, to: string }} the result rounded to 6 significant digits, and the unit symbols
 * @throws ToolError for an unknown unit, units of different categories, or a temperature below absolute zero
 */
export function convertUnits(value, fromName, toName) {
  const from = resolveUnit(fromName);
  const to = resolveUnit(toName);
  if (from.unit.category !== to.unit.category) {
    throw new ToolError(`Cannot convert "${from.symbol}" (${from.unit.category}) to "${to.symbol}" (${to.unit.category})`);
  }
  let result;
  if (from.unit.category === 'temperature' && to.unit.category === 'temperature') {
    const kelvin = from.unit.toKelvin(value);
    if (kelvin < 0) throw new ToolError(`Temperature below absolute zero: "${value} ${from.symbol}"`);
    result = to.unit.fromKelvin(kelvin);
  } else if (from.unit.category !== 'temperature' && to.unit.category !== 'temperature') {
    result = (value * from.unit.factor) / to.unit.factor;
  } else {
    throw new ToolError(`Cannot convert "${from.symbol}" to "${to.symbol}"`);
  }
  if (!Number.isFinite(result)) throw new ToolError(`${value} ${from.symbol} in ${to.symbol}: the result is not a finite number`);
  return { value: Number(result.toPrecision(6)), from: from.symbol, to: to.symbol };
}

/**
 * The current time in `timeZone` as ISO 8601 with its UTC offset, e.g. `2026-12-01T11:30:00+01:00`.
 * @param {string} timeZone an IANA time zone name
 * @param {Date} [now]
 * @returns {{ timeZone: string, iso: string }} the canonical zone name and the local time
 * @throws ToolError when `Intl` does not know the zone
 */
export function timeIn(timeZone, now = new Date()) {
  let format;
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit',
      hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'longOffset',
    });
  } catch {
    throw new ToolError(`Unknown time zone: "${timeZone}"; use an IANA name such as "UTC", "Europe/Paris" or "America/New_York"`);
  }
  /** @type {Record<string, string>} */
  const parts = {};
  for (const part of format.formatToParts(now)) parts[part.type] = part.value;
  const offset = (parts.timeZoneName ?? 'GMT').replace(/^GMT/, '') || '+00:00';
  return {
    timeZone: format.resolvedOptions().timeZone,
    iso: `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`,
  };
}

const EXECUTE_SQL_INPUT = /** @type {const} */ ({
  type: 'object',
  properties: {
    query: { type: 'string', description: 'One SQLite SELECT, WITH or EXPLAIN statement' },
    limit: {
      type: 'integer',
      description: `Maximum number of rows to return, ${1}-${MAX_LIMIT}; above ${CONFIRM_ROWS} rows the user is asked to confirm`,
      default: DEFAULT_LIMIT,
    },
  },
  required: ['query'],
  additionalProperties: false,
});

const EXECUTE_SQL_OUTPUT = /** @type {const} */ ({
  type: 'object',
  properties: {
    columns: { type: 'array', items: { type: 'string' }, description: 'Column names, in order' },
    rows: {
      type: 'array',
      description: 'One array of cell values per row (blobs as base64 text)',
      items: { type: 'array', items: { type: ['string', 'number', 'null'] } },
    },
    rowCount: { type: 'integer', description: 'Number of rows in "rows"' },
    truncated: { type: 'boolean', description: 'Whether the query had more rows than "limit"' },
  },
  required: ['columns', 'rows', 'rowCount', 'truncated'],
  additionalProperties: false,
});

const GET_TIME_INPUT = /** @type {const} */ ({
  type: 'object',
  properties: { timezone: { type: 'string', description: 'IANA time zone, e.g. "Europe/Paris"', default: 'UTC' } },
  additionalProperties: false,
});

/**
 * Runs `query` in a worker thread and shapes the `execute_sql` result.
 * @param {QueryRunner} queries
 * @param {import('@switchboard/mcp/server').ToolArgs<typeof EXECUTE_SQL_INPUT>} args
 * @param {RequestContext} ctx
 * @returns {Promise<import('@switchboard/mcp/server').ToolResult<typeof EXECUTE_SQL_OUTPUT>>}
 */
async function executeSql(queries, { query, limit = DEFAULT_LIMIT }, ctx) {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new ToolError(`limit must be 1-${MAX_LIMIT}; got ${limit}`);
  const wantsProgress = ctx.requestMeta?.progressToken !== undefined;
  // Notifications go out in order, and all of them before the result.
  let progressSent = Promise.resolve();
  let reported = false;
  /** @param {number} count */
  const onProgress = (count) => {
    reported = true;
    progressSent = progressSent.then(() => ctx.progress(count, limit, `Read ${count} rows`)).catch(() => { /* session gone */ });
  };
  let result;
  try {
    result = await queries.run(query, {
      limit, progressEvery: PROGRESS_EVERY_ROWS, signal: ctx.signal, ...(wantsProgress ? { onProgress } : {}),
    });
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    if (error instanceof QueryRefusedError) throw new ToolError(`Query refused: ${error.message}`);
    if (error instanceof QueryTimeoutError) throw new ToolError(error.message);
    throw new ToolError(`SQLite error: ${messageOf(error)}`, { cause: error });
  }
  await progressSent;
  if (reported) await sleep(PROGRESS_SETTLE_MS, undefined, { signal: ctx.signal });

  const { columns, rows, truncated } = result;
  if (rows.length > CONFIRM_ROWS) await confirmLargeResult(rows.length, truncated, ctx);
  const structuredContent = { columns, rows, rowCount: rows.length, truncated };
  return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
}

/** The key of the confirmation in a 2026-07-28 `input_required` result (`inputRequests`) and in the retry's `inputResponses`. */
export const CONFIRM_KEY = 'confirm_rows';

/**
 * Asks the user (an `elicitation/create` form) whether `count` rows may be sent; returns when they may.
 *
 * On a session this is a request to the client, answered while the call waits. On 2026-07-28 there are no requests
 * to the client: the call is answered `input_required` with the same form under {@link CONFIRM_KEY}, and the client
 * sends the call again with the user's answer. `execute_sql` then runs again from the start, query included, and
 * `ctx.elicit` resolves at once with that answer (MCP 2026-07-28 basic/patterns/mrtr.mdx). Running the query twice
 * is harmless because it only reads: work done before such a question must be safe to repeat.
 * @param {number} count
 * @param {boolean} truncated
 * @param {RequestContext} ctx
 * @throws ToolError when the client cannot ask, or the user declines or cancels
 */
async function confirmLargeResult(count, truncated, ctx) {
  const narrow = `narrow the query or set limit to ${CONFIRM_ROWS} or less`;
  if (ctx.clientCapabilities.elicitation === undefined) {
    throw new ToolError(`The result has ${count} rows; more than ${CONFIRM_ROWS} need the user's confirmation, and this client `
      + `cannot ask for it (no elicitation capability): ${narrow}`);
  }
  let answer;
  try {
    // On 2026-07-28 a first attempt rejects here too (the answer is not there yet); whatever the handler throws then,
    // the call is answered input_required.
    answer = await ctx.elicit({
      mode: 'form',
      message: `The query returned ${count} rows${truncated ? ' (more were cut off by its limit)' : ''}. Send all ${count} rows to the assistant?`,
      requestedSchema: {
        type: 'object',
        properties: { confirm: { type: 'boolean', title: 'Send all rows', description: `Send ${count} rows`, default: true } },
        required: ['confirm'],
      },
    }, { key: CONFIRM_KEY });
  } catch (error) {
    throw new ToolError(`Could not ask the user to confirm ${count} rows: ${messageOf(error)}`, { cause: error });
  }
  if (answer.action !== 'accept' || answer.content?.confirm !== true) {
    throw new ToolError(`The user did not confirm sending ${count} rows (${answer.action}): ${narrow}`);
  }
}

/**
 * Builds the demo server on an open database (see {@link openDemoDatabase}). `execute_sql` runs in worker
 * threads with their own copies of the sample database ({@link QueryRunner}); `server.close()` also
 * terminates them.
 * @param {SqlDatabase} db the sample database, read-only (resources and completions)
 * @param {import('@switchboard/mcp/server').McpServerOptions & { queries?: QueryRunner }} [options] extra server
 *   options (logger …); `queries` defaults to a new {@link QueryRunner} on the sample database
 * @returns {McpServer}
 */
export function createDemoServer(db, options = {}) {
  const { queries = new QueryRunner(), ...serverOptions } = options;
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS, ...serverOptions });
  const closeSessions = server.close.bind(server);
  server.close = async () => {
    try {
      await closeSessions();
    } finally {
      await queries.close();
    }
  };

  // ===== Tools =====

  server.tool('execute_sql', {
    title: 'Run a read-only SQL query',
    description: 'Runs one read-only SQLite statement (SELECT, WITH or EXPLAIN) on the shop database and returns its '
      + `columns and rows (at most "limit", default ${DEFAULT_LIMIT}). Tables: customers, products, orders, order_items.`,
    inputSchema: EXECUTE_SQL_INPUT,
    outputSchema: EXECUTE_SQL_OUTPUT,
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, (args, ctx) => executeSql(queries, args, ctx));

  server.tool('convert', {
    title: 'Convert units',
    description: `Converts a value between units of length, mass or temperature. Units: ${KNOWN_UNITS}.`,
    inputSchema: z.object({
      value: z.number().describe('The value to convert'),
      from: z.string().describe('Unit of the value, e.g. "km", "lb" or "C"'),
      to: z.string().describe('Unit to convert to, of the same kind'),
    }),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  }, (/** @type {{ value: number, from: string, to: string }} */ { value, from, to }) => {
    const result = convertUnits(value, from, to);
    return textResult(`${value} ${result.from} = ${result.value} ${result.to}`);
  });

  server.tool('get_time', {
    title: 'Current time',
    description: 'The current date and time in an IANA time zone (default UTC), as ISO 8601 with the UTC offset.',
    inputSchema: GET_TIME_INPUT,
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, (/** @type {{ timezone?: string }} */ { timezone = 'UTC' }) => {
    const { timeZone, iso } = timeIn(timezone);
    return textResult(`${iso} (${timeZone})`);
  });

  server.tool('add_numbers', {
    title: 'Add two numbers',
    description: 'Adds a and b.',
    inputSchema: z.object({ a: z.number().describe('First addend'), b: z.number().describe('Second addend') }),
    outputSchema: z.object({ sum: z.number() }),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  }, (/** @type {{ a: number, b: number }} */ { a, b }) => {
    const sum = a + b;
    if (!Number.isFinite(sum)) throw new ToolError(`${a} + ${b}: the sum is not a finite number`);
    return { content: [{ type: 'text', text: String(sum) }], structuredContent: { sum } };
  });

  // ===== Resources =====

  const tables = listTables(db);
  const tableNames = new Set(tables.map((t) => t.name));
  for (const { name, sql } of tables) {
    const columns = describeColumns(db, name);
    const [counted] = db.exec(`SELECT count(*) FROM "${name}"`);
    const rowCount = Number(counted?.values[0]?.[0] ?? 0);
    const text = JSON.stringify({ table: name, rowCount, sql, columns }, null, 2);
    server.resource(`sqlite://demo/schema/${name}`, {
      name: `${name}-schema`,
      title: `Table ${name}`,
      description: `CREATE statement and columns of the "${name}" table (${rowCount} rows)`,
      mimeType: 'application/json',
    }, (uri) => ({ contents: [{ uri, mimeType: 'application/json', text }] }));
  }

  server.resourceTemplate('sqlite://demo/{table}/{id}', {
    name: 'table-row',
    title: 'Table row',
    description: `One row of a table by its integer id, as JSON; tables: ${[...tableNames].join(', ')}`,
    mimeType: 'application/json',
    complete: {
      table: (value) => [...tableNames].filter((name) => name.startsWith(value)),
      id: (value, { arguments: given }) => {
        const table = given.table;
        if (table === undefined || !tableNames.has(table)) return [];
        const [ids] = db.exec(`SELECT id FROM "${table}" WHERE CAST(id AS TEXT) LIKE ? || '%' ORDER BY id`, [value.replace(/[%_]/g, '')]);
        return (ids?.values ?? []).map(([id]) => String(id));
      },
    },
  }, (uri, variables) => {
    const table = String(variables.table);
    const id = String(variables.id);
    const row = tableNames.has(table) && /^\d{1,15}$/.test(id)
      ? db.exec(`SELECT * FROM "${table}" WHERE id = ?`, [Number(id)])[0]
      : undefined;
    const values = row?.values[0];
    if (row === undefined || values === undefined) {
      throw new ResourceNotFoundError(uri);
    }
    const record = Object.fromEntries(row.columns.map((column, i) => [column, jsonCell(values[i] ?? null)]));
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(record) }] };
  });

  // ===== Prompts =====

  server.prompt('code_review', {
    title: 'Code review',
    description: 'Asks for a review of code in a given language, optionally with a focus',
    arguments: [
      { name: 'language', description: 'Programming language of the code, e.g. "typescript"', required: true },
      { name: 'focus', description: 'What to look at most closely, e.g. "error handling" or "performance"', required: false },
    ],
    complete: { language: (value) => LANGUAGES.filter((language) => language.startsWith(value.toLowerCase())) },
  }, ({ language, focus }) => ({
    description: `Review of ${language} code`,
    messages: [{
      role: 'user',
      content: {
        type: 'text',
        text: `Please review the ${language} code I am about to share. `
          + (focus === undefined || focus === '' ? '' : `Focus on ${focus}. `)
          + 'Point out bugs, unclear names, missing error handling and missing tests, and suggest concrete changes with short examples.',
      },
    }],
  }));

  return server;
}

export { openDemoDatabase };
