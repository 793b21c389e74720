/**
 * A Switchboard cluster for the nginx tests (`test/redis-nginx-*.test.ts`): one real `redis-server`, instances as
 * child processes (`test/fixtures/redis-nginx-instance.mjs`, each on its own loopback port, all on that Redis), and a
 * real nginx in front doing plain round-robin (an `upstream` block: no `ip_hash`, no cookie; HTTP/1.1 to the
 * instances, `proxy_buffering off` so SSE is not held back). Each process is stopped by its own PID. nginx's access
 * log names the upstream of every request, so a test can show where each one landed. `NGINX` is `undefined` when
 * nginx is not installed (the tests then skip with one line naming it, as for redis-server).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startRedisServer, type RedisServer } from './redisServer.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/redis-nginx-instance.mjs', import.meta.url));

/** nginx: on PATH, or in /usr/sbin (not on a non-root PATH); `undefined` when not installed. */
function findNginx(): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/sbin']) {
    if (dir === '') continue;
    const candidate = path.join(dir, 'nginx');
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    if (spawnSync(candidate, ['-v'], { encoding: 'utf8' }).status === 0) return candidate;
  }
  return undefined;
}

export const NGINX = findNginx();

/** The skip line when nginx is missing. */
export const INSTALL_NGINX = 'install nginx (Debian: apt-get install nginx)';

/** One instance: a child process serving on `port`. */
export interface Instance {
  readonly name: string;
  readonly child: ChildProcess;
  readonly port: number;
  /** What it wrote on stderr so far (the stores' lines about the Redis connection). */
  readonly stderr: () => string;
}

function startInstance(redisUrl: string, name: string): Promise<Instance> {
  const child = spawn(process.execPath, [FIXTURE, redisUrl, name], { cwd: path.dirname(FIXTURE), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = /^(\{.*\})\n/.exec(out)?.[1];
      if (line !== undefined) resolve({ name, child, port: (JSON.parse(line) as { port: number }).port, stderr: () => stderr });
    });
    child.once('exit', (code) => reject(new Error(`instance ${name} exited (${String(code)}): ${stderr}`)));
  });
}

/** Sends `signal` to `child` by its PID unless it has exited; resolves once it has. */
export function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(child.pid, signal);
  return exited;
}

/** Whether `child` still runs (neither exited nor killed). */
export const running = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null;

/** The settings of test/reliability/proxy.test.ts (SSE unbuffered); fields of the access log separated by `|`. */
function nginxConfig(dir: string, port: number, upstreams: readonly number[]): string {
  return [
    process.getuid?.() === 0 ? 'user root;' : '',
    'worker_processes 1;',
    'daemon off;',
    'master_process on;',
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log warn;`,
    'events { worker_connections 4096; }',
    'http {',
    // Which upstream served each request (a refused one, then the next: "a:1, b:2"), of which session, tagged how.
    "  log_format cluster '$upstream_addr|$request_method|$status|$http_x_test_tag|$http_mcp_session_id';",
    `  access_log ${dir}/access.log cluster;`,
    `  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;`,
    `  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;`,
    `  upstream switchboard { ${upstreams.map((p) => `server 127.0.0.1:${p};`).join(' ')} }`,
    '  server {',
    `    listen 127.0.0.1:${port};`,
    '    location /mcp {',
    '      proxy_pass http://switchboard;',
    '      proxy_http_version 1.1;',
    '      proxy_set_header Host $host;',
    '      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
    '      proxy_buffering off;',
    '      proxy_read_timeout 1h;',
    '    }',
    '  }',
    '}',
    '',
  ].join('\n');
}

const listening = (port: number): Promise<boolean> =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

interface Nginx {
  readonly port: number;
  readonly child: ChildProcess;
  readonly dir: string;
}

async function startNginx(upstreams: readonly number[]): Promise<Nginx> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'switchboard-nginx-cluster-'));
  const port = await freePort();
  const conf = path.join(dir, 'nginx.conf');
  writeFileSync(conf, nginxConfig(dir, port, upstreams));
  const child = spawn(NGINX as string, ['-p', dir, '-c', conf, '-e', path.join(dir, 'error.log')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (await listening(port)) return { port, child, dir };
    if (child.exitCode !== null || Date.now() > deadline) {
      let log = '';
      try {
        log = readFileSync(path.join(dir, 'error.log'), 'utf8');
      } catch {
        // no log yet
      }
      if (child.exitCode === null) await stop(child, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`nginx did not start: ${stderr}${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One line of nginx's access log. */
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
 * Starts redis-server, one instance per name, then nginx over them. On a failure midway, what was started is stopped
 * before the error is thrown.
 */
export async function startNginxCluster(names: readonly string[] = ['A', 'B', 'C']): Promise<NginxCluster> {
  const redis = await startRedisServer();
  const instances: Instance[] = [];
  let nginx: Nginx | undefined;
  const stopAll = async (): Promise<void> => {
    if (nginx !== undefined) {
      await stop(nginx.child, 'SIGTERM');
      rmSync(nginx.dir, { recursive: true, force: true });
    }
    for (const one of instances) await stop(one.child, 'SIGTERM');
    await redis.stop();
  };
  try {
    for (const name of names) instances.push(await startInstance(redis.url, name));
    nginx = await startNginx(instances.map((one) => one.port));
  } catch (error) {
    await stopAll();
    throw error;
  }
  const byAddress = new Map(instances.map((one) => [`127.0.0.1:${one.port}`, one.name]));
  const logFile = path.join(nginx.dir, 'access.log');
  return {
    redis,
    instances,
    url: `http://127.0.0.1:${nginx.port}/mcp`,
    accessLog() {
      let text: string;
      try {
        text = readFileSync(logFile, 'utf8');
      } catch {
        return [];
      }
      return text.split('\n').filter((line) => line !== '').map((line) => {
        const [upstreams = '', method = '', status = '', tag = '', session = ''] = line.split('|');
        return {
          upstreams: upstreams === '-' ? [] : upstreams.split(/, | : /).map((address) => byAddress.get(address) ?? address),
          method,
          status: Number(status),
          tag: tag === '-' ? '' : tag,
          session: session === '-' ? '' : session,
        };
      });
    },
    stop: stopAll,
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
