// The orchestrator's side of one client measurement: start the raw floor server (HTTP) or let the client
// spawn it (stdio), start the client process, walk it through the protocol of _harness.mjs, and read
// /proc around the measured window: the client's own utime+stime, the server's, the client's peak RSS.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import process from 'node:process';
import { CLK_TCK, spawnServer, processTree, cpuMicros, hwmBytes } from '../lib/proc.mjs';

const MiB = 1024 * 1024;

/**
 * utime+stime of one process (all its threads: JS, GC, libuv pool), in microseconds; children not counted
 * (fields 14 and 15 of /proc/<pid>/stat; cutime/cstime would add children already waited for).
 */
export function ownCpuMicros(pid) {
  const s = readFileSync(`/proc/${pid}/stat`, 'latin1');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1e6) / CLK_TCK;
}

const live = new Set();
/** Kills (SIGKILL, by PID) every client process still running; for exit paths. */
export function stopAllClients() {
  for (const child of live) {
    try {
      process.kill(child.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}
process.on('exit', stopAllClients);

/** Starts a client process and gives line-by-line access to its control channel. */
function startClient(script, args) {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  live.add(child);
  let stderrTail = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (c) => (stderrTail = (stderrTail + c).slice(-2000)));
  child.stdin.on('error', () => {});
  const lines = [];
  const waiters = [];
  let exited = false;
  const exit = new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      exited = true;
      live.delete(child);
      for (const w of waiters.splice(0)) w.reject(new Error(`client exited (${code ?? signal}); stderr: ${stderrTail.slice(-600)}`));
      resolve(code ?? signal);
    }),
  );
  createInterface({ input: child.stdout }).on('line', (line) => {
    const w = waiters.shift();
    if (w) w.resolve(line);
    else lines.push(line);
  });
  return {
    child,
    pid: child.pid,
    exit,
    get stderrTail() {
      return stderrTail;
    },
    say: (word) => !exited && child.stdin.write(`${word}\n`),
    /** The next line, which must start with `word` (or FAIL, which rejects); its JSON payload. */
    async expect(word, timeoutMs) {
      let timer;
      const line = await Promise.race([
        lines.length ? Promise.resolve(lines.shift()) : new Promise((resolve, reject) => (exited ? reject(new Error(`client exited; stderr: ${stderrTail.slice(-600)}`)) : waiters.push({ resolve, reject }))),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${word} from the client in ${timeoutMs} ms; stderr: ${stderrTail.slice(-600)}`)), timeoutMs))),
      ]).finally(() => clearTimeout(timer));
      const sp = line.indexOf(' ');
      const head = sp === -1 ? line : line.slice(0, sp);
      const data = sp === -1 ? {} : JSON.parse(line.slice(sp + 1));
      if (head === 'FAIL') throw new Error(`${data.stage}: ${data.error}`);
      if (head !== word) throw new Error(`expected ${word} from the client, got ${line.slice(0, 200)}`);
      return data;
    },
    /** CLOSE, then SIGKILL by PID after `graceMs`; resolves with the exit code. */
    async stop(graceMs = 5000) {
      if (!exited) {
        child.stdin.end('CLOSE\n');
        const t = setTimeout(() => {
          try {
            process.kill(child.pid, 'SIGKILL');
          } catch {
            /* gone */
          }
        }, graceMs);
        const code = await exit;
        clearTimeout(t);
        return code;
      }
      return exit;
    },
  };
}

/** Starts the raw floor HTTP server of this measurement; resolves its handle and URL. */
async function startHttpServer(serverScript) {
  const h = spawnServer({ script: serverScript, args: ['--port', '0'] });
  h.child.stdout.resume();
  try {
    return { h, url: await h.waitLine('BENCH_READY ', 20000) };
  } catch (err) {
    await h.stop();
    throw err;
  }
}

const aliveState = (pid) => {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return s[s.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
};

/**
 * Waits up to `graceMs` for the stdio servers a client spawned to be gone after the client closed, then
 * kills by PID those still running; resolves how many had to be killed (a clean close leaves none).
 */
async function reap(pids, graceMs = 2000) {
  const until = Date.now() + graceMs;
  while (pids.some(aliveState) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  let left = 0;
  for (const pid of pids.filter(aliveState)) {
    try {
      process.kill(pid, 'SIGKILL');
      left++;
    } catch {
      /* exited meanwhile */
    }
  }
  return left;
}

/**
 * One measurement: a fresh client process (and, on HTTP, a fresh server), warm-up, then the window.
 * `row` = { script, args }, `cell` = { transport, concurrency, payloadBytes }, `servers` = { stdio, http }
 * script paths. Returns the record's figures, or `{ ok: false, firstFailure }`.
 */
export async function measureClient(row, cell, { servers, warmupMs, durationMs, maxCalls }) {
  const server = cell.transport === 'http' ? await startHttpServer(servers.http) : undefined;
  const target = server ? ['--transport', 'http', '--url', server.url] : ['--transport', 'stdio', '--server', servers.stdio];
  const c = startClient(row.script, [...target, ...(row.args ?? []), '--concurrency', String(cell.concurrency), '--payload', String(cell.payloadBytes), '--warmup-ms', String(warmupMs), '--duration-ms', String(durationMs), '--max-calls', String(maxCalls)]);
  let serverPids = [];
  try {
    const info = await c.expect('READY', 30000);
    const warm = await c.expect('WARM', warmupMs + 60000);
    serverPids = server ? processTree(server.h.pid) : processTree(c.pid).slice(1);
    const cpu0 = ownCpuMicros(c.pid);
    const srv0 = cpuMicros(serverPids);
    c.say('GO');
    const done = await c.expect('DONE', durationMs + 60000);
    const cpu1 = ownCpuMicros(c.pid);
    const srv1 = cpuMicros(serverPids);
    c.say('STATS');
    const stats = await c.expect('STATS', 30000);
    const peakRss = hwmBytes(c.pid);
    const code = await c.stop();
    const leftBehind = server ? 0 : await reap(serverPids);
    const ok = done.failures === 0 && done.completed > 0 && code === 0 && leftBehind === 0;
    return {
      ok,
      failures: done.failures,
      firstFailure: done.firstFailure ?? (code !== 0 ? `client exited ${code}: ${c.stderrTail.slice(-300)}` : leftBehind ? `${leftBehind} server process(es) left running after close` : undefined),
      info,
      warmupCalls: warm.calls,
      calls: done.completed,
      seconds: done.elapsedMs / 1000,
      callsPerSec: done.completed / (done.elapsedMs / 1000),
      p50Ms: stats.p50Ms,
      p99Ms: stats.p99Ms,
      cpuUsPerCall: (cpu1 - cpu0) / done.completed,
      serverCpuUsPerCall: (srv1 - srv0) / done.completed,
      clientPeakRssMiB: peakRss / MiB,
    };
  } catch (err) {
    return { ok: false, failures: 1, firstFailure: err.message };
  } finally {
    await c.stop(1000);
    if (server) await server.h.stop();
    else await reap(serverPids, 0);
  }
}

/** Smoke: one client process per row and transport, a few checked calls at C=1 and C=16. */
export async function smokeClient(row, transport, { servers, calls }) {
  const server = transport === 'http' ? await startHttpServer(servers.http) : undefined;
  const target = server ? ['--transport', 'http', '--url', server.url] : ['--transport', 'stdio', '--server', servers.stdio];
  const c = startClient(row.script, [...target, ...(row.args ?? []), '--smoke', '--max-calls', String(calls)]);
  let serverPids = [];
  try {
    const info = await c.expect('READY', 30000);
    serverPids = server ? [] : processTree(c.pid).slice(1);
    const res = await c.expect('SMOKE', 30000);
    const code = await c.stop();
    const leftBehind = await reap(serverPids);
    if (code !== 0) return { ok: false, failures: 1, firstFailure: `client exited ${code}: ${c.stderrTail.slice(-300)}` };
    if (leftBehind) return { ok: false, failures: 1, firstFailure: `${leftBehind} server process(es) left running after close` };
    return { ok: true, failures: 0, calls: res.calls, info };
  } catch (err) {
    return { ok: false, failures: 1, firstFailure: err.message };
  } finally {
    await c.stop(1000);
    if (server) await server.h.stop();
    else await reap(serverPids, 0);
  }
}
