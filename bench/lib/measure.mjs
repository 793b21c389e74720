// One measurement = one fresh server process, measured by the load generator, stopped by its PID.
import { performance } from 'node:perf_hooks';
import { spawnServer, RssSampler, processTree, cpuMicros, probeHeap } from './proc.mjs';
import { StdioClient, HttpClient, drive, percentile, echoText, echoRequest, checkEcho } from './loadgen.mjs';

const MiB = 1024 * 1024;

/** Starts `row`'s server for its transport and connects a client of the row's era (legacy: handshaken). */
export async function startServer(row, { extraArgs = [], nodeFlags = [], sockets = 16, handshake = true, readyTimeoutMs = 20000, wrapper } = {}) {
  const transportArgs = row.transport === 'stdio' ? ['--stdio'] : ['--port', '0'];
  const h = spawnServer({ script: row.script, args: [...transportArgs, ...(row.args || []), ...extraArgs], nodeFlags: [...(row.nodeFlags || []), ...nodeFlags], wrapper });
  const sampler = new RssSampler(h.pid);
  let client;
  try {
    if (row.transport === 'stdio') {
      client = new StdioClient(h, { protocol: row.protocol });
      if (handshake) await client.handshake(readyTimeoutMs);
    } else {
      // stdout is not the wire here: keep draining it so a chatty server never blocks on a full pipe
      h.child.stdout.on('data', (c) => (h.stdoutTail = ((h.stdoutTail || '') + c).slice(-4000)));
      const url = await h.waitLine('BENCH_READY ', readyTimeoutMs);
      client = new HttpClient(url, { sockets, protocol: row.protocol });
      if (handshake) await client.handshake();
    }
  } catch (err) {
    sampler.stop();
    await h.stop();
    throw err;
  }
  return {
    h,
    client,
    sampler,
    async stop() {
      sampler.stop();
      try {
        await Promise.race([client.close(), new Promise((r) => setTimeout(r, 3000))]);
      } catch {
        /* ignore */
      }
      await h.stop();
    },
  };
}

/** Throughput cell: warm up, then C echo calls in flight for `durationMs`; /proc CPU and RSS around it. */
export async function measureThroughput(row, { concurrency, payloadBytes, warmupMs, durationMs, maxRequests, extraArgs = [] }) {
  const s = await startServer(row, { extraArgs, sockets: concurrency });
  try {
    const warm = await drive(s.client, { concurrency, payloadBytes, durationMs: warmupMs, maxRequests, record: false, nextId: 1 });
    if (warm.failures > 0) return { ok: false, failures: warm.failures, firstFailure: `warm-up: ${warm.firstFailure}`, stderr: s.h.stderrTail.slice(-500) };
    const pids = processTree(s.h.pid);
    const cpu0 = cpuMicros(pids);
    const m = await drive(s.client, { concurrency, payloadBytes, durationMs, maxRequests, record: true, nextId: warm.nextId });
    const cpu1 = cpuMicros(pids);
    const peak = s.sampler.stop();
    const lat = Float64Array.from(m.latencies).sort();
    return {
      ok: m.failures === 0 && m.completed > 0,
      requests: m.completed,
      failures: m.failures,
      firstFailure: m.firstFailure,
      seconds: m.elapsedMs / 1000,
      rps: m.completed / (m.elapsedMs / 1000),
      p50Ms: percentile(lat, 0.5),
      p99Ms: percentile(lat, 0.99),
      cpuUsPerReq: (cpu1 - cpu0) / m.completed,
      peakRssMiB: peak / MiB,
      pids: pids.length,
      httpBodies: s.client.stats ? { ...s.client.stats } : undefined,
    };
  } finally {
    await s.stop();
  }
}

/**
 * Idle legacy sessions: open `warmSessions`, GC, read heap; open `sessions` more, GC, read heap.
 * Retained heap per session = difference / sessions. The server runs with --expose-gc and answers
 * SIGUSR2 with a BENCH_HEAP line (see servers/_common.js).
 */
export async function measureIdleSessions(row, { sessions, warmSessions = 20, extraArgs = [] }) {
  const s = await startServer(row, { extraArgs, nodeFlags: ['--expose-gc'], sockets: 4, handshake: false });
  try {
    const open = async (n) => {
      const ids = [];
      for (let i = 0; i < n; i += 4) {
        const batch = await Promise.all(Array.from({ length: Math.min(4, n - i) }, () => s.client.openSession()));
        for (const b of batch) ids.push(b.sessionId);
      }
      return ids;
    };
    const warm = await open(warmSessions);
    // one call on a warm session, so tool paths are warm too
    s.client.sessionId = warm[0];
    s.client.protocolVersion = '2025-11-25';
    const probe = await drive(s.client, { concurrency: 1, payloadBytes: 64, durationMs: 200, maxRequests: 200, record: false, nextId: 1 });
    if (probe.failures) return { ok: false, failures: probe.failures, firstFailure: probe.firstFailure };
    await new Promise((r) => setTimeout(r, 100));
    const before = await probeHeap(s.h);
    const t0 = performance.now();
    const ids = await open(sessions);
    const openMs = performance.now() - t0;
    const distinct = new Set(ids).size;
    await new Promise((r) => setTimeout(r, 100));
    const after = await probeHeap(s.h);
    // the sessions must still be alive: one call on the last one
    s.client.sessionId = ids[ids.length - 1];
    const check = await drive(s.client, { concurrency: 1, payloadBytes: 64, durationMs: 100, maxRequests: 5, record: false, nextId: probe.nextId });
    const peak = s.sampler.stop();
    const perSession = (after.heapUsed + after.external - before.heapUsed - before.external) / sessions;
    return {
      ok: check.failures === 0 && before.gc && (distinct === sessions || ids[0] === undefined),
      failures: check.failures,
      firstFailure: check.firstFailure || (before.gc ? undefined : 'server did not expose gc'),
      sessions,
      sessionful: ids[0] !== undefined,
      distinctSessionIds: distinct,
      heapBeforeMiB: before.heapUsed / MiB,
      heapAfterMiB: after.heapUsed / MiB,
      bytesPerSession: perSession,
      kibPerSession: perSession / 1024,
      heapOnlyKibPerSession: (after.heapUsed - before.heapUsed) / sessions / 1024,
      openSessionsPerSec: sessions / (openMs / 1000),
      peakRssMiB: peak / MiB,
    };
  } finally {
    await s.stop();
  }
}

/**
 * Calls in flight: `calls` echo calls with `delayMs` written at once on stdio; RSS of the server tree at
 * idle (after the handshake and a short warm-up) against its peak while they are held.
 */
export async function measureInflight(row, { calls, delayMs, payloadBytes = 64, extraArgs = [] }) {
  const s = await startServer(row, { extraArgs, sockets: Math.min(calls, 256) });
  try {
    const warm = await drive(s.client, { concurrency: 16, payloadBytes, durationMs: 300, maxRequests: 5000, record: false, nextId: 1 });
    if (warm.failures) return { ok: false, failures: warm.failures, firstFailure: warm.firstFailure };
    await new Promise((r) => setTimeout(r, 200));
    const idle = s.sampler.now();
    s.sampler.resetPeak();
    let first = Infinity;
    let last = 0;
    let failures = 0;
    let firstFailure;
    const t0 = performance.now();
    await new Promise((resolve) => {
      let pending = calls;
      const timer = setTimeout(() => {
        failures += pending;
        firstFailure = firstFailure || `${pending} calls unanswered`;
        resolve();
      }, delayMs + 60000);
      for (let i = 0; i < calls; i++) {
        const id = warm.nextId + i;
        const text = echoText(id, payloadBytes);
        s.client.call(id, s.client.echoRequest(id, text, delayMs), (err, msg) => {
          const now = performance.now() - t0;
          if (now < first) first = now;
          last = now;
          const bad = err ? err.message : checkEcho(msg, text, s.client.modern);
          if (bad) {
            failures++;
            firstFailure = firstFailure || bad;
          }
          if (--pending === 0) {
            clearTimeout(timer);
            resolve();
          }
        });
      }
    });
    const peak = s.sampler.stop();
    return {
      ok: failures === 0,
      failures,
      firstFailure,
      calls,
      delayMs,
      idleRssMiB: idle / MiB,
      peakRssMiB: peak / MiB,
      aboveIdleMiB: (peak - idle) / MiB,
      firstReplyMs: first,
      lastReplyMs: last,
      // every call was held at the same moment iff the replies span less than one delay
      allInFlightAtOnce: last - first < delayMs,
    };
  } finally {
    await s.stop();
  }
}

/** Cold start on stdio: spawn, write initialize + initialized + one tools/call at once, time both replies. */
export async function measureColdStart(row, { extraArgs = [] } = {}) {
  const h = spawnServer({ script: row.script, args: ['--stdio', ...(row.args || []), ...extraArgs], nodeFlags: row.nodeFlags || [] });
  const t0 = h.spawnedAt;
  const client = new StdioClient(h);
  try {
    const text = echoText(1, 64);
    const init = new Promise((resolve, reject) => client.call('init', JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'switchboard-bench', version: '1.0.0' } } }), (err, msg) => (err ? reject(err) : resolve([performance.now(), msg]))));
    client.write('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    const call = new Promise((resolve, reject) => client.call(1, echoRequest(1, text), (err, msg) => (err ? reject(err) : resolve([performance.now(), msg]))));
    let timer;
    const timeout = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('cold start: no reply in 20 s')), 20000)));
    const [[tInit, initMsg], [tCall, callMsg]] = await Promise.race([Promise.all([init, call]), timeout]).finally(() => clearTimeout(timer));
    const bad = initMsg.error ? `initialize: ${initMsg.error.message}` : checkEcho(callMsg, text);
    return { ok: !bad, failures: bad ? 1 : 0, firstFailure: bad, initializeMs: tInit - t0, firstCallMs: tCall - t0 };
  } catch (err) {
    return { ok: false, failures: 1, firstFailure: err.message + ' ' + h.stderrTail.slice(-300) };
  } finally {
    client.close();
    await h.stop();
  }
}
