/**
 * Imports a server module named on the command line (`serve`, and through it `install`'s entries): JavaScript as
 * Node imports it; TypeScript (`.ts`, `.mts`, `.cts`) by Node itself when it strips types (`process.features
 * .typescript`, Node ≥ 22.18 and 23.6 by default), else through `tsx` when the user's project has it (resolved from
 * the module's folder, as Node would resolve an import written there), else a {@link CliError} that says in one
 * line what to install or run instead of Node's `ERR_UNKNOWN_FILE_EXTENSION` stack.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CliError } from './errors.js';

const TYPESCRIPT = /\.(ts|mts|cts)$/i;

/** Whether the running Node imports TypeScript files itself (type stripping). */
export function nodeStripsTypes(): boolean {
  const features = process.features as { typescript?: unknown };
  return typeof features.typescript === 'string' && features.typescript !== '';
}

type TsImport = (specifier: string, parent: string) => Promise<unknown>;

/** `tsImport` of the `tsx` package the module's folder resolves, or undefined when there is none. */
async function tsxFor(file: string): Promise<TsImport | undefined> {
  let api: string;
  try {
    api = createRequire(file).resolve('tsx/esm/api');
  } catch {
    return undefined;
  }
  const loaded = (await import(pathToFileURL(api).href)) as { tsImport?: unknown; default?: { tsImport?: unknown } };
  const tsImport = loaded.tsImport ?? loaded.default?.tsImport;
  return typeof tsImport === 'function' ? (tsImport as TsImport) : undefined;
}

/**
 * Imports `file` (an absolute path) and returns its namespace.
 * @throws CliError `usage` for a TypeScript file this Node cannot import and no `tsx` to import it with
 * @throws what the module's evaluation throws
 */
export async function importModuleFile(file: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  if (!TYPESCRIPT.test(file) || nodeStripsTypes()) return (await import(url)) as Record<string, unknown>;
  const tsImport = await tsxFor(file);
  if (tsImport !== undefined) return (await tsImport(url, url)) as Record<string, unknown>;
  const compiled = path.join('build', `${path.basename(file).replace(TYPESCRIPT, '.js')}`);
  throw new CliError(
    'usage',
    `Node ${process.versions.node} cannot import the TypeScript file "${file}": install tsx in its project (npm install --save-dev tsx), or compile it first (npx tsc) and give the .js file (e.g. ${compiled})`,
  );
}
