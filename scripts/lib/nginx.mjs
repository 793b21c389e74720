// @ts-check
/**
 * nginx in front of Switchboard instances on 127.0.0.1, for scripts/cluster.mjs (the cluster the conformance pass
 * and the cluster benchmark run) and the tests behind nginx (test/helpers/nginxCluster.ts,
 * test/reliability/proxy.test.ts): one configuration, the block README.md "Production deployment" shows, and one
 * way to start nginx (in the foreground, from a generated config in a folder of its own) and stop it by its own PID.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { findExecutable, freePort, launchProcess, stopProcess, tail } from './processes.mjs';

/** `nginx`, or `undefined` when not installed. */
export const NGINX = findExecutable('nginx', ['-v']);

/** What to install when {@link NGINX} is `undefined` (the line a skipped test shows). */
export const INSTALL_NGINX = 'install nginx (Debian: apt-get install nginx)';

/**
 * What {@link nginxConfig} writes.
 * @typedef {object} NginxConfigOptions
 * @property {string} dir                     nginx's folder: pid file, error log, temp folders, access log
 * @property {number} port                    where nginx listens on 127.0.0.1
 * @property {readonly number[]} upstreams    the instances' ports on 127.0.0.1, served round-robin
 * @property {boolean} [accessLog]            default false; true: `<dir>/access.log`, one line per request
 *                                            (format: {@link readAccessLog})
 */

/**
 * The nginx configuration: plain round-robin over the upstreams (an `upstream` block: no `ip_hash`, no cookie),
 * HTTP/1.1 with upstream keep-alive, the client's Host passed on with its port, the client's address appended to
 * `X-Forwarded-For`, `X-Forwarded-Proto`, `proxy_buffering off` (each SSE event leaves when written), 1 h read and
 * send timeouts (quiet GET and listen streams). What README.md "Production deployment" shows, with this folder's
 * paths and loopback ports.
 * @param {NginxConfigOptions} options
 * @returns {string}
 */
export function nginxConfig({ dir, port, upstreams, accessLog = false }) {
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
    ...(accessLog
      ? ["  log_format switchboard '$upstream_addr|$request_method|$status|$http_x_test_tag|$http_mcp_session_id';", `  access_log ${dir}/access.log switchboard;`]
      : ['  access_log off;']),
    `  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;`,
    `  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;`,
    '  upstream switchboard {',
    ...upstreams.map((p) => `    server 127.0.0.1:${p};`),
    '    keepalive 64;',
    // Under the instances' keep-alive (serveHttp keepAliveTimeoutMs, 5 s): nginx never reuses a connection an
    // instance is closing (a POST is not retried on another upstream).
    '    keepalive_timeout 4s;',
    '  }',
    '  server {',
    `    listen 127.0.0.1:${port};`,
    '    client_max_body_size 8m;',
    '    location /mcp {',
    '      proxy_pass http://switchboard;',
    '      proxy_http_version 1.1;',
    '      proxy_set_header Connection "";',
    // $http_host keeps the port: the instances check Host against Origin (DNS rebinding protection).
    '      proxy_set_header Host $http_host;',
    '      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
    '      proxy_set_header X-Forwarded-Proto $scheme;',
    '      proxy_buffering off;',
    '      proxy_read_timeout 1h;',
    '      proxy_send_timeout 1h;',
    '    }',
    '  }',
    '}',
    '',
  ].join('\n');
}

/**
 * What {@link startNginx} starts.
 * @typedef {object} StartNginxOptions
 * @property {readonly number[]} upstreams   the instances' ports on 127.0.0.1
 * @property {string} [dir]                  nginx's folder (created if missing, kept by `stop()`); default: a new
 *                                           temporary folder, removed by `stop()`
 * @property {string} [logFile]              nginx's stdout and stderr (default `<dir>/nginx.log`)
 * @property {boolean} [accessLog]           default false; see {@link NginxConfigOptions}
 * @property {number} [readyTimeoutMs]       how long nginx may take to accept connections (ms; default 20 000)
 * @property {AbortSignal} [signal]          aborting it before nginx is ready stops nginx by its PID and rejects with
 *                                           the signal's reason (an own folder is removed)
 */

/**
 * A running nginx.
 * @typedef {object} Nginx
 * @property {'nginx'} name
 * @property {number} pid
 * @property {number} port                   where it listens on 127.0.0.1
 * @property {import('node:child_process').ChildProcess} child
 * @property {string} dir
 * @property {string} logFile
 * @property {string | undefined} accessLogFile   `<dir>/access.log` when asked for, else `undefined`
 * @property {() => Promise<void>} stop      stops nginx by its PID (SIGTERM, then SIGKILL), removes an own folder
 */

/**
 * Writes the configuration ({@link nginxConfig}, a free port) in `dir` and starts nginx in the foreground on it;
 * resolves once it accepts connections. When it does not, it is stopped by its PID, a temporary folder removed, and
 * an Error carrying nginx's output and error log is thrown. Throws at once when nginx is not installed.
 * @param {StartNginxOptions} options
 * @returns {Promise<Nginx>}
 */
export async function startNginx(options) {
  if (NGINX === undefined) throw new Error(INSTALL_NGINX);
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-nginx-'));
  fs.mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const configFile = path.join(dir, 'nginx.conf');
  const errorLog = path.join(dir, 'error.log');
  const accessLog = options.accessLog ?? false;
  fs.writeFileSync(configFile, nginxConfig({ dir, port, upstreams: options.upstreams, accessLog }));
  const removeOwnDir = () => {
    if (ownDir) fs.rmSync(dir, { recursive: true, force: true });
  };
  let launched;
  try {
    // -e: nginx's start-up error log goes to the folder too (the default, /var/log/nginx, is root's).
    launched = await launchProcess({
      name: 'nginx', command: NGINX, port, logFile: options.logFile ?? path.join(dir, 'nginx.log'),
      args: ['-p', dir, '-c', configFile, '-e', errorLog], readyTimeoutMs: options.readyTimeoutMs, signal: options.signal,
    });
  } catch (error) {
    if (options.signal?.aborted === true && error === options.signal.reason) {
      removeOwnDir();
      throw error;
    }
    const message = `${error instanceof Error ? error.message : String(error)}\n  error.log:\n${tail(errorLog, 20)}`;
    removeOwnDir();
    throw new Error(message, { cause: error });
  }
  const { pid, child, logFile } = launched;
  return {
    name: 'nginx', pid, port, child, dir, logFile,
    accessLogFile: accessLog ? path.join(dir, 'access.log') : undefined,
    async stop() {
      await stopProcess(child);
      removeOwnDir();
    },
  };
}

/**
 * One line of the access log ({@link NginxConfigOptions} `accessLog`).
 * @typedef {object} AccessLine
 * @property {string[]} upstreams  the upstreams nginx tried, `127.0.0.1:<port>`, in order (more than one when a
 *                                 connection was refused); empty when none was
 * @property {string} method
 * @property {number} status
 * @property {string} tag          the request's `X-Test-Tag` header ('' when none)
 * @property {string} session      the request's `Mcp-Session-Id` header ('' when none)
 */

/**
 * The access log so far (nginx writes a request's line when the request ends).
 * @param {string} file
 * @returns {AccessLine[]} empty when the file does not exist yet
 */
export function readAccessLog(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').filter((line) => line !== '').map((line) => {
    const [upstreams = '', method = '', status = '', tag = '', session = ''] = line.split('|');
    return {
      upstreams: upstreams === '-' ? [] : upstreams.split(/, | : /),
      method,
      status: Number(status),
      tag: tag === '-' ? '' : tag,
      session: session === '-' ? '' : session,
    };
  });
}
