import { readFileSync } from 'node:fs';
import { McpClient } from '@switchboard/mcp/client';
import { McpServer } from '@switchboard/mcp/server';
import { connectRawClient, inMemoryConnector } from '@switchboard/mcp/testing';
import { describe, expect, it } from 'vitest';
import { captureIo } from './cliIo.js';
import { run, VERSION } from './run.js';

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo();
  const code = await run(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe('switchboard CLI run()', () => {
  it('prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
    expect(await cli(['version'])).toEqual({ code: 0, out: `${VERSION}\n`, err: '' });
    expect((await cli(['--version'])).out).toBe(`${VERSION}\n`);
  });

  it('refuses a --timeout-ms no timer can hold (it would fire at once), naming the limit', async () => {
    const refused = await cli(['doctor', '--timeout-ms', '2147483648', 'http://127.0.0.1:9/mcp']);
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain('expected a positive integer of milliseconds up to 2147483647, got "2147483648"');
  });

  it('lists every protocol revision, oldest first, with its era', async () => {
    expect(await cli(['revisions'])).toEqual({
      code: 0,
      out: [
        '2024-11-05  legacy (session, initialize)',
        '2025-03-26  legacy (session, initialize)',
        '2025-06-18  legacy (session, initialize)',
        '2025-11-25  legacy (session, initialize), the latest session-based revision',
        '2026-07-28  modern (stateless, per-request _meta)',
        '',
      ].join('\n'),
      err: '',
    });
    expect(JSON.parse((await cli(['revisions', '--json'])).out)).toEqual([
      { revision: '2024-11-05', era: 'legacy' },
      { revision: '2025-03-26', era: 'legacy' },
      { revision: '2025-06-18', era: 'legacy' },
      { revision: '2025-11-25', era: 'legacy' },
      { revision: '2026-07-28', era: 'modern' },
    ]);
  });

  it('lists only revisions a server serves: each legacy one accepted by initialize as it is, the modern one negotiated', async () => {
    const rows = JSON.parse((await cli(['revisions', '--json'])).out) as { revision: string; era: string }[];
    for (const { revision, era } of rows) {
      const server = new McpServer({ name: 'cli-test', version: '1.0.0' });
      if (era === 'legacy') {
        const client = await connectRawClient(server);
        expect(await client.initialize({ protocolVersion: revision })).toMatchObject({ id: expect.anything(), result: { protocolVersion: revision } });
        await client.close();
      } else {
        const client = await McpClient.connect({ connector: inMemoryConnector(server), era: 'modern' });
        expect([client.era, client.protocolVersion]).toEqual(['modern', revision]);
        await client.close();
      }
    }
  });

  it('prints the help, with the exit codes, for no arguments and for --help', async () => {
    const none = await cli([]);
    expect(none.code).toBe(0);
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    for (const text of [none.out, help.out]) {
      expect(text).toContain('Usage: switchboard [options] [command]');
      expect(text).toContain('Exit codes:\n  0  done (and the tool result was not an error)\n  1  the command failed');
      expect(text).toContain('  2  usage error, or the server could not be reached or started');
    }
  });

  it('answers an unknown command or option with exit code 2 and a pointer to the help on stderr', async () => {
    const r = await cli(['frobnicate']);
    expect(r).toEqual({ code: 2, out: '', err: "error: unknown command 'frobnicate'\n(switchboard --help shows the usage)\n" });
    expect((await cli(['--nope'])).code).toBe(2);
    expect((await cli(['list', '--nope'])).err).toContain("error: unknown option '--nope'");
  });
});
