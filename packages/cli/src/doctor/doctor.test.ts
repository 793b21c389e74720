import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CATALOGUE_CHECKS } from './checks/primitives/catalogue.js';
import { runDoctor } from './doctor.js';
import { processRunning as alive } from '../../../../test/helpers/process.js';
import { nodeDoctorEnv } from './nodeEnv.js';
import { REQUIREMENTS } from './requirements/index.js';
import type { Check, DoctorEnv, DoctorProgress, DoctorTarget, ProbeProcess } from './types.js';

const DEMO = fileURLToPath(new URL('../../../../examples/demo/main.js', import.meta.url));
const demoStdio: DoctorTarget = { transport: 'stdio', command: process.execPath, args: [DEMO, '--stdio'] };
/** A server that reads stdin and never answers. */
const mute: DoctorTarget = { transport: 'stdio', command: process.execPath, args: ['-e', 'process.stdin.resume(); setInterval(() => {}, 1000)'] };
/** The first requirement of the manifest is borrowed by the test checks (any valid id will do). */

/** nodeDoctorEnv, recording every process it starts. */
function recordingEnv(): { env: DoctorEnv; processes: ProbeProcess[] } {
  const base = nodeDoctorEnv();
  const processes: ProbeProcess[] = [];
  return {
    processes,
    env: {
      ...base,
      spawn: (options) => {
        const p = base.spawn(options);
        processes.push(p);
        return p;
      },
    },
  };
}

/** A legacy stdio server whose tools/list answers `process.argv[2]` tools (about 130 bytes each) in one line, written in /tmp. */
const BIG_LIST_SERVER = `
const tool = (i) => ({ name: 'tool_' + i, description: 'x'.repeat(80), inputSchema: { type: 'object' } });
const tools = Array.from({ length: Number(process.argv[2]) }, (_, i) => tool(i));
let buffer = '';
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  for (let at; (at = buffer.indexOf('\\n')) !== -1; ) {
    const message = JSON.parse(buffer.slice(0, at));
    buffer = buffer.slice(at + 1);
    if (message.id === undefined) continue;
    const answer = (result) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }) + '\\n');
    if (message.method === 'initialize') answer({ protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'big-list', version: '1.0.0' } });
    else if (message.method === 'tools/list') answer({ tools });
    else if (message.method === 'ping') answer({});
    else process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }) + '\\n');
  }
});
`;
const tmp = mkdtempSync(join(tmpdir(), 'doctor-big-list-'));
const bigListServer = join(tmp, 'bigList.cjs');
writeFileSync(bigListServer, BIG_LIST_SERVER);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const catalogue = CATALOGUE_CHECKS.filter((c) => c.id === 'primitives.catalogue');

function check(partial: Partial<Check> & Pick<Check, 'id' | 'run'>): Check {
  return { title: partial.id, area: 'protocol', transports: ['stdio', 'http'], requirements: [], ...partial };
}

describe('runDoctor', () => {
  it('connects after the start-up checks, runs the rest in order, and reports the demo server clean with no checks of its own', async () => {
    const { env, processes } = recordingEnv();
    const events: DoctorProgress[] = [];
    const order: string[] = [];
    const seen: unknown[] = [];
    const checks: Check[] = [
      check({ id: 'startup.first', area: 'startup', needsConnection: false, run: (ctx) => { order.push(`startup:${String(ctx.facts.connected)}`); return Promise.resolve(); } }),
      check({
        id: 'protocol.second',
        run: async (ctx) => {
          order.push(`protocol:${String(ctx.facts.connected)}`);
          const client = await ctx.client();
          seen.push(client.serverInfo?.name, ctx.requestTimeoutMs <= 2000);
          ctx.progress('pinging');
          await client.ping();
        },
      }),
      check({ id: 'http.only', transports: ['http'], run: () => Promise.reject(new Error('must not run on stdio')) }),
    ];
    const report = await runDoctor({ target: demoStdio, env, checks, requestTimeoutMs: 2000, timeoutMs: 20_000, onProgress: (e) => events.push(e) });
    expect(order).toEqual(['startup:false', 'protocol:true']);
    expect(seen).toEqual(['switchboard-demo', true]);
    expect(report.connected).toBe(true);
    expect(report.server).toEqual({ name: 'switchboard-demo', version: '1.0.0' });
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([['startup.first', 'passed'], ['connect', 'passed'], ['protocol.second', 'passed']]);
    expect(report.summary).toEqual({ errors: 0, warnings: 0, infos: 0, muted: 0, failOn: 'warning', exitCode: 0 });
    expect(report.target).toEqual({ transport: 'stdio', command: process.execPath, args: [DEMO, '--stdio'] });
    expect(events.map((e) => `${e.type}:${e.id}${e.type === 'check-note' ? `:${e.text}` : ''}`)).toEqual([
      'check-start:startup.first', 'check-end:startup.first', 'check-start:connect', 'check-end:connect', 'check-start:protocol.second', 'check-note:protocol.second:pinging', 'check-end:protocol.second',
    ]);
    // One client, one process, gone once the report is back.
    expect(processes).toHaveLength(1);
    expect(alive(processes[0]!.pid!)).toBe(false);
  });

  it('turns a report into a finding from the manifest, and an id outside the check\'s requirements into a crash', async () => {
    const { env } = recordingEnv();
    const checks: Check[] = [
      check({ id: 'protocol.bad-id', needsConnection: false, requirements: ['protocol.some-id'], run: (ctx) => { ctx.report('protocol.not-listed', { message: 'x' }); return Promise.resolve(); } }),
      check({ id: 'protocol.unknown-id', needsConnection: false, requirements: ['protocol.not-in-manifest'], run: (ctx) => { ctx.report('protocol.not-in-manifest', { message: 'x' }); return Promise.resolve(); } }),
      check({ id: 'protocol.throws', needsConnection: false, run: () => Promise.reject(new Error('boom')) }),
    ];
    const report = await runDoctor({ target: demoStdio, env, checks, requestTimeoutMs: 2000, timeoutMs: 20_000 });
    expect(report.checks).toEqual([
      { id: 'connect', title: 'MCP connection', status: 'passed', durationMs: expect.any(Number) },
      { id: 'protocol.bad-id', title: 'protocol.bad-id', status: 'crashed', durationMs: expect.any(Number), reason: 'Check "protocol.bad-id" reported "protocol.not-listed", which is not in its requirements' },
      { id: 'protocol.unknown-id', title: 'protocol.unknown-id', status: 'crashed', durationMs: expect.any(Number), reason: 'Unknown requirement id: "protocol.not-in-manifest"' },
      { id: 'protocol.throws', title: 'protocol.throws', status: 'crashed', durationMs: expect.any(Number), reason: 'boom' },
    ]);
    expect(report.findings).toEqual([]);
    expect(report.summary.exitCode).toBe(1);
  });

  it('returns by the deadline when a check ignores its signal: that check is timed-out, the rest skipped, every process killed', async () => {
    const { env, processes } = recordingEnv();
    let signalled = false;
    const checks: Check[] = [
      check({
        id: 'startup.stubborn',
        area: 'startup', // before the connect step, so a slow machine cannot spend the budget before it starts
        needsConnection: false,
        run: async (ctx) => {
          ctx.signal.addEventListener('abort', () => (signalled = true));
          await ctx.spawn();
          await new Promise(() => {}); // never settles, whatever the signal says
        },
      }),
      check({ id: 'stdio.after', needsConnection: false, run: () => Promise.resolve() }),
    ];
    const started = performance.now();
    const report = await runDoctor({ target: demoStdio, env, checks, timeoutMs: 3000, requestTimeoutMs: 1000 });
    const took = performance.now() - started;
    expect(took).toBeLessThan(3000 + 300);
    expect(signalled).toBe(true);
    expect(report.checks.map((c) => [c.id, c.status, c.reason])).toEqual([
      ['startup.stubborn', 'timed-out', "the doctor's time budget was spent"],
      ['connect', 'skipped', "the doctor's time budget was spent before it started"],
      ['stdio.after', 'skipped', "the doctor's time budget was spent before it started"],
    ]);
    expect(report.summary.exitCode).toBe(2);
    expect(processes).toHaveLength(1);
    for (const p of processes) expect(alive(p.pid!)).toBe(false);
  });

  it('keeps its cleanup inside the budget: a server and its grandchild that both ignore SIGTERM are gone, and the report comes by timeoutMs + 1000 ms (the margin is for a loaded machine; an idle one takes under timeoutMs)', async () => {
    const script = [
      'const { spawn } = require("node:child_process");',
      'const g = spawn(process.execPath, ["-e", "process.on(\'SIGTERM\', () => {}); setInterval(() => {}, 1000)"], { stdio: "ignore" });',
      'process.on("SIGTERM", () => {});',
      'process.stdin.resume();',
      'process.stdout.write(JSON.stringify({ grandchild: g.pid }) + "\\n");',
      'setInterval(() => {}, 1000);',
    ].join('\n');
    const stubborn: DoctorTarget = { transport: 'stdio', command: process.execPath, args: ['-e', script] };
    const { env, processes } = recordingEnv();
    const pids: number[] = [];
    const checks: Check[] = [
      check({
        id: 'startup.stubborn',
        area: 'startup',
        needsConnection: false,
        run: async (ctx) => {
          const wire = await ctx.spawn();
          const line = await wire.waitFor((l) => typeof (l.json as { grandchild?: unknown } | undefined)?.grandchild === 'number', { timeoutMs: 2500 });
          if (line !== undefined) pids.push((line.json as { grandchild: number }).grandchild);
          await new Promise(() => {}); // holds on past the deadline
        },
      }),
    ];
    const started = performance.now();
    const report = await runDoctor({ target: stubborn, env, checks, timeoutMs: 3000, requestTimeoutMs: 1000 });
    const took = performance.now() - started;
    expect(report.checks[0]).toMatchObject({ id: 'startup.stubborn', status: 'timed-out' });
    expect(processes).toHaveLength(1);
    expect(pids).toHaveLength(1);
    for (const pid of [...pids, ...processes.map((p) => p.pid!)]) expect(alive(pid)).toBe(false);
    expect(took).toBeLessThan(3000 + 1000);
  });

  it('reads a 10 MB tools/list whole on stdio (100,000 tools), and tells an answer over the 64 MiB line limit by its size at once', async () => {
    let tools: number | undefined;
    const count = check({ id: 'primitives.count', area: 'primitives', run: (ctx) => { tools = ctx.facts.tools?.length; return Promise.resolve(); } });
    const whole = await runDoctor({ target: { transport: 'stdio', command: process.execPath, args: [bigListServer, '100000'] }, env: nodeDoctorEnv(), checks: [...catalogue, count], era: 'legacy', timeoutMs: 30_000, requestTimeoutMs: 20_000 });
    expect(whole.checks.map((c) => [c.id, c.status])).toEqual([['connect', 'passed'], ['primitives.catalogue', 'passed'], ['primitives.count', 'passed']]);
    expect(whole.findings).toEqual([]);
    expect(tools).toBe(100_000);
    const started = performance.now();
    const cut = await runDoctor({ target: { transport: 'stdio', command: process.execPath, args: [bigListServer, '560000'] }, env: nodeDoctorEnv(), checks: catalogue, era: 'legacy', timeoutMs: 60_000, requestTimeoutMs: 40_000 });
    expect(performance.now() - started).toBeLessThan(30_000); // not the 40 s request timeout
    expect(cut.findings.map((f) => [f.id, f.message])).toEqual([
      ['primitives.list-failed', expect.stringMatching(/^The server declares "tools" but tools\/list failed: The answer was \d+ bytes, over the doctor's limit of 67108864 bytes per line: not read$/)],
    ]);
    expect(Number(/was (\d+) bytes/.exec(cut.findings[0]!.message)?.[1])).toBeGreaterThan(70_000_000);
  }, 90_000);

  it('a check still running after the report opens nothing that outlives it: a late spawn is killed at once', async () => {
    const { env, processes } = recordingEnv();
    let late: Promise<unknown> | undefined;
    const checks: Check[] = [
      check({
        id: 'startup.late',
        area: 'startup',
        needsConnection: false,
        run: async (ctx) => {
          await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => setTimeout(resolve, 1500)));
          late = ctx.spawn().catch((error: unknown) => error);
        },
      }),
    ];
    await runDoctor({ target: demoStdio, env, checks, timeoutMs: 2500, requestTimeoutMs: 1000 });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await late).toEqual(new Error('The check "startup.late" is over: no new process'));
    for (const p of processes) expect(alive(p.pid!)).toBe(false);
  });

  it('a check may skip itself with a reason; one whose findings are all info has passed', async () => {
    const infoId = REQUIREMENTS.find((r) => r.severity === 'info')!.id;
    const checks: Check[] = [
      check({ id: 'protocol.by-choice', needsConnection: false, run: (ctx) => { ctx.skip('no --call given'); return Promise.resolve(); } }),
      check({ id: 'protocol.info-only', needsConnection: false, requirements: [infoId], run: (ctx) => { ctx.report(infoId, { message: 'a fact' }); return Promise.resolve(); } }),
    ];
    const events: DoctorProgress[] = [];
    const report = await runDoctor({ target: demoStdio, env: nodeDoctorEnv(), checks, timeoutMs: 20_000, requestTimeoutMs: 5000, onProgress: (e) => events.push(e) });
    expect(report.checks.slice(1).map((c) => [c.id, c.status, c.reason])).toEqual([['protocol.by-choice', 'skipped', 'no --call given'], ['protocol.info-only', 'passed', undefined]]);
    expect(events.filter((e) => e.type === 'check-end' && e.id === 'protocol.info-only')).toEqual([
      { type: 'check-end', id: 'protocol.info-only', title: 'protocol.info-only', status: 'passed', findings: 1, durationMs: expect.any(Number), worst: 'info' },
    ]);
    expect(report.findings.map((f) => [f.id, f.severity, f.message])).toEqual([[infoId, 'info', 'a fact']]);
    expect(report.summary.exitCode).toBe(0);
  });

  it('a server that never answers: the connect step fails within the request budget, the checks that need a connection are skipped, exit code 2', async () => {
    const { env, processes } = recordingEnv();
    const checks: Check[] = [check({ id: 'protocol.needs', run: () => Promise.reject(new Error('must be skipped')) })];
    const report = await runDoctor({ target: mute, env, checks, timeoutMs: 10_000, requestTimeoutMs: 1000 });
    expect(report.connected).toBe(false);
    expect(report.checks).toEqual([
      { id: 'connect', title: 'MCP connection', status: 'failed', durationMs: expect.any(Number), reason: expect.stringMatching(/timed out|Timed out|time/i) },
      { id: 'protocol.needs', title: 'protocol.needs', status: 'skipped', durationMs: 0, reason: 'no MCP connection was made' },
    ]);
    expect(report.checks[0]!.durationMs).toBeLessThan(5000);
    expect(report.summary.exitCode).toBe(2);
    for (const p of processes) expect(alive(p.pid!)).toBe(false);
  });

  it('stops like at its deadline when the user stops it: the running check is timed-out with that reason, the report comes at once', async () => {
    const { env, processes } = recordingEnv();
    const stop = new AbortController();
    const events: DoctorProgress[] = [];
    const checks: Check[] = [
      check({ id: 'stdio.waits', needsConnection: false, run: async (ctx) => { await ctx.spawn(); setTimeout(() => stop.abort(), 200); await new Promise(() => {}); } }),
      check({ id: 'stdio.next', needsConnection: false, run: () => Promise.resolve() }),
    ];
    const started = performance.now();
    const report = await runDoctor({ target: demoStdio, env, checks, timeoutMs: 60_000, signal: stop.signal, onProgress: (e) => events.push(e) });
    expect(performance.now() - started).toBeLessThan(5000);
    expect(report.checks.slice(1).map((c) => [c.id, c.status, c.reason])).toEqual([['stdio.waits', 'timed-out', 'the doctor was stopped'], ['stdio.next', 'skipped', 'the doctor was stopped before it started']]);
    expect(events.filter((e) => e.type === 'check-end').map((e) => e.type === 'check-end' && [e.id, e.status, e.reason])).toEqual([
      ['connect', 'passed', undefined], ['stdio.waits', 'timed-out', 'the doctor was stopped'], ['stdio.next', 'skipped', 'the doctor was stopped before it started'],
    ]);
    for (const p of processes) expect(alive(p.pid!)).toBe(false);
  });

  it('a command that does not exist: the connect step says so (exit code 2)', async () => {
    const events: DoctorProgress[] = [];
    const report = await runDoctor({ target: { transport: 'stdio', command: 'switchboard-no-such-command-xyz', args: [] }, env: nodeDoctorEnv(), checks: [], timeoutMs: 5000, onProgress: (e) => events.push(e) });
    expect(report.connected).toBe(false);
    expect(report.checks[0]).toMatchObject({ id: 'connect', status: 'failed', reason: expect.stringContaining('command not found') });
    expect(events).toEqual([
      { type: 'check-start', id: 'connect', title: 'MCP connection' },
      { type: 'check-end', id: 'connect', title: 'MCP connection', status: 'failed', findings: 0, durationMs: expect.any(Number), reason: report.checks[0]!.reason },
    ]);
    expect(report.summary.exitCode).toBe(2);
  });
});
