/**
 * Each package's public entry points are written once, in package.json "exports" (and the CLI's "bin");
 * scripts/entries.mjs derives the bundle inputs from them, and this test checks that the derivation, the bin
 * scripts and the files the build leaves in dist/ agree. A subpath in
 * "exports" with no bundle input fails only for the user who imports it; a bundle input with no "exports" entry
 * is dead weight in the tarball.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { INLINED, NODE_CONDITIONS, PACKAGES } from '../scripts/entries.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface PackageJson {
  name: string;
  exports?: Record<string, string | { types?: string; node?: string; default?: string }>;
  bin?: Record<string, string>;
}

const readJson = (file: string): PackageJson => JSON.parse(readFileSync(file, 'utf8')) as PackageJson;

/** `src/transports/stdio.ts` → `./dist/types/transports/stdio.d.ts` (tsc -b, rootDir src, outDir dist/types). */
const typesOf = (source: string): string => `./dist/types/${source.replace(/^src\//, '').replace(/\.ts$/, '.d.ts')}`;

describe('package entry points', () => {
  it('the root workspaces are exactly the packages scripts/entries.mjs bundles', () => {
    const root = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { workspaces: string[] };
    expect(root.workspaces.map((w) => w.replace(/^packages\//, '')).sort()).toEqual(Object.keys(PACKAGES).sort());
  });

  for (const [dir, entries] of Object.entries(PACKAGES)) {
    const pkgDir = `${ROOT}packages/${dir}/`;

    it(`${dir}: every "exports" subpath is a bundle input with its declarations, and nothing else is`, () => {
      const pkg = readJson(`${pkgDir}package.json`);
      const { './package.json': self, ...exported } = pkg.exports ?? {};
      expect(self).toBe('./package.json');
      // What the bundle inputs imply (less those only a bin script loads): output `index` is ".", `x` is "./x".
      const bins = binTargets(pkgDir, pkg);
      // A `"node"` condition (`<subpath>-node`, NODE_CONDITIONS) sits in its subpath's target, between the two.
      const nodeOutputs = Object.keys((NODE_CONDITIONS as Record<string, Record<string, string>>)[dir] ?? {});
      const fromBundle = Object.fromEntries(
        Object.entries(entries)
          .filter(([out]) => !bins.includes(out) && !nodeOutputs.includes(out))
          .map(([out, source]) => {
            const node = nodeOutputs.includes(`${out}-node`) ? { node: `./dist/${out}-node.js` } : {};
            return [out === 'index' ? '.' : `./${out}`, { types: typesOf(source), ...node, default: `./dist/${out}.js` }];
          }),
      );
      expect(exported).toEqual(fromBundle);
      // "types" must come first for TypeScript to pick it (publint checks it too, from the tarball), "default" last.
      for (const target of Object.values(exported)) {
        const keys = Object.keys(target as object);
        expect(keys).toEqual(keys.includes('node') ? ['types', 'node', 'default'] : ['types', 'default']);
      }
    });

    it(`${dir}: the bin scripts load exactly the bundle inputs "exports" does not cover`, () => {
      const pkg = readJson(`${pkgDir}package.json`);
      const exportedOutputs = Object.keys(pkg.exports ?? {}).filter((s) => s !== './package.json').map((s) => (s === '.' ? 'index' : s.slice(2)));
      const nodeOutputs = Object.keys((NODE_CONDITIONS as Record<string, Record<string, string>>)[dir] ?? {});
      const rest = Object.keys(entries).filter((out) => !exportedOutputs.includes(out) && !nodeOutputs.includes(out)).sort();
      expect(binTargets(pkgDir, pkg).sort()).toEqual(rest);
    });

    it(`${dir}: dist/ holds one bundle per input (no stale entry) and the declarations of each`, () => {
      const bundles = readdirSync(`${pkgDir}dist`).filter((f) => f.endsWith('.js')).sort();
      expect(bundles).toEqual(Object.keys(entries).map((out) => `${out}.js`).sort());
      const missing = Object.values(entries).map(typesOf).filter((types) => !existsSync(`${pkgDir}${types}`));
      expect(missing).toEqual([]);
    });
  }
});

describe('inlined dependencies (scripts/entries.mjs INLINED)', () => {
  for (const [dir, inlined] of Object.entries(INLINED)) {
    const pkgDir = `${ROOT}packages/${dir}/`;
    const pkg = JSON.parse(readFileSync(`${pkgDir}package.json`, 'utf8')) as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    const files = readdirSync(`${pkgDir}dist`, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js') || f.endsWith('.d.ts'));

    for (const dependency of inlined) {
      it(`${dir}: ${dependency} is a pinned development dependency, built in with its licence, and nothing imports it`, () => {
        expect(pkg.dependencies?.[dependency]).toBeUndefined();
        expect(pkg.peerDependencies?.[dependency]).toBeUndefined();
        const pinned = pkg.devDependencies?.[dependency];
        expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
        // The copy the bundler builds in: resolved from the package's directory, as scripts/bundle.mjs does.
        const manifest = createRequire(`${pkgDir}package.json`).resolve(`${dependency}/package.json`);
        expect((JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version).toBe(pinned);
        // A bare import of it in dist/ (code or declarations) would fail for every user: it is not installed with us.
        const importing = files.filter((f) => new RegExp(`from\\s*["']${dependency}["'/]|import\\(["']${dependency}["'/]`).test(readFileSync(`${pkgDir}dist/${f}`, 'utf8')));
        expect(importing).toEqual([]);
        const holders = files.filter((f) => f.endsWith('.js') && readFileSync(`${pkgDir}dist/${f}`, 'utf8').startsWith(`/*! ${dependency} ${pinned}, built into this file; its licence and notices:`));
        expect(holders.length).toBe(1);
        const banner = readFileSync(`${pkgDir}dist/${holders[0]!}`, 'utf8').split('*/')[0]!;
        expect(banner).toContain('Permission is hereby granted');
      });
    }
  }
});

/** The bundle outputs (`dist/<name>.js`) that the package's bin scripts import, as output names. */
function binTargets(pkgDir: string, pkg: PackageJson): string[] {
  return Object.values(pkg.bin ?? {}).flatMap((bin) => {
    const text = readFileSync(`${pkgDir}${bin}`, 'utf8');
    return [...text.matchAll(/import\s*\(?\s*['"]\.\.\/dist\/([^'"/]+)\.js['"]/g)].map((m) => m[1]!);
  });
}
