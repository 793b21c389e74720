// ESM resolve hook: sends the conformance package's `fs` imports to a shim that adds `globSync`.
// Our installs are npm aliases (node_modules/conformance-0.1.16/, node_modules/conformance-0.2/), so the
// parent test matches those folders as well as the package's own name.
const SHIM = new URL('./fs-globsync-shim.mjs', import.meta.url).href;
const CONFORMANCE_DIRS = [
  '/node_modules/conformance-0.1.16/',
  '/node_modules/conformance-0.2/',
  '/@modelcontextprotocol/conformance/',
];

/** @type {import('node:module').ResolveHook} */
export async function resolve(specifier, context, next) {
  const parent = context.parentURL;
  if ((specifier === 'fs' || specifier === 'node:fs') && parent !== undefined &&
      CONFORMANCE_DIRS.some((dir) => parent.includes(dir))) {
    return { url: SHIM, shortCircuit: true };
  }
  return next(specifier, context);
}
