/**
 * The shutdown of a stdio server as a process group: stdin closed, then SIGTERM, then SIGKILL, each to the whole
 * group, so the grandchild an `npx`/`sh -c` style launcher starts is gone too (checked by its PID); the same when
 * the launcher dies on its own, and when this process exits without closing.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { silentLogger, type Inbound } from '@switchboard/jsonrpc';
import { afterEach, describe, expect, it } from 'vitest';
import { StdioClientTransport, type SpawnStdioOptions } from './index.js';
import { guardedGroupCount } from './processGroup.js';
import { processRunning as running } from '../../../../../test/helpers/process.js';

const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));
const FIXTURES = `${ROOT}test/fixtures/stdio-servers/`;
const NODE = process.execPath;

/** PIDs a test caused; whatever is still running afterwards is SIGKILLed by its PID. */
const pids = new Set<number>();
const open: StdioClientTransport[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((transport) => transport.close()));
  for (const pid of pids) if (running(pid)) process.kill(pid, 'SIGKILL');
  pids.clear();
});

async function start(options: SpawnStdioOptions): Promise<{ transport: StdioClientTransport; closed: Promise<void>; call: (method: string) => Promise<unknown> }> {
  const transport = await StdioClientTransport.spawn(options, { logger: silentLogger });
  open.push(transport);
  pids.add(transport.pid);
  const pending = new Map<unknown, (result: unknown) => void>();
  transport.onmessage = (inbound: Inbound) => {
    if (inbound.kind === 'response' && 'result' in inbound.message) pending.get(inbound.message.id)?.(inbound.message.result);
  };
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  await transport.start();
  let id = 0;
  return {
    transport,
    closed,
    call: (method) =>
      new Promise((resolve, reject) => {
        pending.set(++id, resolve);
        transport.send({ jsonrpc: '2.0', id, method }).catch(reject);
      }),
  };
}

describe('StdioClientTransport.close', () => {
  it('a server that exits when its stdin ends is not signalled: exit code 0, no signal, and its group is off the exit list', async () => {
    const before = guardedGroupCount();
    const { transport } = await start({ command: NODE, args: [`${FIXTURES}echo.js`] });
    expect(guardedGroupCount()).toBe(before + 1);
    await transport.close();
    expect(transport.endFacts).toEqual({ exitCode: 0, signal: null, stderrTail: [], reason: 'the client closed the connection' });
    expect(running(transport.pid)).toBe(false);
    expect(guardedGroupCount()).toBe(before);
  });

  it('a server that ignores the end of stdin and SIGTERM gets SIGTERM after the grace, then SIGKILL', async () => {
    const { transport, call } = await start({ command: NODE, args: [`${FIXTURES}stubborn.js`], shutdownGraceMs: 300 });
    expect(await call('pid')).toEqual({ pid: transport.pid });
    await transport.close();
    expect(transport.endFacts).toMatchObject({ exitCode: null, signal: 'SIGKILL', reason: 'the client closed the connection' });
    expect(transport.stderrTail).toContain('ignoring SIGTERM');
    expect(running(transport.pid)).toBe(false);
  });

  it("kills the grandchild a wrapper shell started (it ignores SIGTERM): its PID is gone once close() resolves", async () => {
    const { transport, call } = await start({ command: 'sh', args: [`${FIXTURES}wrapper.sh`, NODE, `${FIXTURES}stubborn.js`], shutdownGraceMs: 300 });
    // The messages come from the grandchild, through the wrapper.
    const { pid: grandchild } = (await call('pid')) as { pid: number };
    pids.add(grandchild);
    expect(grandchild).not.toBe(transport.pid);
    expect(running(grandchild)).toBe(true);
    await transport.close();
    expect(running(grandchild)).toBe(false);
    expect(running(transport.pid)).toBe(false);
    // The shell died of SIGTERM; the grandchild ignored it and needed SIGKILL.
    expect(transport.endFacts).toMatchObject({ signal: 'SIGTERM', reason: 'the client closed the connection' });
    expect(transport.stderrTail).toContain('ignoring SIGTERM');
  });

  it('when the wrapper itself is killed, the connection ends (the server process exited, SIGKILL) and the grandchild is swept too', async () => {
    const { transport, call, closed } = await start({ command: 'sh', args: [`${FIXTURES}wrapper.sh`, NODE, `${FIXTURES}stubborn.js`], shutdownGraceMs: 300 });
    const { pid: grandchild } = (await call('pid')) as { pid: number };
    pids.add(grandchild);
    process.kill(transport.pid, 'SIGKILL');
    await closed;
    expect(transport.endFacts).toMatchObject({ exitCode: null, signal: 'SIGKILL', reason: 'the server process exited' });
    expect(running(grandchild)).toBe(false);
  });
});

describe('the exit hook', () => {
  it('SIGKILLs the groups still open when this process exits without closing them', async () => {
    // A parent that spawns a stubborn server through the built package, prints the server's PID, and exits.
    const script = [
      "import { StdioClientTransport } from '@switchboard/mcp/stdio';",
      `const transport = await StdioClientTransport.spawn({ command: ${JSON.stringify(NODE)}, args: [${JSON.stringify(`${FIXTURES}stubborn.js`)}], stderr: 'ignore' });`,
      'await transport.start();',
      'process.stdout.write(`${transport.pid}\\n`);',
      'process.exit(0);',
    ].join('\n');
    const parent = spawn(NODE, ['--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    parent.stdout.on('data', (chunk: Buffer) => (out += String(chunk)));
    const code = await new Promise<number | null>((resolve) => parent.on('exit', resolve));
    expect(code).toBe(0);
    const server = Number(out.trim());
    expect(Number.isInteger(server) && server > 0).toBe(true);
    pids.add(server);
    for (let waited = 0; waited < 2000 && running(server); waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(running(server)).toBe(false);
  });
});
