/**
 * The demo server (examples/demo) through the official SDK client (@modelcontextprotocol/sdk 1.32.2), over
 * stdio (`main.js --stdio` as a child process) and Streamable HTTP (`main.js --port 0` as a child process):
 * every tool, resource, template, prompt and completion, with exact payloads where they are stable.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport as SdkTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, McpError, type ElicitRequest, type ElicitResult, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_FILE, buildDatabase } from '../examples/demo/data/build.mjs';
import { compilesReadOnly, openDemoDatabase } from '../examples/demo/database.js';
import { cpuSeconds } from './helpers/demoServer.js';
import { exitWithin, isAlive, stopByPid } from './helpers/process.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MAIN = path.join(ROOT, 'examples', 'demo', 'main.js');
/** Per-test bound (ms): the slowest test reads 600 rows and waits for an elicitation round trip. */
const TEST_MS = 15_000;

const SERVER_INFO = { name: 'switchboard-demo', version: '1.0.0' };
const NARROW = 'narrow the query or set limit to 500 or less';

/** A connected SDK client, what it recorded, and how it answers `elicitation/create`. */
interface Harness {
  readonly client: Client;
  readonly elicitRequests: ElicitRequest['params'][];
  /** What the SDK reported through `client.onerror` (e.g. a progress notification for an unknown token). */
  readonly errors: Error[];
  elicitAnswer: ElicitResult;
}

async function connect(transport: SdkTransport, opts: { elicitation?: boolean } = {}): Promise<Harness> {
  const elicitation = opts.elicitation ?? true;
  const client = new Client({ name: 'switchboard-demo-test', version: '1.0.0' }, { capabilities: elicitation ? { elicitation: {} } : {} });
  const h: Harness = { client, elicitRequests: [], errors: [], elicitAnswer: { action: 'decline' } };
  client.onerror = (error) => { h.errors.push(error); };
  if (elicitation) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      h.elicitRequests.push(request.params);
      return h.elicitAnswer;
    });
  }
  await client.connect(transport);
  return h;
}

const text = (t: string) => [{ type: 'text', text: t }];
const toolError = (t: string) => ({ content: text(t), isError: true });
/** An execute_sql success: the JSON text block and the same value as structuredContent. */
const sqlResult = (value: { columns: string[]; rows: unknown[][]; rowCount: number; truncated: boolean }) =>
  ({ content: text(JSON.stringify(value)), structuredContent: value });

async function readError(client: Client, uri: string): Promise<McpError> {
  try {
    await client.readResource({ uri });
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error(`reading ${uri} succeeded`);
}

/** Statements that write or change the connection: execute_sql refuses each, and so does the bytecode check alone. */
const WRITES = [
  'DELETE FROM orders', 'INSERT INTO orders (id) VALUES (99999)', 'UPDATE orders SET id = id', "ATTACH ':memory:' AS scratch", 'DETACH scratch',
  'PRAGMA writable_schema = ON', 'PRAGMA user_version = 3', 'PRAGMA query_only = OFF', "VACUUM INTO '/tmp/demo-copy.sqlite'", 'VACUUM',
  'WITH doomed AS (SELECT id FROM orders) DELETE FROM orders WHERE id IN doomed', 'WITH n AS (SELECT 99999) INSERT INTO orders (id) SELECT * FROM n',
  'BEGIN', 'COMMIT', 'SAVEPOINT s', 'RELEASE s', "REPLACE INTO products VALUES (1, 'x', 'y', 1)", 'CREATE TEMP TABLE t (x)', 'CREATE TABLE t (x)',
  'DROP TABLE orders', 'ANALYZE', 'REINDEX', 'SELECT 1; DELETE FROM orders',
];

/** Runs for minutes in SQLite (7,279³ rows counted), inside one sql.js `step()`. */
const RUNAWAY = 'SELECT count(*) FROM order_items a, order_items b, order_items c';
const TIME_LIMIT_ERROR = toolError('Query took longer than 5 s and was stopped: add a LIMIT or a WHERE clause');

/** How long (ms) `call` takes to settle. */
async function timed<T>(call: Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await call;
  return { value, ms: performance.now() - start };
}

/**
 * The behaviour every transport must show. `connectPlain` opens a second session without elicitation (over stdio, a
 * second server process); `getPid` is the server's process.
 */
function demoSuite(getHarness: () => Harness, connectPlain: () => Promise<Harness>, getPid: () => number) {
  it('initializes with the demo identity, capabilities and instructions', () => {
    const { client } = getHarness();
    expect(client.getServerVersion()).toEqual(SERVER_INFO);
    expect(client.getServerCapabilities()).toEqual({
      logging: {},
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    });
    expect(client.getInstructions()).toMatch(/^A sample shop database \(tables customers, products, orders, order_items\)/);
  });

  it('lists the four tools with their schemas (JSON Schema for execute_sql and get_time, zod for the others)', async () => {
    const { tools } = await getHarness().client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['execute_sql', 'convert', 'get_time', 'add_numbers']);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.execute_sql!.inputSchema).toEqual({
      type: 'object',
      properties: {
        query: { type: 'string', description: 'One SQLite SELECT, WITH or EXPLAIN statement' },
        limit: { type: 'integer', description: 'Maximum number of rows to return, 1-1000; above 500 rows the user is asked to confirm', default: 100 },
      },
      required: ['query'],
      additionalProperties: false,
    });
    expect(byName.execute_sql!.outputSchema).toMatchObject({ type: 'object', required: ['columns', 'rows', 'rowCount', 'truncated'] });
    expect(byName.execute_sql!.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(byName.convert!.inputSchema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        value: { type: 'number', description: 'The value to convert' },
        from: { type: 'string', description: 'Unit of the value, e.g. "km", "lb" or "C"' },
        to: { type: 'string', description: 'Unit to convert to, of the same kind' },
      },
      required: ['value', 'from', 'to'],
    });
    expect(byName.get_time!.inputSchema).toEqual({
      type: 'object',
      properties: { timezone: { type: 'string', description: 'IANA time zone, e.g. "Europe/Paris"', default: 'UTC' } },
      additionalProperties: false,
    });
    expect(byName.add_numbers!.outputSchema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { sum: { type: 'number' } },
      required: ['sum'],
    });
  });

  it('execute_sql returns columns and rows as structured content and as JSON text', async () => {
    const result = await getHarness().client.callTool({
      name: 'execute_sql',
      arguments: { query: 'SELECT id, name, category, price_cents FROM products WHERE id <= 3 ORDER BY id' },
    });
    expect(result).toEqual(sqlResult({
      columns: ['id', 'name', 'category', 'price_cents'],
      rows: [[1, 'Mechanical keyboard', 'peripherals', 8900], [2, 'Ergonomic mouse', 'peripherals', 4900], [3, 'USB-C hub', 'peripherals', 3900]],
      rowCount: 3,
      truncated: false,
    }));
    const counted = await getHarness().client.callTool({
      name: 'execute_sql',
      arguments: { query: "-- sizes\nWITH t(n) AS (SELECT count(*) FROM orders) SELECT n, (SELECT count(*) FROM order_items) AS items FROM t" },
    });
    expect(counted).toEqual(sqlResult({ columns: ['n', 'items'], rows: [[3000, 7279]], rowCount: 1, truncated: false }));
  }, TEST_MS);

  it('execute_sql stops at limit and says so', async () => {
    const result = await getHarness().client.callTool({ name: 'execute_sql', arguments: { query: 'SELECT id FROM customers ORDER BY id', limit: 2 } });
    expect(result).toEqual(sqlResult({ columns: ['id'], rows: [[1], [2]], rowCount: 2, truncated: true }));
  }, TEST_MS);

  it('execute_sql answers a limit out of range with a tool error the model can act on', async () => {
    const { client } = getHarness();
    expect(await client.callTool({ name: 'execute_sql', arguments: { query: 'SELECT 1', limit: 5000 } }))
      .toEqual(toolError('limit must be 1-1000; got 5000'));
    expect(await client.callTool({ name: 'execute_sql', arguments: { query: 'SELECT 1', limit: 0 } }))
      .toEqual(toolError('limit must be 1-1000; got 0'));
  }, TEST_MS);

  it('execute_sql refuses writes, several statements and other statement kinds; the data stays', async () => {
    const { client } = getHarness();
    const run = (query: string) => client.callTool({ name: 'execute_sql', arguments: { query } });
    expect(await run('DELETE FROM orders')).toEqual(toolError('Query refused: only SELECT, WITH and EXPLAIN statements may run; got "DELETE"'));
    // Starts with WITH, but SQLite's bytecode for it writes.
    expect(await run('WITH doomed AS (SELECT id FROM orders) DELETE FROM orders WHERE id IN doomed'))
      .toEqual(toolError('Query refused: the database is read-only: the statement would write'));
    expect(await run('SELECT 1; DROP TABLE orders')).toEqual(toolError('Query refused: query must be a single statement; got 2'));
    expect(await run('/* off */ PRAGMA query_only = OFF')).toEqual(toolError('Query refused: only SELECT, WITH and EXPLAIN statements may run; got "PRAGMA"'));
    expect(await run('  -- nothing\n')).toEqual(toolError('Query refused: query is empty: send one SELECT statement'));
    expect(await run('SELEC 1')).toEqual(toolError('SQLite error: near "SELEC": syntax error'));
    expect(await run('SELECT count(*) FROM orders')).toEqual(sqlResult({ columns: ['count(*)'], rows: [[3000]], rowCount: 1, truncated: false }));
  }, TEST_MS);

  it('execute_sql runs reads whose bytecode fills scratch tables (sorting, DISTINCT, IN, windows, recursive CTEs)', async () => {
    const { client } = getHarness();
    const run = (query: string) => client.callTool({ name: 'execute_sql', arguments: { query } });
    const rowsOf = async (query: string) => {
      const result = await run(query);
      expect(result.isError, `${query}: ${JSON.stringify(result.content)}`).toBeUndefined();
      return (result.structuredContent as { rows: unknown[][] }).rows;
    };
    expect((await rowsOf('SELECT DISTINCT city FROM customers')).length).toBeGreaterThan(1);
    expect(await rowsOf('SELECT * FROM customers ORDER BY city LIMIT 2')).toHaveLength(2);
    expect((await rowsOf('SELECT * FROM orders WHERE id IN (SELECT order_id FROM order_items WHERE quantity > 2)')).length).toBeGreaterThan(0);
    expect(await rowsOf('SELECT id, row_number() OVER (ORDER BY city) FROM customers')).toHaveLength(100);
    expect(await rowsOf('WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<10) SELECT x FROM c'))
      .toEqual(Array.from({ length: 10 }, (_, i) => [i + 1]));
    expect(await rowsOf('SELECT p.name, sum(oi.quantity) FROM order_items oi JOIN products p ON p.id=oi.product_id GROUP BY p.name ORDER BY 2 DESC LIMIT 5'))
      .toHaveLength(5);
  }, TEST_MS);

  it('execute_sql refuses every kind of write', async () => {
    const { client } = getHarness();
    for (const query of WRITES) {
      const result = await client.callTool({ name: 'execute_sql', arguments: { query } });
      expect(result, query).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/^Query refused: /) }] });
    }
    expect(await client.callTool({ name: 'execute_sql', arguments: { query: 'SELECT count(*) FROM orders' } }))
      .toMatchObject({ structuredContent: { rows: [[3000]] } });
  }, TEST_MS);

  it('execute_sql runs EXPLAIN QUERY PLAN', async () => {
    const result = await getHarness().client.callTool({
      name: 'execute_sql',
      arguments: { query: 'EXPLAIN QUERY PLAN SELECT * FROM orders WHERE customer_id = 3' },
    });
    expect(result.structuredContent).toMatchObject({ columns: ['id', 'parent', 'notused', 'detail'], rowCount: 1, truncated: false });
    expect(JSON.stringify(result.structuredContent)).toContain('USING INDEX orders_customer');
  }, TEST_MS);

  it('execute_sql reports progress every 200 rows when the client sent a progress token', async () => {
    const h = getHarness();
    const progress: Progress[] = [];
    const result = await h.client.callTool({ name: 'execute_sql', arguments: { query: 'SELECT id FROM orders ORDER BY id', limit: 500 } }, undefined, {
      onprogress: (p) => { progress.push(p); },
    });
    expect(progress).toEqual([
      { progress: 200, total: 500, message: 'Read 200 rows' },
      { progress: 400, total: 500, message: 'Read 400 rows' },
    ]);
    expect(result.structuredContent).toEqual({ columns: ['id'], rows: Array.from({ length: 500 }, (_, i) => [i + 1]), rowCount: 500, truncated: true });
    expect(h.errors.map((e) => e.message)).toEqual([]);
  }, TEST_MS);

  it('execute_sql asks the user before sending more than 500 rows: accepted, the rows come', async () => {
    const h = getHarness();
    h.elicitRequests.length = 0;
    h.elicitAnswer = { action: 'accept', content: { confirm: true } };
    const result = await h.client.callTool({ name: 'execute_sql', arguments: { query: 'SELECT id FROM orders ORDER BY id', limit: 600 } });
    expect(h.elicitRequests).toEqual([{
      mode: 'form',
      message: 'The query returned 600 rows (more were cut off by its limit). Send all 600 rows to the assistant?',
      requestedSchema: {
        type: 'object',
        properties: { confirm: { type: 'boolean', title: 'Send all rows', description: 'Send 600 rows', default: true } },
        required: ['confirm'],
      },
    }]);
    expect(result.structuredContent).toEqual({ columns: ['id'], rows: Array.from({ length: 600 }, (_, i) => [i + 1]), rowCount: 600, truncated: true });
  }, TEST_MS);

  it('execute_sql asks the user before sending more than 500 rows: declined, a tool error says what to do', async () => {
    const h = getHarness();
    h.elicitRequests.length = 0;
    h.elicitAnswer = { action: 'decline' };
    const result = await h.client.callTool({ name: 'execute_sql', arguments: { query: 'SELECT id FROM customers UNION ALL SELECT id FROM orders', limit: 1000 } });
    expect(h.elicitRequests).toHaveLength(1);
    expect(h.elicitRequests[0]!.message).toBe('The query returned 1000 rows (more were cut off by its limit). Send all 1000 rows to the assistant?');
    expect(result).toEqual(toolError(`The user did not confirm sending 1000 rows (decline): ${NARROW}`));
  }, TEST_MS);

  it('execute_sql does not hang when the client cannot elicit: a tool error explains', async () => {
    const plain = await connectPlain();
    try {
      const result = await plain.client.callTool({ name: 'execute_sql', arguments: { query: 'SELECT id FROM orders', limit: 501 } });
      expect(result).toEqual(toolError(
        'The result has 501 rows; more than 500 need the user\'s confirmation, and this client cannot ask for it '
        + `(no elicitation capability): ${NARROW}`,
      ));
      expect(await plain.client.callTool({ name: 'execute_sql', arguments: { query: 'SELECT id FROM orders', limit: 500 } }))
        .toMatchObject({ structuredContent: { rowCount: 500, truncated: true } });
    } finally {
      await plain.client.close();
    }
  }, TEST_MS);

  it('a runaway query runs off the event loop: other calls are answered meanwhile, and it stops at the time limit', async () => {
    const { client } = getHarness();
    const runaway = timed(client.callTool({ name: 'execute_sql', arguments: { query: RUNAWAY } }));
    const other = await connectPlain();
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (const c of [client, other.client]) {
        const sum = await timed(c.callTool({ name: 'add_numbers', arguments: { a: 1, b: 2 } }));
        expect(sum.value).toEqual({ content: text('3'), structuredContent: { sum: 3 } });
        expect(sum.ms).toBeLessThan(2000);
        const small = await timed(c.callTool({ name: 'execute_sql', arguments: { query: 'SELECT count(*) FROM products' } }));
        expect(small.value).toEqual(sqlResult({ columns: ['count(*)'], rows: [[40]], rowCount: 1, truncated: false }));
        expect(small.ms).toBeLessThan(2000);
      }
    } finally {
      await other.client.close();
    }
    const stopped = await runaway;
    expect(stopped.value).toEqual(TIME_LIMIT_ERROR);
    expect(stopped.ms).toBeGreaterThan(4500);
    expect(stopped.ms).toBeLessThan(9000);
    expect(await client.callTool({ name: 'execute_sql', arguments: { query: 'SELECT 1 AS one' } }))
      .toEqual(sqlResult({ columns: ['one'], rows: [[1]], rowCount: 1, truncated: false }));
  }, TEST_MS);

  it('cancelling a runaway query stops it (the server stops burning CPU) and the next query runs', async () => {
    const { client } = getHarness();
    const controller = new AbortController();
    const runaway = client.callTool({ name: 'execute_sql', arguments: { query: RUNAWAY } }, undefined, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 500));
    controller.abort();
    await expect(runaway).rejects.toThrow();
    const small = await timed(client.callTool({ name: 'execute_sql', arguments: { query: 'SELECT 2 AS two' } }));
    expect(small.value).toEqual(sqlResult({ columns: ['two'], rows: [[2]], rowCount: 1, truncated: false }));
    expect(small.ms).toBeLessThan(2000);
    const before = cpuSeconds(getPid());
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = cpuSeconds(getPid());
    // A query left running would burn a whole core: about 1 s of CPU in this second.
    if (before !== undefined && after !== undefined) expect(after - before).toBeLessThan(0.5);
  }, TEST_MS);

  it('convert handles length, mass and temperature, and names unknown or mismatched units', async () => {
    const { client } = getHarness();
    const convert = (value: number, from: string, to: string) => client.callTool({ name: 'convert', arguments: { value, from, to } });
    expect(await convert(10, 'km', 'miles')).toEqual({ content: text('10 km = 6.21371 mi') });
    expect(await convert(2, 'lb', 'g')).toEqual({ content: text('2 lb = 907.185 g') });
    expect(await convert(100, 'celsius', 'F')).toEqual({ content: text('100 C = 212 F') });
    expect(await convert(0, 'K', 'C')).toEqual({ content: text('0 K = -273.15 C') });
    expect(await convert(1, 'furlong', 'm')).toEqual(toolError(
      'Unknown unit: "furlong"; known units: km, m, cm, mm, mi, yd, ft, in (length); t, kg, g, mg, lb, oz (mass); C, F, K (temperature)',
    ));
    expect(await convert(1, 'kg', 'm')).toEqual(toolError('Cannot convert "kg" (mass) to "m" (length)'));
    expect(await convert(-500, 'C', 'K')).toEqual(toolError('Temperature below absolute zero: "-500 C"'));
    expect(await convert(1e308, 'km', 'mm')).toEqual(toolError('1e+308 km in mm: the result is not a finite number'));
    expect(await client.callTool({ name: 'convert', arguments: { value: 'ten', from: 'km', to: 'm' } }))
      .toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/^Invalid arguments for tool "convert": /) }] });
  }, TEST_MS);

  it('get_time gives the time in UTC by default and in an IANA zone, and refuses unknown zones', async () => {
    const { client } = getHarness();
    const check = async (args: Record<string, unknown>, offset: string, zone: string) => {
      const result = await client.callTool({ name: 'get_time', arguments: args });
      const body = (result.content as { text: string }[])[0]!.text;
      const m = new RegExp(`^(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d)(${offset.replace('+', '\\+')}) \\(${zone.replace('/', '\\/')}\\)$`).exec(body);
      expect(m, body).not.toBeNull();
      // The reported instant is now, give or take the round trip.
      expect(Math.abs(Date.parse(`${m![1]}${m![2]}`) - Date.now())).toBeLessThan(60_000);
    };
    await check({}, '+00:00', 'UTC');
    await check({ timezone: 'Asia/Tokyo' }, '+09:00', 'Asia/Tokyo');
    expect(await client.callTool({ name: 'get_time', arguments: { timezone: 'Mars/Olympus_Mons' } })).toEqual(toolError(
      'Unknown time zone: "Mars/Olympus_Mons"; use an IANA name such as "UTC", "Europe/Paris" or "America/New_York"',
    ));
  }, TEST_MS);

  it('add_numbers returns the sum as text and structured content', async () => {
    expect(await getHarness().client.callTool({ name: 'add_numbers', arguments: { a: 2, b: 3.5 } }))
      .toEqual({ content: text('5.5'), structuredContent: { sum: 5.5 } });
    expect(await getHarness().client.callTool({ name: 'add_numbers', arguments: { a: 1e308, b: 1e308 } }))
      .toEqual(toolError('1e+308 + 1e+308: the sum is not a finite number'));
  }, TEST_MS);

  it('lists a schema resource per table and reads each: CREATE statement, row count and columns', async () => {
    const { client } = getHarness();
    const { resources } = await client.listResources();
    const tables = { customers: 200, order_items: 7279, orders: 3000, products: 40 };
    expect(resources).toEqual(Object.entries(tables).map(([table, rows]) => ({
      uri: `sqlite://demo/schema/${table}`,
      name: `${table}-schema`,
      title: `Table ${table}`,
      description: `CREATE statement and columns of the "${table}" table (${rows} rows)`,
      mimeType: 'application/json',
    })));
    for (const [table, rows] of Object.entries(tables)) {
      const uri = `sqlite://demo/schema/${table}`;
      const { contents } = await client.readResource({ uri });
      expect(contents).toHaveLength(1);
      expect(contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
      const schema = JSON.parse((contents[0] as { text: string }).text) as Record<string, unknown>;
      expect(schema).toMatchObject({ table, rowCount: rows, sql: expect.stringMatching(new RegExp(`^CREATE TABLE ${table} \\(`)) });
    }
    const products = JSON.parse(((await client.readResource({ uri: 'sqlite://demo/schema/products' })).contents[0] as { text: string }).text);
    expect(products.columns).toEqual([
      { name: 'id', type: 'INTEGER', notNull: false, primaryKey: true, default: null },
      { name: 'name', type: 'TEXT', notNull: true, primaryKey: false, default: null },
      { name: 'category', type: 'TEXT', notNull: true, primaryKey: false, default: null },
      { name: 'price_cents', type: 'INTEGER', notNull: true, primaryKey: false, default: null },
    ]);
  }, TEST_MS);

  it('reads a row through the template, and a missing row or table is -32002', async () => {
    const { client } = getHarness();
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([{
      uriTemplate: 'sqlite://demo/{table}/{id}',
      name: 'table-row',
      title: 'Table row',
      description: 'One row of a table by its integer id, as JSON; tables: customers, order_items, orders, products',
      mimeType: 'application/json',
    }]);
    expect(await client.readResource({ uri: 'sqlite://demo/products/2' })).toEqual({
      contents: [{
        uri: 'sqlite://demo/products/2',
        mimeType: 'application/json',
        text: JSON.stringify({ id: 2, name: 'Ergonomic mouse', category: 'peripherals', price_cents: 4900 }),
      }],
    });
    for (const uri of ['sqlite://demo/orders/999999', 'sqlite://demo/invoices/1', 'sqlite://demo/orders/abc']) {
      const error = await readError(client, uri);
      expect(error.code).toBe(-32002);
      expect(error.message).toBe(`MCP error -32002: Resource not found: "${uri}"`);
      expect(error.data).toEqual({ uri });
    }
  }, TEST_MS);

  it('completes the template variables: table names, then ids of the chosen table', async () => {
    const { client } = getHarness();
    const ref = { type: 'ref/resource' as const, uri: 'sqlite://demo/{table}/{id}' };
    expect(await client.complete({ ref, argument: { name: 'table', value: 'or' } }))
      .toEqual({ completion: { values: ['order_items', 'orders'], total: 2, hasMore: false } });
    expect(await client.complete({ ref, argument: { name: 'id', value: '3' }, context: { arguments: { table: 'products' } } }))
      .toEqual({ completion: { values: ['3', '30', '31', '32', '33', '34', '35', '36', '37', '38', '39'], total: 11, hasMore: false } });
    const many = await client.complete({ ref, argument: { name: 'id', value: '' }, context: { arguments: { table: 'orders' } } });
    expect(many.completion).toEqual({ values: Array.from({ length: 100 }, (_, i) => String(i + 1)), total: 3000, hasMore: true });
  }, TEST_MS);

  it('gets the code_review prompt, with and without focus, and completes its language', async () => {
    const { client } = getHarness();
    const { prompts } = await client.listPrompts();
    expect(prompts).toEqual([{
      name: 'code_review',
      title: 'Code review',
      description: 'Asks for a review of code in a given language, optionally with a focus',
      arguments: [
        { name: 'language', description: 'Programming language of the code, e.g. "typescript"', required: true },
        { name: 'focus', description: 'What to look at most closely, e.g. "error handling" or "performance"', required: false },
      ],
    }]);
    const tail = 'Point out bugs, unclear names, missing error handling and missing tests, and suggest concrete changes with short examples.';
    expect(await client.getPrompt({ name: 'code_review', arguments: { language: 'rust', focus: 'error handling' } })).toEqual({
      description: 'Review of rust code',
      messages: [{ role: 'user', content: { type: 'text', text: `Please review the rust code I am about to share. Focus on error handling. ${tail}` } }],
    });
    expect(await client.getPrompt({ name: 'code_review', arguments: { language: 'go' } })).toEqual({
      description: 'Review of go code',
      messages: [{ role: 'user', content: { type: 'text', text: `Please review the go code I am about to share. ${tail}` } }],
    });
    await expect(client.getPrompt({ name: 'code_review', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    expect(await client.complete({ ref: { type: 'ref/prompt', name: 'code_review' }, argument: { name: 'language', value: 'ja' } }))
      .toEqual({ completion: { values: ['java', 'javascript'], total: 2, hasMore: false } });
  }, TEST_MS);

  it('the SDK client reported no protocol errors', () => {
    expect(getHarness().errors.map((e) => e.message)).toEqual([]);
  });
}

// ------------------------------------------------------------------------------------------------

describe('demo over stdio (main.js --stdio)', () => {
  let h: Harness | undefined;
  let pid: number | null = null;
  const stdio = () => new StdioClientTransport({ command: process.execPath, args: [MAIN, '--stdio'], cwd: ROOT, stderr: 'pipe' });

  beforeAll(async () => {
    const transport = stdio();
    h = await connect(transport);
    pid = transport.pid;
  });

  afterAll(async () => {
    await h?.client.close();
    if (pid !== null && isAlive(pid)) {
      try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
      throw new Error(`the demo stdio server (pid ${pid}) was still running after client.close()`);
    }
  });

  demoSuite(() => h!, () => connect(stdio(), { elicitation: false }), () => pid!);
});

describe('demo over Streamable HTTP (main.js --port 0)', () => {
  let child: ChildProcess | undefined;
  let h: Harness | undefined;
  let url = '';
  let stderr = '';
  let stdout = '';

  beforeAll(async () => {
    child = spawn(process.execPath, [MAIN, '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (c: Buffer) => { stdout += c.toString(); });
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL on stderr within 10 s: ${stderr}`)), 10_000);
      child!.stderr!.on('data', (c: Buffer) => {
        stderr += c.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/.exec(stderr);
        if (m && m[2] !== '0' && stderr.includes('Ctrl-C')) { clearTimeout(timer); resolve(m[1]!); }
      });
      child!.once('exit', (code) => { clearTimeout(timer); reject(new Error(`exited with ${code}: ${stderr}`)); });
    });
    h = await connect(new StreamableHTTPClientTransport(new URL(url)));
  });

  afterAll(async () => {
    await h?.client.close();
    stopByPid(child);
  });

  demoSuite(() => h!, () => connect(new StreamableHTTPClientTransport(new URL(url)), { elicitation: false }), () => child!.pid!);

  it('prints a host configuration with absolute paths on stderr, nothing on stdout', () => {
    const json = stderr.slice(stderr.indexOf('{\n'), stderr.lastIndexOf('\n}') + 2);
    expect(JSON.parse(json)).toEqual({
      mcpServers: {
        'switchboard-demo': { command: process.execPath, args: [MAIN, '--stdio'] },
        'switchboard-demo-http': { type: 'http', url },
      },
    });
    expect(stdout).toBe('');
  });

  it('exits 0 on SIGTERM, also while a runaway query runs (it is answered with the time-limit error first)', async () => {
    const runaway = h!.client.callTool({ name: 'execute_sql', arguments: { query: RUNAWAY } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    process.kill(child!.pid!, 'SIGTERM');
    expect(await runaway).toEqual(TIME_LIMIT_ERROR);
    expect(await exitWithin(child!, 5000)).toBe(0);
    await h?.client.close();
    h = undefined;
  }, TEST_MS);
});

describe('read-only check (database.js compilesReadOnly)', () => {
  it('finds a write in the bytecode of every write statement, not only by its first keyword', async () => {
    const db = await openDemoDatabase();
    try {
      for (const query of WRITES.filter((q) => !q.includes(';'))) expect(compilesReadOnly(db, query), query).toBe(false);
      expect(compilesReadOnly(db, 'SELECT DISTINCT city FROM customers ORDER BY 1')).toBe(true);
      expect(compilesReadOnly(db, "SELECT * FROM pragma_table_info('orders')")).toBe(true);
      expect(compilesReadOnly(db, 'WITH m AS MATERIALIZED (SELECT * FROM customers) SELECT * FROM m a JOIN m b ON a.id = b.id')).toBe(true);
    } finally {
      db.close();
    }
  });
});

describe('sample database', () => {
  it('data/build.mjs rebuilds data/shop.sqlite byte for byte', async () => {
    const bytes = await buildDatabase();
    expect(Buffer.compare(Buffer.from(bytes), readFileSync(DATABASE_FILE))).toBe(0);
  }, TEST_MS);
});
