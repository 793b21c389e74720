/**
 * serveStdio routes console.log/info/debug (and the other stdout-printing console methods) to stderr, so a stray
 * console call cannot corrupt the stdio stream (MCP 2025-11-25 basic/transports.mdx "stdio": stdout carries
 * MCP messages only). A real child process; the in-process case checks the originals come back on close.
 */
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '@switchboard/jsonrpc';
import { McpServer } from '@switchboard/mcp/server';
import { serveStdio } from '@switchboard/mcp/stdio';
import { describe, expect, it } from 'vitest';

const FIXTURE = fileURLToPath(new URL('./fixtures/stdio-server.mjs', import.meta.url));
const INIT = '{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"0"}}}\n';
const INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}\n';
const CALL = (id: number): string => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"chatty"}}\n`;

/** Runs the fixture: handshake, two calls of the chatty tool, then end of stdin; resolves with everything it printed. */
async function runChatty(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [FIXTURE, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  child.stdin.write(INIT + INITIALIZED + CALL(1));
  // The second call only after the first answer, so both go through the same (already warned) console.
  while (!stdout.includes('"id":1,')) await new Promise((resolve) => setTimeout(resolve, 10));
  child.stdin.end(CALL(2));
  const code = await exited;
  clearTimeout(timer);
  return { code, stdout, stderr };
}

describe('serveStdio and console', () => {
  it('by default console.log/info/debug go to stderr (one notice), stdout stays JSON-RPC lines only', async () => {
    const { code, stdout, stderr } = await runChatty([]);
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines.pop()).toBe('');
    const messages = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(messages.map((m) => m.id)).toEqual(['init', 1, 2]);
    expect(messages[1]).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'chatted' }] } });
    const errLines = stderr.split('\n');
    expect(errLines.filter((l) => l === 'x')).toHaveLength(2);
    expect(errLines.filter((l) => l === 'info line')).toHaveLength(2);
    expect(errLines.filter((l) => l === 'debug line')).toHaveLength(2);
    const notices = errLines.filter((l) => l.includes('redirectConsole: false'));
    expect(notices).toEqual([
      'switchboard warn: console.log, console.info, console.debug (and the other console methods that print to stdout) now write to stderr, because stdout carries MCP messages; pass redirectConsole: false to serveStdio to keep them on stdout',
    ]);
  }, 20_000);

  it('redirectConsole: false leaves console alone (here console.log lands on stdout, between the messages)', async () => {
    const { code, stdout, stderr } = await runChatty(['--keep-console']);
    expect(code).toBe(0);
    expect(stdout.split('\n').filter((l) => l === 'x')).toHaveLength(2);
    expect(stderr).not.toContain('redirectConsole');
  }, 20_000);

  it('the original console methods are back once the session closes', async () => {
    const original = { log: console.log, info: console.info, debug: console.debug, table: console.table };
    const server = new McpServer({ name: 'restore', version: '0' }, { logger: silentLogger });
    const stdin = new PassThrough();
    const session = await serveStdio(server, { stdin, stdout: new PassThrough(), redirectConsole: true, exitOnClose: false });
    expect(console.log).not.toBe(original.log);
    expect(console.info).not.toBe(original.info);
    expect(console.table).not.toBe(original.table);
    const closed = new Promise<void>((resolve) => {
      const previous = session.onclose;
      session.onclose = () => {
        previous?.();
        resolve();
      };
    });
    stdin.end();
    await closed;
    expect({ log: console.log, info: console.info, debug: console.debug, table: console.table }).toEqual(original);
    expect(console.log).toBe(original.log);
  });

  it('a transport on another stdout does not touch console unless asked', async () => {
    const before = console.log;
    const server = new McpServer({ name: 'custom', version: '0' }, { logger: silentLogger });
    const session = await serveStdio(server, { stdin: new PassThrough(), stdout: new PassThrough(), exitOnClose: false });
    expect(console.log).toBe(before);
    await session.close();
  });
});
