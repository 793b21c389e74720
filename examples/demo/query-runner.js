// @ts-check
/**
 * Runs `execute_sql` queries in worker threads (`query-worker.js`), so that the server's event loop stays free
 * while sql.js steps a query synchronously: other sessions are answered, cancellation and SIGTERM work, and a
 * query past its time limit is stopped by terminating its worker. One worker is kept warm (started and its
 * database open) for the next query; a terminated or crashed worker is replaced.
 */
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { QueryRefusedError } from './database.js';

/** How long (ms) one query may run before its worker is terminated. */
export const QUERY_TIMEOUT_MS = 5000;
/** Queries running at once (one worker each); more wait for a worker. */
export const MAX_WORKERS = 4;

const WORKER_FILE = new URL('./query-worker.js', import.meta.url);

/** A query stopped at the time limit. */
export class QueryTimeoutError extends Error {
  /** @param {number} ms */
  constructor(ms) {
    super(`Query took longer than ${ms / 1000} s and was stopped: add a LIMIT or a WHERE clause`);
    this.name = 'QueryTimeoutError';
  }
}

/** SQLite failed the query (syntax error, runtime error); the message is SQLite's. */
export class QueryFailedError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'QueryFailedError';
  }
}

/**
 * @typedef {{ columns: string[], rows: (string | number | null)[][], truncated: boolean }} QueryRows
 * @typedef {{ id?: number, type: string, rows?: unknown, columns?: unknown, truncated?: unknown, message?: unknown }} WorkerMessage
 */

/** One worker and the query it runs. */
class Slot {
  /** @param {string | undefined} file */
  constructor(file) {
    const startedAt = performance.now();
    this.worker = new Worker(WORKER_FILE, { workerData: { file } });
    // An idle worker must not keep the process alive (stdio servers exit when their host closes stdin).
    this.worker.unref();
    this.dead = false;
    /** @type {((message: WorkerMessage) => void) | undefined} */
    this.onMessage = undefined;
    /** @type {((error: Error) => void) | undefined} */
    this.onFailure = undefined;
    /** Resolves with the start-up time (ms) once the worker's database is open; never rejects. */
    this.ready = new Promise((resolve) => {
      this.worker.on('message', (/** @type {WorkerMessage} */ message) => {
        if (message.type === 'ready') resolve(performance.now() - startedAt);
        else this.onMessage?.(message);
      });
    });
    const fail = (/** @type {Error} */ error) => {
      this.dead = true;
      this.onFailure?.(error);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => { fail(new Error(`the query worker exited (code ${code})`)); });
  }

  terminate() {
    this.dead = true;
    this.onMessage = undefined;
    this.onFailure = undefined;
    return this.worker.terminate();
  }
}

export class QueryRunner {
  /** @type {string | undefined} */
  #file;
  #timeoutMs;
  #maxWorkers;
  /** @type {Slot[]} warm workers, waiting for a query */
  #idle = [];
  /** @type {Set<Slot>} workers running a query */
  #busy = new Set();
  /** @type {{ take: (slot: Slot) => void, fail: (error: Error) => void }[]} queries waiting for a worker */
  #waiting = [];
  #nextId = 1;
  #closed = false;

  /**
   * Starts one warm worker.
   * @param {{ file?: string, timeoutMs?: number, maxWorkers?: number }} [options] `file`: the database file
   *   (default the sample); `timeoutMs`: {@link QUERY_TIMEOUT_MS}; `maxWorkers`: {@link MAX_WORKERS}
   */
  constructor(options = {}) {
    this.#file = options.file;
    this.#timeoutMs = options.timeoutMs ?? QUERY_TIMEOUT_MS;
    this.#maxWorkers = options.maxWorkers ?? MAX_WORKERS;
    this.#keepWarm();
  }

  /** Resolves with the warm worker's start-up time (ms) once it is ready (for measurements and tests). */
  warm() {
    this.#keepWarm();
    return this.#idle[0]?.ready ?? Promise.resolve(0);
  }

  /**
   * Runs one query (checked read-only in the worker) and returns at most `limit` rows.
   * @param {string} query
   * @param {{ limit: number, progressEvery: number, signal?: AbortSignal, onProgress?: (rows: number) => void }} options
   * @returns {Promise<QueryRows>}
   * @throws QueryRefusedError, QueryFailedError, QueryTimeoutError; `signal.reason` when it aborts
   */
  async run(query, { limit, progressEvery, signal, onProgress }) {
    signal?.throwIfAborted();
    const slot = await this.#acquire(signal);
    try {
      return await this.#runOn(slot, { id: this.#nextId++, query, limit, progressEvery }, { signal, onProgress });
    } finally {
      this.#release(slot);
    }
  }

  /** Terminates every worker; queries running or waiting reject. */
  async close() {
    this.#closed = true;
    const slots = [...this.#idle, ...this.#busy];
    this.#idle = [];
    for (const slot of slots) slot.onFailure?.(new Error('the server is closing'));
    for (const { fail } of this.#waiting.splice(0)) fail(new Error('the server is closing'));
    await Promise.allSettled(slots.map((slot) => slot.terminate()));
  }

  #keepWarm() {
    this.#idle = this.#idle.filter((slot) => !slot.dead);
    if (!this.#closed && this.#idle.length === 0) this.#idle.push(new Slot(this.#file));
  }

  /**
   * @param {AbortSignal | undefined} signal
   * @returns {Promise<Slot>}
   */
  #acquire(signal) {
    if (this.#closed) return Promise.reject(new Error('the server is closing'));
    this.#idle = this.#idle.filter((slot) => !slot.dead);
    if (this.#busy.size < this.#maxWorkers) {
      const slot = this.#idle.pop() ?? new Slot(this.#file);
      // No new warm worker now: this one comes back when the query ends. Only a query that finds none idle
      // (another is running) pays for a start.
      this.#busy.add(slot);
      return Promise.resolve(slot);
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        take: (/** @type {Slot} */ slot) => {
          signal?.removeEventListener('abort', abort);
          resolve(slot);
        },
        fail: (/** @type {Error} */ error) => {
          signal?.removeEventListener('abort', abort);
          reject(error);
        },
      };
      const abort = () => {
        this.#waiting = this.#waiting.filter((w) => w !== waiter);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', abort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  /** @param {Slot} slot */
  #release(slot) {
    this.#busy.delete(slot);
    slot.onMessage = undefined;
    slot.onFailure = undefined;
    if (this.#closed) return;
    if (!slot.dead) this.#idle.push(slot);
    // Hand workers to the queries waiting for one; keep one warm; stop the extra ones.
    this.#idle = this.#idle.filter((idle) => !idle.dead);
    for (let next = this.#waiting.shift(); next !== undefined; next = this.#waiting.shift()) {
      const given = this.#idle.pop() ?? new Slot(this.#file);
      this.#busy.add(given);
      next.take(given);
      if (this.#busy.size >= this.#maxWorkers) break;
    }
    while (this.#idle.length > 1) void this.#idle.pop()?.terminate();
    this.#keepWarm();
  }

  /**
   * @param {Slot} slot
   * @param {{ id: number, query: string, limit: number, progressEvery: number }} request
   * @param {{ signal?: AbortSignal | undefined, onProgress?: ((rows: number) => void) | undefined }} on
   * @returns {Promise<QueryRows>}
   */
  #runOn(slot, request, { signal, onProgress }) {
    // A warm worker that failed while idle (its database did not open, say) has no query to report to.
    if (slot.dead) return Promise.reject(new Error('the query worker stopped before the query started'));
    return new Promise((resolve, reject) => {
      /** @param {() => void} settle */
      const finish = (settle) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        slot.onMessage = undefined;
        slot.onFailure = undefined;
        settle();
      };
      // The worker may be in the middle of one step() that never returns: only terminating it stops the query.
      const stop = (/** @type {unknown} */ reason) => {
        finish(() => reject(reason));
        void slot.terminate();
      };
      const abort = () => { stop(signal?.reason); };
      const timer = setTimeout(() => { stop(new QueryTimeoutError(this.#timeoutMs)); }, this.#timeoutMs);
      signal?.addEventListener('abort', abort, { once: true });
      slot.onFailure = (error) => { finish(() => reject(error)); };
      slot.onMessage = (message) => {
        if (message.id !== request.id) return;
        switch (message.type) {
          case 'progress':
            onProgress?.(Number(message.rows));
            return;
          case 'done':
            finish(() => resolve(/** @type {QueryRows} */ (/** @type {unknown} */ (message))));
            return;
          case 'refused':
            finish(() => reject(new QueryRefusedError(String(message.message))));
            return;
          default:
            finish(() => reject(new QueryFailedError(String(message.message))));
        }
      };
      slot.worker.postMessage(request);
    });
  }
}
