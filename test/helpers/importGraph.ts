/**
 * The import graph of a package's sources and its cycles, for test/layering.test.ts. Every relative `import`,
 * `export … from` and `import()` counts, `import type` included: a type-only cycle still means two files that
 * cannot be read, moved or tested apart.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** File → the files it imports (absolute paths). */
export type ImportGraph = ReadonlyMap<string, ReadonlySet<string>>;

/** The non-test `.ts` sources under `dir`, recursively. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The relative specifiers `file`'s text imports or re-exports. */
export function relativeImports(text: string): string[] {
  const specs = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"]([^'"]+)['"]/g),
    ...text.matchAll(/(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g),
    ...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1]!);
  return specs.filter((s) => s.startsWith('./') || s.startsWith('../'));
}

/** The file a relative specifier names (`./x.js` is built from `./x.ts`; a folder means its `index.ts`). */
function resolveSpecifier(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec);
  for (const candidate of [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')]) if (existsSync(candidate)) return candidate;
  return undefined;
}

/** The import graph of the sources under each of `dirs`. */
export function importGraph(dirs: readonly string[]): ImportGraph {
  const graph = new Map<string, Set<string>>();
  for (const dir of dirs) {
    for (const file of sourceFiles(dir)) {
      const to = new Set<string>();
      for (const spec of relativeImports(readFileSync(file, 'utf8'))) {
        const target = resolveSpecifier(file, spec);
        if (target !== undefined && target !== file) to.add(target);
      }
      graph.set(file, to);
    }
  }
  return graph;
}

/**
 * The import cycles of `graph`: its strongly connected components of more than one file (Tarjan's algorithm), each
 * sorted, in a stable order.
 */
export function cyclesOf(graph: ImportGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}
