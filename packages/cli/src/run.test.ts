import { readFileSync } from 'node:fs';
import { McpServer } from '@switchboard/mcp/server';
import { connectRawClient } from '@switchboard/mcp/testing';
import { describe, expect, it } from 'vitest';
import { run, VERSION } from './run.js';

describe('switchboard CLI run()', () => {
  it('prints the package version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
    expect(run(['version'])).toEqual({ exitCode: 0, stdout: `${VERSION}\n`, stderr: '' });
    expect(run(['--version']).stdout).toBe(`${VERSION}\n`);
  });

  it('lists the protocol revisions, oldest first, the newest marked', () => {
    expect(run(['revisions'])).toEqual({
      exitCode: 0,
      stdout: '2024-11-05\n2025-03-26\n2025-06-18\n2025-11-25 (latest session-based revision)\n',
      stderr: '',
    });
  });

  it('lists only revisions a server serves: each one is accepted by initialize as it is', async () => {
    const listed = run(['revisions']).stdout.trim().split('\n').map((line) => line.split(' ')[0]!);
    for (const protocolVersion of listed) {
      const client = await connectRawClient(new McpServer({ name: 'cli-test', version: '1.0.0' }));
      const reply = await client.initialize({ protocolVersion });
      expect(reply).toMatchObject({ id: expect.anything(), result: { protocolVersion } });
      await client.close();
    }
  });

  it('answers an unknown command or option with exit code 2 and the help on stderr', () => {
    const r = run(['frobnicate']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('unknown command: "frobnicate"');
    expect(run(['--nope']).exitCode).toBe(2);
  });
});
