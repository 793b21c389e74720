// The bundle inputs of each package, read from its package.json, so that the public entry points are written in
// one place: scripts/bundle.mjs builds them and test/package-entries.test.ts checks them against dist/.
import { readFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);

/**
 * Bundle inputs that no "exports" subpath names: those only a package's bin script loads (`bin/*.js` imports
 * `../dist/<name>.js`). Output name → source file, per package directory.
 * @type {Readonly<Record<string, Readonly<Record<string, string>>>>}
 */
const BIN_ONLY = { cli: { main: 'src/main.ts' } };

/**
 * Dependencies built into a package's own chunks instead of imported at run time, per package directory
 * (scripts/bundle.mjs). The JSON Schema validator is nine modules: as a dependency, every stdio server start loaded
 * them one by one (3.5 ms of a ~95 ms start, 41 interleaved starts each, 2026-12-05). Only a development dependency,
 * pinned to an exact version, may be inlined (test/package-entries.test.ts); the chunk holding it starts with its
 * name, version, licence and notices (scripts/licences/). None of its classes or types crosses the package's API.
 * `npm audit` does not see it: the README's install section says so.
 * @type {Readonly<Record<string, readonly string[]>>}
 */
export const INLINED = { mcp: ['@cfworker/json-schema'] };

/**
 * Sources of `"node"` export conditions (the entry Node loads instead of the subpath's runtime-neutral one), per
 * package directory: output name → source file.
 * @type {Readonly<Record<string, Readonly<Record<string, string>>>>}
 */
export const NODE_CONDITIONS = { mcp: { 'client-node': 'src/transports/node/clientEntry.ts' } };

/**
 * The source of an "exports" target, from its declarations: `./dist/types/x/y.d.ts` is built from `src/x/y.ts`
 * (tsc -b: rootDir src, outDir dist/types).
 * @param {string} subpath @param {unknown} target
 * @returns {[string, string]} output name (`dist/<name>.js`) and source file
 */
function entryOf(subpath, target) {
  const { types, default: js } = /** @type {{ types?: string, default?: string }} */ (target);
  const out = js?.match(/^\.\/dist\/([^/]+)\.js$/)?.[1];
  const source = types?.match(/^\.\/dist\/types\/(.+)\.d\.ts$/)?.[1];
  if (out === undefined || source === undefined) {
    throw new Error(`Unexpected "exports" target: ${JSON.stringify(subpath)} must be { types: "./dist/types/….d.ts", default: "./dist/<name>.js" }`);
  }
  return [out, `src/${source}.ts`];
}

/**
 * Entry points per package directory (the root package.json "workspaces", less `packages/`): output name
 * (`dist/<name>.js`) → source file. Every "exports" subpath but `./package.json`, plus {@link NODE_CONDITIONS} and
 * {@link BIN_ONLY}.
 * @type {Readonly<Record<string, Readonly<Record<string, string>>>>}
 */
export const PACKAGES = Object.fromEntries(
  /** @type {{ workspaces: string[] }} */ (JSON.parse(readFileSync(new URL('package.json', root), 'utf8'))).workspaces.map((workspace) => {
    const dir = workspace.replace(/^packages\//, '');
    const pkg = /** @type {{ exports?: Record<string, unknown> }} */ (JSON.parse(readFileSync(new URL(`${workspace}/package.json`, root), 'utf8')));
    const exported = Object.entries(pkg.exports ?? {}).filter(([subpath]) => subpath !== './package.json').map(([subpath, target]) => entryOf(subpath, target));
    return [dir, { ...Object.fromEntries(exported), ...NODE_CONDITIONS[dir], ...BIN_ONLY[dir] }];
  }),
);
