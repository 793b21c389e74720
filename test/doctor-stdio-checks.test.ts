/**
 * The start-up and stdio hygiene checks against the stdio fixtures of test/fixtures/broken-servers/, each run on its
 * own with a small check context over real processes (the doctor's runner is tested in the gallery test).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { STDIO_STARTUP_CHECK } from '../packages/cli/src/doctor/checks/startup/launch.js';
import { HTTP_STARTUP_CHECK } from '../packages/cli/src/doctor/checks/startup/reach.js';
import { STDIO_HYGIENE_CHECK } from '../packages/cli/src/doctor/checks/stdio/hygiene.js';
import type { Check, CheckContext, DoctorEnv, DoctorFacts, HttpProbeRequest, HttpProbeResponse, Observation, StdioLine, StdioWire } from '../packages/cli/src/doctor/types.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const FIXTURES = path.join(HERE, 'fixtures', 'broken-servers');
const DEMO = [path.join(HERE, '..', 'examples', 'demo', 'main.js'), '--stdio'];
const started: ChildProcess[] = [];

afterEach(() => {
  for (const child of started.splice(0)) {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
    }
  }
});

/** A raw stdio wire over a real child process (its own process group). */
function wireOf(options: { command: string; args: readonly string[]; env: Record<string, string>; cwd?: string }): StdioWire {
  const startedAtMs = performance.now();
  const child = spawn(options.command, [...options.args], { env: options.env, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  started.push(child);
  const lines: StdioLine[] = [];
  const stderrTail: string[] = [];
  const waiters = new Set<() => void>();
  const wake = () => { for (const w of [...waiters]) w(); };
  let exit: StdioWire['exit'];
  let buffered = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    let at;
    while ((at = buffered.indexOf('\n')) >= 0) {
      const raw = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      let json: unknown;
      try { json = JSON.parse(raw.replace(/^\uFEFF/, '').replace(/\r$/, '')); } catch { json = undefined; }
      lines.push({ raw, ...(json === undefined ? {} : { json }), atMs: performance.now() });
    }
    wake();
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => { stderrTail.push(...chunk.split('\n').filter((l) => l !== '')); stderrTail.splice(0, Math.max(0, stderrTail.length - 20)); });
  child.stdin.on('error', () => undefined);
  child.on('error', (error: NodeJS.ErrnoException) => { exit = { code: null, signal: null, error: { code: error.code ?? 'UNKNOWN', message: error.message } }; wake(); });
  child.on('close', (code, signal) => { exit ??= { code, signal }; wake(); });
  const wire: StdioWire = {
    pid: child.pid,
    startedAtMs,
    lines,
    stderrTail,
    get exit() { return exit; },
    write: (text) => new Promise((resolve, reject) => {
      if (exit !== undefined || child.stdin.destroyed) { reject(new Error('stdin closed')); return; }
      child.stdin.write(text, (error) => (error ? reject(error) : resolve()));
    }),
    send: (message) => wire.write(`${JSON.stringify(message)}\n`),
    waitFor: (match, { timeoutMs, fromIndex = 0 }) => new Promise((resolve) => {
      let next = fromIndex;
      const look = () => {
        for (; next < lines.length; next++) if (match(lines[next]!)) { done(lines[next]); return; }
        if (exit !== undefined) done(undefined);
      };
      const timer = setTimeout(() => done(undefined), timeoutMs);
      const done = (line: StdioLine | undefined) => { clearTimeout(timer); waiters.delete(look); resolve(line); };
      waiters.add(look);
      look();
    }),
    request: (message, timeoutMs) => {
      const from = lines.length;
      void wire.send({ jsonrpc: '2.0', ...message }).catch(() => undefined);
      return wire.waitFor((line) => (line.json as { id?: unknown } | undefined)?.id === message.id, { timeoutMs, fromIndex: from });
    },
    close: async () => {
      if (exit !== undefined || child.pid === undefined) return;
      child.stdin.end();
      const gone = new Promise<void>((resolve) => child.once('close', () => resolve()));
      const timer = setTimeout(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, 1000);
      await gone;
      clearTimeout(timer);
    },
  };
  return wire;
}

const nodeEnv: DoctorEnv = {
  spawn: () => { throw new Error('not used: the context spawns'); },
  fetch: globalThis.fetch,
  now: () => performance.now(),
  sleep: (ms, signal) => new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => { clearTimeout(timer); reject(new Error('aborted')); }, { once: true });
  }),
  environment: process.env,
  platform: process.platform,
  isExecutable: (file) => access(file, constants.X_OK).then(() => true, () => false),
};

interface Run {
  readonly findings: { readonly id: string; readonly observation: Observation }[];
  readonly facts: DoctorFacts;
}

/** Runs one check on a stdio target, the way the runner would, and returns what it reported. */
async function runCheck(check: Check, options: { command?: string; args?: string[]; fixture?: string; env?: Partial<DoctorEnv>; facts?: Partial<DoctorFacts>; requestTimeoutMs?: number; era?: CheckContext['era']; targetEnv?: Record<string, string> }): Promise<Run> {
  const command = options.command ?? process.execPath;
  const args = options.args ?? [path.join(FIXTURES, `${options.fixture}.mjs`)];
  const env = { ...nodeEnv, ...options.env };
  const facts: DoctorFacts = { connected: true, legacyRevisions: [], modernRevisions: [], measurements: {}, ...options.facts };
  const findings: Run['findings'] = [];
  const wires: StdioWire[] = [];
  const ctx: CheckContext = {
    target: { transport: 'stdio', command, args, ...(options.targetEnv === undefined ? {} : { env: options.targetEnv }) },
    env,
    signal: new AbortController().signal,
    requestTimeoutMs: options.requestTimeoutMs ?? 5000,
    era: options.era ?? 'auto',
    facts,
    report: (id, observation) => {
      expect(check.requirements).toContain(id);
      findings.push({ id, observation });
    },
    client: () => Promise.reject(new Error('no client in these tests')),
    spawn: () => {
      const wire = wireOf({ command, args, env: { ...(env.environment as Record<string, string>), ...options.targetEnv } });
      wires.push(wire);
      return Promise.resolve(wire);
    },
    http: () => Promise.reject(new Error('no HTTP in these tests')),
    progress: () => undefined,
  };
  await check.run(ctx);
  for (const wire of wires) await wire.close();
  return { findings, facts };
}

const ids = (run: Run) => run.findings.map((f) => f.id);

describe('startup.stdio on real processes', () => {
  it('our own conforming server starts clean and quickly; startupMs is measured', async () => {
    const run = await runCheck(STDIO_STARTUP_CHECK, { args: DEMO });
    expect(run.findings).toEqual([]);
    expect(run.facts.startupMs).toBeGreaterThan(0);
    expect(run.facts.startupMs).toBeLessThan(2000);
  });

  it('a command on no PATH is command-not-found, with the PATH used', async () => {
    const run = await runCheck(STDIO_STARTUP_CHECK, { command: 'switchboard-no-such-command-2f7c', args: [], targetEnv: { PATH: '/usr/bin:/bin' } });
    expect(ids(run)).toEqual(['startup.command-not-found']);
    expect(run.findings[0]!.observation.message).toBe('"switchboard-no-such-command-2f7c" is not found in any directory of the PATH');
    expect(run.findings[0]!.observation.evidence).toEqual(['spawn switchboard-no-such-command-2f7c: ENOENT: spawn switchboard-no-such-command-2f7c ENOENT', 'PATH=/usr/bin:/bin', 'searched 2 directories']);
  });

  it('a process that exits at once is exited-at-start, with its exit code and stderr', async () => {
    const run = await runCheck(STDIO_STARTUP_CHECK, { fixture: 'stdio-exits-at-start' });
    expect(ids(run)).toEqual(['startup.exited-at-start']);
    expect(run.findings[0]!.observation.message).toBe('The process exited with code 1 before answering "initialize"');
    expect(run.findings[0]!.observation.evidence).toEqual(['exited with code 1', 'stderr: weather-mcp: starting', 'stderr: Error: WEATHER_API_KEY is not set']);
  });

  it('a process that never answers is no-answer, after initialize and then server/discover', async () => {
    const run = await runCheck(STDIO_STARTUP_CHECK, { fixture: 'stdio-no-answer', requestTimeoutMs: 1500 });
    expect(ids(run)).toEqual(['startup.no-answer']);
    expect(run.findings[0]!.observation.message).toBe('No answer to "initialize" and "server/discover" within 1500 ms: the process runs and wrote nothing on stdout');
    expect(run.findings[0]!.observation.evidence?.at(-1)).toBe('stderr: weather-mcp: connecting to the database at 127.0.0.1:5432…');
  });
});

describe('startup.stdio: slow start and the desktop host PATH', () => {
  it('a first answer after 2.5 s is a slow start, with the time; startupMs is set', async () => {
    const run = await runCheck(STDIO_STARTUP_CHECK, { fixture: 'stdio-slow-start' });
    expect(ids(run)).toEqual(['startup.slow-start']);
    expect(run.facts.startupMs).toBeGreaterThanOrEqual(2500);
    expect(run.findings[0]!.observation.message).toBe(`The first answer came ${run.facts.startupMs} ms after the process started (more than 2000 ms)`);
  });

  it('on macOS, a bare command found only through a PATH directory the desktop host lacks is a warning', async () => {
    // `sb-doctor-node` exists only in a directory of the doctor's PATH; a Dock-launched host on macOS searches only
    // /usr/bin:/bin:/usr/sbin:/sbin.
    const dir = await mkdtemp(path.join(tmpdir(), 'sb-host-path-'));
    try {
      const file = path.join(dir, 'sb-doctor-node');
      await symlink(process.execPath, file);
      const PATH = `${dir}:${process.env.PATH ?? ''}`;
      const run = await runCheck(STDIO_STARTUP_CHECK, { command: 'sb-doctor-node', args: DEMO, env: { platform: 'darwin', environment: { ...process.env, PATH } } });
      expect(run.findings).toEqual([
        {
          id: 'startup.not-on-host-path',
          observation: {
            message: `"sb-doctor-node" resolves to "${file}" with this PATH, but not with the PATH a desktop host launched from the Dock or Finder gives its servers ("/usr/bin:/bin:/usr/sbin:/sbin")`,
            evidence: [`resolved: ${file}`, `PATH=${PATH}`, 'desktop host PATH=/usr/bin:/bin:/usr/sbin:/sbin: not found'],
          },
        },
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('no host PATH warning when the entry sets PATH itself, on a platform without a known minimal PATH, or when the host finds it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sb-host-path-'));
    try {
      await symlink(process.execPath, path.join(dir, 'sb-doctor-node'));
      const PATH = `${dir}:${process.env.PATH ?? ''}`;
      const withPath = await runCheck(STDIO_STARTUP_CHECK, { command: 'sb-doctor-node', args: DEMO, targetEnv: { PATH }, env: { platform: 'darwin' } });
      expect(withPath.findings).toEqual([]);
      const linux = await runCheck(STDIO_STARTUP_CHECK, { command: 'sb-doctor-node', args: DEMO, env: { platform: 'linux', environment: { ...process.env, PATH } } });
      expect(linux.findings).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    // `sh` is in /bin on every POSIX system: the host finds it too.
    const sh = await runCheck(STDIO_STARTUP_CHECK, { command: 'sh', args: ['-c', `exec "${process.execPath}" "${DEMO[0]}" --stdio`], env: { platform: 'darwin' } });
    expect(sh.findings).toEqual([]);
  });
});

describe('stdio.hygiene on real processes', () => {
  it('our demo server is clean in the legacy era', async () => {
    const run = await runCheck(STDIO_HYGIENE_CHECK, { args: DEMO, facts: { era: 'legacy' } });
    expect(run.findings).toEqual([]);
  });

  it('our demo server is clean in the modern era', async () => {
    const run = await runCheck(STDIO_HYGIENE_CHECK, { args: DEMO, facts: { era: 'modern', modernRevisions: ['2026-07-28'] } });
    expect(run.findings).toEqual([]);
  });

  it('a banner before the first answer is stdout-not-protocol, quoting the line', async () => {
    const run = await runCheck(STDIO_HYGIENE_CHECK, { fixture: 'stdio-banner', facts: { era: 'legacy' } });
    expect(run.findings).toEqual([
      {
        id: 'stdio.stdout-not-protocol',
        observation: { message: 'stdout line 1, before the first answer, is not a JSON-RPC message: "Weather MCP server v1.2.0 ready on stdio"', evidence: ['stdout line 1: "Weather MCP server v1.2.0 ready on stdio"'] },
      },
    ]);
  });

  it('CR LF line endings are found, each line quoted with its CR', async () => {
    const run = await runCheck(STDIO_HYGIENE_CHECK, { fixture: 'stdio-crlf', facts: { era: 'legacy' } });
    expect(ids(run)).toEqual(['stdio.crlf-line-endings']);
    expect(run.findings[0]!.observation.message).toMatch(/^(\d+) lines of \1 on stdout end with CR LF, not LF alone$/);
    expect(run.findings[0]!.observation.evidence?.[1]).toBe('stdout line 2: "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":\\"7\\",\\"result\\":{}}\\r"');
  });

  it('a byte order mark on the first line is found', async () => {
    const run = await runCheck(STDIO_HYGIENE_CHECK, { fixture: 'stdio-bom', facts: { era: 'legacy' } });
    expect(ids(run)).toEqual(['stdio.bom']);
    expect(run.findings[0]!.observation.message).toBe('1 line on stdout start with a UTF-8 byte order mark (EF BB BF), the first is line 1');
    expect(run.findings[0]!.observation.evidence?.[0]).toMatch(/^stdout line 1: "\\ufeff\{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"result\\"/);
  });

  it('answers to notifications are found, with the notifications sent and the answers seen', async () => {
    const run = await runCheck(STDIO_HYGIENE_CHECK, { fixture: 'stdio-answers-notifications', facts: { era: 'legacy' } });
    expect(run.findings).toEqual([
      {
        id: 'stdio.notification-answered',
        observation: {
          message: 'Notifications were answered: 2 responses came back for messages without an id',
          evidence: [
            '→ {"jsonrpc":"2.0","method":"notifications/initialized"}',
            '→ {"jsonrpc":"2.0","method":"notifications/switchboard/doctor-probe","params":{}}',
            '← {"jsonrpc":"2.0","id":null,"result":{}}',
            '← {"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"Method not found: notifications/switchboard/doctor-probe"}}',
          ],
        },
      },
    ]);
  });

  it('a string id answered as a number is id-type-changed', async () => {
    const run = await runCheck(STDIO_HYGIENE_CHECK, { fixture: 'stdio-numeric-ids', facts: { era: 'legacy' } });
    expect(run.findings).toEqual([
      {
        id: 'stdio.id-type-changed',
        observation: {
          message: 'Response ids change type: the string id "7" came back as 7',
          evidence: ['→ {"jsonrpc":"2.0","id":"7","method":"ping"}', '← {"jsonrpc":"2.0","id":7,"result":{}}'],
        },
      },
    ]);
  });

  it('a malformed line that ends the process is found, with its exit code and stderr', async () => {
    const run = await runCheck(STDIO_HYGIENE_CHECK, { fixture: 'stdio-dies-on-malformed-line', facts: { era: 'legacy' } });
    expect(run.findings).toEqual([
      {
        id: 'stdio.malformed-line-kills-server',
        observation: {
          message: 'After a line that is not JSON the server exited with code 1',
          evidence: ['→ {"jsonrpc":"2.0",', '→ {"jsonrpc":"2.0","id":10,"method":"ping"}', '← (no answer)', 'stderr: SyntaxError: Unexpected end of JSON input', 'stderr:     at JSON.parse (<anonymous>)'],
        },
      },
    ]);
  });

  it('a malformed line dropped without -32700 is parse-error-reply, and the session goes on', async () => {
    const run = await runCheck(STDIO_HYGIENE_CHECK, { fixture: 'stdio-silent-parse-error', facts: { era: 'legacy' } });
    expect(run.findings).toEqual([
      {
        id: 'stdio.parse-error-reply',
        observation: { message: 'A line that is not JSON got no answer (expected a -32700 error with "id": null)', evidence: ['→ {"jsonrpc":"2.0",', '← (no answer)'] },
      },
    ]);
  });
});

/** One raw HTTP exchange, never throwing (the runner's own probe is tested with the runner). */
async function probe(url: string, request: HttpProbeRequest, timeoutMs: number): Promise<HttpProbeResponse> {
  try {
    const headers = Object.fromEntries(Object.entries(request.headers ?? {}).filter((e): e is [string, string] => e[1] !== null));
    const body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    const response = await fetch(url, { method: request.method, headers, body, signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    return { status: response.status, headers: {}, text, messages: [], eventIds: [] };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return { status: 0, headers: {}, text: '', messages: [], eventIds: [], error: `${(error as Error).message}${cause?.code === undefined ? '' : ` (${cause.code})`}` };
  }
}

/** Starts an HTTP fixture and reads the URL it prints. */
async function startHttpFixture(file: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [path.join(FIXTURES, `${file}.mjs`)], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  started.push(child);
  const line = await new Promise<string>((resolve) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
  });
  return { url: (JSON.parse(line) as { url: string }).url, child };
}

async function runHttpStartup(url: string): Promise<Run> {
  const facts: DoctorFacts = { connected: false, legacyRevisions: [], modernRevisions: [], measurements: {} };
  const findings: Run['findings'] = [];
  const ctx: CheckContext = {
    target: { transport: 'http', url },
    env: nodeEnv,
    signal: new AbortController().signal,
    requestTimeoutMs: 3000,
    era: 'auto',
    facts,
    report: (id, observation) => {
      expect(HTTP_STARTUP_CHECK.requirements).toContain(id);
      findings.push({ id, observation });
    },
    client: () => Promise.reject(new Error('no client in these tests')),
    spawn: () => Promise.reject(new Error('no stdio in these tests')),
    http: (request) => probe(request.url ?? url, request, request.timeoutMs ?? 3000),
    progress: () => undefined,
  };
  await HTTP_STARTUP_CHECK.run(ctx);
  return { findings, facts };
}

describe('startup.http on real sockets', () => {
  it('a listening server is reachable: no finding', async () => {
    const { url } = await startHttpFixture('startup-http-tls');
    expect((await runHttpStartup(url.replace(/^https:/, 'http:'))).findings).toEqual([]);
  });

  it('a closed port is http-unreachable (connection refused)', async () => {
    const { url } = await startHttpFixture('startup-http-refused');
    const run = await runHttpStartup(url);
    const host = new URL(url).host;
    expect(run.findings).toEqual([
      {
        id: 'startup.http-unreachable',
        observation: { message: `Nothing listens at ${host}: the connection was refused`, evidence: [`POST ${url}`, '→ {"jsonrpc":"2.0","id":"startup-1","method":"ping"}', 'error: fetch failed (ECONNREFUSED)'] },
      },
    ]);
  });

  it('a host name that does not resolve is http-dns', async () => {
    const { url } = await startHttpFixture('startup-http-dns');
    const run = await runHttpStartup(url);
    expect(run.findings.map((f) => [f.id, f.observation.message])).toEqual([['startup.http-dns', 'The host name "mcp-server.invalid" does not resolve']]);
  });

  it('https:// to a plain HTTP port is http-tls', async () => {
    const { url } = await startHttpFixture('startup-http-tls');
    const run = await runHttpStartup(url);
    expect(run.findings.map((f) => [f.id, f.observation.message])).toEqual([['startup.http-tls', `The TLS handshake with ${new URL(url).host} failed`]]);
    expect(run.findings[0]!.observation.evidence?.at(-1)).toBe('error: fetch failed (ERR_SSL_WRONG_VERSION_NUMBER)');
  });
});
