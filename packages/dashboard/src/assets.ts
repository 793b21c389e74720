/**
 * The page's files, read once from the package: `page/` beside `src/` and `dist/` (the HTML, the script and the
 * styles, written by hand: no build step), and Chart.js's UMD bundle, which the build copies from the `chart.js`
 * package into `dist/vendor/` (scripts/bundle.mjs: one 200 KB file shipped instead of a 6 MB dependency; in a
 * checkout not built yet, the `chart.js` development dependency itself). They are served from memory (about 230 KB),
 * so a request never touches the disk and no CDN is ever named.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One file served as it is. */
export interface Asset {
  readonly body: Uint8Array;
  readonly contentType: string;
  /** A strong validator of the body (`"<sha-256 prefix>"`). */
  readonly etag: string;
}

/** The page's files by their path under the dashboard's base path. */
export type Assets = ReadonlyMap<string, Asset>;

/** The folder of the hand-written page: `<package>/page`, one level above this module in `src/` and in `dist/`. */
const PAGE_DIR = fileURLToPath(new URL('../page/', import.meta.url));

/** Page files: their name in `page/`, the path they are served at, and their type. */
const PAGE_FILES: readonly (readonly [file: string, path: string, type: string])[] = [
  ['index.html', '', 'text/html; charset=utf-8'],
  ['dashboard.js', 'assets/dashboard.js', 'text/javascript; charset=utf-8'],
  ['dashboard.css', 'assets/dashboard.css', 'text/css; charset=utf-8'],
];

/** Chart.js's self-contained browser bundle (its UMD build: the library and its one dependency inlined). */
const CHART_FILE = 'chart.umd.min.js';
/** Where the build puts its copy: `<package>/dist/vendor/`. */
const VENDOR_DIR = fileURLToPath(new URL('../dist/vendor/', import.meta.url));

/** An asset of `body`, with its validator. */
function assetOf(body: Uint8Array, contentType: string): Asset {
  return { body, contentType, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}

/**
 * The Chart.js bundle's path: the build's copy, else (a checkout not built yet) the development dependency's own
 * file, found beside the entry Node resolves for `chart.js` (its `exports` name no `dist/` file).
 */
function chartPath(): string {
  const copy = join(VENDOR_DIR, CHART_FILE);
  if (existsSync(copy)) return copy;
  try {
    return join(dirname(createRequire(import.meta.url).resolve('chart.js')), CHART_FILE);
  } catch {
    return copy; // read, and reported, below
  }
}

let loaded: Assets | undefined;

/**
 * The page's files, read on the first call and kept.
 * @throws Error naming the file when one cannot be read (a broken install)
 */
export function loadAssets(): Assets {
  if (loaded !== undefined) return loaded;
  const files = new Map<string, Asset>();
  for (const [file, path, type] of PAGE_FILES) files.set(path, assetOf(readAsset(join(PAGE_DIR, file)), type));
  files.set(`assets/${CHART_FILE}`, assetOf(readAsset(chartPath()), 'text/javascript; charset=utf-8'));
  loaded = files;
  return files;
}

function readAsset(path: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new Error(`The dashboard's file ${path} cannot be read (is @switchboard/dashboard installed whole, with chart.js?)`, { cause: error });
  }
}
