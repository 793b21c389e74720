import { describe, expect, it } from 'vitest';
import { MAX_LINE_BYTES } from './stdioStreams.js';
import { nodeDoctorEnv } from './nodeEnv.js';
import { MAX_KEPT_LINES, openStdioWire } from './stdioWire.js';
import type { ProbeProcess } from './types.js';

const env = nodeDoctorEnv();
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

/** A process whose stdout is exactly the chunks pushed (the chunk boundaries a pipe may make), and what it was written. */
function scriptedProcess(): { proc: ProbeProcess; push(chunk: Uint8Array | string): void; exit(code: number): void; written: string[] } {
  const queue: (Uint8Array | null)[] = [];
  let wake: (() => void) | undefined;
  const written: string[] = [];
  let settleExit: (value: { code: number | null; signal: string | null }) => void = () => {};
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => (settleExit = resolve));
  async function* stdout(): AsyncGenerator<Uint8Array> {
    for (;;) {
      while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const chunk = queue.shift()!;
      if (chunk === null) return;
      yield chunk;
    }
  }
  const none: AsyncIterable<Uint8Array> = { [Symbol.asyncIterator]: () => ({ next: () => exited.then(() => ({ done: true as const, value: undefined })) }) };
  const proc: ProbeProcess = {
    pid: undefined,
    stdout: stdout(),
    stderr: none,
    write: (b) => {
      written.push(new TextDecoder().decode(b));
      return Promise.resolve();
    },
    endInput: () => {},
    exited,
    kill: () => Promise.resolve(),
  };
  return {
    proc,
    written,
    push: (chunk) => {
      queue.push(typeof chunk === 'string' ? bytes(chunk) : chunk);
      wake?.();
    },
    exit: (code) => {
      queue.push(null);
      wake?.();
      settleExit({ code, signal: null });
    },
  };
}

describe('StdioWire framing', () => {
  it('splits on LF only, keeping CR and a BOM in raw and reading the JSON leniently, across chunk boundaries (even inside a UTF-8 sequence)', async () => {
    const s = scriptedProcess();
    const wire = openStdioWire({ env, process: s.proc });
    const euro = bytes('"€"');
    s.push('{"jsonrpc":"2.0","id":1,"res');
    s.push('ult":{}}\r\n\uFEFF{"a":1}\nbanner text\n\n');
    s.push(euro.subarray(0, 2));
    s.push(euro.subarray(2));
    s.push('\n{"tail":true}');
    s.exit(0);
    expect(await wire.waitFor((l) => l.raw === '{"tail":true}', { timeoutMs: 2000 })).toBeDefined();
    expect(wire.lines.map(({ raw, json }) => ({ raw, json }))).toEqual([
      { raw: '{"jsonrpc":"2.0","id":1,"result":{}}\r', json: { jsonrpc: '2.0', id: 1, result: {} } },
      { raw: '\uFEFF{"a":1}', json: { a: 1 } },
      { raw: 'banner text', json: undefined },
      { raw: '', json: undefined },
      { raw: '"€"', json: '€' },
      { raw: '{"tail":true}', json: { tail: true } },
    ]);
    expect(await wire.waitFor(() => false, { timeoutMs: 5000 })).toBeUndefined(); // stdout ended: no wait
  });

  it('cuts a line over the limit and flags it with its length; the next line is read whole', async () => {
    expect(MAX_LINE_BYTES).toBe(64 * 1024 * 1024);
    const s = scriptedProcess();
    const wire = openStdioWire({ env, process: s.proc, maxLineBytes: 1024 * 1024 });
    const chunk = new Uint8Array(256 * 1024).fill(0x61);
    for (let i = 0; i < 5; i++) s.push(chunk);
    s.push('\n{"id":2}\n');
    const next = await wire.waitFor((l) => l.json !== undefined, { timeoutMs: 5000 });
    expect(next?.raw).toBe('{"id":2}');
    const big = wire.lines[0]!;
    expect(big.raw.length).toBe(1024 * 1024);
    expect(big.truncatedBytes).toBe(5 * 256 * 1024);
    expect(big.json).toBeUndefined();
    s.exit(0);
  });

  it('a response cut at the limit ends the request() waiting for its id (id first or written last), flagged with its length; a cut request of the server ends none', async () => {
    const s = scriptedProcess();
    const wire = openStdioWire({ env, process: s.proc, maxLineBytes: 1000 });
    const padding = 'x'.repeat(5000);
    const first = wire.request({ id: 1, method: 'tools/list' }, 5000);
    const last = wire.request({ id: 'b', method: 'tools/list' }, 5000);
    const other = wire.request({ id: 3, method: 'ping' }, 300);
    s.push(`{"jsonrpc":"2.0","method":"sampling/createMessage","id":3,"params":{"p":"${padding}"}}\n`);
    const lineB = `{"result":{"tools":[{"name":"t","id":3,"description":"${padding}"}]},"jsonrpc":"2.0","id":"b"}`;
    const lineA = `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"description":"${padding}"}]}}`;
    s.push(`${lineB}\n${lineA}\n`);
    const [a, b, c] = await Promise.all([first, last, other]);
    expect(a).toEqual({ raw: lineA.slice(0, 1000), atMs: expect.any(Number), truncatedBytes: lineA.length });
    expect(b).toEqual({ raw: lineB.slice(0, 1000), atMs: expect.any(Number), truncatedBytes: lineB.length });
    expect(c).toBeUndefined();
    s.exit(0);
  });

  it('keeps at most maxKeptBytes of text: the oldest lines lose theirs first (raw empty, truncatedBytes their length)', async () => {
    const s = scriptedProcess();
    const wire = openStdioWire({ env, process: s.proc, maxKeptBytes: 20 });
    s.push('{"n":1}\n{"n":2}\n{"n":3}\n{"n":4}\n');
    await wire.waitFor((l) => l.raw === '{"n":4}', { timeoutMs: 5000 });
    expect(wire.lines.map((l) => [l.raw, l.json, l.truncatedBytes])).toEqual([
      ['', undefined, 7],
      ['', undefined, 7],
      ['{"n":3}', { n: 3 }, undefined],
      ['{"n":4}', { n: 4 }, undefined],
    ]);
    s.exit(0);
  });

  it(`keeps the first ${MAX_KEPT_LINES} lines; later lines still reach waitFor`, async () => {
    const s = scriptedProcess();
    const wire = openStdioWire({ env, process: s.proc });
    s.push('x\n'.repeat(MAX_KEPT_LINES + 5));
    s.push('{"last":1}\n');
    expect((await wire.waitFor((l) => l.raw === '{"last":1}', { timeoutMs: 5000 }))?.json).toEqual({ last: 1 });
    expect(wire.lines).toHaveLength(MAX_KEPT_LINES);
    s.exit(0);
  });

  it('request() pairs the response whose id has the same value and type, never a request of the server', async () => {
    const s = scriptedProcess();
    const wire = openStdioWire({ env, process: s.proc });
    const answer = wire.request({ id: 7, method: 'ping' }, 2000);
    await new Promise((r) => setTimeout(r, 10));
    expect(s.written).toEqual(['{"jsonrpc":"2.0","id":7,"method":"ping"}\n']);
    s.push('{"jsonrpc":"2.0","id":"7","result":{}}\n{"jsonrpc":"2.0","id":7,"method":"roots/list"}\n{"jsonrpc":"2.0","id":7,"result":{"ok":true}}\n');
    expect((await answer)?.raw).toBe('{"jsonrpc":"2.0","id":7,"result":{"ok":true}}');
    s.exit(0);
  });

  it('waitFor gives up after its timeout, and at once when the signal aborts', async () => {
    const s = scriptedProcess();
    const abort = new AbortController();
    const wire = openStdioWire({ env, process: s.proc, signal: abort.signal });
    const started = performance.now();
    expect(await wire.waitFor(() => true, { timeoutMs: 100 })).toBeUndefined();
    expect(performance.now() - started).toBeGreaterThanOrEqual(90);
    const pending = wire.waitFor(() => true, { timeoutMs: 60_000 });
    abort.abort();
    expect(await pending).toBeUndefined();
    s.exit(0);
  });

  it('on a real process: stderr tail, exit facts, writes after exit dropped, and close() idempotent', async () => {
    const script = 'for (let i = 0; i < 60; i++) process.stderr.write(`err ${i}\\r\\n`); process.stdin.once("data", (d) => { process.stdout.write("got " + d); process.exit(3); })';
    const proc = env.spawn({ command: process.execPath, args: ['-e', script], env: { PATH: process.env.PATH ?? '' } });
    const wire = openStdioWire({ env, process: proc });
    await wire.write('hello\n');
    expect((await wire.waitFor((l) => l.raw.startsWith('got'), { timeoutMs: 5000 }))?.raw).toBe('got hello');
    // Once a wait ends because the process ended, its exit is known.
    expect(await wire.waitFor(() => false, { timeoutMs: 5000 })).toBeUndefined();
    expect(wire.exit).toEqual({ code: 3, signal: null });
    expect(wire.stderrTail).toHaveLength(50);
    expect(wire.stderrTail.at(-1)).toBe('err 59');
    await expect(wire.send({ late: true })).resolves.toBeUndefined();
    await Promise.all([wire.close(), wire.close()]);
  });
});
