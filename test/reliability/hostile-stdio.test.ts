/**
 * Hostile bytes on stdio against a real child process (`test/fixtures/stdio-server.mjs`, `serveStdio`): every row
 * writes its bytes, then a sentinel `ping`, and states the exact answer lines expected before the sentinel's answer.
 *
 * Rules: MCP 2025-11-25 basic/transports.mdx "stdio" (messages are delimited by newlines and contain none; nothing
 * but MCP messages on stdout), JSON-RPC 2.0 (§4 every request answered with its id; §4.1 and §5 notifications and
 * responses never answered; §5.1 -32700 "Parse error" with id null for text that is not JSON, -32600 for JSON that
 * is not a request), RFC 8259 (§8.1 JSON is UTF-8, a BOM MAY be ignored; §7 control characters must be escaped
 * inside strings), and the conventions `docs/architecture.md` and `docs/field-bugs.md` document (B11–B18 for
 * framing, blank lines skipped, the 64-level depth cap, CRLF tolerated, invalid UTF-8 read as U+FFFD).
 *
 * Sizes stay small; `STRESS=1` sends ten times as many blank lines and duplicate requests.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endStdin } from '../helpers/process.js';

const STRESS = process.env['STRESS'] === '1';
const FIXTURE = fileURLToPath(new URL('../fixtures/stdio-server.mjs', import.meta.url));
const LINE_LIMIT = 1024;

const PARSE_ERROR = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
const TOO_DEEP = { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: .*64/) as unknown, data: { maxDepth: 64 } } };
const TOO_LONG = { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(new RegExp(`^Invalid Request: .*${LINE_LIMIT}`)) as unknown } };

type Message = Record<string, unknown>;

/** A child server with its stdout split into parsed lines. */
class Child {
  readonly proc: ChildProcessWithoutNullStreams;
  readonly lines: Message[] = [];
  readonly raw: string[] = [];
  #buffer = '';
  #waiters = new Set<() => void>();
  #sentinel = 0;

  constructor(args: string[]) {
    this.proc = spawn(process.execPath, [FIXTURE, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.proc.stdout.setEncoding('utf8');
    this.proc.stdout.on('data', (chunk: string) => {
      this.#buffer += chunk;
      let nl: number;
      while ((nl = this.#buffer.indexOf('\n')) >= 0) {
        const line = this.#buffer.slice(0, nl);
        this.#buffer = this.#buffer.slice(nl + 1);
        this.raw.push(line);
        // MCP stdio: every stdout line is one JSON-RPC message (a non-JSON line fails the test here).
        this.lines.push(JSON.parse(line) as Message);
      }
      for (const w of [...this.#waiters]) w();
    });
    this.proc.stderr.resume();
  }

  write(data: string | Buffer): void {
    this.proc.stdin.write(data);
  }

  /** Resolves once `predicate` holds for the lines so far. */
  waitFor(predicate: (lines: readonly Message[]) => boolean, timeoutMs = 10_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!predicate(this.lines)) return;
        this.#waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`timed out; last lines: ${this.raw.slice(-5).join('\n').slice(0, 2000)}`));
      }, timeoutMs);
      this.#waiters.add(check);
      check();
    });
  }

  /**
   * Writes `data`, then a sentinel ping, and returns the lines answered in between (synchronous answers are sent in
   * arrival order, so everything the row causes comes before the sentinel's answer).
   */
  async exchange(data: string | Buffer | readonly (string | Buffer)[], gapMs = 0): Promise<Message[]> {
    const from = this.lines.length;
    const sentinel = `sentinel-${++this.#sentinel}`;
    const parts = Array.isArray(data) ? data : [data];
    for (const part of parts as readonly (string | Buffer)[]) {
      this.write(part);
      if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
    }
    this.write(`{"jsonrpc":"2.0","id":"${sentinel}","method":"ping"}\n`);
    await this.waitFor((lines) => lines.slice(from).some((m) => m['id'] === sentinel));
    const got = this.lines.slice(from);
    const at = got.findIndex((m) => m['id'] === sentinel);
    expect(got[at]).toEqual({ jsonrpc: '2.0', id: sentinel, result: {} });
    return got.slice(0, at);
  }

  async handshake(revision = '2025-11-25'): Promise<void> {
    this.write(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"${revision}","capabilities":{},"clientInfo":{"name":"hostile","version":"0"}}}\n`);
    await this.waitFor((lines) => lines.some((m) => m['id'] === 'init'));
    this.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  }

  stop(): Promise<number | null> {
    return endStdin(this.proc);
  }
}

const ping = (id: number | string): string => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"ping"}`;
const pong = (id: number | string): Message => ({ jsonrpc: '2.0', id, result: {} });
const bytes = (...parts: (string | number[])[]): Buffer => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

let child: Child;
let small: Child;

beforeAll(async () => {
  child = new Child([]);
  small = new Child([String(LINE_LIMIT)]);
  await Promise.all([child.handshake(), small.handshake()]);
});

afterAll(async () => {
  // stdin EOF is the MCP way to stop a stdio server (basic/lifecycle.mdx "Shutdown"): it exits 0.
  const codes = await Promise.all([child?.stop(), small?.stop()]);
  expect(codes).toEqual([0, 0]);
});

interface Row {
  readonly label: string;
  readonly rule: string;
  readonly input: () => string | Buffer | readonly (string | Buffer)[];
  readonly expected: readonly unknown[];
}

const ROWS: readonly Row[] = [
  // Encoding
  { label: 'invalid UTF-8 inside a string', rule: 'read as U+FFFD (B18, ndjson.ts), the request is still answered',
    input: () => bytes('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"', [0xff, 0xfe, 0xc3, 0x28], '"}}\n'), expected: [pong(1)] },
  { label: 'invalid UTF-8 outside strings', rule: 'not JSON ⇒ -32700, id null (JSON-RPC 2.0 §5.1)',
    input: () => bytes('{"jsonrpc":"2.0",', [0xff], '"id":2,"method":"ping"}\n'), expected: [PARSE_ERROR] },
  { label: 'a line of lone continuation bytes', rule: 'not JSON ⇒ -32700', input: () => bytes([0x80, 0x81, 0xbf, 0x0a]), expected: [PARSE_ERROR] },
  { label: 'a multi-byte character split across writes', rule: 'framing on the LF byte, decoding per whole line (B17)',
    input: () => { const b = Buffer.from('{"jsonrpc":"2.0","id":"é\u2028€","method":"ping"}\n'); return [b.subarray(0, 27), b.subarray(27, 29), b.subarray(29)]; }, expected: [pong('é\u2028€')] },
  { label: 'a UTF-8 BOM before a message', rule: 'RFC 8259 §8.1: MAY be ignored (B13)', input: () => bytes([0xef, 0xbb, 0xbf], `${ping(3)}\n`), expected: [pong(3)] },
  { label: 'a BOM on every line', rule: 'each line on its own (B13)', input: () => bytes([0xef, 0xbb, 0xbf], `${ping(4)}\n`, [0xef, 0xbb, 0xbf], `${ping(5)}\n`), expected: [pong(4), pong(5)] },
  { label: 'UTF-16LE text', rule: 'RFC 8259 §8.1: JSON between systems is UTF-8 ⇒ not JSON, -32700',
    input: () => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(ping(6), 'utf16le'), Buffer.from('\n')]), expected: [PARSE_ERROR] },
  // Line endings
  { label: 'CRLF', rule: 'tolerated (B12)', input: () => `${ping(7)}\r\n${ping(8)}\r\n`, expected: [pong(7), pong(8)] },
  { label: 'CR alone is not a line end', rule: 'MCP stdio: messages are delimited by newlines ⇒ one line holding two values, -32700',
    input: () => `${ping(9)}\r${ping(10)}\n`, expected: [PARSE_ERROR] },
  { label: 'a message with an embedded raw LF', rule: 'MCP stdio: MUST NOT contain embedded newlines ⇒ two broken lines, two -32700',
    input: () => '{"jsonrpc":"2.0","id":11,\n"method":"ping"}\n', expected: [PARSE_ERROR, PARSE_ERROR] },
  // NUL and control bytes
  { label: 'NUL bytes outside strings', rule: 'not JSON ⇒ -32700', input: () => bytes([0x00], ping(12), [0x00, 0x0a]), expected: [PARSE_ERROR] },
  { label: 'a raw NUL inside a string', rule: 'RFC 8259 §7: control characters MUST be escaped ⇒ -32700',
    input: () => bytes('{"jsonrpc":"2.0","id":13,"method":"ping","params":{"x":"a', [0x00], 'b"}}\n'), expected: [PARSE_ERROR] },
  { label: 'an escaped NUL inside a string', rule: 'valid JSON ⇒ answered', input: () => '{"jsonrpc":"2.0","id":14,"method":"ping","params":{"x":"a\\u0000b"}}\n', expected: [pong(14)] },
  { label: 'a line of NUL bytes only', rule: 'not blank (RFC 8259 §2 whitespace is space, tab, CR, LF) ⇒ -32700', input: () => bytes([0, 0, 0, 0x0a]), expected: [PARSE_ERROR] },
  // Blank lines
  { label: 'blank and whitespace-only lines', rule: 'skipped, never answered (docs/architecture.md: NdjsonDecoder is blank-line tolerant)', input: () => `\n\r\n \t \n\n${ping(15)}\n\n`, expected: [pong(15)] },
  { label: STRESS ? '1,000,000 blank lines' : '100,000 blank lines', rule: 'skipped, never answered (docs/architecture.md: NdjsonDecoder is blank-line tolerant)',
    input: () => ['\n'.repeat(STRESS ? 1_000_000 : 100_000), '\r\n \t\n'.repeat(STRESS ? 100_000 : 10_000)], expected: [] },
  // Depth
  { label: 'JSON nested 65 deep', rule: 'docs/architecture.md "Deeply nested JSON": -32600, id null, data.maxDepth',
    input: () => `${'['.repeat(65)}${']'.repeat(65)}\n`, expected: [TOO_DEEP] },
  { label: 'a request nested exactly 64 deep', rule: 'the limit is inclusive ⇒ answered',
    input: () => `{"jsonrpc":"2.0","id":16,"method":"ping","params":{"a":${'['.repeat(62)}${']'.repeat(62)}}}\n`, expected: [pong(16)] },
  { label: '1,000,000 opening brackets on one line', rule: 'refused before parsing: -32600, id null', input: () => `${'['.repeat(1_000_000)}\n`, expected: [TOO_DEEP] },
  // Messages that must not be answered, and odd ids
  { label: 'a stray response', rule: 'JSON-RPC 2.0 §5: a response is never answered', input: () => '{"jsonrpc":"2.0","id":424242,"result":{}}\n', expected: [] },
  { label: 'a stray error response without id', rule: 'never answered (B45)', input: () => '{"jsonrpc":"2.0","error":{"code":-1,"message":"x"}}\n', expected: [] },
  { label: 'a notification for an unknown method', rule: 'JSON-RPC 2.0 §4.1: never answered', input: () => '{"jsonrpc":"2.0","method":"no/such/thing"}\n', expected: [] },
  { label: 'ids of each type', rule: 'JSON-RPC 2.0 §4: the same value back, never coerced',
    input: () => `${ping(0)}\n${ping('0')}\n${ping(-5)}\n${ping('')}\n`, expected: [pong(0), pong('0'), pong(-5), pong('')] },
  { label: 'a null id', rule: 'classify.ts: null ids are refused (B06), -32600, id null',
    input: () => '{"jsonrpc":"2.0","id":null,"method":"ping"}\n', expected: [{ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: .*"id"/) as unknown } }] },
  { label: 'an integer id beyond 2^53', rule: 'classify.ts: not exact after parsing ⇒ -32600, id null',
    input: () => '{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}\n', expected: [{ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) as unknown } }] },
  { label: 'a batch on a 2025-11-25 session', rule: 'MCP 2025-06-18 changelog.mdx: batching removed ⇒ -32600',
    input: () => `[${ping(17)},${ping(18)}]\n`, expected: [{ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: .*batch/) as unknown } }] },
];

describe('stdio bytes (one child, each row then a sentinel ping)', () => {
  for (const row of ROWS) {
    it(`${row.label}: ${row.expected.length} answer line(s) (${row.rule})`, async () => {
      expect(await child.exchange(row.input())).toEqual(row.expected);
    });
  }

  it('three messages written one byte at a time: each answered exactly, in order (B17)', async () => {
    const text = `${ping(20)}\n${ping('twenty-one')}\r\n{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"echo","arguments":{"text":"é\u2028ü"}}}\n`;
    const split = Array.from(Buffer.from(text), (b) => Buffer.of(b));
    expect(await child.exchange(split, 1)).toEqual([
      pong(20),
      pong('twenty-one'),
      { jsonrpc: '2.0', id: 22, result: { content: [{ type: 'text', text: 'é\u2028ü' }] } },
    ]);
  });

  it('many concurrent requests sharing ids: every request answered exactly once, ids never coerced (JSON-RPC 2.0 §4)', async () => {
    // MCP basic/index.mdx "Requests": a client MUST NOT reuse an id in a session; the server still answers every
    // request it reads (JSON-RPC 2.0 §4), one line each, with the id as sent: its result, or -32600 when a request
    // with the same id is still in flight (inbound.ts; the HTTP transport's duplicateRequestId).
    const copies = STRESS ? 500 : 50;
    const from = child.lines.length;
    const call = (id: number | string, ms: number): string => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":"sleep","arguments":{"ms":${ms}}}}\n`;
    let batch = '';
    for (let i = 0; i < copies; i++) batch += `${call(7, i % 5)}${call('7', i % 3)}${ping(8)}\n`;
    child.write(batch);
    const answers = (id: number | string): Message[] => child.lines.slice(from).filter((m) => m['id'] === id);
    await child.waitFor(() => answers(7).length >= copies && answers('7').length >= copies && answers(8).length >= copies, 30_000);
    // Give a duplicate answer a moment to show up before counting.
    await child.exchange('');
    expect(answers(7)).toHaveLength(copies);
    expect(answers('7')).toHaveLength(copies);
    expect(answers(8)).toHaveLength(copies);
    const refused = { code: -32600, message: 'Invalid Request: this request id is already in flight on this session' };
    for (const m of [...answers(7), ...answers('7')]) {
      if ('error' in m) expect(m['error']).toEqual(refused);
      else expect(m).toMatchObject({ jsonrpc: '2.0', result: { content: [{ type: 'text', text: expect.stringMatching(/^slept \d$/) as unknown }] } });
    }
    // The first of each id was in flight when its copies arrived: it got its result.
    expect(answers(7).some((m) => 'result' in m) && answers('7').some((m) => 'result' in m)).toBe(true);
    for (const m of answers(8)) expect(m).toEqual(pong(8));
  });
});

describe('batches on a 2025-03-26 session (MCP 2025-03-26 basic/index.mdx "Batching"; JSON-RPC 2.0 §6)', () => {
  it('one array line: an answer per request and per invalid member, nothing for notifications and responses; none for an all-notification batch', async () => {
    const c = new Child([]);
    try {
      await c.handshake('2025-03-26');
      const got = await c.exchange([
        `[${ping('a')},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"q"}},{"foo":1},{"jsonrpc":"2.0","id":424242,"result":{}},${ping(2)}]\n`,
        '[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r"}},{"jsonrpc":"2.0","id":5151,"result":{}}]\n',
        '[]\n',
      ]);
      expect(got).toHaveLength(2);
      const [batch, empty] = got as unknown as [Message[], Message];
      expect(Array.isArray(batch)).toBe(true);
      expect(batch).toHaveLength(3);
      expect(batch).toEqual(expect.arrayContaining([pong('a'), pong(2), { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) as unknown } }]));
      // §6: an empty array is not a batch: one -32600, id null (not an array).
      expect(empty).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) as unknown } });
    } finally {
      expect(await c.stop()).toBe(0);
    }
  });
});

describe('over-long lines (a child with maxLineBytes 1024)', () => {
  const padded = (id: number, total: number): string => {
    const head = `{"jsonrpc":"2.0","id":${id},"method":"ping","params":{"p":"`;
    return `${head}${'x'.repeat(total - head.length - 3)}"}}`;
  };

  it('a line of exactly the limit is answered; one byte more is -32600 with id null, and the next line is read (B16)', async () => {
    expect(padded(1, LINE_LIMIT)).toHaveLength(LINE_LIMIT);
    expect(await small.exchange(`${padded(1, LINE_LIMIT)}\n`)).toEqual([pong(1)]);
    expect(await small.exchange(`${padded(2, LINE_LIMIT + 1)}\n${ping(3)}\n`)).toEqual([TOO_LONG, pong(3)]);
  });

  it('a 1 MiB line written in pieces: one refusal, none of its tail parsed as a message (B16)', async () => {
    const huge = padded(4, 1024 * 1024);
    const pieces = Array.from({ length: 16 }, (_, i) => huge.slice(i * 65_536, (i + 1) * 65_536));
    // A tail that looks like a request must not be answered: the decoder drops up to the newline.
    pieces.push(`,${ping(5)}\n`);
    expect(await small.exchange(pieces)).toEqual([TOO_LONG]);
  });

  it('an over-long line at end of input, without a newline: refused once, then the server exits 0 on EOF', async () => {
    const tail = new Child([String(LINE_LIMIT)]);
    await tail.handshake();
    tail.write(padded(6, LINE_LIMIT * 3));
    const from = tail.lines.length;
    expect(await tail.stop()).toBe(0);
    expect(tail.lines.slice(from)).toEqual([TOO_LONG]);
  });
});
