/**
 * The layering rules of docs/architecture.md, checked on the source text (the lint rules say the same; this
 * test keeps them true even if the lint config drifts).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { entryNames, entrySources, namesExportedTwice } from './helpers/entryNames.js';
import { cyclesOf, importGraph } from './helpers/importGraph.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"]([^'"]+)['"]/g), ...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]!);
}

describe('layering', () => {
  it('jsonrpc imports nothing but its own files: no MCP, no other package, no node: modules', () => {
    const bad: string[] = [];
    for (const f of sources(join(ROOT, 'packages/jsonrpc/src'))) {
      for (const spec of imports(f)) if (!spec.startsWith('./')) bad.push(`${relative(ROOT, f)} imports ${spec}`);
    }
    expect(bad).toEqual([]);
  });

  it('server and client never import each other', () => {
    const bad: string[] = [];
    for (const [from, to] of [['server', 'client'], ['client', 'server']] as const) {
      const dir = join(ROOT, 'packages/mcp/src', from);
      if (!existsSync(dir)) continue;
      const files = sources(dir);
      for (const f of files) for (const spec of imports(f)) if (spec.includes(`/${to}/`) || spec === `../${to}`) bad.push(`${relative(ROOT, f)} imports ${spec}`);
    }
    expect(bad).toEqual([]);
  });

  it('the doctor is runtime-neutral but for nodeEnv.ts, and reaches servers only as a client', () => {
    const bad: string[] = [];
    const dir = join(ROOT, 'packages/cli/src/doctor');
    for (const f of sources(dir)) {
      const name = relative(ROOT, f);
      if (name.endsWith(join('doctor', 'nodeEnv.ts'))) continue;
      for (const spec of imports(f)) {
        if (spec.startsWith('node:')) bad.push(`${name} imports ${spec}`);
        if (/^@switchboard\/mcp\/(server|stdio|node)$/.test(spec)) bad.push(`${name} imports ${spec}`);
      }
      const text = readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      if (/(?<![\w#.$])(process|Buffer)\.|\bconsole\./.test(text)) bad.push(`${name} uses process, Buffer or console`);
    }
    expect(bad).toEqual([]);
  });

  it('library code never writes to stdout (it is the stdio wire) and never uses console', () => {
    const bad: string[] = [];
    for (const pkg of ['jsonrpc', 'mcp', 'redis']) {
      for (const f of sources(join(ROOT, 'packages', pkg, 'src'))) {
        const text = readFileSync(f, 'utf8');
        const isStdio = f.endsWith(join('stdio', 'stdioServerTransport.ts')) || f.endsWith(join('stdio', 'serveStdio.ts'));
        // The stdio transport writes to process.stdout (its wire); serveStdio redirects console to stderr, so it names
        // console's methods, but it never calls one.
        if (isStdio ? /\bconsole\.\w+\(/.test(text) : /\bconsole\./.test(text)) bad.push(`${relative(ROOT, f)} uses console`);
        if (!isStdio && /process\.stdout/.test(text)) bad.push(`${relative(ROOT, f)} touches process.stdout`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('the gateway imports other packages only by their public entries (never their sources, internal or testing entries)', () => {
    const entries = new Set(entrySources(ROOT).keys());
    entries.delete('@switchboard/jsonrpc/internal');
    entries.delete('@switchboard/mcp/testing');
    // Its own npm dependencies (the config's JSON Schema validator), by their package name.
    const manifest = JSON.parse(readFileSync(join(ROOT, 'packages/gateway/package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const name of Object.keys(manifest.dependencies ?? {})) if (!name.startsWith('@switchboard/')) entries.add(name);
    const dir = join(ROOT, 'packages/gateway/src');
    const files = sources(dir);
    expect(files.length).toBeGreaterThan(3); // the scan sees the sources
    const bad: string[] = [];
    for (const f of files) {
      for (const spec of imports(f)) {
        const own = spec.startsWith('.') && !relative(dir, join(f, '..', spec)).startsWith('..');
        if (!own && !entries.has(spec)) bad.push(`${relative(ROOT, f)} imports ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('the dashboard imports other packages only by their public entries, its own dependencies and node: modules', () => {
    const entries = new Set(entrySources(ROOT).keys());
    entries.delete('@switchboard/jsonrpc/internal');
    entries.delete('@switchboard/mcp/testing');
    const manifest = JSON.parse(readFileSync(join(ROOT, 'packages/dashboard/package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const name of Object.keys(manifest.dependencies ?? {})) if (!name.startsWith('@switchboard/')) entries.add(name);
    const dir = join(ROOT, 'packages/dashboard/src');
    const files = sources(dir);
    expect(files.length).toBeGreaterThan(3); // the scan sees the sources
    const bad: string[] = [];
    for (const f of files) {
      for (const spec of imports(f)) {
        const own = spec.startsWith('.') && !relative(dir, join(f, '..', spec)).startsWith('..');
        if (!own && !spec.startsWith('node:') && !entries.has(spec)) bad.push(`${relative(ROOT, f)} imports ${spec}`);
      }
      if (/\bconsole\.|process\.stdout/.test(readFileSync(f, 'utf8'))) bad.push(`${relative(ROOT, f)} uses console or process.stdout`);
    }
    expect(bad).toEqual([]);
  });

  it('the Redis stores import only the public store entries, the engine and ioredis (no other MCP part, no node:)', () => {
    const allowed = new Set(['@switchboard/jsonrpc', '@switchboard/mcp/stores', 'ioredis']);
    const dir = join(ROOT, 'packages/redis/src');
    const files = sources(dir);
    expect(files.length).toBeGreaterThan(5); // the scan sees the sources
    const bad: string[] = [];
    for (const f of files) {
      for (const spec of imports(f)) {
        const own = spec.startsWith('./') && !relative(dir, join(f, '..', spec)).startsWith('..');
        if (!own && !allowed.has(spec)) bad.push(`${relative(ROOT, f)} imports ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('no import cycles in any package, type-only imports included', () => {
    const packages = join(ROOT, 'packages');
    const graph = importGraph(readdirSync(packages).map((pkg) => join(packages, pkg, 'src')).filter((dir) => existsSync(dir)));
    expect(graph.size).toBeGreaterThan(200); // the scan sees the sources
    expect([...graph.values()].reduce((n, to) => n + to.size, 0)).toBeGreaterThan(500); // ...and their imports
    expect(cyclesOf(graph).map((cycle) => cycle.map((f) => relative(ROOT, f)))).toEqual([]);
  });

  it('the cycle check finds a planted cycle: in a graph, and in files on disk (type imports and folders too)', () => {
    const planted = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
      ['d', new Set(['a', 'e'])],
      ['e', new Set<string>()],
      ['f', new Set(['f'])],
    ]);
    expect(cyclesOf(planted)).toEqual([['a', 'b', 'c']]);
    expect(cyclesOf(new Map([['a', new Set(['b'])], ['b', new Set<string>()]]))).toEqual([]);

    const dir = mkdtempSync(join(tmpdir(), 'switchboard-cycles-'));
    try {
      mkdirSync(join(dir, 'sub'));
      writeFileSync(join(dir, 'one.ts'), "import type { Two } from './sub/two.js';\nexport type One = Two;\n");
      writeFileSync(join(dir, 'sub', 'two.ts'), "export { three } from './index.js';\nexport type Two = string;\n");
      writeFileSync(join(dir, 'sub', 'index.ts'), "import '../one.js';\nexport const three = 3;\n");
      writeFileSync(join(dir, 'leaf.ts'), "import { three } from './sub';\nexport const four = three + 1;\n");
      writeFileSync(join(dir, 'leaf.test.ts'), "import { four } from './leaf.js';\nimport './one.js';\nvoid four;\n");
      const found = cyclesOf(importGraph([dir])).map((cycle) => cycle.map((f) => relative(dir, f)));
      expect(found).toEqual([['one.ts', join('sub', 'index.ts'), join('sub', 'two.ts')]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every exported name has one home: no name is exported by two public entries', () => {
    const names = entryNames(entrySources(ROOT));
    expect(names.get('@switchboard/mcp/stores')).toContain('InMemorySessionStore'); // the scan reads the entries
    expect([...names.values()].reduce((n, list) => n + list.length, 0)).toBeGreaterThan(300);
    expect(namesExportedTwice(names)).toEqual([]);
  }, 30_000);

  it("the README's table of entries gives each entry's true name count", () => {
    const names = entryNames(entrySources(ROOT));
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const table = new Map([...readme.matchAll(/^\| `(@switchboard\/[^`]+|switchboard\/[^`]+)` \|.*\| (\d+) \|$/gm)].map((m) => [String(m[1]), Number(m[2])] as const));
    expect(table.size).toBeGreaterThan(5);
    for (const [entry, count] of table) expect({ entry, count }).toEqual({ entry, count: names.get(entry)?.length });
  }, 30_000);

  it('the one-home check finds a planted name exported twice', () => {
    const planted = new Map([
      ['@x/a', ['One', 'Two']],
      ['@x/b', ['Three', 'Two']],
      ['@x/c', ['Two']],
    ]);
    expect(namesExportedTwice(planted)).toEqual(['Two: @x/a, @x/b, @x/c']);
    expect(namesExportedTwice(new Map([['@x/a', ['One']], ['@x/b', ['Two']]]))).toEqual([]);
  });
});
