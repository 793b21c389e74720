/**
 * The names each public entry of the workspace exports (read with the TypeScript compiler from the entry's source,
 * as `package.json` "exports" names it), for test/layering.test.ts: every exported name has one home.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/** Entry (`@switchboard/mcp/http`) → the names it exports, sorted. */
export type EntryNames = ReadonlyMap<string, readonly string[]>;

/** The entries of the packages under `root/packages` (`"exports"` of each package.json, `./package.json` aside). */
export function entrySources(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const workspaces = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
  for (const workspace of workspaces) {
    const pkg = JSON.parse(readFileSync(join(root, workspace, 'package.json'), 'utf8')) as { name: string; exports?: Record<string, { types?: string }> };
    for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
      if (subpath === './package.json' || target.types === undefined) continue;
      out.set(pkg.name + subpath.slice(1), join(root, workspace, target.types.replace(/^\.\/dist\/types\//, 'src/').replace(/\.d\.ts$/, '.ts')));
    }
  }
  return out;
}

/** The names each entry exports (values and types alike). */
export function entryNames(sources: ReadonlyMap<string, string>): EntryNames {
  const program = ts.createProgram([...sources.values()], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const out = new Map<string, string[]>();
  for (const [entry, file] of sources) {
    const source = program.getSourceFile(file);
    const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    out.set(entry, module === undefined ? [] : checker.getExportsOfModule(module).map((s) => s.name).sort());
  }
  return out;
}

/** `name: entry, entry…` for every name more than one entry exports. */
export function namesExportedTwice(names: EntryNames): string[] {
  const homes = new Map<string, string[]>();
  for (const [entry, list] of names) for (const name of list) homes.set(name, [...(homes.get(name) ?? []), entry]);
  return [...homes].filter(([, entries]) => entries.length > 1).map(([name, entries]) => `${name}: ${entries.join(', ')}`).sort();
}
