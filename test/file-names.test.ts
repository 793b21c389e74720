/**
 * Source file names are camelCase (`mcpServer.ts`, `uriTemplate.test.ts`): one style, so a module is found by
 * its name. A test instead of a lint plugin: the rule is one regular expression.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A camelCase stem, then `.ts`, `.test.ts` or `.test-d.ts`. */
const CAMEL_CASE_SOURCE = /^[a-z][a-zA-Z0-9]*(\.test(-d)?)?\.ts$/;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
}

describe('file names', () => {
  it('the regular expression tells camelCase from other styles', () => {
    expect(['mcpServer.ts', 'uriTemplate.test.ts', 'node413.test.ts', 'index.ts'].filter((n) => !CAMEL_CASE_SOURCE.test(n))).toEqual([]);
    expect(['mcp-server.ts', 'McpServer.ts', 'mcp_server.ts', 'server.js'].filter((n) => CAMEL_CASE_SOURCE.test(n))).toEqual([]);
  });

  it('every source file under packages/*/src is camelCase TypeScript', () => {
    const packages = join(ROOT, 'packages');
    const bad = readdirSync(packages)
      .flatMap((pkg) => files(join(packages, pkg, 'src')))
      .filter((f) => !CAMEL_CASE_SOURCE.test(f.slice(f.lastIndexOf('/') + 1)))
      .map((f) => relative(ROOT, f));
    expect(bad).toEqual([]);
  });
});
