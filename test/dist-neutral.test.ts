/**
 * The runtime-neutral entries of @switchboard/mcp (the root, `./server`, `./http`, `./client`, `./stores`,
 * `./analytics`) must load on any JS runtime: no module reachable from them in the built `dist/`, through static
 * imports or relative dynamic `import()`s (a bundler follows those too), may be a Node builtin (`node:fs`, or a bare
 * `fs`). Only the Node edges (`./node`, `./stdio`, the client's `node` condition) may import them. Checked on the
 * bundles, not on the sources, because the bundler is what decides which chunk an entry pulls in. Also what a stdio server loads of the
 * package (scripts/bundle.mjs `SHARED_CHUNK`): each file costs Node's module loader time at every start.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PACKAGES } from '../scripts/entries.mjs';

const DIST = fileURLToPath(new URL('../packages/mcp/dist/', import.meta.url));
const NEUTRAL_ENTRIES = ['index.js', 'server.js', 'http.js', 'client.js', 'stores.js', 'analytics.js'];
const NODE_ENTRIES = ['node.js', 'stdio.js', 'client-node.js'];
// testing.js (in-memory pairs for tests) is neither: it is not held to either rule today.
const BUILTINS = new Set(builtinModules);

/** The specifiers of a module's static `import … from`, `import '…'` and `export … from` statements. */
function staticImports(code: string): string[] {
  const pattern = /(?:^|[\n;])\s*(?:import|export)\s*(?:[\w$*{}\s,]*?\bfrom\s*)?["']([^"']+)["']/g;
  return [...code.matchAll(pattern)].map((m) => m[1]!);
}

/** The specifiers of a module's `import("…")` expressions with a literal argument. */
function dynamicImports(code: string): string[] {
  return [...code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]!);
}

interface Graph {
  /** Files reached, relative to the dist folder, the entry first. */
  readonly files: string[];
  /** Every bare or `node:` specifier, as `file → specifier`. */
  readonly external: string[];
}

/**
 * Walks the relative imports from `entry` (a file in `dist`), collecting the bare and `node:` ones; with `dynamic`,
 * the `import("…")`s too (what a bundler reaches; without, what Node loads at start).
 */
function walk(dist: string, entry: string, { dynamic = false } = {}): Graph {
  const files: string[] = [];
  const external: string[] = [];
  const pending = [resolve(dist, entry)];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    const name = relative(dist, file);
    if (files.includes(name)) continue;
    files.push(name);
    const code = readFileSync(file, 'utf8');
    for (const spec of [...staticImports(code), ...(dynamic ? dynamicImports(code) : [])]) {
      if (spec.startsWith('.')) pending.push(resolve(dirname(file), spec));
      else external.push(`${name} → ${spec}`);
    }
  }
  return { files, external };
}

/** The imports of a Node builtin in the graph of `entry` (static and dynamic), by either spelling. */
function nodeImports(dist: string, entry: string): string[] {
  return walk(dist, entry, { dynamic: true }).external.filter((edge) => {
    const spec = edge.slice(edge.indexOf('→ ') + 2);
    return spec.startsWith('node:') || BUILTINS.has(spec) || BUILTINS.has(spec.split('/')[0]!);
  });
}

describe('dist: the runtime-neutral entries import no Node builtin', () => {
  it('every entry of @switchboard/mcp is either runtime-neutral or a Node edge (a new subpath must be placed)', () => {
    expect(Object.keys(PACKAGES.mcp!).map((out) => `${out}.js`).filter((f) => !NEUTRAL_ENTRIES.includes(f) && !NODE_ENTRIES.includes(f) && f !== 'testing.js')).toEqual([]);
  });

  for (const entry of NEUTRAL_ENTRIES) {
    it(`${entry} and the chunks it loads`, () => {
      expect(nodeImports(DIST, entry)).toEqual([]);
    });
  }

  it('the walk follows chunks and sees the imports the Node edges do make', () => {
    // http.js is mostly its chunk: the walk must reach it, and see the workspace package it imports.
    const http = walk(DIST, 'http.js');
    expect(http.files.some((f) => f.startsWith('chunks/'))).toBe(true);
    expect(http.external.some((e) => e.endsWith('→ @switchboard/jsonrpc'))).toBe(true);
    for (const entry of NODE_ENTRIES) expect(nodeImports(DIST, entry), entry).not.toEqual([]);
  });

  describe('on a copy of dist with a planted import', () => {
    const copy = mkdtempSync(join(tmpdir(), 'switchboard-dist-'));
    afterAll(() => rmSync(copy, { recursive: true, force: true }));
    cpSync(DIST, copy, { recursive: true, filter: (src) => !src.includes(`${DIST}types`) });

    /** Prepends `statement` to the deepest chunk that `entry` loads, in the copy. */
    const plant = (entry: string, statement: string): string => {
      const chunk = walk(copy, entry).files.filter((f) => f.startsWith('chunks/')).at(-1)!;
      const file = join(copy, chunk);
      writeFileSync(file, `${statement}\n${readFileSync(file, 'utf8')}`);
      return chunk;
    };

    it('catches `import … from "node:fs"` in a chunk of http.js', () => {
      const chunk = plant('http.js', 'import { readFileSync as __planted } from "node:fs";');
      expect(nodeImports(copy, 'http.js')).toContain(`${chunk} → node:fs`);
    });

    it('catches a bare builtin (`import "fs/promises"`) in a chunk of server.js', () => {
      const chunk = plant('server.js', 'import "fs/promises";');
      expect(nodeImports(copy, 'server.js')).toContain(`${chunk} → fs/promises`);
    });

    it('catches a builtin behind a relative `import()` from a chunk of client.js', () => {
      writeFileSync(join(copy, 'chunks', 'planted-lazy.js'), 'import { createServer } from "node:net";\nexport { createServer };\n');
      plant('client.js', 'const __lazy = () => import("./planted-lazy.js");');
      expect(walk(copy, 'client.js').files).not.toContain('chunks/planted-lazy.js');
      expect(nodeImports(copy, 'client.js')).toContain('chunks/planted-lazy.js → node:net');
    });
  });
});

describe('dist: what a stdio server loads', () => {
  it('server.js and stdio.js, and of the chunks only the shared one (a host starts a stdio server per session)', () => {
    const files = new Set([...walk(DIST, 'server.js').files, ...walk(DIST, 'stdio.js').files]);
    expect([...files].map((f) => f.replace(/-[\w-]{8}\.js$/, '.js')).sort()).toEqual(['chunks/protocol.js', 'server.js', 'stdio.js']);
  });
});
