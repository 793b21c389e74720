// @ts-check
/**
 * The demo's sample database: `data/shop.sqlite` loaded into an in-memory sql.js (WebAssembly SQLite)
 * database that refuses every write, and the read-only query runner behind the `execute_sql` tool.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import initSqlJs from 'sql.js';

/** The shipped sample database (rebuild it with `node examples/demo/data/build.mjs`). */
export const DATABASE_FILE = fileURLToPath(new URL('./data/shop.sqlite', import.meta.url));

/** @typedef {import('sql.js').SqlValue} SqlValue */
/** @typedef {import('sql.js').Statement} SqlStatement */
/** @typedef {import('sql.js').Database} SqlDatabase */

/**
 * VDBE opcodes that change a real database, the schema, a transaction or the connection, wherever they appear.
 * Together with a write `Transaction` (its P2 operand is non-zero) and the cursor writes below, these are what
 * SQLite itself looks at when it decides whether a prepared statement is read-only (`sqlite3_stmt_readonly`,
 * which sql.js does not export).
 */
const WRITE_OPCODES = new Set([
  'OpenWrite', 'Clear', 'CreateBtree', 'Destroy', 'DropTable', 'DropIndex', 'DropTrigger', 'ParseSchema', 'Vacuum', 'IncrVacuum',
  'JournalMode', 'AutoCommit', 'Savepoint', 'Checkpoint', 'SetCookie', 'Expire', 'LoadAnalysis', 'VUpdate', 'VCreate', 'VDestroy',
  'VBegin', 'VRename', 'SqlExec',
]);

/**
 * Opcodes that change the table or index open on cursor P1. SQLite also uses them on its own ephemeral tables
 * (sorting, DISTINCT, IN lists, window functions, recursive CTEs, materialized views), which is no write: they
 * count only on a cursor that was not opened by one of {@link SCRATCH_OPENS}.
 */
const CURSOR_WRITE_OPCODES = new Set(['Insert', 'Delete', 'IdxInsert', 'IdxDelete', 'NewRowid', 'ResetSorter', 'SorterInsert']);

/** Opcodes that open cursor P1 on a scratch table that lives and dies with the statement. */
const SCRATCH_OPENS = new Set(['OpenEphemeral', 'OpenAutoindex', 'SorterOpen', 'OpenPseudo']);

/** Functions that attach or detach a database (ATTACH/DETACH compile to calls to them). */
const CONNECTION_FUNCTIONS = /^sqlite_(?:attach|detach)\(/;

/** Statement kinds `execute_sql` accepts, by first keyword. */
const READ_KEYWORDS = new Set(['SELECT', 'WITH', 'EXPLAIN']);

/** Leading blanks and SQL comments (`-- …` to end of line, `/* … *\/`). */
const LEADING_TRIVIA = /^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?(?:\*\/|$))*/;

/** A query the demo refuses to run; its message is written for the model. */
export class QueryRefusedError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'QueryRefusedError';
  }
}

/**
 * Loads the sample database into memory. Writes are refused by SQLite itself (`PRAGMA query_only`), and the
 * file on disk is never opened for writing.
 * @param {{ file?: string }} [options] `file` defaults to {@link DATABASE_FILE}
 * @returns {Promise<SqlDatabase>}
 */
export async function openDemoDatabase(options = {}) {
  const SQL = await initSqlJs();
  /** @type {SqlDatabase} */
  const db = new SQL.Database(readFileSync(options.file ?? DATABASE_FILE));
  db.run('PRAGMA query_only = ON');
  return db;
}

/**
 * The first keyword of a statement, upper-cased ('' when there is none).
 * @param {string} sql
 */
function firstKeyword(sql) {
  const rest = sql.replace(LEADING_TRIVIA, '');
  return (/^[A-Za-z]+/.exec(rest)?.[0] ?? '').toUpperCase();
}

/**
 * Whether SQLite's bytecode for `sql` (one statement) only reads: no write transaction, no opcode from
 * {@link WRITE_OPCODES}, no ATTACH/DETACH, and {@link CURSOR_WRITE_OPCODES} only on cursors opened on scratch
 * tables ({@link SCRATCH_OPENS}, or `OpenDup` of one). A cursor the program never opens as scratch counts as a
 * real table. `EXPLAIN` statements never run their program, so they are read-only as such.
 * @param {SqlDatabase} db
 * @param {string} sql
 */
export function compilesReadOnly(db, sql) {
  if (firstKeyword(sql) === 'EXPLAIN') return true;
  const [program] = db.exec(`EXPLAIN ${sql}`);
  // EXPLAIN rows: addr, opcode, p1, p2, p3, p4, p5, comment
  const ops = (program?.values ?? []).map(([, opcode, p1, p2, , p4]) => ({ opcode: String(opcode), p1, p2, p4: String(p4 ?? '') }));
  // Cursors are numbered once per statement, but an Open may sit after its use in address order (coroutines,
  // `Once` blocks): collect them all first. OpenDup copies a scratch cursor, possibly one opened later.
  /** @type {Set<unknown>} */
  const scratch = new Set();
  /** @type {Set<unknown>} */
  const real = new Set();
  for (const { opcode, p1 } of ops) {
    if (SCRATCH_OPENS.has(opcode)) scratch.add(p1);
    else if (opcode === 'OpenRead' || opcode === 'OpenWrite' || opcode === 'ReopenIdx' || opcode === 'VOpen') real.add(p1);
  }
  for (let grew = true; grew;) {
    grew = false;
    for (const { opcode, p1, p2 } of ops) {
      if (opcode === 'OpenDup' && scratch.has(p2) && !scratch.has(p1)) { scratch.add(p1); grew = true; }
    }
  }
  return ops.every(({ opcode, p1, p2, p4 }) => !WRITE_OPCODES.has(opcode)
    && !(opcode === 'Transaction' && p2 !== 0)
    && !(opcode === 'Function' && CONNECTION_FUNCTIONS.test(p4))
    && !(CURSOR_WRITE_OPCODES.has(opcode) && (!scratch.has(p1) || real.has(p1))));
}

/**
 * Prepares exactly one read-only statement, or explains why not.
 * @param {SqlDatabase} db
 * @param {string} sql
 * @returns {SqlStatement} a prepared statement (free it)
 * @throws QueryRefusedError for an empty input, several statements, a statement that is not SELECT, WITH or
 *   EXPLAIN, or one whose bytecode writes; sql.js's `Error` (SQLite's message) for a syntax error
 */
export function prepareReadOnly(db, sql) {
  /** @type {string[]} */
  const texts = [];
  // SQLite's own parser splits the text (trailing blanks and comments make no statement). The iterator frees
  // each statement when it moves on, so only the texts are kept.
  for (const statement of db.iterateStatements(sql)) texts.push(statement.getSQL());
  const [text] = texts;
  if (text === undefined) throw new QueryRefusedError('query is empty: send one SELECT statement');
  if (texts.length !== 1) throw new QueryRefusedError(`query must be a single statement; got ${texts.length}`);
  const keyword = firstKeyword(text);
  if (!READ_KEYWORDS.has(keyword)) throw new QueryRefusedError(`only SELECT, WITH and EXPLAIN statements may run; got "${keyword}"`);
  if (!compilesReadOnly(db, text)) throw new QueryRefusedError('the database is read-only: the statement would write');
  return db.prepare(text);
}

/**
 * A JSON-friendly cell: blobs become base64 text.
 * @param {SqlValue} value
 * @returns {string | number | null}
 */
export function jsonCell(value) {
  return value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value;
}

/**
 * The user tables and their CREATE statements, in name order.
 * @param {SqlDatabase} db
 * @returns {{ name: string, sql: string }[]}
 */
export function listTables(db) {
  const [result] = db.exec("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name");
  return (result?.values ?? []).map(([name, sql]) => ({ name: String(name), sql: String(sql) }));
}

/**
 * Column descriptions of `table` (which must be a name from {@link listTables}).
 * @param {SqlDatabase} db
 * @param {string} table
 * @returns {{ name: string, type: string, notNull: boolean, primaryKey: boolean, default: string | null }[]}
 */
export function describeColumns(db, table) {
  const [result] = db.exec('SELECT name, type, "notnull", pk, dflt_value FROM pragma_table_info(?) ORDER BY cid', [table]);
  return (result?.values ?? []).map(([name, type, notNull, pk, dflt]) => ({
    name: String(name),
    type: String(type),
    notNull: notNull === 1,
    primaryKey: Number(pk) > 0,
    default: dflt === null ? null : String(dflt),
  }));
}
