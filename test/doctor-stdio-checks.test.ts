/**
 * The start-up and stdio hygiene checks, each run alone by the doctor's runner on real processes: the exact
 * message and evidence of each finding (the gallery test only checks which finding comes), the cases no fixture
 * plants (a desktop host's PATH, our demo in both eras), and what a check must not report.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { STDIO_STARTUP_CHECK } from '../packages/cli/src/doctor/checks/startup/startupCheck.js';
import { HTTP_STARTUP_CHECK } from '../packages/cli/src/doctor/checks/startup/reach.js';
import { STDIO_LATE_CHECKS } from '../packages/cli/src/doctor/checks/stdio.js';
import { STDIO_HYGIENE_CHECK } from '../packages/cli/src/doctor/checks/stdio/hygiene.js';
import { runDoctor } from '../packages/cli/src/doctor/doctor.js';
import { nodeDoctorEnv } from '../packages/cli/src/doctor/nodeEnv.js';
import type { Check, DoctorEnv, DoctorOptions, DoctorReport } from '../packages/cli/src/doctor/types.js';
import { stopByPid } from './helpers/process.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const FIXTURES = path.join(HERE, 'fixtures', 'broken-servers');
const DEMO = [path.join(HERE, '..', 'examples', 'demo', 'main.js'), '--stdio'];
const started: ChildProcess[] = [];

afterEach(() => {
  for (const child of started.splice(0)) stopByPid(child);
});

/** Runs the doctor with one check on a stdio target: `node <fixture>.mjs`, or the command given. */
function doctor(check: Check, options: { command?: string; args?: readonly string[]; fixture?: string; env?: Partial<DoctorEnv>; targetEnv?: Record<string, string>; era?: DoctorOptions['era']; requestTimeoutMs?: number }): Promise<DoctorReport> {
  const command = options.command ?? process.execPath;
  const args = options.args ?? [path.join(FIXTURES, `${options.fixture}.mjs`)];
  return runDoctor({
    target: { transport: 'stdio', command, args, ...(options.targetEnv === undefined ? {} : { env: options.targetEnv }) },
    env: { ...nodeDoctorEnv(), ...options.env },
    checks: [check],
    timeoutMs: 20_000,
    requestTimeoutMs: options.requestTimeoutMs ?? 5000,
    ...(options.era === undefined ? {} : { era: options.era }),
  });
}

/** The findings as id, message and evidence. */
function seen(report: DoctorReport): { id: string; message: string; evidence: readonly string[] }[] {
  return report.findings.map((f) => ({ id: f.id, message: f.message, evidence: f.evidence }));
}

function outcome(report: DoctorReport, id: string): string | undefined {
  return report.checks.find((c) => c.id === id)?.status;
}

describe('startup.stdio', () => {
  it('our demo server starts clean and quickly; the start-up time is a measurement', async () => {
    const report = await doctor(STDIO_STARTUP_CHECK, { args: DEMO });
    expect(seen(report)).toEqual([]);
    expect(outcome(report, 'startup.stdio')).toBe('passed');
    expect(report.measurements.startupMs).toBeGreaterThan(0);
    expect(report.measurements.startupMs).toBeLessThan(5000);
  });

  it('a command on no PATH is command-not-found, with the PATH used; nothing to connect to (exit code 2)', async () => {
    const report = await doctor(STDIO_STARTUP_CHECK, { command: 'switchboard-no-such-command-2f7c', args: [], targetEnv: { PATH: '/usr/bin:/bin' } });
    expect(seen(report)).toEqual([
      {
        id: 'startup.command-not-found',
        message: '"switchboard-no-such-command-2f7c" is not found in any directory of the PATH',
        evidence: ['spawn switchboard-no-such-command-2f7c: ENOENT: spawn switchboard-no-such-command-2f7c ENOENT', 'PATH=/usr/bin:/bin', 'searched 2 directories'],
      },
    ]);
    expect(report.summary.exitCode).toBe(2);
  });

  it('a command and its arguments written as one string is not found, and the message says why', async () => {
    const report = await doctor(STDIO_STARTUP_CHECK, { command: 'npx -y @modelcontextprotocol/server-everything', args: [] });
    expect(report.findings.map((f) => [f.id, f.message])).toEqual([
      ['startup.command-not-found', '"npx -y @modelcontextprotocol/server-everything" is not found: it contains spaces; the arguments belong in "args"'],
    ]);
  });

  it('a path that does not exist is command-not-found without a PATH search', async () => {
    const missing = path.join(FIXTURES, 'no-such-server.js');
    const report = await doctor(STDIO_STARTUP_CHECK, { command: missing, args: [] });
    expect(report.findings.map((f) => [f.id, f.message, f.evidence.at(-1)])).toEqual([['startup.command-not-found', `"${missing}" does not exist or is not executable`, 'a path: not searched on PATH']]);
  });

  it('a file that is not executable is spawn-failed (EACCES)', async () => {
    const file = path.join(FIXTURES, 'stdio-banner.mjs');
    const report = await doctor(STDIO_STARTUP_CHECK, { command: file, args: [] });
    expect(report.findings.map((f) => [f.id, f.message])).toEqual([['startup.spawn-failed', `Starting "${file}" failed with EACCES`]]);
  });

  it('a process that exits at once is exited-at-start, with its exit code and last stderr lines', async () => {
    const report = await doctor(STDIO_STARTUP_CHECK, { fixture: 'stdio-exits-at-start' });
    expect(seen(report)).toEqual([
      {
        id: 'startup.exited-at-start',
        message: 'The process exited with code 1 before answering "initialize"',
        evidence: ['exited with code 1', 'stderr: weather-mcp: starting', 'stderr: Error: WEATHER_API_KEY is not set'],
      },
    ]);
  });

  it('a process that never answers is no-answer, after initialize and then server/discover (--era auto)', async () => {
    const report = await doctor(STDIO_STARTUP_CHECK, { fixture: 'stdio-no-answer', requestTimeoutMs: 1500 });
    expect(report.findings.map((f) => [f.id, f.message, f.evidence.at(-1)])).toEqual([
      ['startup.no-answer', 'No answer to "initialize" and "server/discover" within 1500 ms: the process runs and wrote nothing on stdout', 'stderr: weather-mcp: connecting to the database at 127.0.0.1:5432…'],
    ]);
  });

  it('--era legacy asks with initialize alone, --era modern with server/discover alone', async () => {
    const session = await doctor(STDIO_STARTUP_CHECK, { fixture: 'stdio-no-answer', requestTimeoutMs: 1200, era: 'legacy' });
    expect(session.findings.map((f) => f.message)).toEqual(['No answer to "initialize" within 1200 ms: the process runs and wrote nothing on stdout']);
    const stateless = await doctor(STDIO_STARTUP_CHECK, { fixture: 'stdio-no-answer', requestTimeoutMs: 1200, era: 'modern' });
    expect(stateless.findings.map((f) => f.message)).toEqual(['No answer to "server/discover" within 1200 ms: the process runs and wrote nothing on stdout']);
  });

  it('a first answer after 5.5 s is a slow start, with the time', async () => {
    const report = await doctor(STDIO_STARTUP_CHECK, { fixture: 'stdio-slow-start', requestTimeoutMs: 9000 });
    const startupMs = report.measurements.startupMs!;
    expect(startupMs).toBeGreaterThanOrEqual(5500);
    expect(report.findings.map((f) => [f.id, f.severity, f.message])).toEqual([['startup.slow-start', 'warning', `The first answer came ${startupMs} ms after the process started (more than 5000 ms)`]]);
  });
});

describe('startup.stdio: the PATH of a desktop host', () => {
  /** A directory holding `sb-doctor-node`, a link to this Node: a program only the doctor's PATH finds. */
  async function withPrivateNode(body: (dir: string) => Promise<void>): Promise<void> {
    const dir = await mkdtemp(path.join(tmpdir(), 'sb-host-path-'));
    try {
      await symlink(process.execPath, path.join(dir, 'sb-doctor-node'));
      await body(dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  it('on macOS, a bare command found only through a PATH directory the host lacks is a warning', async () => {
    await withPrivateNode(async (dir) => {
      const file = path.join(dir, 'sb-doctor-node');
      const PATH = `${dir}:${process.env.PATH ?? ''}`;
      const report = await doctor(STDIO_STARTUP_CHECK, { command: 'sb-doctor-node', args: DEMO, env: { platform: 'darwin', environment: { ...process.env, PATH } } });
      expect(report.findings.map((f) => ({ id: f.id, severity: f.severity, message: f.message, evidence: f.evidence, source: f.source }))).toEqual([
        {
          id: 'startup.not-on-host-path',
          severity: 'warning',
          message: `"sb-doctor-node" resolves to "${file}" with this PATH, but not with the PATH a desktop host launched from the Dock or Finder gives its servers ("/usr/bin:/bin:/usr/sbin:/sbin")`,
          evidence: [`resolved: ${file}`, `PATH=${PATH}`, 'desktop host PATH=/usr/bin:/bin:/usr/sbin:/sbin: not found'],
          source: 'https://github.com/modelcontextprotocol/python-sdk/issues/478',
        },
      ]);
    });
  });

  it('no warning when the entry sets PATH itself, on a platform without a known minimal PATH, or when the host finds the command', async () => {
    await withPrivateNode(async (dir) => {
      const PATH = `${dir}:${process.env.PATH ?? ''}`;
      const own = await doctor(STDIO_STARTUP_CHECK, { command: 'sb-doctor-node', args: DEMO, targetEnv: { PATH }, env: { platform: 'darwin' } });
      expect(seen(own)).toEqual([]);
      const linux = await doctor(STDIO_STARTUP_CHECK, { command: 'sb-doctor-node', args: DEMO, env: { platform: 'linux', environment: { ...process.env, PATH } } });
      expect(seen(linux)).toEqual([]);
    });
    // `sh` is in /bin on every POSIX system: the host finds it too.
    const sh = await doctor(STDIO_STARTUP_CHECK, { command: 'sh', args: ['-c', `exec "${process.execPath}" "${DEMO[0]}" --stdio`], env: { platform: 'darwin' } });
    expect(seen(sh)).toEqual([]);
  });
});

describe('stdio.hygiene', () => {
  it('our demo server is clean in the legacy era (--era legacy) and in the modern era (--era modern)', async () => {
    for (const era of ['legacy', 'modern'] as const) {
      const report = await doctor(STDIO_HYGIENE_CHECK, { args: DEMO, era });
      expect(seen(report), era).toEqual([]);
      expect(outcome(report, 'stdio.hygiene'), era).toBe('passed');
    }
  });

  it('a banner before the first answer is stdout-not-protocol, quoting the line', async () => {
    const report = await doctor(STDIO_HYGIENE_CHECK, { fixture: 'stdio-banner' });
    expect(seen(report)).toEqual([
      {
        id: 'stdio.stdout-not-protocol',
        message: 'stdout line 1, before the first answer, is not a JSON-RPC message: "Weather MCP server v1.2.0 ready on stdio"',
        evidence: ['stdout line 1: Weather MCP server v1.2.0 ready on stdio'],
      },
    ]);
  });

  it('CR LF line endings are found, each line quoted with its CR', async () => {
    const report = await doctor(STDIO_HYGIENE_CHECK, { fixture: 'stdio-crlf', era: 'legacy' });
    expect(report.findings.map((f) => f.id)).toEqual(['stdio.crlf-line-endings']);
    expect(report.findings[0]!.message).toMatch(/^(\d+) lines of \1 on stdout end with CR LF, not LF alone$/);
    expect(report.findings[0]!.evidence[1]).toBe('stdout line 2: {"jsonrpc":"2.0","id":"7","result":{}}\r');
  });

  it('a byte order mark on the first line is found', async () => {
    const report = await doctor(STDIO_HYGIENE_CHECK, { fixture: 'stdio-bom' });
    expect(report.findings.map((f) => [f.id, f.message])).toEqual([['stdio.bom', '1 line on stdout start with a UTF-8 byte order mark (EF BB BF), the first is line 1']]);
    expect(report.findings[0]!.evidence[0]).toMatch(/^stdout line 1: \uFEFF\{"jsonrpc":"2.0","id":1,"result"/);
  });

  it('answers to notifications are found, with the notifications sent and the answers seen', async () => {
    const report = await doctor(STDIO_HYGIENE_CHECK, { fixture: 'stdio-answers-notifications', era: 'legacy' });
    expect(seen(report)).toEqual([
      {
        id: 'stdio.notification-answered',
        message: 'Notifications were answered: 2 responses came back for messages without an id',
        evidence: [
          '→ {"jsonrpc":"2.0","method":"notifications/initialized"}',
          '→ {"jsonrpc":"2.0","method":"notifications/switchboard/doctor-probe","params":{}}',
          '← {"jsonrpc":"2.0","id":null,"result":{}}',
          '← {"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"Method not found: notifications/switchboard/doctor-probe"}}',
        ],
      },
    ]);
  });

  it('a string id answered as a number is id-type-changed', async () => {
    const report = await doctor(STDIO_HYGIENE_CHECK, { fixture: 'stdio-numeric-ids', era: 'legacy' });
    expect(seen(report)).toEqual([
      {
        id: 'stdio.id-type-changed',
        message: 'Response ids change type: the string id "7" came back as 7',
        evidence: ['→ {"jsonrpc":"2.0","id":"7","method":"ping"}', '← {"jsonrpc":"2.0","id":7,"result":{}}'],
      },
    ]);
  });

  it('a malformed line that ends the process is found, with its exit code and stderr', async () => {
    const report = await doctor(STDIO_HYGIENE_CHECK, { fixture: 'stdio-dies-on-malformed-line', era: 'legacy' });
    expect(seen(report)).toEqual([
      {
        id: 'stdio.malformed-line-kills-server',
        message: 'After a line that is not JSON the server exited with code 1',
        evidence: ['→ {"jsonrpc":"2.0",', '→ {"jsonrpc":"2.0","id":10,"method":"ping"}', '← (no answer)', 'stderr: SyntaxError: Unexpected end of JSON input', 'stderr:     at JSON.parse (<anonymous>)'],
      },
    ]);
  });

  it('in the modern era the same session runs on server/discover: a changed id type and a deadly malformed line are found', async () => {
    const ids = await doctor(STDIO_HYGIENE_CHECK, { fixture: 'stdio-numeric-ids', era: 'modern' });
    expect(ids.findings.map((f) => [f.id, f.message, f.evidence[0]?.slice(0, 50)])).toEqual([['stdio.id-type-changed', 'Response ids change type: the string id "7" came back as 7', '→ {"jsonrpc":"2.0","id":"7","method":"server/disco']]);
    const dies = await doctor(STDIO_HYGIENE_CHECK, { fixture: 'stdio-dies-on-malformed-line', era: 'modern' });
    expect(dies.findings.map((f) => [f.id, f.message])).toEqual([['stdio.malformed-line-kills-server', 'After a line that is not JSON the server exited with code 1']]);
  });

  it('a malformed line dropped without -32700 is parse-error-reply, and the session goes on', async () => {
    const report = await doctor(STDIO_HYGIENE_CHECK, { fixture: 'stdio-silent-parse-error', era: 'legacy' });
    expect(seen(report)).toEqual([
      { id: 'stdio.parse-error-reply', message: 'A line that is not JSON got no answer (expected a -32700 error with "id": null)', evidence: ['→ {"jsonrpc":"2.0",', '← (no answer)'] },
    ]);
  });
});

/** Starts an HTTP fixture and reads the URL it prints. */
async function startHttpFixture(file: string): Promise<string> {
  const child = spawn(process.execPath, [path.join(FIXTURES, `${file}.mjs`)], { stdio: ['ignore', 'pipe', 'inherit'] });
  started.push(child);
  const line = await new Promise<string>((resolve) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
  });
  return (JSON.parse(line) as { url: string }).url;
}

function doctorHttp(url: string): Promise<DoctorReport> {
  return runDoctor({ target: { transport: 'http', url }, env: nodeDoctorEnv(), checks: [HTTP_STARTUP_CHECK], timeoutMs: 20_000, requestTimeoutMs: 3000 });
}

describe('stdio.stdout-watch', () => {
  /**
   * A check that only lets time pass, as a longer run does, while the connect step's client stays open: 1.5 s, and
   * on until stray stdout was seen (at most 3 s more), so a slow machine does not end the run before the first tick.
   */
  const linger: Check = {
    id: 'stdio.linger',
    title: 'linger',
    area: 'stdio',
    transports: ['stdio'],
    requirements: [],
    run: async (ctx) => {
      try {
        await ctx.env.sleep(1500, ctx.signal);
        for (let waited = 0; ctx.facts.stdoutNoise === undefined && waited < 3000; waited += 100) await ctx.env.sleep(100, ctx.signal);
      } catch {
        // The run's budget is spent: the watch reports what was seen.
      }
    },
  };

  function watch(options: { checks: readonly Check[]; args: readonly string[] }): Promise<DoctorReport> {
    return runDoctor({ target: { transport: 'stdio', command: process.execPath, args: options.args }, env: nodeDoctorEnv(), checks: options.checks, timeoutMs: 20_000, requestTimeoutMs: 5000 });
  }

  it('a log line on stdout a second after start, after the raw session ended, is stdout-not-protocol (exit code 1)', async () => {
    const report = await watch({ checks: [STDIO_HYGIENE_CHECK, linger, ...STDIO_LATE_CHECKS], args: [path.join(FIXTURES, 'stdio-late-log.mjs')] });
    const findings = report.findings.filter((f) => f.id === 'stdio.stdout-not-protocol');
    expect(findings).toHaveLength(1);
    expect(findings[0]!.message).toMatch(/^stdout line \d+, .*is not a JSON-RPC message: "INFO: tick"$/);
    expect(findings[0]!.evidence).toEqual([expect.stringMatching(/^stdout line \d+: INFO: tick$/)]);
    expect(report.findings.map((f) => f.id)).toEqual(['stdio.stdout-not-protocol']);
    expect(report.summary.exitCode).toBe(1);
  });

  it('the connect step\'s client, which lives for the whole run, is what sees it: the line, when and during which check', async () => {
    const report = await watch({ checks: [linger, ...STDIO_LATE_CHECKS], args: [path.join(FIXTURES, 'stdio-late-log.mjs')] });
    expect(seen(report)).toEqual([
      {
        id: 'stdio.stdout-not-protocol',
        message: expect.stringMatching(/^stdout line \d+, \d+\.\d s after start, while stdio\.linger ran, is not a JSON-RPC message: "INFO: tick"$/),
        evidence: [expect.stringMatching(/^stdout line \d+: INFO: tick$/)],
      },
    ]);
    expect(outcome(report, 'stdio.stdout-watch')).toBe('failed');
  });

  it('a banner the raw session reported is not reported again; our demo server stays clean', async () => {
    const banner = await watch({ checks: [STDIO_HYGIENE_CHECK, ...STDIO_LATE_CHECKS], args: [path.join(FIXTURES, 'stdio-banner.mjs')] });
    expect(banner.findings.map((f) => f.id)).toEqual(['stdio.stdout-not-protocol']);
    expect(outcome(banner, 'stdio.stdout-watch')).toBe('passed');
    const demo = await watch({ checks: [STDIO_HYGIENE_CHECK, linger, ...STDIO_LATE_CHECKS], args: DEMO });
    expect(seen(demo)).toEqual([]);
    expect(outcome(demo, 'stdio.stdout-watch')).toBe('passed');
  });
});

describe('startup.http', () => {
  it('a listening server is reachable: no finding', async () => {
    const url = await startHttpFixture('startup-http-tls');
    const report = await doctorHttp(url.replace(/^https:/, 'http:'));
    expect(seen(report)).toEqual([]);
    expect(report.connected).toBe(true);
  });

  it('a closed port is http-unreachable (connection refused), and the doctor could not connect', async () => {
    const url = await startHttpFixture('startup-http-refused');
    const report = await doctorHttp(url);
    expect(report.findings.map((f) => [f.id, f.message, f.evidence.slice(0, 2)])).toEqual([
      ['startup.http-unreachable', `Nothing listens at ${new URL(url).host}: the connection was refused`, [`POST ${url}`, '→ {"jsonrpc":"2.0","id":"startup-1","method":"ping"}']],
    ]);
    expect(report.findings[0]!.evidence[2]).toMatch(/^error: .*ECONNREFUSED/);
    expect(report.summary.exitCode).toBe(2);
  });

  it('a host name that does not resolve is http-dns', async () => {
    const url = await startHttpFixture('startup-http-dns');
    const report = await doctorHttp(url);
    expect(report.findings.map((f) => [f.id, f.message])).toEqual([['startup.http-dns', 'The host name "mcp-server.invalid" does not resolve']]);
  });

  it('https:// to a plain HTTP port is http-tls', async () => {
    const url = await startHttpFixture('startup-http-tls');
    const report = await doctorHttp(url);
    expect(report.findings.map((f) => [f.id, f.message])).toEqual([['startup.http-tls', `The TLS handshake with ${new URL(url).host} failed`]]);
    expect(report.findings[0]!.evidence[2]).toMatch(/^error: .*(SSL|TLS)/);
  });
});
