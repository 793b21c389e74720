/**
 * The HTTP transport's layering, checked over its sources: it reaches the server through its own structural
 * types (server/serverLike.ts), never through the package's `server/` folder; its client side and its server side
 * never import each other; and the runtime-neutral `./http` core imports no `node:` module (the Node adapter is
 * `transports/node/`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const HTTP = fileURLToPath(new URL('./', import.meta.url));
const NODE = fileURLToPath(new URL('../node/', import.meta.url));
const SRC = fileURLToPath(new URL('../../', import.meta.url));

/** `[file, imported specifier, resolved path or the bare specifier]` of every import of the non-test sources under `dir`. */
function imports(dir: string): [string, string, string][] {
  const out: [string, string, string][] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...imports(path));
    if (!entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts')) continue;
    const source = readFileSync(path, 'utf8');
    for (const match of source.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'/gm)) {
      const spec = match[1] as string;
      out.push([relative(SRC, path), spec, spec.startsWith('.') ? relative(SRC, resolve(dirname(path), spec)) : spec]);
    }
  }
  return out;
}

describe('HTTP transport layering', () => {
  it('transports/http and transports/node import nothing from server/', () => {
    const all = [...imports(HTTP), ...imports(NODE)];
    expect(all.length).toBeGreaterThan(20); // the scan sees the imports
    expect(all.filter(([, , to]) => to.startsWith('server/'))).toEqual([]);
  });

  it('the client side and the server side of HTTP never import each other', () => {
    const all = imports(HTTP);
    expect(all.some(([from, , to]) => from.startsWith('transports/http/server/') && to.startsWith('transports/http/server/'))).toBe(true);
    const across = all.filter(
      ([from, , to]) =>
        (from.startsWith('transports/http/client/') && to.startsWith('transports/http/server/')) ||
        (from.startsWith('transports/http/server/') && to.startsWith('transports/http/client/')),
    );
    expect(across).toEqual([]);
  });

  it('transports/http imports no node: module (the Node adapter lives in transports/node)', () => {
    expect(imports(HTTP).filter(([, spec]) => spec.startsWith('node:'))).toEqual([]);
    expect(imports(NODE).some(([, spec]) => spec.startsWith('node:'))).toBe(true);
  });
});
