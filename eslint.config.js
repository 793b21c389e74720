// Lint rules that carry the project's invariants (layering and stdout rules: docs/architecture.md "Packages and layers"):
// - the jsonrpc layer imports nothing from MCP (or any other package), and no node: modules;
// - inside @switchboard/mcp: protocol/ imports only @switchboard/jsonrpc and itself; server/ imports protocol/ and
//   stores/, never transports/ or client/; client/ never server/; transports/ never server/;
// - node: modules only at the Node edges (transports/node/, transports/stdio/, and the tools: scripts/, bench/,
//   test/, examples/, packages/cli); a Node builtin is always named with its node: prefix;
// - library code never uses console (stdout is the stdio wire);
// - the CLI's doctor (packages/cli/src/doctor/) is runtime-neutral but for nodeEnv.ts, and never imports the server
//   side or the Node transports of @switchboard/mcp;
// - at most 3 parameters: an options object instead;
// - the type-checked recommended rules.
// test/layering.test.ts checks the same layering on the source text, and test/file-names.test.ts the file names.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/** Bare Node builtins (`fs`, `http`, `fs/promises`…): write `node:fs`, so a builtin never reads as a package. */
const BARE_BUILTINS = {
  regex: `^(${builtinModules.filter((m) => !m.startsWith('_') && !m.startsWith('node:')).join('|')})(/.*)?$`,
  message: 'name a Node builtin with its node: prefix (node:fs, not fs)',
};
const NO_NODE = { group: ['node:*'], message: 'only the Node edges (transports/node/, transports/stdio/) import node: modules; this code runs on any JS runtime' };

/**
 * A folder of packages/mcp/src must not import the named sibling folders (or root files). Matched on the path
 * segments of the specifier that climb out of the folder (`../server/x.js`, `../../server/x.js`), so the sides of a
 * transport (`transports/http/server/`, `transports/http/client/`) are not taken for the top-level folders.
 * @param {string[]} folders @param {string} message
 */
const notFrom = (folders, message) => ({ regex: `^(\\.\\./)+(${folders.join('|')})(/|\\.js$|$)`, message });

/**
 * One `no-restricted-imports` setting: a later config block replaces the rule's options, it does not merge them,
 * so every block lists all the patterns that apply to its files (the bare-builtin one always).
 * @param {...object} patterns
 */
const restrict = (...patterns) => ['error', { patterns: [BARE_BUILTINS, ...patterns] }];

const MCP = 'packages/mcp/src';
const LIB = ['packages/jsonrpc/src/**/*.ts', 'packages/mcp/src/**/*.ts', 'packages/gateway/src/**/*.ts', 'packages/otel/src/**/*.ts', 'packages/redis/src/**/*.ts'];
const TESTS = ['**/*.test.ts', 'test/**/*.ts'];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'bench/results/**', '.conformance-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    // One program for every linted TypeScript file (tsconfig.check.json covers them all): faster than a project
    // service that opens each package's tsconfig, and test files are in no package tsconfig.
    languageOptions: { parserOptions: { project: ['./tsconfig.check.json'], tsconfigRootDir: import.meta.dirname } },
    rules: {
      'no-restricted-imports': restrict(),
      'max-params': 'off',
      '@typescript-eslint/max-params': ['error', { max: 3 }],
    },
  },
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The JavaScript (examples, scripts, bench) is linted without type information: bench/ is in no tsconfig, and
    // the typed rules over checkJs code mostly flag what JSDoc cannot say.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { ...globals.node } },
    rules: { ...tseslint.configs.disableTypeChecked.rules, '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: LIB,
    ignores: TESTS,
    rules: { 'no-console': 'error', 'no-restricted-imports': restrict(NO_NODE) },
  },
  {
    files: ['packages/jsonrpc/src/**/*.ts'],
    ignores: TESTS,
    rules: {
      'no-restricted-imports': restrict(NO_NODE, {
        group: ['@switchboard/*', '**/mcp/**', '**/cli/**'],
        message: 'jsonrpc imports nothing from MCP or other layers',
      }),
    },
  },
  {
    files: [`${MCP}/protocol/**/*.ts`],
    ignores: TESTS,
    rules: {
      'no-restricted-imports': restrict(
        NO_NODE,
        notFrom(['server', 'client', 'transports', 'stores', 'testing', 'logger', 'index'], 'protocol/ imports only @switchboard/jsonrpc and itself'),
        { regex: '^(?!@switchboard/jsonrpc$)[^.]', message: 'protocol/ imports only @switchboard/jsonrpc and itself' },
      ),
    },
  },
  {
    // The gateway, the OpenTelemetry package and the Redis stores sit at the edge: they reach the other packages only
    // through their public entries.
    files: ['packages/gateway/src/**/*.ts', 'packages/otel/src/**/*.ts', 'packages/redis/src/**/*.ts'],
    ignores: TESTS,
    rules: {
      'no-restricted-imports': restrict(
        NO_NODE,
        { regex: '^(\\.\\./)*(\\.\\./)(jsonrpc|mcp|cli)(/|$)|/(jsonrpc|mcp|cli)/src(/|$)', message: 'the gateway imports other packages by name (their public entries), never their sources' },
        { regex: '^@switchboard/(jsonrpc/internal|mcp/testing)$', message: 'the gateway uses public API only: not @switchboard/jsonrpc/internal nor @switchboard/mcp/testing' },
      ),
    },
  },
  {
    // The dashboard is a Node package at the edge: node: modules allowed, the other packages by their public
    // entries only, never console (it runs inside servers).
    files: ['packages/dashboard/src/**/*.ts'],
    ignores: TESTS,
    rules: {
      'no-console': 'error',
      'no-restricted-imports': restrict(
        { regex: '^(\\.\\./)*(\\.\\./)(jsonrpc|mcp|gateway|cli)(/|$)|/(jsonrpc|mcp|gateway|cli)/src(/|$)', message: 'the dashboard imports other packages by name (their public entries), never their sources' },
        { regex: '^@switchboard/(jsonrpc/internal|mcp/testing)$', message: 'the dashboard uses public API only: not @switchboard/jsonrpc/internal nor @switchboard/mcp/testing' },
      ),
    },
  },
  {
    // The dashboard's page: plain browser JavaScript, served as written.
    files: ['packages/dashboard/page/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
  },
  {
    files: [`${MCP}/server/**/*.ts`],
    ignores: TESTS,
    rules: {
      'no-restricted-imports': restrict(NO_NODE, notFrom(['transports', 'client', 'testing'], 'server/ imports protocol/ and stores/, never transports/ or client/')),
    },
  },
  {
    files: [`${MCP}/client/**/*.ts`],
    ignores: TESTS,
    rules: { 'no-restricted-imports': restrict(NO_NODE, notFrom(['server', 'testing'], 'client/ never imports server/ (shared code lives in protocol/)')) },
  },
  {
    files: [`${MCP}/transports/**/*.ts`],
    ignores: TESTS,
    rules: { 'no-restricted-imports': restrict(NO_NODE, notFrom(['server', 'client', 'testing'], 'transports/ never import server/: the server is handed to them through protocol/ interfaces')) },
  },
  {
    // The Node edges: the same layering, node: modules allowed.
    files: [`${MCP}/transports/node/**/*.ts`, `${MCP}/transports/stdio/**/*.ts`],
    ignores: TESTS,
    rules: { 'no-restricted-imports': restrict(notFrom(['server', 'client', 'testing'], 'transports/ never import server/: the server is handed to them through protocol/ interfaces')) },
  },
  {
    // The doctor is a library (the `switchboard/doctor` entry): every effect comes through its injected DoctorEnv,
    // so only its Node implementation (nodeEnv.ts) touches Node, and it reaches servers as a client would (never
    // through the server side or the Node transports of @switchboard/mcp).
    files: ['packages/cli/src/doctor/**/*.ts'],
    ignores: [...TESTS, 'packages/cli/src/doctor/nodeEnv.ts'],
    rules: {
      'no-console': 'error',
      'no-restricted-imports': restrict(NO_NODE, {
        group: ['@switchboard/mcp/server', '@switchboard/mcp/stdio', '@switchboard/mcp/node'],
        message: 'the doctor reaches servers through @switchboard/mcp/client and its DoctorEnv, never the server side or the Node transports',
      }),
    },
  },
  {
    files: TESTS,
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // Tests read wire messages as `any` on purpose (and assert them whole with expect), so the rules that
      // follow an `any` through assignments and member reads would flag every assertion on a parsed message.
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Test and benchmark helpers mirror the wire call they stand for (method, headers, body, path; Node-style
    // (err, status, headers, text) callbacks); the 3-parameter rule is about the shape of public and example APIs.
    files: ['test/**', 'bench/**', '**/*.test.ts'],
    rules: { '@typescript-eslint/max-params': 'off' },
  },
  {
    // The guide destructures `const { url, close } = await serveHttp(...)`, as users do: `close` is bound there.
    // ServeHttpHandle should declare it as a function property (`close: () => Promise<void>`) and this goes away.
    files: ['docs/guide/**/*.ts'],
    rules: { '@typescript-eslint/unbound-method': 'off' },
  },

);
