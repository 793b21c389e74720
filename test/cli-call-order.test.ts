/**
 * `switchboard call` takes the tool and the target in the order users write them: `call <url> <tool>` (the help's
 * order), `call <tool> --args … <url>` (the README's), and with a host configuration name either way round. When
 * neither word names a server, the message says what to type. (Before, `call <tool> … <url>` failed with
 * "No MCP server named <tool>".)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serveHttp } from '@switchboard/mcp/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from './helpers/process.js';
import server from './fixtures/cli-server-module.mjs';

const cli = (args: readonly string[], cwd: string): Promise<CliRun> => runCli(args, { cwd, env: { HOME: cwd } });

describe('switchboard call: the order of the tool and the target', () => {
  let handle: Awaited<ReturnType<typeof serveHttp>>;
  let dir = '';
  beforeAll(async () => {
    handle = await serveHttp({ server, port: 0 });
    dir = mkdtempSync(path.join(tmpdir(), 'switchboard-call-order-'));
    // A project configuration (Claude Code's .mcp.json) naming the server "fixture".
    writeFileSync(path.join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { fixture: { type: 'http', url: handle.url } } }));
  });
  afterAll(async () => {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['<url> <tool> --args', (url: string) => ['call', url, 'echo', '--args', '{"text":"hi"}']],
    ['<tool> --args <url>', (url: string) => ['call', 'echo', '--args', '{"text":"hi"}', url]],
    ['<name> <tool>', () => ['call', 'fixture', 'echo', '--args', '{"text":"hi"}']],
    ['<tool> <name>', () => ['call', 'echo', '--args', '{"text":"hi"}', 'fixture']],
  ] as const)('call %s calls the tool', async (_order, words) => {
    const { code, stdout, stderr } = await cli(words(handle.url), dir);
    expect({ code, stdout }, stderr).toEqual({ code: 0, stdout: 'hi\n' });
  }, 30_000);

  it('two words that name no server: the message says what to type', async () => {
    const { code, stderr } = await cli(['call', 'echo', 'elsewhere'], dir);
    expect(code).toBe(2);
    expect(stderr).toContain('No MCP server named "echo"');
    expect(stderr).toContain('To call a tool: switchboard call <url | server name> <tool> [--args JSON], or switchboard call <tool> [--args JSON] -- <command>');
  }, 30_000);
});
