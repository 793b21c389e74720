/**
 * The HTTP transport's layering, checked over its sources: it reaches the server through its own structural
 * types (serverLike.ts), never through `server/`, and the runtime-neutral `./http` core imports no `node:` module
 * (the Node adapter is `transports/node/`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const HTTP = new URL('./', import.meta.url);
const NODE = new URL('../node/', import.meta.url);

/** `[file, imported specifier]` of every import of the non-test sources in `dir`. */
function imports(dir: URL): [string, string][] {
  const out: [string, string][] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.ts') || name.endsWith('.test.ts')) continue;
    const source = readFileSync(new URL(name, dir), 'utf8');
    for (const match of source.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'/gm)) out.push([name, match[1] as string]);
  }
  return out;
}

describe('HTTP transport layering', () => {
  it('transports/http and transports/node import nothing from server/', () => {
    const all = [...imports(HTTP), ...imports(NODE)];
    expect(all.length).toBeGreaterThan(20); // the scan sees the imports
    expect(all.filter(([, spec]) => spec.includes('/server/'))).toEqual([]);
  });

  it('transports/http imports no node: module (the Node adapter lives in transports/node)', () => {
    expect(imports(HTTP).filter(([, spec]) => spec.startsWith('node:'))).toEqual([]);
    expect(imports(NODE).some(([, spec]) => spec.startsWith('node:'))).toBe(true);
  });
});
