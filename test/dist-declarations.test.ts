/**
 * The published declarations (`dist/types/**\/*.d.ts`, built by `tsc -b` with `stripInternal`) carry no member
 * documented `@internal`: what the HTTP core shares with the Node adapter is not public API, and users should not
 * see it in their editor.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function declarations(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return declarations(path);
    return e.name.endsWith('.d.ts') ? [path] : [];
  });
}

describe('dist declarations', () => {
  for (const pkg of ['jsonrpc', 'mcp', 'cli']) {
    it(`${pkg}: no @internal member is published`, () => {
      const files = declarations(join(ROOT, 'packages', pkg, 'dist', 'types'));
      expect(files.length).toBeGreaterThan(0);
      const leaked = files.filter((f) => readFileSync(f, 'utf8').includes('@internal')).map((f) => relative(ROOT, f));
      expect(leaked).toEqual([]);
    });
  }

  it('the sources do document members @internal (so the check above is not vacuous)', () => {
    const sources: string[] = readdirSync(join(ROOT, 'packages/mcp/src'), { recursive: true, encoding: 'utf8' });
    const documented = sources.filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && readFileSync(join(ROOT, 'packages/mcp/src', f), 'utf8').includes('@internal'));
    expect(documented).not.toEqual([]);
  });
});
