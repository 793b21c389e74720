// Server processes and what /proc says about them: spawn, ready-line, CPU ticks and RSS of a process tree,
// and stopping by PID. Linux only (the figures come from /proc).
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

export const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();
export const PAGE_SIZE = (() => {
  try {
    return Number(execFileSync('getconf', ['PAGESIZE'], { encoding: 'utf8' }).trim()) || 4096;
  } catch {
    return 4096;
  }
})();

/** Fields of /proc/<pid>/stat after the command name; index 0 is field 3 (state). */
function statFields(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return s.slice(s.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** `rootPid` and all its descendants that are alive now. */
export function processTree(rootPid) {
  const children = new Map();
  for (const name of readdirSync('/proc')) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const f = statFields(name);
    if (!f) continue;
    const ppid = Number(f[1]);
    let list = children.get(ppid);
    if (!list) children.set(ppid, (list = []));
    list.push(Number(name));
  }
  const out = [rootPid];
  for (let i = 0; i < out.length; i++) {
    const kids = children.get(out[i]);
    if (kids) out.push(...kids);
  }
  return out;
}

/** utime+stime (+ waited-for children) of the given processes, in microseconds. */
export function cpuMicros(pids) {
  let ticks = 0;
  for (const pid of pids) {
    const f = statFields(pid);
    if (!f) continue;
    // fields 14..17 (utime, stime, cutime, cstime) → indexes 11..14
    ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  }
  return (ticks * 1e6) / CLK_TCK;
}

/** User and system CPU time of one process (itself, not its children), in microseconds; zeros once it exited. */
export function cpuSplitMicros(pid) {
  const f = statFields(pid);
  if (!f) return { user: 0, system: 0 };
  return { user: (Number(f[11]) * 1e6) / CLK_TCK, system: (Number(f[12]) * 1e6) / CLK_TCK };
}

/** Resident set size of the given processes, in bytes (from /proc/<pid>/statm). */
export function rssBytes(pids) {
  let pages = 0;
  for (const pid of pids) {
    try {
      pages += Number(readFileSync(`/proc/${pid}/statm`, 'latin1').split(' ')[1]);
    } catch {
      /* exited */
    }
  }
  return pages * PAGE_SIZE;
}

/** VmHWM (the kernel's own peak-RSS mark for one process), in bytes. */
export function hwmBytes(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Samples the RSS of a process tree every `intervalMs` and keeps the peak. */
export class RssSampler {
  constructor(rootPid, intervalMs = 20) {
    this.rootPid = rootPid;
    this.pids = processTree(rootPid);
    this.peak = rssBytes(this.pids);
    this.last = this.peak;
    let n = 0;
    this.timer = setInterval(() => {
      if (++n % 10 === 0) this.pids = processTree(rootPid);
      this.last = rssBytes(this.pids);
      if (this.last > this.peak) this.peak = this.last;
    }, intervalMs);
    this.timer.unref();
  }
  /** Current RSS of the tree, sampled now. */
  now() {
    this.pids = processTree(this.rootPid);
    this.last = rssBytes(this.pids);
    if (this.last > this.peak) this.peak = this.last;
    return this.last;
  }
  resetPeak() {
    this.peak = this.now();
  }
  stop() {
    clearInterval(this.timer);
    const hwm = this.pids.length === 1 ? hwmBytes(this.rootPid) : 0; // exact for a one-process tree
    this.peak = Math.max(this.peak, hwm, this.now());
    return this.peak;
  }
}

const live = new Set();

/** Stops every server still running (by its own PID); used on exit paths. */
export function stopAll() {
  for (const s of live) s.kill('SIGKILL');
}
process.on('exit', stopAll);

/**
 * Spawns `node [nodeFlags] script args`. stdio servers keep stdin/stdout as the wire; every server's
 * stderr is scanned for `BENCH_READY <url>` and `BENCH_HEAP {…}` lines (everything else is kept for
 * failure messages).
 */
export function spawnServer({ script, args = [], nodeFlags = [], env, cwd, wrapper = [] }) {
  const t0 = performance.now();
  // `wrapper`: a command line the node process runs under (bench/instructions.mjs: valgrind --tool=callgrind …)
  const argv = [process.execPath, ...nodeFlags, script, ...args];
  const child = spawn(wrapper.length > 0 ? wrapper[0] : argv[0], [...wrapper.slice(1), ...(wrapper.length > 0 ? argv : argv.slice(1))], {
    cwd,
    env: env ? { ...process.env, ...env } : process.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const handle = {
    child,
    pid: child.pid,
    spawnedAt: t0,
    stderrTail: '',
    exited: false,
    exitCode: undefined,
    _lineWaiters: [],
    _exitWaiters: [],
    /** Resolves with the first stderr line starting with `prefix` (rest of the line), or rejects on timeout/exit. */
    waitLine(prefix, timeoutMs = 15000) {
      return new Promise((resolve, reject) => {
        const w = { prefix, resolve, reject };
        w.timer = setTimeout(() => {
          handle._lineWaiters.splice(handle._lineWaiters.indexOf(w), 1);
          reject(new Error(`timeout waiting for ${prefix} from ${script}; stderr: ${handle.stderrTail.slice(-500)}`));
        }, timeoutMs);
        handle._lineWaiters.push(w);
      });
    },
    kill(signal = 'SIGTERM') {
      if (!handle.exited) {
        try {
          process.kill(child.pid, signal);
        } catch {
          /* already gone */
        }
      }
    },
    /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
    stop(graceMs = 1500) {
      if (handle.exited) return Promise.resolve();
      return new Promise((resolve) => {
        handle._exitWaiters.push(resolve);
        try {
          child.stdin.end();
        } catch {
          /* ignore */
        }
        handle.kill('SIGTERM');
        const t = setTimeout(() => handle.kill('SIGKILL'), graceMs);
        t.unref();
      });
    },
  };
  live.add(handle);
  let errBuf = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    errBuf += chunk;
    let nl;
    while ((nl = errBuf.indexOf('\n')) !== -1) {
      const line = errBuf.slice(0, nl);
      errBuf = errBuf.slice(nl + 1);
      let matched = false;
      for (let i = 0; i < handle._lineWaiters.length; i++) {
        const w = handle._lineWaiters[i];
        if (line.startsWith(w.prefix)) {
          handle._lineWaiters.splice(i, 1);
          clearTimeout(w.timer);
          w.resolve(line.slice(w.prefix.length).trim());
          matched = true;
          break;
        }
      }
      if (!matched) handle.stderrTail = (handle.stderrTail + line + '\n').slice(-4000);
    }
  });
  child.stdin.on('error', () => {}); // EPIPE when the server dies is reported through exit
  child.on('exit', (code, signal) => {
    handle.exited = true;
    handle.exitCode = code ?? signal;
    live.delete(handle);
    for (const w of handle._lineWaiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(new Error(`${script} exited (${handle.exitCode}) before ${w.prefix}; stderr: ${handle.stderrTail.slice(-800)}`));
    }
    for (const r of handle._exitWaiters.splice(0)) r();
  });
  child.on('error', (err) => {
    handle.stderrTail += `spawn error: ${err.message}\n`;
  });
  return handle;
}

/** Asks a bench server for its post-GC heap through the SIGUSR2 side channel. */
export async function probeHeap(handle, timeoutMs = 10000) {
  const p = handle.waitLine('BENCH_HEAP ', timeoutMs);
  handle.kill('SIGUSR2');
  return JSON.parse(await p);
}
