// @ts-check
/**
 * A worker thread that runs `execute_sql` queries on its own read-only copy of the sample database, so that a
 * long query blocks this thread instead of the server's event loop (sql.js steps synchronously). The server
 * (`query-runner.js`) terminates the worker when a query runs too long or is cancelled, and starts a fresh one.
 *
 * workerData: `{ file?: string }` (the database file, default the sample). Messages in: `{ id, query, limit,
 * progressEvery }`, one at a time. Messages out: `{ type: 'ready' }` once the database is open, then per query
 * `{ id, type: 'progress', rows }` every `progressEvery` rows (below `limit`) and one of `{ id, type: 'done',
 * columns, rows, truncated }`, `{ id, type: 'refused', message }` (the read-only check said no) or
 * `{ id, type: 'error', message }` (SQLite's message).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { QueryRefusedError, jsonCell, openDemoDatabase, prepareReadOnly } from './database.js';

/** @typedef {{ id: number, query: string, limit: number, progressEvery: number }} QueryRequest */

const port = parentPort;
if (port === null) throw new Error('query-worker.js runs as a worker thread');

/** @type {{ file?: string }} */
const options = workerData ?? {};
const opening = openDemoDatabase(options.file === undefined ? {} : { file: options.file });

/**
 * @param {import('./database.js').SqlDatabase} db
 * @param {QueryRequest} request
 */
function run(db, { id, query, limit, progressEvery }) {
  let statement;
  try {
    statement = prepareReadOnly(db, query);
  } catch (error) {
    const type = error instanceof QueryRefusedError ? 'refused' : 'error';
    return { id, type, message: error instanceof Error ? error.message : String(error) };
  }
  try {
    const columns = statement.getColumnNames();
    /** @type {(string | number | null)[][]} */
    const rows = [];
    let truncated = false;
    while (statement.step()) {
      if (rows.length === limit) {
        truncated = true;
        break;
      }
      rows.push(statement.get().map(jsonCell));
      if (rows.length % progressEvery === 0 && rows.length < limit) port?.postMessage({ id, type: 'progress', rows: rows.length });
    }
    return { id, type: 'done', columns, rows, truncated };
  } catch (error) {
    return { id, type: 'error', message: error instanceof Error ? error.message : String(error) };
  } finally {
    statement.free();
  }
}

// Listening at once: a query sent while the database is still opening waits for it.
port.on('message', (/** @type {QueryRequest} */ request) => {
  void opening.then((db) => { port.postMessage(run(db, request)); });
});
void opening.then(() => { port.postMessage({ type: 'ready' }); });
