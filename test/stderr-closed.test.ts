/**
 * Logging can never take the server down: a host that closes its end of the server's stderr makes the next log
 * line fail with EPIPE. Before the fix the stderr logger had no 'error' listener and the process exited 1 on the
 * first warning (e.g. for a stray response) after the host closed stderr.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';

const FIXTURE = fileURLToPath(new URL('./fixtures/stdio-server.mjs', import.meta.url));
const INIT = '{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"0"}}}\n';

const procs: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const p of procs.splice(0)) if (p.exitCode === null) p.kill('SIGKILL');
});

it('the stdio server keeps answering after the host closed its stderr (stray responses and tool logs hit EPIPE)', async () => {
  const proc = spawn(process.execPath, [FIXTURE], { stdio: ['pipe', 'pipe', 'pipe'] });
  procs.push(proc);
  const exits: (number | null)[] = [];
  proc.on('exit', (code) => exits.push(code));
  let out = '';
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (chunk: string) => (out += chunk));
  const waitFor = async (needle: string): Promise<void> => {
    const until = Date.now() + 5000;
    while (!out.includes(needle)) {
      if (Date.now() > until) throw new Error(`no ${needle} on stdout; got: ${out.slice(0, 2000)}; exits ${JSON.stringify(exits)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  proc.stdin.write(INIT);
  await waitFor('"id":"init"');
  proc.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  proc.stderr.destroy(); // the host closes its end: every later write to the server's stderr fails (EPIPE)
  await new Promise((r) => setTimeout(r, 50));
  // Each of these makes the server log to stderr: a response with an unknown id (warn), the echo tool (info).
  for (let i = 0; i < 3; i++) {
    proc.stdin.write(`{"jsonrpc":"2.0","id":${424242 + i},"result":{}}\n`);
    proc.stdin.write(`{"jsonrpc":"2.0","id":${10 + i},"method":"tools/call","params":{"name":"echo","arguments":{"text":"t${i}"}}}\n`);
    await waitFor(`"id":${10 + i}`);
    await new Promise((r) => setTimeout(r, 30));
  }
  proc.stdin.write('{"jsonrpc":"2.0","id":"last","method":"ping"}\n');
  await waitFor('{"jsonrpc":"2.0","id":"last","result":{}}');
  expect(exits).toEqual([]);
  expect(out).toContain('{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"t2"}]}}');
});
