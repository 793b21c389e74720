// The bundle inputs of each package, shared by scripts/bundle.mjs (which builds them) and
// test/package-entries.test.ts (which checks them against each package.json "exports"/"bin" and dist/).

/**
 * Entry points per package directory: output name (`dist/<name>.js`) → source file. Keep in step with each
 * package.json "exports" and "bin"; test/package-entries.test.ts fails when they drift apart.
 * @type {Readonly<Record<string, Readonly<Record<string, string>>>>}
 */
export const PACKAGES = {
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

