/**
 * `switchboard serve <module>`: a server module served on Streamable HTTP in-process (`run` with an abort signal
 * for SIGINT), and on stdio through the built bin as a child process (stdout is the wire).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpClient, streamableHttp } from '@switchboard/mcp/client';
import { spawnStdio } from '@switchboard/mcp/stdio';
import { describe, expect, it } from 'vitest';
import { captureIo } from '../packages/cli/src/cliIo.js';
import { run } from '../packages/cli/src/run.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const MODULE = path.join('test', 'fixtures', 'cli-server-module.mjs');
const silent = { debug() {}, info() {}, warn() {}, error() {} };

describe('switchboard serve', () => {
  it('--port 0 serves the module on 127.0.0.1 until the signal aborts, then drains and ends with 0', async () => {
    const stop = new AbortController();
    const io = captureIo({ cwd: ROOT, signal: stop.signal });
    const done = run(['serve', MODULE, '--port', '0'], io);
    await expect.poll(() => io.err(), { timeout: 10_000 }).toMatch(/serving .* on http:\/\/127\.0\.0\.1:\d+\/mcp/);
    const url = /on (http:\/\/\S+) /.exec(io.err())![1]!;
    for (const era of ['legacy', 'modern'] as const) {
      const client = await McpClient.connect({ connector: streamableHttp({ url }), era, logger: silent });
      expect([client.era, (await client.callTool({ name: 'echo', arguments: { text: `hi ${era}` } })).content]).toEqual([era, [{ type: 'text', text: `hi ${era}` }]]);
      await client.close();
    }
    stop.abort();
    expect(await done).toBe(0);
    expect(io.err()).toMatch(/switchboard: stopped\n$/);
    expect(io.out()).toBe('');
  }, 30_000);

  it('on stdio by default (the built bin as a child process)', async () => {
    const client = await McpClient.connect({ connector: spawnStdio({ command: process.execPath, args: [path.join(ROOT, 'packages', 'cli', 'bin', 'switchboard.js'), 'serve', MODULE], cwd: ROOT }), logger: silent });
    expect(client.serverInfo).toMatchObject({ name: 'cli-serve-fixture' });
    expect((await client.callTool({ name: 'echo', arguments: { text: 'over stdio' } })).content).toEqual([{ type: 'text', text: 'over stdio' }]);
    await client.close();
  }, 30_000);

  it('a module without a server is one line and exit code 2', async () => {
    const io = captureIo({ cwd: ROOT });
    expect(await run(['serve', 'package.json.mjs'], io)).toBe(2);
    expect(io.err()).toMatch(/^switchboard: Cannot import ".*package\.json\.mjs": /);
    const io2 = captureIo({ cwd: ROOT });
    expect(await run(['serve', 'test/fixtures/cli-server-module.mjs', '--port', '70000'], io2)).toBe(2);
    expect(io2.err()).toContain('expected a port number 0…65535, got "70000"');
  });
});
