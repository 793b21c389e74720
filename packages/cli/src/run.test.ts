import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { run, VERSION } from './run.js';

describe('switchboard CLI run()', () => {
  it('prints the package version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
    expect(run(['version'])).toEqual({ exitCode: 0, stdout: `${VERSION}\n`, stderr: '' });
    expect(run(['--version']).stdout).toBe(`${VERSION}\n`);
  });

  it('lists the protocol revisions', () => {
    expect(run(['revisions']).stdout.split('\n')).toContain('2025-11-25 (latest session-based revision)');
  });

  it('answers an unknown command or option with exit code 2 and the help on stderr', () => {
    const r = run(['frobnicate']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('unknown command: "frobnicate"');
    expect(run(['--nope']).exitCode).toBe(2);
  });
});
