/**
 * `switchboard serve server.ts`: a TypeScript server module. On a Node that strips types itself it is imported as
 * is; on one that does not (Node 20), through the `tsx` of the user's project when it has one (here a stand-in
 * package with tsx's `tsx/esm/api` entry, so the test needs no registry), else the command ends with exit 2 and one
 * line saying what to install or run (before: Node's raw ERR_UNKNOWN_FILE_EXTENSION).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpClient } from '@switchboard/mcp/client';
import { spawnStdio } from '@switchboard/mcp/stdio';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeStripsTypes } from '../packages/cli/src/moduleImport.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN = path.join(ROOT, 'packages', 'cli', 'bin', 'switchboard.js');
const silent = { debug() {}, info() {}, warn() {}, error() {} };

const SERVER_TS = `import { McpServer } from '@switchboard/mcp/server';
const name: string = 'typescript-module';
const server = new McpServer({ name, version: '1.0.0' });
export default server;
`;

let project = '';
beforeEach(() => {
  project = mkdtempSync(path.join(tmpdir(), 'switchboard-serve-ts-'));
  mkdirSync(path.join(project, 'node_modules'));
  symlinkSync(path.join(ROOT, 'node_modules', '@switchboard'), path.join(project, 'node_modules', '@switchboard'), 'dir');
  writeFileSync(path.join(project, 'server.ts'), SERVER_TS);
});
afterEach(() => rmSync(project, { recursive: true, force: true }));

describe('switchboard serve <file>.ts', () => {
  it.skipIf(nodeStripsTypes())('without tsx on a Node that cannot import TypeScript: exit 2 and one line saying what to do', () => {
    const run = spawnSync(process.execPath, [BIN, 'serve', 'server.ts', '--port', '0'], { cwd: project, encoding: 'utf8', timeout: 20_000, env: { ...process.env, NO_COLOR: '1' } });
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      `switchboard: Node ${process.versions.node} cannot import the TypeScript file "${path.join(project, 'server.ts')}": install tsx in its project (npm install --save-dev tsx), or compile it first (npx tsc) and give the .js file (e.g. build/server.js)\n`,
    );
  });

  it('with tsx in the project (or a Node that strips types): the module is served', async () => {
    // A stand-in for tsx: its `tsx/esm/api` entry with `tsImport`, which here loads a hand-compiled sibling.
    const tsx = path.join(project, 'node_modules', 'tsx');
    mkdirSync(tsx);
    writeFileSync(path.join(tsx, 'package.json'), JSON.stringify({ name: 'tsx', version: '0.0.0-test', exports: { './esm/api': { import: './api.mjs', require: './api.cjs' } } }));
    writeFileSync(path.join(tsx, 'api.cjs'), "exports.tsImport = (specifier) => import(specifier.replace(/\\.ts$/, '.compiled.mjs'));\n");
    writeFileSync(path.join(tsx, 'api.mjs'), "export const tsImport = (specifier) => import(specifier.replace(/\\.ts$/, '.compiled.mjs'));\n");
    writeFileSync(path.join(project, 'server.compiled.mjs'), SERVER_TS.replace(': string', ''));
    const client = await McpClient.connect({ connector: spawnStdio({ command: process.execPath, args: [BIN, 'serve', 'server.ts'], cwd: project }), logger: silent });
    expect(client.serverInfo?.name).toBe('typescript-module');
    await client.close();
  }, 30_000);
});
