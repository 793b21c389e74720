/**
 * Where this CLI is installed: the package folder and its bin script (which hosts run, and `dev` runs for each
 * generation). Found by walking up
 * from this module to the `switchboard` package.json, so the same code works from the sources (tests) and from the
 * bundle (`dist/main.js`, `dist/chunks/…`).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The folder of the `switchboard` package this module belongs to. @throws Error when there is none above it */
export function cliPackageRoot(): string {
  if (root !== undefined) return root;
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'switchboard') {
      root = dir;
      return dir;
    }
    if (path.dirname(dir) === dir) throw new Error(`Cannot find the switchboard package above "${fileURLToPath(import.meta.url)}"`);
  }
}

/** The absolute path of the `switchboard` bin script (`bin/switchboard.js`), which a host runs with `node`. */
export function cliBinPath(): string {
  return path.join(cliPackageRoot(), 'bin', 'switchboard.js');
}

/** Whether a path lies in npm's `npx` cache (`…/_npx/<hash>/…`), which npm may clear: no place for a host entry. */
export function inNpxCache(file: string): boolean {
  return file.split(/[\\/]/).includes('_npx');
}
