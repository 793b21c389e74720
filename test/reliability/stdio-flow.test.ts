/**
 * stdio under a client that reads late or not at all, against a real child process:
 * every answer produced is written before the process exits (bounded by `drainTimeoutMs`, logged when hit), and
 * a client that floods stdin without reading stdout fills the pipes, not the server's memory.
 * `STRESS=1` runs the long forms (100,000 pings, 2,000,000 flood lines).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const FIXTURE = fileURLToPath(new URL('../fixtures/stdio-flow-server.mjs', import.meta.url));
const STRESS = process.env.STRESS === '1';
const INIT = '{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"0"}}}\n';
const INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}\n';
const PARSE_ERROR = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}';

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

interface Child {
  proc: ChildProcessWithoutNullStreams;
  stderr: () => string;
  exited: Promise<number | null>;
  /** Starts reading stdout (it is not read before); calls `onLine` with each line. */
  read(onLine: (line: string) => void): void;
}

function start(args: string[] = []): Child {
  const proc = spawn(process.execPath, [FIXTURE, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(proc);
  proc.stdout.pause();
  proc.stdin.on('error', () => {}); // the server may exit with input still unsent (the deadline case)
  let stderr = '';
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return {
    proc,
    stderr: () => stderr,
    exited,
    read(onLine) {
      let buffer = '';
      proc.stdout.setEncoding('utf8');
      proc.stdout.on('data', (chunk: string) => {
        buffer += chunk;
        let start = 0;
        for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n', start)) {
          onLine(buffer.slice(start, nl));
          start = nl + 1;
        }
        buffer = buffer.slice(start);
      });
      proc.stdout.resume();
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

/** Reads the answers to pings 0..n-1: how many times each id was answered, and the lines that were something else. */
function countPings(n: number) {
  const seen = new Uint8Array(n);
  const other: string[] = [];
  let pings = 0;
  const onLine = (line: string) => {
    const id = /^\{"jsonrpc":"2\.0","id":(\d+),"result":\{\}\}$/.exec(line)?.[1];
    if (id !== undefined && Number(id) < n) {
      seen[Number(id)]!++;
      pings++;
    } else other.push(line);
  };
  return { seen, other, onLine, pings: () => pings };
}

describe('stdio drain at exit and inbound flow control (real child process)', () => {
  it(`answers all of ${STRESS ? '100,000' : '20,000'} pipelined pings before exiting, though the client reads only after 1.5 s`, async () => {
    const n = STRESS ? 100_000 : 20_000;
    const child = start();
    let input = '';
    for (let id = 0; id < n; id++) input += `{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`;
    child.proc.stdin.end(input);
    await sleep(1500);
    const pings = countPings(n);
    child.read(pings.onLine);
    expect(await child.exited).toBe(0);
    await sleep(50); // the last bytes of the pipe after the exit event
    expect(pings.other).toEqual([]);
    expect(pings.pings()).toBe(n);
    expect(pings.seen.every((count) => count === 1)).toBe(true);
  }, 30_000);

  it('a client flooding stdin with pings and invalid lines without reading stdout does not grow server memory; all is answered once it reads', async () => {
    // Half pings, half one-byte invalid lines: each invalid line gets a 75-byte -32700 answer, output like any other.
    const lines = STRESS ? 2_000_000 : 400_000;
    const child = start();
    const chunks: string[] = [];
    let chunk = '';
    for (let i = 0; i < lines; i++) {
      chunk += i % 2 === 0 ? `{"jsonrpc":"2.0","id":${i / 2},"method":"ping"}\n` : 'x\n';
      if (chunk.length >= 65_536) {
        chunks.push(chunk);
        chunk = '';
      }
    }
    chunks.push(chunk);
    const inputBytes = chunks.reduce((sum, c) => sum + c.length, 0);
    for (const c of chunks) child.proc.stdin.write(c);
    child.proc.stdin.end();
    let peak = 0;
    for (let t = 0; t < 30; t++) {
      await sleep(100);
      peak = Math.max(peak, rssMiB(child.proc.pid!));
    }
    // Idle, the child takes about 55 MiB; what it may buffer while stdout is backed up is one read of stdin
    // (64 KiB), one coalesced write (64 KiB) and stdout's high-water mark: well under a MiB. Without flow control
    // it held every answer (about 200 MiB after 2.5 s for these 8 MB of input, and growing).
    expect(peak).toBeLessThan(150);
    // The input is still waiting in this process: the server stopped reading.
    expect(child.proc.stdin.writableLength).toBeGreaterThan(inputBytes / 2);
    const pings = countPings(lines / 2);
    child.read(pings.onLine);
    expect(await child.exited).toBe(0);
    await sleep(50);
    expect(pings.pings()).toBe(lines / 2);
    expect(pings.seen.every((count) => count === 1)).toBe(true);
    expect(pings.other.length).toBe(lines / 2);
    expect(pings.other.every((line) => line === PARSE_ERROR)).toBe(true);
  }, STRESS ? 300_000 : 60_000);

  it('waits for a late reader to take a 2 MiB answer produced after stdin closed, then exits 0', async () => {
    const child = start();
    const bytes = 2 * 1024 * 1024;
    child.proc.stdin.write(INIT + INITIALIZED);
    child.proc.stdin.end(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big","arguments":{"bytes":${bytes},"ms":100}}}\n`);
    await sleep(1500); // past the answer and the 1 s shutdown grace
    const lines: string[] = [];
    child.read((line) => lines.push(line));
    expect(await child.exited).toBe(0);
    await sleep(50);
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[1]!)).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'b'.repeat(bytes) }] } });
  }, 30_000);

  it('with a client that never reads, exits with code 1 after drainTimeoutMs and says so on stderr', async () => {
    const child = start(['--drain-timeout-ms=500']);
    child.proc.stdin.write(INIT + INITIALIZED);
    child.proc.stdin.end('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big","arguments":{"bytes":2097152,"ms":100}}}\n');
    const t0 = Date.now();
    expect(await child.exited).toBe(1);
    const elapsed = Date.now() - t0;
    expect(elapsed).toBeGreaterThanOrEqual(500);
    expect(elapsed).toBeLessThan(10_000);
    await sleep(50);
    expect(child.stderr()).toMatch(/Exiting with code 1: stdout did not drain within drainTimeoutMs \(500 ms\), \d+ bytes of output not written/);
  }, 30_000);

  it('a client that closes its end of stdout while the server drains: the server exits at once, without a crash', async () => {
    const child = start();
    child.proc.stdin.write(INIT + INITIALIZED);
    child.proc.stdin.end('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big","arguments":{"bytes":2097152,"ms":100}}}\n');
    // The answer is written and stuck in the pipe: the session has closed and serveStdio waits for stdout.
    await expect.poll(() => child.stderr(), { timeout: 10_000 }).toContain('fixture: session closed');
    const t0 = Date.now();
    child.proc.stdout.destroy();
    const code = await child.exited;
    await sleep(50);
    expect(code, child.stderr()).toBe(0);
    expect(Date.now() - t0).toBeLessThan(2000);
    await sleep(50);
    expect(child.stderr()).not.toMatch(/Unhandled 'error' event|EPIPE/);
  }, 30_000);
});
