/**
 * SIGTERM to a stdio launcher lets the calls in flight finish before it exits (they used to be dropped, exit 0,
 * nothing logged): both example launchers drain for up to 10 s, then close the session and exit once stdout took
 * every answer.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { exitWithin, stopByPid } from './helpers/process.js';

const LAUNCHERS = {
  conformance: { main: fileURLToPath(new URL('../examples/conformance-server/main.js', import.meta.url)), tool: 'test_tool_with_logging' },
  demo: { main: fileURLToPath(new URL('../examples/demo/main.js', import.meta.url)), tool: 'execute_sql' },
};
const INIT = '{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}\n';

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const child of children.splice(0)) stopByPid(child);
});

describe('stdio launchers on SIGTERM', () => {
  for (const [name, { main, tool }] of Object.entries(LAUNCHERS)) {
    it(`${name}: a call in flight at SIGTERM is answered, then the process exits 0`, async () => {
      const child = spawn(process.execPath, [main, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
      children.push(child);
      let out = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => (out += chunk));
      child.stderr.resume();
      const waitFor = async (needle: string): Promise<void> => {
        const until = Date.now() + 10_000;
        while (!out.includes(needle)) {
          if (Date.now() > until) throw new Error(`no ${needle}; stdout: ${out.slice(0, 2000)}`);
          await new Promise((r) => setTimeout(r, 5));
        }
      };
      child.stdin.write(INIT);
      await waitFor('"id":"init"');
      child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
      const args = name === 'demo' ? { query: 'SELECT a.id, b.id FROM customers a CROSS JOIN customers b', limit: 400 } : {};
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: tool, arguments: args, _meta: { progressToken: 'p' } } })}\n`);
      await waitFor(name === 'demo' ? '"method":"notifications/progress"' : '"method":"notifications/message"'); // the call is running
      child.kill('SIGTERM');
      expect(await exitWithin(child, 15_000)).toBe(0);
      const answer = out.split('\n').filter((l) => l.startsWith('{"jsonrpc":"2.0","id":7,'));
      expect(answer).toHaveLength(1);
      expect(JSON.parse(answer[0]!)).toMatchObject({ id: 7, result: { content: expect.any(Array) } });
    });
  }
});
