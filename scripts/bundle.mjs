// Builds each package's JavaScript as a few ES module files (one per public entry point, plus shared chunks)
// straight from the TypeScript sources; `tsc -b` emits only the type declarations (dist/types).
// Why: a stdio server is started by its host for every session, and module loading dominates start-up. One file
// per entry instead of ~30 cuts start-up by ~25 ms (measured: bench/ cold start, a benchmark target).
// Every bare import (other workspace packages, dependencies, node:) stays external, so classes such as
// JsonRpcError are shared, never duplicated, across packages.
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Entry points per package: output name → source file. Keep in step with each package.json "exports"/"bin". */
const PACKAGES = {
  jsonrpc: { index: 'src/index.ts' },
  mcp: {
    index: 'src/index.ts',
    server: 'src/server/index.ts',
    stdio: 'src/transports/stdio.ts',
    http: 'src/transports/http/index.ts',
    node: 'src/transports/node/index.ts',
    testing: 'src/testing/index.ts',
  },
  cli: { main: 'src/main.ts' },
};

/** @param {string} id */
const external = (id) => !id.startsWith('.') && !id.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(id);

for (const [name, entries] of Object.entries(PACKAGES)) {
  const dir = `${root}packages/${name}/`;
  // Remove the previous bundles, keep dist/types (tsc -b's declarations and build info).
  for (const out of [...Object.keys(entries).map((e) => `${e}.js`), 'chunks']) {
    await rm(`${dir}dist/${out}`, { recursive: true, force: true });
    await rm(`${dir}dist/${out}.map`, { force: true });
  }
  const input = Object.fromEntries(Object.entries(entries).map(([out, src]) => [out, `${dir}${src}`]));
  const bundle = await rolldown({ input, external, platform: 'node', logLevel: 'warn', transform: { target: 'node20' } });
  await bundle.write({
    dir: `${dir}dist`,
    format: 'esm',
    sourcemap: true,
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
  });
  await bundle.close();
}
