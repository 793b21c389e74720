// Builds each package's JavaScript as a few ES module files (one per public entry point, plus shared chunks)
// straight from the TypeScript sources; `tsc -b` emits only the type declarations (dist/types).
// Why: a stdio server is started by its host for every session, and module loading dominates start-up. One file
// per entry instead of ~30 cuts start-up by ~25 ms (measured: bench/ cold start, a benchmark target).
// Every bare import (other workspace packages, dependencies, node:) stays external, so classes such as
// JsonRpcError are shared, never duplicated, across packages.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
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
    // The documentation lives in the sources and the declarations (both shipped); the JavaScript carries only the
    // comments that change what a tool does with it (licences, purity annotations). About 20 % less to install
    // (the CLI's closure has a 10 MiB budget, test/package-install.test.ts) and to read at start-up.
    comments: { legal: true, annotation: true, jsdoc: false },
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
  });
  await bundle.close();
}

/**
 * Browser files a package serves as they are (the dashboard's page loads Chart.js), copied at build time from a
 * development dependency into the package's `dist/vendor/`: a user installs one 200 KB file, not the library's
 * 6 MB package, and nothing is fetched or built at run time. Each copy starts with the library's licence text and
 * loses its `sourceMappingURL` (the map is not shipped). Package directory → [dependency, file in it, copy's name].
 */
/** @type {Readonly<Record<string, readonly (readonly [string, string, string])[]>>} */
const VENDORED = { dashboard: [['chart.js', 'dist/chart.umd.min.js', 'chart.umd.min.js']] };

for (const [name, files] of Object.entries(VENDORED)) {
  const dir = `${root}packages/${name}/`;
  const require = createRequire(`${dir}package.json`);
  await mkdir(`${dir}dist/vendor`, { recursive: true });
  for (const [dependency, file, copy] of files) {
    // The package's folder: up from its entry to the package.json naming it (its `exports` may not name that file).
    let home = dirname(require.resolve(dependency));
    while (JSON.parse(await readFile(join(home, 'package.json'), 'utf8').catch(() => '{}')).name !== dependency) {
      if (dirname(home) === home) throw new Error(`bundle: ${dependency} has no package.json above its entry`);
      home = dirname(home);
    }
    const manifest = join(home, 'package.json');
    const licence = (await readFile(join(home, 'LICENSE.md'), 'utf8')).replaceAll('*/', '* /').trim();
    const body = (await readFile(join(home, file), 'utf8')).replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
    const { version } = JSON.parse(await readFile(manifest, 'utf8'));
    await writeFile(`${dir}dist/vendor/${copy}`, `/*! ${dependency} ${version}, ${file}, under this licence:\n${licence}\n*/\n${body}`);
  }
}
