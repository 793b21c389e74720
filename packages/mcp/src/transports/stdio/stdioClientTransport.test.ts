/**
 * The stdio client transport against real processes: our own server (both eras) and the small programs of
 * `test/fixtures/stdio-servers/`, each message read whole from the raw `Transport`. Field bugs B15 (a banner on
 * stdout), B16 (a line over the cap) and B17 (chunks that do not match messages) replayed as bytes.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Inbound, Logger } from '@switchboard/jsonrpc';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionClosedError, SpawnError } from '../../protocol/clientErrors.js';
import { spawnStdio, StdioClientTransport, type SpawnStdioOptions } from './index.js';

const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));
const FIXTURES = `${ROOT}test/fixtures/stdio-servers/`;
const NODE = process.execPath;

interface LogLine {
  readonly level: string;
  readonly message: string;
}

function captureLogger(): Logger & { readonly lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: string) => (message: string) => void lines.push({ level, message });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** One open transport, what it delivered, and how many times it closed. */
interface Conn {
  readonly transport: StdioClientTransport;
  readonly inbox: Inbound[];
  readonly log: LogLine[];
  closes: number;
  /** Resolves with the first delivered message `match` accepts (looking at those already delivered too). */
  next(match: (inbound: Inbound) => boolean, ms?: number): Promise<Inbound>;
  /** Resolves once `onclose` fired. */
  readonly closed: Promise<void>;
}

const open: StdioClientTransport[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((transport) => transport.close()));
});

async function connect(options: SpawnStdioOptions): Promise<Conn> {
  const logger = captureLogger();
  const transport = await StdioClientTransport.spawn(options, { logger });
  open.push(transport);
  const inbox: Inbound[] = [];
  const waiters = new Set<() => void>();
  let markClosed: () => void = () => {};
  const conn: Conn = {
    transport,
    inbox,
    log: logger.lines,
    closes: 0,
    closed: new Promise((resolve) => (markClosed = resolve)),
    next: (match, ms = 10_000) =>
      new Promise((resolve, reject) => {
        const look = (): boolean => {
          const found = inbox.find(match);
          if (found === undefined) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const check = (): void => void look();
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching message within ${ms} ms; got ${JSON.stringify(inbox)}`));
        }, ms);
        if (!look()) waiters.add(check);
      }),
  };
  transport.onmessage = (inbound) => {
    inbox.push(inbound);
    for (const waiter of [...waiters]) waiter();
  };
  transport.onclose = () => {
    conn.closes++;
    markClosed();
  };
  await transport.start();
  return conn;
}

const isResponse = (id: unknown) => (inbound: Inbound) => inbound.kind === 'response' && inbound.message.id === id;
const message = (inbound: Inbound): unknown => (inbound.kind === 'batch' || inbound.kind === 'invalid' ? inbound : inbound.message);
const request = (id: number, method: string, params?: Record<string, unknown>) => ({ jsonrpc: '2.0' as const, id, method, ...(params === undefined ? {} : { params }) });
const warnings = (conn: Conn): string[] => conn.log.filter((line) => line.level === 'warn').map((line) => line.message);

describe('StdioClientTransport: our own server', () => {
  it('speaks the legacy era with test/fixtures/stdio-server.mjs: initialize, tools/call, whole responses; stderr is a debug log', async () => {
    const conn = await connect({ command: NODE, args: [`${ROOT}test/fixtures/stdio-server.mjs`] });
    await conn.transport.send(request(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '0' } }));
    const init = message(await conn.next(isResponse(1))) as { result: Record<string, unknown> };
    expect(init.result).toMatchObject({ protocolVersion: '2025-11-25', serverInfo: { name: 'stdio-fixture', version: '0.0.1' } });
    await conn.transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await conn.transport.send(request(2, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }));
    expect(message(await conn.next(isResponse(2)))).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'hi' }] } });
    await conn.transport.close();
    expect(conn.transport.stderrTail.some((line) => line.includes('echo called (this line goes to stderr)'))).toBe(true);
    expect(conn.log.some((line) => line.level === 'debug' && line.message.includes('echo called'))).toBe(true);
    expect(warnings(conn)).toEqual([]);
    expect(conn.transport.endFacts).toEqual({ exitCode: 0, signal: null, stderrTail: conn.transport.stderrTail, reason: 'the client closed the connection' });
  });

  it('speaks the modern era with examples/demo/main.js --stdio: server/discover with the per-request _meta', async () => {
    const conn = await connect({ command: NODE, args: [`${ROOT}examples/demo/main.js`, '--stdio'] });
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '0' } };
    await conn.transport.send(request(0, 'server/discover', { _meta: meta }));
    const discovered = message(await conn.next(isResponse(0))) as { id: unknown; result: { supportedVersions: string[] } };
    expect(discovered.id).toBe(0);
    expect(discovered.result.supportedVersions).toContain('2026-07-28');
  });
});

describe('StdioClientTransport: when lines are written', () => {
  /** The ids the fixture has read so far (it records each one synchronously as it reads it). */
  const seenIds = (file: string): string[] => readFileSync(file, 'utf8').split('\n').filter((id) => id !== '');
  /** Waits without yielding (the event loop stays in this turn) until `done()` or `ms` passed; returns `done()`. */
  const spin = (done: () => boolean, ms: number): boolean => {
    const until = Date.now() + ms;
    while (!done() && Date.now() < until);
    return done();
  };
  const readOf = async (conn: Conn, id: number): Promise<number> => ((message(await conn.next(isResponse(id))) as { result: { read: number } }).result.read);

  it('the lines sent in one turn are written together when the turn ends (one read on the server side)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sb-stdio-writes-'));
    try {
      const seen = path.join(dir, 'seen');
      const conn = await connect({ command: NODE, args: [`${FIXTURES}reads.js`, seen] });
      await conn.transport.send(request(1, 'ping'));
      const read1 = await readOf(conn, 1);
      for (const id of [2, 3, 4]) void conn.transport.send(request(id, 'ping'));
      // Nothing reaches the server before the turn ends…
      expect(spin(() => seenIds(seen).includes('2'), 100)).toBe(false);
      // …then the three lines go in one write.
      const reads = [await readOf(conn, 2), await readOf(conn, 3), await readOf(conn, 4)];
      expect(new Set(reads).size).toBe(1);
      expect(reads[0]).toBeGreaterThan(read1);
      expect(seenIds(seen)).toEqual(['1', '2', '3', '4']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('StdioClientTransport: stdout that is not only messages', () => {
  it('B15: skips a banner and a blank line before the first message, warns once quoting the banner, and stays open', async () => {
    const conn = await connect({ command: NODE, args: [`${FIXTURES}banner.js`] });
    await conn.transport.send(request(1, 'ping'));
    expect(message(await conn.next(isResponse(1)))).toEqual({ jsonrpc: '2.0', id: 1, result: { echo: null } });
    expect(warnings(conn)).toEqual(['Skipped a stdout line that is not JSON-RPC: "Server ready on stdio"']);
    expect(conn.inbox).toHaveLength(1);
  });

  it('B15: rate-limits the warnings (the first five, then one per 100) and delivers only JSON-RPC', async () => {
    const conn = await connect({ command: NODE, args: [`${FIXTURES}banner.js`] });
    await conn.transport.send(request(1, 'noise', { count: 250 }));
    await conn.next(isResponse(1));
    // The banner is skipped line 1; noise line i is skipped line i + 1.
    expect(warnings(conn)).toEqual([
      'Skipped a stdout line that is not JSON-RPC: "Server ready on stdio"',
      'Skipped a stdout line that is not JSON-RPC: "noise 1"',
      'Skipped a stdout line that is not JSON-RPC: "{"log":"not json-rpc 2"}"',
      'Skipped a stdout line that is not JSON-RPC: "noise 3"',
      'Skipped a stdout line that is not JSON-RPC: "{"log":"not json-rpc 4"}"',
      'Skipped 100 stdout lines that are not JSON-RPC so far; the latest: "noise 99"',
      'Skipped 200 stdout lines that are not JSON-RPC so far; the latest: "noise 199"',
    ]);
    expect(conn.inbox.map(message)).toEqual([{ jsonrpc: '2.0', id: 1, result: { echo: { count: 250 } } }]);
  });

  it('B17: a notification and half a response in one write (cut inside "é"), the rest later: both, in order, CRLF removed', async () => {
    const conn = await connect({ command: NODE, args: [`${FIXTURES}split.js`] });
    await conn.transport.send(request(1, 'tools/call'));
    await conn.next(isResponse(1));
    expect(conn.inbox.map(message)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
      { jsonrpc: '2.0', id: 1, result: { text: 'café' } },
    ]);
  });

  it('B16: a line over maxLineBytes is skipped up to its newline with a warning; the next response still arrives', async () => {
    const conn = await connect({ command: NODE, args: [`${FIXTURES}echo.js`], maxLineBytes: 1000 });
    await conn.transport.send(request(1, 'big', { bytes: 5000 }));
    await conn.transport.send(request(2, 'ping'));
    expect(message(await conn.next(isResponse(2)))).toEqual({ jsonrpc: '2.0', id: 2, result: { echo: null } });
    expect(conn.inbox).toHaveLength(1);
    expect(warnings(conn)).toEqual(['Skipped a stdout line that is not JSON-RPC: a line longer than 1000 bytes']);
  });
});

describe('StdioClientTransport: a server that cannot start', () => {
  it('ENOENT for a bare command is SpawnError not_found, saying which PATH it was looked up on', async () => {
    const failure = StdioClientTransport.spawn({ command: 'switchboard-no-such-server', args: ['--stdio'], env: { PATH: '/nonexistent-a:/nonexistent-b' } }, { logger: captureLogger() });
    await expect(failure).rejects.toBeInstanceOf(SpawnError);
    await expect(failure).rejects.toMatchObject({
      code: 'spawn_failed',
      failure: 'not_found',
      command: 'switchboard-no-such-server --stdio',
      detail: 'looked up on PATH "/nonexistent-a:/nonexistent-b"',
      message: 'Cannot start MCP server "switchboard-no-such-server --stdio": command not found: looked up on PATH "/nonexistent-a:/nonexistent-b"',
    });
  });

  it('ENOENT for a path says it was not looked up on PATH, and where it was looked for', async () => {
    const failure = StdioClientTransport.spawn({ command: './no-such-server.js', cwd: FIXTURES }, { logger: captureLogger() });
    await expect(failure).rejects.toMatchObject({ failure: 'not_found', detail: `a path, not looked up on PATH: no file "${FIXTURES}no-such-server.js"` });
  });

  it('ENOENT from a working directory that does not exist says so', async () => {
    const failure = StdioClientTransport.spawn({ command: NODE, cwd: `${FIXTURES}no-such-dir` }, { logger: captureLogger() });
    await expect(failure).rejects.toMatchObject({ failure: 'not_found', detail: `the working directory "${FIXTURES}no-such-dir" does not exist` });
  });

  it('a file that is not executable is SpawnError failed, with the system error as detail', async () => {
    // lines.js is a module, committed without the execute bit.
    const failure = StdioClientTransport.spawn({ command: `${FIXTURES}lines.js` }, { logger: captureLogger() });
    await expect(failure).rejects.toMatchObject({ code: 'spawn_failed', failure: 'failed', detail: `spawn ${FIXTURES}lines.js EACCES` });
  });

  it('an exit before the first message: endFacts is SpawnError exited with the exit code and the last 20 stderr lines, and send rejects with it', async () => {
    const conn = await connect({ command: NODE, args: [`${FIXTURES}exit-at-once.js`, '3', '25'] });
    await conn.closed;
    const facts = conn.transport.endFacts;
    expect(facts).toBeInstanceOf(SpawnError);
    const tail = Array.from({ length: 20 }, (_, i) => `startup error line ${i + 6}`);
    expect(facts).toMatchObject({ code: 'spawn_failed', failure: 'exited', exitCode: 3, signal: null, stderrTail: tail });
    expect((facts as SpawnError).message).toBe(`Cannot start MCP server "${NODE} ${FIXTURES}exit-at-once.js 3 25": the process exited before answering: exit code 3; last stderr line: "startup error line 25"`);
    await expect(conn.transport.send(request(1, 'ping'))).rejects.toBe(facts);
    expect(conn.closes).toBe(1);
  });

  it('a server that closes stdout before its first message and runs on: SpawnError exited, saying it closed stdout and was stopped', async () => {
    const script = 'require("node:fs").closeSync(1); setInterval(() => {}, 1 << 30)';
    const conn = await connect({ command: NODE, args: ['-e', script], shutdownGraceMs: 200 });
    await conn.closed;
    expect(conn.transport.endFacts).toMatchObject({ failure: 'exited', exitCode: null, signal: 'SIGTERM', detail: 'it closed its stdout and was stopped' });
    expect((conn.transport.endFacts as SpawnError).message).toMatch(/": the process exited before answering: it closed its stdout and was stopped: signal SIGTERM$/);
  });
});

describe('StdioClientTransport: the end of a running server', () => {
  it('a later exit fires onclose once with the exit code, stderr tail and reason; send then rejects with ConnectionClosedError', async () => {
    const conn = await connect({ command: NODE, args: [`${FIXTURES}echo.js`] });
    await conn.transport.send(request(1, 'exit', { code: 5 }));
    expect(message(await conn.next(isResponse(1)))).toEqual({ jsonrpc: '2.0', id: 1, result: { echo: { code: 5 } } });
    await conn.closed;
    expect(conn.transport.endFacts).toEqual({ exitCode: 5, signal: null, stderrTail: ['exiting on request'], reason: 'the server process exited' });
    const failure = conn.transport.send(request(2, 'ping'));
    await expect(failure).rejects.toBeInstanceOf(ConnectionClosedError);
    await expect(failure).rejects.toMatchObject({
      code: 'connection_closed',
      exitCode: 5,
      message: `Connection closed (stdio server "${NODE} ${FIXTURES}echo.js"): the server process exited; exit code 5; last stderr line: "exiting on request"`,
    });
    await conn.transport.close();
    await conn.transport.close();
    expect(conn.closes).toBe(1);
  });

  it("a server that closes stdout but keeps running is signalled; the reason is 'stdout closed'", async () => {
    // One message, then fd 1 closed; the process ignores the end of its stdin, so only SIGTERM ends it.
    const script = 'process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "hello" }) + "\\n"); require("node:fs").closeSync(1); setInterval(() => {}, 1 << 30)';
    const conn = await connect({ command: NODE, args: ['-e', script], shutdownGraceMs: 200 });
    await conn.closed;
    expect(conn.inbox.map(message)).toEqual([{ jsonrpc: '2.0', method: 'hello' }]);
    expect(conn.transport.endFacts).toEqual({ exitCode: null, signal: 'SIGTERM', stderrTail: [], reason: 'stdout closed' });
  });

  it("a server that closes its stdin but keeps running: the next write ends the connection, signalled; the reason is 'the server closed its stdin'", async () => {
    // One message, then fd 0 closed (no reader left on the pipe); the process would run for ever.
    const script = 'require("node:fs").closeSync(0); process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "hello" }) + "\\n"); setInterval(() => {}, 1 << 30)';
    const conn = await connect({ command: NODE, args: ['-e', script], shutdownGraceMs: 200 });
    await conn.next((inbound) => inbound.kind === 'notification');
    // The line is queued (the send resolves); the write at the end of the turn meets the closed pipe (EPIPE) and ends
    // the connection, so the request it carried fails with the connection instead of waiting for its timeout.
    await conn.transport.send(request(1, 'ping'));
    await conn.closed;
    expect(conn.transport.endFacts).toEqual({ exitCode: null, signal: 'SIGTERM', stderrTail: [], reason: 'the server closed its stdin' });
    await expect(conn.transport.send(request(2, 'ping'))).rejects.toMatchObject({ code: 'connection_closed', signal: 'SIGTERM', reason: 'the server closed its stdin' });
    // A large line is written at once: its send is the one that meets the closed pipe, and rejects saying why.
    const big = await connect({ command: NODE, args: ['-e', script], shutdownGraceMs: 200 });
    await big.next((inbound) => inbound.kind === 'notification');
    await expect(big.transport.send(request(1, 'big', { text: 'A'.repeat(10_000) }))).rejects.toMatchObject({ code: 'connection_closed', reason: 'the server closed its stdin' });
    expect(conn.closes).toBe(1);
  });

  it("a server that exits by itself while a child of it keeps its group alive: the group is signalled, and the reason is still 'the server process exited'", async () => {
    // Whichever comes first, stdout's end or the exit, the exit was the server's own; only the grandchild needed SIGTERM.
    const script = 'require("node:child_process").spawn("sleep", ["30"], { stdio: "ignore" }); process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "hello" }) + "\\n", () => process.exit(5))';
    const conn = await connect({ command: NODE, args: ['-e', script], shutdownGraceMs: 200 });
    await conn.closed;
    expect(conn.inbox.map(message)).toEqual([{ jsonrpc: '2.0', method: 'hello' }]);
    expect(conn.transport.endFacts).toEqual({ exitCode: 5, signal: null, stderrTail: [], reason: 'the server process exited' });
  });

  it('close() writes what the sends before it queued, in order, before it ends stdin', async () => {
    // The server reports every line it got once its stdin ends.
    const script = [
      'let all = "";',
      'process.stdin.on("data", (chunk) => (all += chunk));',
      'process.stdin.on("end", () => process.stderr.write(`got: ${all.trim().split("\\n").map((line) => JSON.parse(line).method).join(" ")}\\n`));',
    ].join(' ');
    const conn = await connect({ command: NODE, args: ['-e', script] });
    for (const method of ['a', 'b', 'c']) void conn.transport.send({ jsonrpc: '2.0', method });
    await conn.transport.close();
    expect(conn.transport.stderrTail).toEqual(['got: a b c']);
  });

  it('a send the pipe cannot take waits for drain, and rejects with ConnectionClosedError when the connection ends first', async () => {
    // A server that never reads its stdin: the pipe fills and a 1 MiB line cannot be handed over.
    const conn = await connect({ command: NODE, args: ['-e', 'setInterval(() => {}, 1 << 30)'], shutdownGraceMs: 200 });
    let settled = false;
    const sent = conn.transport.send(request(1, 'big', { text: 'A'.repeat(1 << 20) }));
    sent.then(
      () => (settled = true),
      () => (settled = true),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(settled).toBe(false);
    await conn.transport.close();
    await expect(sent).rejects.toBeInstanceOf(ConnectionClosedError);
  });
});

describe('StdioClientTransport: stderr and environment', () => {
  it('keeps maxStderrLines lines, each capped at 1,024 characters, passes every line to onstderr and none to the logger', async () => {
    const seen: string[] = [];
    const script = 'process.stderr.write("one\\r\\n\\n" + "x".repeat(3000) + "\\nthree\\nfour"); process.exit(0)';
    const conn = await connect({ command: NODE, args: ['-e', script], maxStderrLines: 3, onstderr: (line) => seen.push(line) });
    await conn.closed;
    expect(seen).toEqual(['one', `${'x'.repeat(1024)}…`, 'three', 'four']);
    expect(conn.transport.stderrTail).toEqual([`${'x'.repeat(1024)}…`, 'three', 'four']);
    expect(conn.log.filter((line) => line.level === 'debug')).toEqual([]);
  });

  it("stderr: 'ignore' keeps no tail", async () => {
    const conn = await connect({ command: NODE, args: [`${FIXTURES}exit-at-once.js`, '1', '3'], stderr: 'ignore' });
    await conn.closed;
    expect(conn.transport.endFacts).toMatchObject({ failure: 'exited', exitCode: 1, stderrTail: [] });
  });

  it('env is merged over process.env by default; inheritEnv: false gives the child env alone; undefined removes a variable', async () => {
    const script = 'process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "env", params: { x: process.env.SWITCHBOARD_X ?? null, home: process.env.HOME ?? null } }) + "\\n")';
    const merged = await connect({ command: NODE, args: ['-e', script], env: { SWITCHBOARD_X: 'y' } });
    expect(message(await merged.next((inbound) => inbound.kind === 'notification'))).toEqual({ jsonrpc: '2.0', method: 'env', params: { x: 'y', home: process.env.HOME ?? null } });
    const alone = await connect({ command: NODE, args: ['-e', script], env: { SWITCHBOARD_X: 'z' }, inheritEnv: false });
    expect(message(await alone.next((inbound) => inbound.kind === 'notification'))).toEqual({ jsonrpc: '2.0', method: 'env', params: { x: 'z', home: null } });
    const removed = await connect({ command: NODE, args: ['-e', script], env: { HOME: undefined } });
    expect(message(await removed.next((inbound) => inbound.kind === 'notification'))).toEqual({ jsonrpc: '2.0', method: 'env', params: { x: null, home: null } });
  });
});

describe('spawnStdio', () => {
  it('is a stdio connector keyed by the command line, opening a fresh process each time', async () => {
    const connector = spawnStdio({ command: NODE, args: [`${FIXTURES}echo.js`] });
    expect(connector.kind).toBe('stdio');
    expect(connector.verdictKey).toBe(`stdio:${NODE} ${FIXTURES}echo.js`);
    const first = (await connector.open({ logger: captureLogger() })) as StdioClientTransport;
    const second = (await connector.open({ logger: captureLogger() })) as StdioClientTransport;
    open.push(first, second);
    expect(first).toBeInstanceOf(StdioClientTransport);
    expect(first.kind).toBe('stdio');
    expect(second.pid).not.toBe(first.pid);
  });

  it('checks its options at once', () => {
    expect(() => spawnStdio({ command: '' })).toThrow(new TypeError('Invalid option command: expected a non-empty string, got ""'));
    expect(() => spawnStdio({ command: 'x', shutdownGraceMs: -1 })).toThrow(new RangeError('Invalid option shutdownGraceMs: expected a whole number of milliseconds from 0 to 2147483647, got -1'));
    expect(() => spawnStdio({ command: 'x', stderr: 'pipe' as never })).toThrow(TypeError);
  });

  it('an aborted signal gives up opening', async () => {
    const controller = new AbortController();
    controller.abort(new Error('given up'));
    await expect(spawnStdio({ command: NODE }).open({ logger: captureLogger(), signal: controller.signal })).rejects.toThrow('given up');
  });
});
