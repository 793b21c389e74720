// Lint rules that carry the project's invariants (layering and stdout rules: docs/architecture.md "Packages and layers"):
// - the jsonrpc layer imports nothing from MCP (or any other package), and no node: modules;
// - library code never uses console (stdout is the stdio wire);
// - server and client never import each other.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'bench/results/**', '.conformance-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { project: ['./tsconfig.check.json'], tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['packages/jsonrpc/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-console': 'error',
      'no-restricted-imports': ['error', { patterns: [
        { group: ['@switchboard/*', '**/mcp/**', '**/cli/**'], message: 'jsonrpc imports nothing from MCP or other layers' },
        { group: ['node:*'], message: 'the jsonrpc core runs on any JS runtime: no node: imports' },
      ] }],
    },
  },
  {
    files: ['packages/mcp/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-console': 'error' },
  },
  {
    files: ['packages/mcp/src/server/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['../client/*', '../client'], message: 'server and client never import each other' }] }] },
  },
  {
    files: ['packages/mcp/src/client/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['../server/*', '../server'], message: 'server and client never import each other' }] }] },
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
