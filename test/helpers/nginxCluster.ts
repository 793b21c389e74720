/**
 * A Switchboard cluster for the nginx tests (`test/redis-nginx-*.test.ts`): one real `redis-server`, instances as
 * child processes (`test/fixtures/redis-nginx-instance.mjs`, each on its own loopback port, all on that Redis), and a
 * real nginx in front (scripts/lib/nginx.mjs: the configuration of README.md "Production deployment", plain
 * round-robin, with an access log). Each process is stopped by its own PID. nginx's access log names the upstream of
 * every request, so a test can show where each one landed. {@link NGINX_CLUSTER_MISSING} names what to install when
 * nginx or redis-server is missing (the tests then skip with that one line).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { missingClusterTools } from '../../scripts/lib/install.mjs';
import { readAccessLog, startNginx, type Nginx } from '../../scripts/lib/nginx.mjs';
import { startRedisServer, type RedisServer } from './redisServer.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/redis-nginx-instance.mjs', import.meta.url));

/** What to install for an nginx cluster (the skip line, naming both when both are missing), or `undefined` when nginx
 * and redis-server are there. */
export const NGINX_CLUSTER_MISSING: string | undefined = missingClusterTools();

/** One instance: a child process serving on `port`. */
export interface Instance {
  readonly name: string;
  readonly child: ChildProcess;
  readonly port: number;
  /** What it wrote on stderr so far (the stores' lines about the Redis connection). */
  readonly stderr: () => string;
}

/**
 * The budget of each start-up step of {@link startNginxCluster}, in ms: redis-server, the instances (in parallel),
 * nginx. Their sum (18 s) and the stops' grace after a failure (3 × {@link STOP_GRACE_MS}: nginx, the instances,
 * redis-server) stay under {@link CLUSTER_START_HOOK_TIMEOUT_MS}.
 */
export const CLUSTER_STEP_TIMEOUT_MS = 6_000;
/** How long a stopped process may take to exit on its signal before it is killed (SIGKILL), in ms. */
export const STOP_GRACE_MS = 3_000;
/** The timeout of {@link useNginxCluster}'s `beforeAll`, in ms. */
export const CLUSTER_START_HOOK_TIMEOUT_MS = 30_000;

/**
 * Starts one instance and resolves once it printed its port; when it exits first or has not within `timeoutMs`, it
 * is stopped by its PID and the promise rejects. `started` gets the process as soon as it is spawned.
 */
function startInstance(redisUrl: string, name: string, timeoutMs: number, started: (child: ChildProcess) => void): Promise<Instance> {
  const child = spawn(process.execPath, [FIXTURE, redisUrl, name], { cwd: path.dirname(FIXTURE), stdio: ['ignore', 'pipe', 'pipe'] });
  started(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      reject(new Error(`instance ${name} did not print its port within ${timeoutMs} ms: ${stderr}`));
      void stop(child, 'SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = /^(\{.*\})\n/.exec(out)?.[1];
      if (line === undefined) return;
      clearTimeout(timer);
      resolve({ name, child, port: (JSON.parse(line) as { port: number }).port, stderr: () => stderr });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`instance ${name} exited (${String(code)}): ${stderr}`));
    });
  });
}

/**
 * Sends `signal` to `child` by its PID unless it has exited; resolves once it has. When it still runs after
 * `graceMs` (default {@link STOP_GRACE_MS}), it is killed (SIGKILL).
 */
export function stop(child: ChildProcess, signal: NodeJS.Signals, graceMs = STOP_GRACE_MS): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return Promise.resolve();
  const pid = child.pid;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    process.kill(pid, signal);
  } catch {
    return Promise.resolve();
  }
  if (signal === 'SIGKILL') return exited;
  const timer = setTimeout(() => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone meanwhile */
    }
  }, graceMs);
  return exited.finally(() => clearTimeout(timer));
}

/** Whether `child` still runs (neither exited nor killed). */
export const running = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null;

/** One line of nginx's access log, the upstreams by instance name. */
export interface AccessEntry {
  /** The instances nginx tried, by name, in order (more than one when a connection was refused). */
  readonly upstreams: readonly string[];
  readonly method: string;
  readonly status: number;
  /** The request's `X-Test-Tag` header ('' when none). */
  readonly tag: string;
  /** The request's `Mcp-Session-Id` header ('' when none). */
  readonly session: string;
}

/** A running cluster: redis-server, the instances, nginx in front. */
export interface NginxCluster {
  readonly redis: RedisServer;
  readonly instances: readonly Instance[];
  /** nginx's endpoint: `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** nginx's access log so far (a request is logged when it ends). */
  accessLog(): AccessEntry[];
  /** Stops nginx, the instances and redis-server, each by its PID (what is already gone is skipped). */
  stop(): Promise<void>;
}

/**
 * Starts redis-server, one instance per name (all at once), then nginx over them, each step within
 * `stepTimeoutMs` (default {@link CLUSTER_STEP_TIMEOUT_MS}). On a failure midway, or when `signal` aborts (checked
 * after each step, and nginx's wait), what was started is stopped by its PID before the error (or the signal's
 * reason) is thrown: nothing started outlives a failed start.
 */
export async function startNginxCluster(names: readonly string[] = ['A', 'B', 'C'], options: { readonly stepTimeoutMs?: number; readonly signal?: AbortSignal } = {}): Promise<NginxCluster> {
  const { stepTimeoutMs = CLUSTER_STEP_TIMEOUT_MS, signal } = options;
  signal?.throwIfAborted();
  const redis = await startRedisServer({ readyTimeoutMs: stepTimeoutMs });
  // Every instance process as soon as it is spawned, ready or not: a failed start stops them all.
  const children: ChildProcess[] = [];
  const instances: Instance[] = [];
  let nginx: Nginx | undefined;
  const stopAll = async (): Promise<void> => {
    await nginx?.stop();
    await Promise.all(children.map((child) => stop(child, 'SIGTERM')));
    await redis.stop();
  };
  try {
    signal?.throwIfAborted();
    const started = await Promise.allSettled(names.map((name) => startInstance(redis.url, name, stepTimeoutMs, (child) => children.push(child))));
    for (const one of started) if (one.status === 'fulfilled') instances.push(one.value);
    const failed = started.find((one) => one.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    signal?.throwIfAborted();
    nginx = await startNginx({ upstreams: instances.map((one) => one.port), accessLog: true, readyTimeoutMs: stepTimeoutMs, ...(signal === undefined ? {} : { signal }) });
    signal?.throwIfAborted();
  } catch (error) {
    await stopAll();
    throw error;
  }
  const byAddress = new Map(instances.map((one) => [`127.0.0.1:${one.port}`, one.name]));
  const logFile = nginx.accessLogFile as string;
  return {
    redis,
    instances,
    url: `http://127.0.0.1:${nginx.port}/mcp`,
    accessLog: () => readAccessLog(logFile).map((line) => ({ ...line, upstreams: line.upstreams.map((address) => byAddress.get(address) ?? address) })),
    stop: stopAll,
  };
}

/**
 * One cluster for the tests of the enclosing `describe` (or of the file, called at its top level): started in its
 * `beforeAll` (instances named `names`, default A, B, C; each step bounded by {@link CLUSTER_STEP_TIMEOUT_MS}, the
 * whole below the hook's {@link CLUSTER_START_HOOK_TIMEOUT_MS}), stopped in its `afterAll`, which also ends a start
 * still under way (a hook that timed out) and waits until what it had started is stopped; nothing is started while
 * {@link NGINX_CLUSTER_MISSING} names something to install (the tests are then skipped: put them in
 * `describe.skipIf(NGINX_CLUSTER_MISSING !== undefined)`). The object returned reads the running cluster (it throws
 * before `beforeAll` ran).
 */
export function useNginxCluster(options: { readonly names?: readonly string[] } = {}): NginxCluster {
  let cluster: NginxCluster | undefined;
  const current = (): NginxCluster => {
    if (cluster === undefined) throw new Error('the nginx cluster is not started (useNginxCluster: read it inside a test)');
    return cluster;
  };
  const ending = new AbortController();
  let starting: Promise<NginxCluster> | undefined;
  beforeAll(async () => {
    if (NGINX_CLUSTER_MISSING !== undefined) return;
    starting = startNginxCluster(options.names, { signal: ending.signal });
    cluster = await starting;
  }, CLUSTER_START_HOOK_TIMEOUT_MS);
  afterAll(async () => {
    // A start that outlived its hook stops what it started once it sees the abort (at most one step later).
    ending.abort(new Error('useNginxCluster: the tests ended before the cluster started'));
    await starting?.catch(() => undefined);
    await cluster?.stop();
  }, CLUSTER_START_HOOK_TIMEOUT_MS);
  return {
    get redis() {
      return current().redis;
    },
    get instances() {
      return current().instances;
    },
    get url() {
      return current().url;
    },
    accessLog: () => current().accessLog(),
    stop: () => current().stop(),
  };
}

// ---- wire helpers shared by the nginx tests ----

/** Reads an SSE body until `done(text)` holds or `timeoutMs` passes; returns what was read. */
export async function readUntil(body: ReadableStream<Uint8Array>, done: (text: string) => boolean, timeoutMs: number): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = setTimeout(() => void reader.cancel(), timeoutMs);
  try {
    while (!done(text)) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
  } finally {
    clearTimeout(deadline);
    await reader.cancel().catch(() => undefined);
  }
  return text;
}

/** The JSON messages of an SSE text. */
export const dataOf = (text: string): any[] =>
  text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).filter((d) => d !== '').map((d) => JSON.parse(d));

/** The text of a tool result's first content block. */
export const textOf = (result: object): string => (result as { content: { text: string }[] }).content[0]!.text;

/** Waits until `check()` holds, polling every 25 ms; false after `timeoutMs`. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The tag of a request for nginx's log: its JSON-RPC method (`tools/call:<tool>`), `answer` for a response, `GET`. */
export function tagOf(init: RequestInit | undefined): string {
  if (init?.method === 'GET') return 'GET';
  if (typeof init?.body !== 'string') return init?.method ?? '';
  const message = JSON.parse(init.body) as { method?: string; params?: { name?: string } };
  if (message.method === undefined) return 'answer';
  return message.method === 'tools/call' ? `tools/call:${message.params?.name ?? ''}` : message.method;
}

/**
 * A fetch that tags each request with `prefix` and {@link tagOf} (`X-Test-Tag`, in nginx's access log) and, when
 * `getStreams` is given, keeps a copy of each GET stream's text there (the client reads the other copy of the bytes).
 */
export function taggedFetch(options: { readonly prefix?: string; readonly getStreams?: string[] } = {}): typeof fetch {
  const { prefix = '', getStreams } = options;
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('x-test-tag', `${prefix}${tagOf(init)}`);
    const response = await fetch(input, { ...init, headers });
    if (getStreams === undefined || init?.method !== 'GET' || !response.ok || response.body === null) return response;
    const [mine, theirs] = response.body.tee();
    const index = getStreams.push('') - 1;
    void (async () => {
      const reader = mine.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
        if (chunk.done) return;
        getStreams[index] += decoder.decode(chunk.value, { stream: true });
      }
    })();
    return new Response(theirs, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
