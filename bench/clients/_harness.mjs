// The client side of the client benchmark: one client process, one connection, C echo calls in flight.
//
// Every file in this folder but this one is one MCP client (raw, SDK v1, SDK v2, Switchboard) wrapped in the
// same small adapter, `{ connect() → info, callEcho(text) → CallToolResult, close() }`, and handed to
// `runClient`. The orchestrator (bench/client.mjs) starts it as
//   node bench/clients/<name>.mjs --transport stdio --server <bench/servers/x.js> | --transport http --url <url>
//        --concurrency C --payload BYTES --warmup-ms MS --duration-ms MS --max-calls N [client flags]
// and talks to it over stdin/stdout, one line each way, so that it can read the client's own CPU time from
// /proc/<client pid>/stat exactly around the measured window:
//   child → READY {info}      connected (handshake done)
//   child → WARM              warm-up calls done; the child now idles until told
//   parent → GO               the parent has read the CPU counters; the window starts
//   child → DONE {counts}     last reply of the window received; nothing else is running
//   parent → STATS            the parent has read the counters again; the child sorts latencies
//   child → STATS {latency}
//   parent → CLOSE            the child closes its client (stdio: the server process goes with it) and exits
// `--smoke` instead makes a few checked calls at C=1 and C=16 and prints one SMOKE line. `--callgrind W:N` (the
// process runs under valgrind, bench/client-instructions.mjs) makes W warm-up calls at C=1, zeroes the counters, makes
// N calls, dumps the counters, prints CALLGRIND_DONE and exits.
//
// The stdio server is spawned by the client under test, as a user's client would: it is the client's child,
// and its CPU is not in the client's utime+stime (fields 14 and 15 of /proc/<pid>/stat count the process's
// own threads only).
import process from 'node:process';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { execFile } from 'node:child_process';
import { echoText } from '../lib/loadgen.mjs';

/** Parses the shared flags; a client adds its own through `extra` (name → default, all strings). */
export function parseClientArgs(argv = process.argv.slice(2), extra = {}) {
  const opts = { transport: undefined, server: undefined, url: undefined, concurrency: 1, payload: 64, warmupMs: 0, durationMs: 1000, maxCalls: 1_000_000, smoke: false, callgrind: undefined, ...extra };
  const numeric = { '--concurrency': 'concurrency', '--payload': 'payload', '--warmup-ms': 'warmupMs', '--duration-ms': 'durationMs', '--max-calls': 'maxCalls' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      const v = argv[++i];
      if (v === undefined) fail(`${a} needs a value`);
      return v;
    };
    if (a === '--transport') opts.transport = next();
    else if (a === '--server') opts.server = next();
    else if (a === '--url') opts.url = next();
    else if (a === '--smoke') opts.smoke = true;
    else if (a === '--callgrind') opts.callgrind = next();
    else if (numeric[a]) opts[numeric[a]] = Number(next());
    else if (a.startsWith('--') && a.slice(2) in extra) opts[a.slice(2)] = next();
    else fail(`unknown flag ${a}`);
  }
  if (opts.transport === 'stdio' ? !opts.server : opts.transport === 'http' ? !opts.url : true) fail('give --transport stdio --server <script> or --transport http --url <url>');
  return opts;
}

function fail(msg) {
  process.stderr.write(`${process.argv[1]}: ${msg}\n`);
  process.exit(2);
}

/**
 * Undefined when `result` is the echo tool's answer to `text`, else a short reason. Every client is held
 * to the same check on what it hands its caller: the exact text back, no `isError`.
 */
export function checkEchoResult(result, text) {
  if (!result || typeof result !== 'object') return 'no result';
  if (result.isError) return `isError: ${JSON.stringify(result.content).slice(0, 200)}`;
  const c = Array.isArray(result.content) ? result.content[0] : undefined;
  if (!c || c.type !== 'text') return 'content[0] is not text';
  if (c.text !== text) return `text mismatch (${String(c.text).length} vs ${text.length} bytes)`;
  return undefined;
}

/**
 * Keeps `concurrency` calls in flight (each reply starts the next) until `durationMs` has passed or
 * `maxCalls` were issued, then waits for the stragglers. Returns counts, the window's wall time (first send
 * → last reply) and, when `record`, each call's latency in ms.
 */
async function drive(adapter, { concurrency, payload, durationMs, maxCalls, record, seq }) {
  const latencies = record ? [] : undefined;
  let issued = 0;
  let completed = 0;
  let failures = 0;
  let firstFailure;
  const t0 = performance.now();
  const deadline = t0 + durationMs;
  let tLast = t0;
  const worker = async () => {
    while (issued < maxCalls && failures < 100) {
      const now = performance.now();
      if (issued > 0 && now >= deadline) break;
      issued++;
      const text = echoText(seq.next++, payload);
      let bad;
      try {
        bad = checkEchoResult(await adapter.callEcho(text), text);
      } catch (err) {
        bad = `${err?.name ?? 'Error'}: ${err?.message ?? err}`;
      }
      tLast = performance.now();
      if (bad) {
        failures++;
        firstFailure ??= bad;
      } else {
        completed++;
        if (latencies) latencies.push(tLast - now);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, maxCalls) }, worker));
  return { issued, completed, failures, firstFailure, elapsedMs: tLast - t0, latencies };
}

const percentile = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] : NaN);

/** Line-based control channel on stdin/stdout (stdout is never an MCP wire in this process). */
function controlChannel() {
  const waiters = [];
  const lines = [];
  const rl = createInterface({ input: process.stdin });
  rl.on('line', (line) => {
    const w = waiters.shift();
    if (w) w(line.trim());
    else lines.push(line.trim());
  });
  rl.on('close', () => {
    for (const w of waiters.splice(0)) w('CLOSE');
    lines.push('CLOSE');
  });
  return {
    say: (word, data) => process.stdout.write(data === undefined ? `${word}\n` : `${word} ${JSON.stringify(data)}\n`),
    next: () => (lines.length ? Promise.resolve(lines.shift()) : new Promise((resolve) => waiters.push(resolve))),
    close: () => rl.close(),
  };
}

/**
 * Runs one client through the protocol in the header. `makeAdapter(opts)` returns the client's adapter;
 * any throw (connect refused, a wrong reply) ends the process with a FAIL line and exit code 1.
 */
export async function runClient(makeAdapter, extraFlags = {}) {
  const opts = parseClientArgs(process.argv.slice(2), extraFlags);
  const ctl = controlChannel();
  let adapter;
  const bail = async (stage, err) => {
    ctl.say('FAIL', { stage, error: `${err?.name ?? 'Error'}: ${err?.message ?? err}` });
    try {
      await adapter?.close();
    } catch {
      /* already failing */
    }
    ctl.close();
    process.exit(1);
  };
  try {
    adapter = await makeAdapter(opts);
    const info = (await adapter.connect()) ?? {};
    ctl.say('READY', info);
  } catch (err) {
    return bail('connect', err);
  }
  const seq = { next: 1 };
  if (opts.callgrind !== undefined) {
    const [warmCalls, countedCalls] = opts.callgrind.split(':').map(Number);
    const control = (flag) => new Promise((resolve, reject) => execFile('callgrind_control', [flag, String(process.pid)], (error) => (error ? reject(error) : resolve())));
    const run = (maxCalls) => drive(adapter, { concurrency: 1, payload: opts.payload, durationMs: Infinity, maxCalls, record: false, seq });
    const warm = await run(warmCalls);
    if (warm.failures) return bail('warm-up', new Error(warm.firstFailure));
    await control('-z');
    const m = await run(countedCalls);
    await control('-d');
    if (m.failures) return bail('counted', new Error(m.firstFailure));
    ctl.say('CALLGRIND_DONE', { calls: m.completed });
    await adapter.close();
    process.exit(0);
  }
  if (opts.smoke) {
    let calls = 0;
    for (const concurrency of [1, 16]) {
      const d = await drive(adapter, { concurrency, payload: opts.payload, durationMs: Infinity, maxCalls: opts.maxCalls, record: false, seq });
      if (d.failures || d.completed === 0) return bail(`smoke C=${concurrency}`, new Error(d.firstFailure ?? 'no call completed'));
      calls += d.completed;
    }
    ctl.say('SMOKE', { calls });
  } else {
    const warm = await drive(adapter, { concurrency: opts.concurrency, payload: opts.payload, durationMs: opts.warmupMs, maxCalls: opts.maxCalls, record: false, seq });
    if (warm.failures) return bail('warm-up', new Error(warm.firstFailure));
    ctl.say('WARM', { calls: warm.completed });
    if ((await ctl.next()) !== 'GO') return bail('control', new Error('expected GO'));
    const m = await drive(adapter, { concurrency: opts.concurrency, payload: opts.payload, durationMs: opts.durationMs, maxCalls: opts.maxCalls, record: true, seq });
    ctl.say('DONE', { issued: m.issued, completed: m.completed, failures: m.failures, firstFailure: m.firstFailure, elapsedMs: m.elapsedMs });
    if ((await ctl.next()) !== 'STATS') return bail('control', new Error('expected STATS'));
    const lat = Float64Array.from(m.latencies).sort();
    ctl.say('STATS', { p50Ms: percentile(lat, 0.5), p99Ms: percentile(lat, 0.99) });
  }
  while ((await ctl.next()) !== 'CLOSE');
  try {
    await adapter.close();
  } catch (err) {
    return bail('close', err);
  }
  ctl.close();
  // Exiting here, not on an empty loop: an SDK's leftover timers or sockets must not hold the measurement up.
  process.exit(0);
}
