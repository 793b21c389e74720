// Builds each package's JavaScript as a few ES module files (one per public entry point, plus shared chunks)
// straight from the TypeScript sources; `tsc -b` emits only the type declarations (dist/types).
// Why: a stdio server is started by its host for every session, and module loading dominates start-up. One file
// per entry instead of ~30 cuts start-up by ~25 ms (measured: bench/ cold start, a benchmark target).
// Every bare import (other workspace packages, dependencies, node:) stays external, so classes such as
// JsonRpcError are shared, never duplicated, across packages; the exceptions are entries.mjs `INLINED`.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';
import { INLINED, PACKAGES } from './entries.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** @param {readonly string[]} inlined @returns {(id: string) => boolean} */
const externalExcept = (inlined) => (id) =>
  !id.startsWith('.') && !id.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(id) && !inlined.some((dep) => id === dep || id.startsWith(`${dep}/`));

/**
 * Modules gathered into one shared chunk per package, by path inside the package's `src/`. Left to itself the
 * bundler makes a chunk of every set of modules the same entries share: @switchboard/mcp's `server` entry loaded ten
 * files, most of them a few KB (the protocol's types and errors, the logger, each store), and Node 20's ES module
 * loader spends about as much per file as on compiling a few tens of KB. One `protocol` chunk for what the server,
 * the client and the transports all build on: a stdio server loads three files of this package instead of fifteen,
 * about 4.5 ms sooner to its first answer (41 interleaved starts each, 2026-12-05). The large parts some entries
 * never use (the client, the HTTP handler, the Node fetch) keep chunks of their own. Nothing in `protocol` may
 * `import()` the Node fetch (five of the six runtime-neutral entries load `protocol`; test/dist-neutral.test.ts):
 * `./stdio` hands `installFetch` its own `import()`. The package's inlined dependencies (entries.mjs `INLINED`) go
 * into `protocol` too.
 * @type {Readonly<Record<string, { name: string, test: RegExp }>>}
 */
const SHARED_CHUNK = {
  mcp: {
    name: 'protocol',
    test: /[\\/]src[\\/](protocol[\\/]|stores[\\/]|logger\.ts$|transports[\\/](http[\\/](media|boundedBody|client[\\/]clientHttp)|node[\\/]installFetch|stdio[\\/]stderrTail)\.ts$)/,
  },
};

for (const [name, entries] of Object.entries(PACKAGES)) {
  const dir = `${root}packages/${name}/`;
  // Remove every previous bundle, also of an entry since renamed (it would be packed), keep dist/types (tsc -b's
  // declarations) and the build info.
  await rm(`${dir}dist/chunks`, { recursive: true, force: true });
  const old = await readdir(`${dir}dist`).catch(() => []);
  for (const file of old.filter((f) => f.endsWith('.js') || f.endsWith('.js.map'))) await rm(`${dir}dist/${file}`);
  const input = Object.fromEntries(Object.entries(entries).map(([out, src]) => [out, `${dir}${src}`]));
  const inlined = (INLINED[name] ?? []).map((dependency) => ({ name: dependency, home: homeOf(dir, dependency) }));
  const shared = SHARED_CHUNK[name];
  const bundle = await rolldown({
    input,
    external: externalExcept(inlined.map((dependency) => dependency.name)),
    platform: 'node',
    logLevel: 'warn',
    transform: { target: 'node20' },
  });
  await bundle.write({
    dir: `${dir}dist`,
    format: 'esm',
    // The maps point at src/*.ts, which every package ships (package.json "files"), so they carry no copy of the
    // sources (the @switchboard/mcp tarball was 157 kB instead of 225 kB when this was chosen). An inlined
    // dependency's files are the exception (`carryInlinedSources`). test/package-install.test.ts checks that every
    // map's sources are in the tarball or in the map.
    sourcemap: true,
    sourcemapExcludeSources: true,
    // The documentation lives in the sources and the declarations (both shipped); the JavaScript carries only the
    // comments that change what a tool does with it (licences, purity annotations). About 20 % less to install
    // (the CLI's closure has a 10 MiB budget, test/package-install.test.ts) and to read at start-up.
    comments: { legal: true, annotation: true, jsdoc: false },
    banner: await licenceBanner(inlined),
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
    ...(shared && {
      codeSplitting: { groups: [{ name: shared.name, test: (/** @type {string} */ id) => shared.test.test(id) || inlined.some(({ home }) => inside(id, home)) }] },
    }),
  });
  await bundle.close();
  if (inlined.length > 0) await carryInlinedSources(`${dir}dist`, inlined);
}

/** An installed dependency's folder, as seen from a package's directory. @param {string} dir @param {string} dependency */
function homeOf(dir, dependency) {
  return dirname(createRequire(`${dir}package.json`).resolve(`${dependency}/package.json`));
}

/** Whether a module id is a file inside `home`. @param {string} id @param {string} home */
function inside(id, home) {
  return id.startsWith(`${home}/`) || id.startsWith(`${home}\\`);
}

/**
 * Puts the text of each inlined dependency's file a map names into the map (`sourcesContent`, `null` for the
 * package's own sources, which it ships): the package does not ship that dependency, so its files' paths lead
 * nowhere once installed. Each is named `inlined/<dependency>/<path in it>`.
 * @param {string} dist
 * @param {readonly { name: string, home: string }[]} dependencies - Each inlined dependency and its installed folder.
 */
async function carryInlinedSources(dist, dependencies) {
  for (const file of (await readdir(dist, { recursive: true })).filter((f) => f.endsWith('.js.map'))) {
    const path = join(dist, file);
    const map = /** @type {{ sources: string[], sourcesContent?: (string | null)[] }} */ (JSON.parse(await readFile(path, 'utf8')));
    const owners = map.sources.map((source) => {
      const at = join(dirname(path), source);
      const owner = dependencies.find(({ home }) => inside(at, home));
      return owner && { at, name: `inlined/${owner.name}/${at.slice(owner.home.length + 1).split('\\').join('/')}` };
    });
    if (owners.every((owner) => owner === undefined)) continue;
    // Without their own `sourceMappingURL` line: the maps it names are not shipped either.
    const text = (/** @type {string} */ at) => readFile(at, 'utf8').then((code) => code.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'));
    map.sourcesContent = await Promise.all(owners.map((owner) => (owner ? text(owner.at) : null)));
    map.sources = map.sources.map((source, i) => owners[i]?.name ?? source);
    await writeFile(path, JSON.stringify(map));
  }
}

/**
 * The comment that starts every chunk holding an inlined dependency's modules: its name and version, then its licence
 * and third-party notices in full, from `scripts/licences/<name, "/" as "+">.txt` (its npm package ships none, so
 * the text is kept in this repository, taken from the dependency's repository at the pinned version).
 * @param {readonly { name: string, home: string }[]} dependencies - Each inlined dependency and its installed folder.
 * @returns {Promise<(chunk: { moduleIds: readonly string[] }) => string>}
 */
async function licenceBanner(dependencies) {
  const notices = await Promise.all(dependencies.map(async ({ name, home }) => {
    const { version } = JSON.parse(await readFile(join(home, 'package.json'), 'utf8'));
    const file = `${root}scripts/licences/${name.replaceAll('/', '+')}.txt`;
    const licence = await readFile(file, 'utf8').catch(() => {
      throw new Error(`bundle: ${name} is inlined (scripts/entries.mjs INLINED) but ${file} does not hold its licence`);
    });
    return { home, text: `/*! ${name} ${version}, built into this file; its licence and notices:\n\n${licence.replaceAll('*/', '* /').trim()}\n*/` };
  }));
  return (chunk) => notices.filter(({ home }) => chunk.moduleIds.some((id) => inside(id, home))).map((n) => n.text).join('\n');
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
