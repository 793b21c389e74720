// Builds each package's JavaScript as a few ES module files (one per public entry point, plus shared chunks)
// straight from the TypeScript sources; `tsc -b` emits only the type declarations (dist/types).
// Why: a stdio server is started by its host for every session, and module loading dominates start-up. One file
// per entry instead of ~30 cuts start-up by ~25 ms (measured: bench/ cold start, a benchmark target).
// Every bare import (other workspace packages, dependencies, node:) stays external, so classes such as
// JsonRpcError are shared, never duplicated, across packages.
import { readdir, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';
import { PACKAGES } from './entries.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** @param {string} id */
const external = (id) => !id.startsWith('.') && !id.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(id);

for (const [name, entries] of Object.entries(PACKAGES)) {
  const dir = `${root}packages/${name}/`;
  // Remove every previous bundle, also of an entry since renamed (it would be packed), keep dist/types (tsc -b's
  // declarations) and the build info.
  await rm(`${dir}dist/chunks`, { recursive: true, force: true });
  const old = await readdir(`${dir}dist`).catch(() => []);
  for (const file of old.filter((f) => f.endsWith('.js') || f.endsWith('.js.map'))) await rm(`${dir}dist/${file}`);
  const input = Object.fromEntries(Object.entries(entries).map(([out, src]) => [out, `${dir}${src}`]));
  const bundle = await rolldown({ input, external, platform: 'node', logLevel: 'warn', transform: { target: 'node20' } });
  await bundle.write({
    dir: `${dir}dist`,
    format: 'esm',
    // The maps point at src/*.ts, which every package ships (package.json "files"), so they carry no copy of the
    // sources: the @switchboard/mcp tarball is 157 kB instead of 225 kB. test/package-install.test.ts checks
    // that every map's sources are in the tarball.
    sourcemap: true,
    sourcemapExcludeSources: true,
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
  });
  await bundle.close();
}
