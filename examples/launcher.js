// @ts-check
/**
 * What the example launchers under examples/ share, so they parse their arguments and report a failure to listen
 * the same way: `--port N`, `--host H`, `--stdio`, `--help`, and for a launcher that opts in `--redis-url URL`; a bad
 * argument is one line plus the usage on stderr and exit code 2; a port in use or an unreachable Redis is one line on
 * stderr and exit code 1, never a stack trace.
 */

/**
 * Parses a launcher's arguments (`--flag value` or `--flag=value`). On `--help` prints `usage` and exits 0; on a
 * bad argument prints `<name>: <problem>` and `usage` on stderr and exits 2.
 *
 * @param {readonly string[]} argv - The arguments after the script path.
 * @param {{ name: string, usage: string, port: number, host: string, redis?: boolean }} defaults - The launcher's name
 *   (the prefix of its messages), usage line, default port and host, and whether it takes `--redis-url`.
 * @returns {{ stdio: boolean, port: number, host: string, redisUrl?: string }}
 */
export function parseLaunchArgs(argv, defaults) {
  /** @param {string} message @returns {never} */
  const fail = (message) => {
    process.stderr.write(`${defaults.name}: ${message}\n${defaults.usage}\n`);
    process.exit(2);
  };
  /** @type {{ stdio: boolean, port: number, host: string, redisUrl?: string }} */
  const opts = { stdio: false, port: defaults.port, host: defaults.host };
  for (let i = 0; i < argv.length; i++) {
    const arg = /** @type {string} */ (argv[i]);
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq < 0 ? arg : arg.slice(0, eq);
    const inline = eq < 0 ? undefined : arg.slice(eq + 1);
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') fail(`missing value after ${flag}`);
      return /** @type {string} */ (v);
    };
    switch (flag) {
      case '--stdio': opts.stdio = true; break;
      case '--port': {
        const raw = value();
        const port = Number(raw);
        if (!/^\d+$/.test(raw) || port > 65535) fail(`invalid port '${raw}'`);
        opts.port = port;
        break;
      }
      case '--host': opts.host = value(); break;
      case '--redis-url':
        if (defaults.redis !== true) fail(`unknown argument '${arg}'`);
        opts.redisUrl = value();
        break;
      case '--help': case '-h': process.stderr.write(`${defaults.usage}\n`); process.exit(0); break;
      default: fail(`unknown argument '${arg}'`);
    }
  }
  if (opts.stdio && opts.redisUrl !== undefined) fail('--redis-url shares the stores of HTTP instances; stdio serves one client (drop --stdio or --redis-url)');
  return opts;
}

/** A failure to start that one line explains (printed without a stack). */
export class LaunchFailure extends Error {}

/** The environment variable a Redis-aware launcher reads when `--redis-url` is not given. */
export const REDIS_URL_ENV = 'SWITCHBOARD_REDIS_URL';
/**
 * The environment variable holding the `requestState` signing secret (at least 32 bytes) that instances sharing one
 * Redis share too, so a 2026-07-28 retry sealed by one is opened by another.
 */
export const REQUEST_STATE_SECRET_ENV = 'SWITCHBOARD_REQUEST_STATE_SECRET';

/** The environment variable naming this instance in the cluster (letters, digits, `_`, `-`); default: a random id. */
export const INSTANCE_ID_ENV = 'SWITCHBOARD_INSTANCE_ID';

/**
 * @typedef {object} SharedStores
 * @property {Pick<import('@switchboard/mcp/server').McpServerOptions, 'bus' | 'taskStore' | 'requestStateStore' | 'cluster' | 'requestState'>} serverOptions
 *   what the `McpServer` takes: the bus, task store, request state store and cluster, and the shared `requestState`
 *   key when {@link REQUEST_STATE_SECRET_ENV} is set
 * @property {import('@switchboard/redis').RedisStores['httpOptions']} httpOptions
 *   what the HTTP handler takes: the session and event stores and the cluster's bus and leases
 * @property {() => Promise<void>} close  closes the Redis connections (after the server closed)
 */

/**
 * The stores of `@switchboard/redis` on `url`, once Redis answers (`redisStores`, with the cluster option; the
 * instance id from {@link INSTANCE_ID_ENV}, the `requestState` key from {@link REQUEST_STATE_SECRET_ENV});
 * connection losses and recoveries are one line each on stderr.
 *
 * @param {string} name - The prefix of its messages.
 * @param {string} url - A `redis://` or `rediss://` URL.
 * @param {{ keyPrefix?: string, timeoutMs?: number }} [options] - The Redis key prefix (default `switchboard:`), and
 *   how long (ms) Redis may take to answer first (default 5000).
 * @returns {Promise<SharedStores>}
 * @throws {LaunchFailure} `cannot reach Redis at <url>: …` (password hidden) when it does not answer in time, or the
 *   URL is not a Redis URL; when {@link REQUEST_STATE_SECRET_ENV} is shorter than 32 bytes
 */
export async function openSharedStores(name, url, options = {}) {
  const secret = process.env[REQUEST_STATE_SECRET_ENV];
  if (secret !== undefined && secret !== '' && Buffer.byteLength(secret) < 32) throw new LaunchFailure(`${REQUEST_STATE_SECRET_ENV} must be at least 32 bytes`);
  const instanceId = process.env[INSTANCE_ID_ENV];
  const timeoutMs = options.timeoutMs ?? 5000;
  const { redisStores } = await import('@switchboard/redis');
  const shown = url.replace(/\/\/[^@/]*@/, '//…@');
  /** @param {string} message @param {Record<string, unknown>} [fields] */
  const line = (message, fields) => process.stderr.write(`${name}: ${message}${typeof fields?.error === 'string' ? ` (${fields.error})` : ''}\n`);
  /** @type {import('@switchboard/redis').RedisStores} */
  let stores;
  try {
    stores = redisStores({
      url,
      logger: { debug: () => undefined, info: line, warn: line, error: line },
      ...(options.keyPrefix === undefined ? {} : { keyPrefix: options.keyPrefix }),
      ...(instanceId === undefined || instanceId === '' ? {} : { instanceId }),
    });
  } catch (error) {
    throw new LaunchFailure(error instanceof Error ? error.message : String(error), { cause: error });
  }
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  try {
    await Promise.race([
      stores.ready.then(() => stores.redis.ping()),
      new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs); }),
    ]);
  } catch (error) {
    await stores.close().catch(() => undefined);
    throw new LaunchFailure(`cannot reach Redis at ${shown}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
  return {
    serverOptions: { ...stores.serverOptions, ...(secret === undefined || secret === '' ? {} : { requestState: { keys: [{ id: 'shared', secret }] } }) },
    httpOptions: stores.httpOptions,
    close: () => stores.close(),
  };
}

/**
 * {@link openSharedStores} on the Redis that {@link REDIS_URL_ENV} names; `undefined` when it is unset or empty
 * (in-memory stores). For scripts that parse their own arguments (the benchmark's servers).
 * @param {string} name - The prefix of its messages.
 * @param {{ keyPrefix?: string }} [options]
 * @returns {Promise<SharedStores | undefined>}
 */
export async function sharedStoresFromEnv(name, options = {}) {
  const url = process.env[REDIS_URL_ENV];
  return url === undefined || url === '' ? undefined : openSharedStores(name, url, options);
}

/**
 * The one-line explanation of a failure to listen, or `undefined` when `error` is something else (print that
 * one in full).
 *
 * @param {unknown} error - What `serveHttp` rejected with.
 * @returns {string | undefined} e.g. `port 3000 is in use; pass --port`
 * @example
 * const line = listenFailureLine(error);
 * if (line !== undefined) { process.stderr.write(`demo: ${line}\n`); process.exit(1); }
 */
export function listenFailureLine(error) {
  // `AddressInUseError`'s stable code: testing it needs no import of `@switchboard/mcp/node` (and its `node:http`) at
  // start, which a server that never serves HTTP would pay for.
  const inUse = /** @type {{ code?: unknown, port?: number } | undefined} */ (error);
  if (inUse?.code === 'ADDRESS_IN_USE') return `port ${inUse.port} is in use; pass --port`;
  return undefined;
}

/**
 * Stops a stdio session gracefully on SIGINT/SIGTERM: the requests in flight get up to `drainMs` to be answered (a
 * sampling or elicitation answer can still arrive on stdin meanwhile), then the session closes and `serveStdio`
 * exits the process once stdout has taken every answer. A second signal changes nothing.
 *
 * @param {import('@switchboard/mcp/server').ServerSession} session - What `serveStdio` returned.
 * @param {number} drainMs - How long (ms) the requests in flight may take.
 */
export function closeStdioOnSignals(session, drainMs) {
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void session.drain(drainMs).then(() => session.close());
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/**
 * Runs an example server as a command: parses the arguments ({@link parseLaunchArgs}), serves stdio (`--stdio`) or
 * Streamable HTTP on `--host`/`--port`, and on SIGINT/SIGTERM drains the calls in flight for up to `drainMs`, closes
 * the server and exits 0. A failure to start is one line on stderr and exit code 1.
 *
 * With `redis: true`, HTTP instances given `--redis-url` (or `SWITCHBOARD_REDIS_URL`) keep their sessions, SSE
 * events, tasks, used request states and notifications in that Redis (`redisStores`, with the cluster option), so
 * several processes on one Redis serve any session's request on any of them; `createServer` then gets the server's
 * share of the stores (`{ bus, taskStore, requestStateStore, cluster }`, and `requestState` keys when
 * `SWITCHBOARD_REQUEST_STATE_SECRET` is set; `SWITCHBOARD_INSTANCE_ID` names the instance).
 *
 * @param {object} launcher
 * @param {string} launcher.name - The prefix of its messages.
 * @param {string} launcher.usage - The usage line.
 * @param {number} launcher.port - The default port.
 * @param {string} launcher.host - The default host.
 * @param {number} launcher.drainMs - How long (ms) calls in flight may take on shutdown.
 * @param {(options?: import('@switchboard/mcp/server').McpServerOptions) => Promise<import('@switchboard/mcp/server').McpServer>} launcher.createServer -
 *   Builds the server (with the shared stores' server options under `--redis-url`).
 * @param {(handle: import('@switchboard/mcp/node').ServeHttpHandle) => string} launcher.listening - What to print on
 *   stderr once the HTTP server listens.
 * @param {() => void | Promise<void>} [launcher.closed] - Called (and awaited) after the server closed (HTTP), before the exit.
 * @param {Omit<import('@switchboard/mcp/node').ServeHttpOptions, 'server' | 'port' | 'host'>} [launcher.http] - Handler
 *   options for HTTP (default: none), e.g. `responseMode`, or the session and event stores of a cluster.
 * @param {boolean} [launcher.redis] - Takes `--redis-url` / `SWITCHBOARD_REDIS_URL` (default: false).
 * @param {string} [launcher.redisKeyPrefix] - The Redis key prefix of its stores (default `switchboard:`).
 */
export function runLauncher(launcher) {
  const main = async () => {
    const opts = parseLaunchArgs(process.argv.slice(2), launcher);
    const envUrl = process.env[REDIS_URL_ENV];
    const redisUrl = launcher.redis !== true || opts.stdio ? undefined : (opts.redisUrl ?? (envUrl === '' ? undefined : envUrl));
    const stores = redisUrl === undefined ? undefined : await openSharedStores(launcher.name, redisUrl, launcher.redisKeyPrefix === undefined ? {} : { keyPrefix: launcher.redisKeyPrefix });
    const shared = stores?.serverOptions;
    const server = await launcher.createServer(shared).catch(async (/** @type {unknown} */ error) => {
      await stores?.close();
      throw error;
    });
    if (opts.stdio) {
      const { serveStdio } = await import('@switchboard/mcp/stdio');
      // serveStdio ends the process once the session closes (stdin end-of-file, or a signal after the drain).
      closeStdioOnSignals(await serveStdio(server), launcher.drainMs);
      return;
    }
    const { serveHttp } = await import('@switchboard/mcp/node');
    const handle = await serveHttp({ server, port: opts.port, host: opts.host, ...launcher.http, ...stores?.httpOptions }).catch(async (/** @type {unknown} */ error) => {
      await stores?.close();
      throw error;
    });
    if (stores !== undefined) process.stderr.write(`${launcher.name}: sessions, events, tasks and notifications shared through Redis at ${/** @type {string} */ (redisUrl).replace(/\/\/[^@/]*@/, '//…@')}\n`);
    process.stderr.write(launcher.listening(handle));
    let stopping = false;
    const stop = async () => {
      if (stopping) return;
      stopping = true;
      try {
        // Graceful: new sessions are refused, calls in flight are answered (up to the deadline), then exit 0.
        await handle.close({ drainMs: launcher.drainMs });
        await server.close();
        await stores?.close();
        await launcher.closed?.();
      } finally {
        process.exit(0);
      }
    };
    process.once('SIGINT', () => { void stop(); });
    process.once('SIGTERM', () => { void stop(); });
  };
  main().catch((/** @type {unknown} */ error) => {
    const line = listenFailureLine(error) ?? (error instanceof LaunchFailure ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.stderr.write(`${launcher.name}: ${line}\n`);
    process.exit(1);
  });
}
