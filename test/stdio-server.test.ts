/**
 * The stdio transport end to end: a real child process, raw bytes on its stdin, every stdout line checked.
 * Field bugs B11-B18 (stdio framing) and B30/B31 (lifecycle) replayed as bytes.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const FIXTURE = fileURLToPath(new URL('./fixtures/stdio-server.mjs', import.meta.url));
const THROWING_FIXTURE = fileURLToPath(new URL('./fixtures/stdio-throwing-onmessage.mjs', import.meta.url));
/** The notification on which that fixture's `onmessage` throws. */
const THROW = '{"jsonrpc":"2.0","method":"test/throw"}';
const HS_INIT = '{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"0"}}}\n';
const HS_DONE = '{"jsonrpc":"2.0","method":"notifications/initialized"}\n';

interface Child {
  proc: ChildProcessWithoutNullStreams;
  lines: string[];
  stderr: string[];
  write(data: string | Buffer): void;
  waitForId(id: unknown, timeoutMs?: number): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

const children: Child[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
});

function start(args: string[] = [], fixture = FIXTURE): Child {
  const proc = spawn(process.execPath, [fixture, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const stderr: string[] = [];
  let buf = '';
  const waiters = new Set<() => void>();
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (chunk: string) => {
    buf += chunk;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      lines.push(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
    for (const w of [...waiters]) w();
  });
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (c: string) => stderr.push(c));
  // 'close', not 'exit': once stdout and stderr are read to their end, so what the process wrote is all in `stderr`.
  const exited = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code)));
  const child: Child = {
    proc,
    lines,
    stderr,
    write: (data) => proc.stdin.write(data),
    waitForId: (id, timeoutMs = 5000) =>
      new Promise((resolve, reject) => {
        let seen = 0;
        const check = () => {
          for (; seen < lines.length; seen++) {
            const line = lines[seen]!;
            if (line.includes('"method"') && !line.startsWith('{"jsonrpc":"2.0","id"')) continue;
            const msg = JSON.parse(line) as Record<string, unknown>;
            if (msg.id === id && !('method' in msg)) {
              waiters.delete(check);
              clearTimeout(timer);
              resolve(msg);
              return;
            }
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no response with id ${JSON.stringify(id)}; stdout (first 2000 chars): ${lines.join('\n').slice(0, 2000)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    exited,
  };
  children.push(child);
  return child;
}

async function handshake(c: Child) {
  c.write(HS_INIT);
  await c.waitForId('init');
  c.write(HS_DONE);
}

describe('stdio server (real child process)', () => {
  it('B11: one line of invalid JSON gets -32700 and the session goes on', async () => {
    const c = start();
    await handshake(c);
    c.write('{"jsonrpc":"2.0","id":1,"method":"tools/list"\n');
    c.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    expect(await c.waitForId(2)).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(await c.waitForId(null)).toMatchObject({ error: { code: -32700 } });
  });

  it('B12: CRLF line endings are accepted', async () => {
    const c = start();
    c.write(HS_INIT.replace('\n', '\r\n'));
    await c.waitForId('init');
    c.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\r\n');
    expect(await c.waitForId(3)).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });

  it('B13: a line with a leading UTF-8 BOM is parsed, not dropped', async () => {
    const c = start();
    await handshake(c);
    c.write(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"jsonrpc":"2.0","id":4,"method":"ping"}\n')]));
    expect(await c.waitForId(4)).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
  });

  it('B15: stdout carries only JSON-RPC lines, logs go to stderr', async () => {
    const c = start();
    await handshake(c);
    c.write('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}\n');
    expect(await c.waitForId(5)).toEqual({ jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'hi' }] } });
    for (const line of c.lines) expect(JSON.parse(line)).toHaveProperty('jsonrpc', '2.0');
    // stderr and stdout are separate pipes: the log line may be read after the response.
    await expect.poll(() => c.stderr.join(''), { timeout: 2000 }).toContain('echo called');
  });

  it('B16: a line over the limit is refused with -32600 and the next request is answered', async () => {
    const c = start(['1024']);
    await handshake(c);
    c.write(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"text":"${'x'.repeat(70_000)}"}}}\n`);
    c.write('{"jsonrpc":"2.0","id":7,"method":"ping"}\n');
    expect(await c.waitForId(7)).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    expect(await c.waitForId(null)).toMatchObject({ error: { code: -32600 } });
    expect(c.lines.some((l) => l.includes('"id":6'))).toBe(false);
  });

  it('B16: a 1 MiB message under the default limit is answered in full', async () => {
    const c = start();
    await handshake(c);
    const text = 'y'.repeat(1024 * 1024);
    c.write(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"text":"${text}"}}}\n`);
    const r = (await c.waitForId(8)) as { result: { content: { text: string }[] } };
    expect(r.result.content[0]!.text.length).toBe(text.length);
  });

  it('B17: messages split across chunks and several per chunk are framed exactly', async () => {
    const c = start();
    await handshake(c);
    const two = '{"jsonrpc":"2.0","id":9,"method":"ping"}\n{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo","arguments":{"text":"é\u2028ü"}}}\n';
    const bytes = Buffer.from(two);
    for (let i = 0; i < bytes.length; i += 7) {
      c.write(bytes.subarray(i, i + 7));
      await new Promise((r) => setTimeout(r, 1));
    }
    expect(await c.waitForId(9)).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
    expect(await c.waitForId(10)).toEqual({ jsonrpc: '2.0', id: 10, result: { content: [{ type: 'text', text: 'é\u2028ü' }] } });
  });

  it('B18: invalid UTF-8 on stdin does not crash the server', async () => {
    const c = start();
    await handshake(c);
    c.write(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":11,"method":"ping","params":{"x":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}}\n')]));
    c.write(Buffer.from([0xc3, 0x28, 0x0a]));
    c.write('{"jsonrpc":"2.0","id":12,"method":"ping"}\n');
    expect(await c.waitForId(12)).toEqual({ jsonrpc: '2.0', id: 12, result: {} });
    expect(c.proc.exitCode).toBeNull();
  });

  it('B31 and B30 over stdio: ping before initialize; a second initialize is -32600', async () => {
    const c = start();
    c.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n');
    expect(await c.waitForId(1)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(await c.waitForId(2)).toMatchObject({ id: 2, error: { code: -32600 } });
    await handshake(c);
    c.write('{"jsonrpc":"2.0","id":"init2","method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{"sampling":{}},"clientInfo":{"name":"other","version":"9"}}}\n');
    c.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    expect(await c.waitForId('init2')).toMatchObject({ error: { code: -32600 } });
    expect(await c.waitForId(3)).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });

  it('on stdin end-of-file, in-flight answers and an unterminated last line are still answered, then it exits', async () => {
    const c = start();
    await handshake(c);
    c.write('{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":150}}}\n');
    c.write('{"jsonrpc":"2.0","id":21,"method":"ping"}');
    c.proc.stdin.end();
    expect(await c.exited).toBe(0);
    expect(c.lines.map((l) => JSON.parse(l) as { id?: unknown }).filter((m) => m.id === 20 || m.id === 21)).toEqual([
      { jsonrpc: '2.0', id: 21, result: {} },
      { jsonrpc: '2.0', id: 20, result: { content: [{ type: 'text', text: 'slept 150' }] } },
    ]);
  });

  it('a client that stops reading stdout pauses a flooding handler: memory stays bounded, nothing is lost', async () => {
    const c = start();
    await handshake(c);
    c.proc.stdout.pause();
    c.write('{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"flood","arguments":{"n":60000}}}\n');
    const progress = () => Math.max(0, ...c.stderr.join('').split('\n').map((l) => Number(/^flood (\d+)$/.exec(l)?.[1] ?? 0)));
    await new Promise((r) => setTimeout(r, 1500));
    const stalledAt = progress();
    // 60,000 notifications of ~1 KiB: without backpressure the handler finishes in well under a second.
    expect(stalledAt).toBeLessThan(20_000);
    const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${c.proc.pid}/status`, 'utf8'))?.[1]);
    expect(rssKiB).toBeLessThan(200 * 1024);
    c.proc.stdout.resume();
    const done = (await c.waitForId(30, 20_000)) as { result: { content: { text: string }[] } };
    expect(done.result.content[0]!.text).toBe('sent 60000');
    expect(c.lines.filter((l) => l.includes('notifications/message'))).toHaveLength(60_000);
  }, 30_000);

  it('on stdin end-of-file, a pending server-to-client request fails at once so its tool still answers', async () => {
    const c = start();
    c.write(HS_INIT.replace('"capabilities":{}', '"capabilities":{"sampling":{}}'));
    await c.waitForId('init');
    c.write(HS_DONE);
    c.write('{"jsonrpc":"2.0","id":40,"method":"tools/call","params":{"name":"ask","arguments":{}}}\n');
    await new Promise((r) => setTimeout(r, 100));
    expect(c.lines.some((l) => l.includes('sampling/createMessage'))).toBe(true);
    const t0 = Date.now();
    c.proc.stdin.end();
    expect(await c.waitForId(40)).toEqual({ jsonrpc: '2.0', id: 40, result: { content: [{ type: 'text', text: 'sampling failed: connection_closed' }], isError: true } });
    expect(await c.exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(900);
  });

  it('exits promptly on stdin end-of-file, even with a handler still running', async () => {
    const c = start();
    await handshake(c);
    c.write('{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"hang","arguments":{}}}\n');
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    c.proc.stdin.end();
    expect(await c.exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it('a logger that throws changes nothing: the oversized line is still refused, and the server goes on', async () => {
    // The fixture's logger throws on every warn; an oversized line makes the transport warn.
    const c = start([], THROWING_FIXTURE);
    const meta = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}';
    c.write(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"${'x'.repeat(400)}"}}\n`);
    c.write(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{},${meta}}}\n`);
    expect((await c.waitForId(3)).result).toMatchObject({ content: [{ type: 'text', text: 'ok' }] });
    expect(c.lines.map((l) => JSON.parse(l) as { id: unknown; error?: { code: number } })).toContainEqual(expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) }));
    c.proc.stdin.end();
    expect(await c.exited).toBe(0);
    // Read once stderr has ended: a line written late would otherwise go unseen.
    expect(c.stderr.join('')).not.toMatch(/uncaughtException|unhandledRejection/);
  });

  it('an error escaping the transport on a later line of a chunk reaches uncaughtException, as on the first line', async () => {
    // The fixture's onmessage throws on a test/throw notification. The first line's tool is async, so the second is
    // delivered by the pump's continuation (a promise reaction): what escapes it must not become an unhandled rejection.
    const c = start([], THROWING_FIXTURE);
    const meta = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}';
    const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{},${meta}}}`;
    c.write(`${call}\n${THROW}\n`);
    const deadline = Date.now() + 5000;
    while (!/uncaughtException|unhandledRejection/.test(c.stderr.join('')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    // A little longer, so that a rejection reported after the exception would be seen too.
    await new Promise((r) => setTimeout(r, 200));
    const stderr = c.stderr.join('');
    expect(stderr).toContain('uncaughtException: onmessage threw');
    expect(stderr).not.toContain('unhandledRejection');
  });

  it('a process that survives such a throw still answers the rest of the chunk, and exits at end of input', async () => {
    const c = start([], THROWING_FIXTURE);
    const meta = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}';
    const call = (id: number): string => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"slow","arguments":{},${meta}}}`;
    // The throw comes on the second line of the chunk (delivered by the pump's continuation) and on the first line of
    // the next one (delivered from the stdin 'data' event).
    c.write(`${call(1)}\n${THROW}\n${call(3)}\n`);
    expect((await c.waitForId(3)).result).toMatchObject({ content: [{ type: 'text', text: 'ok' }] });
    c.write(`${THROW}\n${call(4)}\n`);
    expect((await c.waitForId(4)).result).toMatchObject({ content: [{ type: 'text', text: 'ok' }] });
    c.proc.stdin.end();
    expect(await c.exited).toBe(0);
    // Counted once stderr is read to its end: it is another pipe than the answers, read in its own time.
    expect(c.stderr.join('').match(/uncaughtException: onmessage threw/g)).toHaveLength(2);
  });

  it('a delivery that throws on every line: stdin waits while the held lines are delivered, so memory stays bounded', async () => {
    // 200,000 throwing lines (7.8 MB) written at once, then a call. Without the pause each stdin chunk queued behind
    // the held lines while each turn delivered one of them, so the backlog grew with the input.
    const c = start([], THROWING_FIXTURE);
    const meta = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}';
    const lines = 200_000;
    c.write(`${THROW}\n`.repeat(lines));
    c.write(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{},${meta}}}\n`);
    expect((await c.waitForId(1, 60_000)).result).toMatchObject({ content: [{ type: 'text', text: 'ok' }] });
    c.proc.stdin.end();
    expect(await c.exited).toBe(0);
    const [, count, maxRssKb] = /exceptions (\d+) maxRSS (\d+)/.exec(c.stderr.join('')) ?? [];
    expect(Number(count)).toBe(lines);
    // 67 MB here with the pause, 142 MB without it.
    expect(Number(maxRssKb) / 1024).toBeLessThan(100);
  }, 90_000);

  it('an unterminated last line whose delivery throws still ends the input: the shutdown grace applies', async () => {
    const c = start([], THROWING_FIXTURE);
    const meta = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}';
    // A 4 s call in flight, then a line whose delivery throws, left unterminated at end of input. The input must still
    // end, so the fixture's 500 ms grace closes the server rather than the call's end.
    c.write(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":4000},${meta}}}\n`);
    await new Promise((r) => setTimeout(r, 100));
    const t0 = Date.now();
    c.proc.stdin.end(THROW);
    await c.exited;
    expect(c.stderr.join('')).toContain('uncaughtException: onmessage threw');
    expect(Date.now() - t0).toBeLessThan(2500);
  });
});
