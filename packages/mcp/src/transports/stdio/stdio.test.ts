/**
 * StdioServerTransport flow control with injected streams: stdin is paused while stdout
 * is backed up and while a request waits for a concurrency slot, the lines already read wait their turn, and
 * everything is answered once the pressure clears. A real McpServer session behind the transport; stdout is a
 * Writable whose writes complete only when the test says, which is what a client that does not read looks like.
 */
import { PassThrough, Writable } from 'node:stream';
import { silentLogger } from '@switchboard/jsonrpc';
import { describe, expect, it } from 'vitest';
import { McpServer } from '../../server/index.js';
import { StdioServerTransport, serveStdio } from './index.js';

/** A stdout whose writes stay pending (as if the pipe were full) until `release()`. */
class HeldSink extends Writable {
  text = '';
  #held: ((error?: Error | null) => void)[] = [];
  #blocked = true;

  constructor() {
    super({ highWaterMark: 1024, decodeStrings: false });
  }

  override _write(chunk: string | Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.text += String(chunk);
    if (this.#blocked) this.#held.push(callback);
    else callback();
  }

  // Like a socket: destroying it fails the write in progress (and so the ones queued behind it).
  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    for (const held of this.#held.splice(0)) held(new Error('write cancelled: stream destroyed'));
    callback(error);
  }

  release(): void {
    this.#blocked = false;
    for (const callback of this.#held.splice(0)) callback();
  }

  lines(): Record<string, unknown>[] {
    return this.text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
  }
}

const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};
const ping = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`;
const INIT = '{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}\n';
const INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}\n';

async function connect(options: { stdout?: Writable; maxConcurrent?: number; maxQueued?: number; maxJsonDepth?: number } = {}) {
  const server = new McpServer({ name: 't', version: '0' }, { logger: silentLogger, maxConcurrentRequestsPerSession: options.maxConcurrent, maxQueuedRequestsPerSession: options.maxQueued });
  const release = new Map<number, () => void>();
  const started: number[] = [];
  server.tool('wait', { inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }, async ({ n }) => {
    started.push(n);
    await new Promise<void>((resolve) => release.set(n, resolve));
    return { content: [{ type: 'text', text: `done ${n}` }] };
  });
  const stdin = new PassThrough();
  const stdout = options.stdout ?? new HeldSink();
  const transport = new StdioServerTransport({ stdin, stdout, logger: silentLogger, maxJsonDepth: options.maxJsonDepth });
  await server.connect(transport);
  return { stdin, stdout, transport, release, started };
}

describe('StdioServerTransport flow control (injected streams)', () => {
  it('stops reading stdin while stdout is backed up, then answers every line once it drains, in order', async () => {
    const sink = new HeldSink();
    const { stdin } = await connect({ stdout: sink });
    // One write per chunk: half pings, half invalid lines (their -32700 answers are output too).
    const total = 4000;
    for (let i = 0; i < total; i++) stdin.write(i % 2 === 0 ? ping(i) : 'x\n');
    await turns(20);
    expect(stdin.isPaused()).toBe(true);
    // What the client wrote stays in the pipe (here: stdin's buffer) instead of becoming answers in memory.
    expect(stdin.readableLength).toBeGreaterThan(total * 4);
    // Buffered output: at most the high-water mark, one coalesced write (64 Ki characters) and one chunk's answers.
    expect(sink.writableLength).toBeLessThan(1024 + 65_536 + 200);
    sink.release();
    await turns(40);
    const lines = sink.lines();
    expect(lines).toHaveLength(total);
    lines.forEach((line, i) => {
      expect(line).toEqual(
        i % 2 === 0 ? { jsonrpc: '2.0', id: i, result: {} } : { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
      );
    });
    expect(stdin.isPaused()).toBe(false);
  });

  it('stops reading stdin while maxQueuedRequestsPerSession requests wait for a concurrency slot, and reads on as slots free', async () => {
    const sink = new HeldSink();
    sink.release();
    const { stdin, release, started } = await connect({ stdout: sink, maxConcurrent: 2, maxQueued: 1 });
    stdin.write(INIT);
    stdin.write(INITIALIZED);
    const call = (n: number) => `{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":{"name":"wait","arguments":{"n":${n}}}}\n`;
    for (let n = 1; n <= 5; n++) stdin.write(call(n));
    stdin.write(ping(99));
    await turns();
    expect(started).toEqual([1, 2]);
    // Request 3 waits for a slot, so requests 4 and 5 and the ping are not read yet.
    expect(stdin.isPaused()).toBe(true);
    expect(stdin.readableLength).toBe(call(4).length + call(5).length + ping(99).length);
    release.get(1)!();
    await turns();
    expect(started).toEqual([1, 2, 3]);
    expect(stdin.readableLength).toBe(call(5).length + ping(99).length);
    for (let n = 2; n <= 5; n++) {
      await turns();
      release.get(n)!();
    }
    await turns();
    const answers = sink.lines().filter((m) => m.id !== 'init');
    // Each request answered exactly once (a ping is answered as soon as it gets a slot, so after some calls).
    expect(answers).toHaveLength(6);
    for (let n = 1; n <= 5; n++) expect(answers).toContainEqual({ jsonrpc: '2.0', id: n, result: { content: [{ type: 'text', text: `done ${n}` }] } });
    expect(answers).toContainEqual({ jsonrpc: '2.0', id: 99, result: {} });
    expect(new Set(answers.map((m) => m.id))).toEqual(new Set([1, 2, 3, 4, 5, 99]));
    expect(stdin.isPaused()).toBe(false);
  });

  it('handles the end of stdin after the lines held back, not before', async () => {
    const sink = new HeldSink();
    const { stdin, transport } = await connect({ stdout: sink });
    let ended = 0;
    let answeredAtEnd = -1;
    transport.oninputend = () => {
      ended++;
      answeredAtEnd = sink.lines().length;
    };
    for (let i = 0; i < 3000; i++) stdin.write(ping(i));
    stdin.end(ping(3000).trimEnd()); // an unterminated last line
    await turns(20);
    expect(ended).toBe(0);
    sink.release();
    await turns(40);
    expect(ended).toBe(1);
    expect(answeredAtEnd).toBeGreaterThan(0);
    expect(sink.lines().map((m) => m.id)).toEqual(Array.from({ length: 3001 }, (_, i) => i));
  });

  it('refuses a line nested deeper than maxJsonDepth with -32600 and data.maxDepth, and reads on', async () => {
    const sink = new HeldSink();
    sink.release();
    const { stdin } = await connect({ stdout: sink, maxJsonDepth: 3 });
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":{"b":[]}}}\n'); // 4 levels
    stdin.write('{"jsonrpc":"2.0","id":2,"method":"ping","params":{"a":{}}}\n'); // 3 levels
    await turns();
    expect(sink.lines()).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: JSON nested deeper than 3 levels', data: { maxDepth: 3 } } },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
  });

  it('whenFlushed resolves once stdout has taken everything sent, and at once when stdout is destroyed', async () => {
    const sink = new HeldSink();
    const { stdin, transport } = await connect({ stdout: sink });
    stdin.write(ping(1));
    await turns();
    let flushed = false;
    void transport.whenFlushed().then(() => (flushed = true));
    await turns();
    expect(flushed).toBe(false);
    sink.release();
    await turns();
    expect(flushed).toBe(true);
    expect(sink.lines()).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);

    const gone = new HeldSink();
    const other = await connect({ stdout: gone });
    other.stdin.write(ping(2));
    await turns();
    let done = false;
    void other.transport.whenFlushed().then(() => (done = true));
    gone.destroy();
    await turns();
    expect(done).toBe(true);
  });

  it('writes the answer of an asynchronous tool while the rest of its chunk is read, not after the last line', async () => {
    // What a client pipelining requests sees: the answers start coming while the server reads on, in both eras.
    const events: string[] = [];
    class Recorder extends Writable {
      override _write(chunk: string | Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
        for (const line of String(chunk).split('\n').filter((l) => l !== '')) events.push(`answer ${String((JSON.parse(line) as { id: unknown }).id)}`);
        callback();
      }
    }
    const server = new McpServer({ name: 't', version: '0' }, { logger: silentLogger });
    server.tool('echo', { inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }, ({ n }) => {
      events.push(`call ${n}`);
      // Asynchronous, as most tools are: the answer is known only a microtask later.
      return Promise.resolve({ content: [{ type: 'text' as const, text: String(n) }] });
    });
    const stdin = new PassThrough();
    await server.connect(new StdioServerTransport({ stdin, stdout: new Recorder({ decodeStrings: false }), logger: silentLogger }));
    stdin.write(INIT + INITIALIZED);
    await turns();
    const meta = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}';
    const call = (n: number, modern = false) => `{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":{"name":"echo","arguments":{"n":${n}}${modern ? `,${meta}` : ''}}}\n`;
    for (const modern of [false, true]) {
      events.length = 0;
      const ids = modern ? [11, 12, 13, 14, 15, 16] : [1, 2, 3, 4, 5, 6];
      stdin.write(ids.map((n) => call(n, modern)).join(''));
      await turns();
      expect(events.filter((e) => e.startsWith('answer')).sort(), `modern: ${modern}`).toEqual(ids.map((n) => `answer ${n}`).sort());
      // One chunk, one 'data' event: each answer is out before the line two behind its own is handled, three in the
      // 2026-07-28 era (a promise step more).
      for (const n of ids.slice(0, -3)) expect(events.indexOf(`answer ${n}`), events.join(', ')).toBeLessThan(events.indexOf(`call ${n + (modern ? 3 : 2)}`));
    }
  });

  it('delivers each line once, in order, when the client writes its next request as it reads an answer', async () => {
    // An in-process client: stdin emits the new line while the pump is still delivering the chunk before it.
    const server = new McpServer({ name: 't', version: '0' }, { logger: silentLogger });
    server.tool('later', {}, () => Promise.resolve({ content: [{ type: 'text' as const, text: 'later' }] }));
    server.tool('now', {}, () => ({ content: [{ type: 'text' as const, text: 'now' }] }));
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const transport = new StdioServerTransport({ stdin, stdout, logger: silentLogger });
    await server.connect(transport);
    const delivered: unknown[] = [];
    const deliver = transport.onmessage!;
    transport.onmessage = (message, extra) => {
      delivered.push(message.kind === 'request' ? message.message.id : message.kind);
      deliver(message, extra);
    };
    const meta = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}';
    const call = (id: number, name: string) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":{},${meta}}}\n`;
    const answers: unknown[] = [];
    stdout.on('data', (chunk: Buffer) => {
      for (const line of String(chunk).split('\n').filter((l) => l !== '')) {
        const { id } = JSON.parse(line) as { id: number };
        answers.push(id);
        // Answer 2 is written while request 2 is delivered: request 4 arrives in the middle of the pump.
        if (id === 2) stdin.write(call(4, 'later') + call(5, 'now'));
      }
    });
    stdin.write(call(1, 'later') + call(2, 'now') + call(3, 'later'));
    await turns();
    expect(delivered).toEqual([1, 2, 3, 4, 5]);
    expect([...answers].sort()).toEqual([1, 2, 3, 4, 5]);
    expect(stdin.isPaused()).toBe(false);
  });

  it('still stops reading at maxQueuedRequestsPerSession when stdin emits many chunks in one go', async () => {
    // A Readable resumed with chunks in its buffer emits them one after the other in one turn, before the microtask
    // the pump continues in: the chunks after the first must stay in stdin, not pile up in the transport.
    const sink = new HeldSink();
    sink.release();
    const { stdin, release, started } = await connect({ stdout: sink, maxConcurrent: 1, maxQueued: 1 });
    stdin.write(INIT + INITIALIZED);
    await turns();
    const call = (n: number) => `{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":{"name":"wait","arguments":{"n":${n}}}}\n`;
    stdin.pause();
    const chunks = 2000;
    for (let i = 0; i < chunks; i++) stdin.write(call(2 * i + 1) + call(2 * i + 2));
    const buffered = stdin.readableLength;
    stdin.resume();
    await turns();
    expect(started).toEqual([1]);
    expect(stdin.isPaused()).toBe(true);
    // At most the first two chunks were taken (the one being delivered and the one that paused stdin).
    expect(stdin.readableLength).toBeGreaterThanOrEqual(buffered - 2 * (call(1).length + call(2).length) - 10);
    for (let n = 1; n <= 2 * chunks; n++) {
      while (!release.has(n)) await turns(1);
      release.get(n)!();
    }
    await turns();
    expect(new Set(sink.lines().filter((m) => m.id !== 'init').map((m) => m.id)).size).toBe(2 * chunks);
  });

  it('validates maxJsonDepth, maxLineBytes, shutdownGraceMs and drainTimeoutMs', async () => {
    expect(() => new StdioServerTransport({ maxJsonDepth: 0 })).toThrow(new RangeError('Invalid option maxJsonDepth: expected a positive integer, got 0'));
    expect(() => new StdioServerTransport({ maxJsonDepth: 2.5 })).toThrow(RangeError);
    expect(() => new StdioServerTransport({ maxJsonDepth: '8' as unknown as number })).toThrow(new TypeError('Invalid option maxJsonDepth: expected a positive integer, got "8"'));
    expect(() => new StdioServerTransport({ maxLineBytes: -1 })).toThrow(new RangeError('Invalid option maxLineBytes: expected a positive integer, got -1'));
    const server = new McpServer({ name: 't', version: '0' }, { logger: silentLogger });
    const streams = { stdin: new PassThrough(), stdout: new HeldSink(), exitOnClose: false };
    await expect(serveStdio(server, { ...streams, drainTimeoutMs: -1 })).rejects.toThrow(
      new RangeError('Invalid option drainTimeoutMs: expected a number of milliseconds from 0 (or Infinity), got -1'),
    );
    await expect(serveStdio(server, { ...streams, shutdownGraceMs: Number.NaN })).rejects.toThrow(RangeError);
  });

  it('a shutdownGraceMs of Infinity, or past what a timer holds, waits for the call in flight instead of firing at once', async () => {
    for (const shutdownGraceMs of [Infinity, 2 ** 31]) {
      const server = new McpServer({ name: 't', version: '0' }, { logger: silentLogger });
      server.tool('slow', {}, async () => {
        await new Promise((resolve) => setTimeout(resolve, 150));
        return { content: [{ type: 'text', text: 'late' }] };
      });
      const stdin = new PassThrough();
      const stdout = new HeldSink();
      stdout.release();
      await serveStdio(server, { stdin, stdout, exitOnClose: false, shutdownGraceMs, logger: silentLogger });
      stdin.end(`${INIT}${INITIALIZED}{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{}}}\n`);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(stdout.lines().find((m) => m.id === 7), String(shutdownGraceMs)).toMatchObject({ result: { content: [{ text: 'late' }] } });
    }
  });
});
