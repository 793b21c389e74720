/**
 * The packages as a user gets them: `npm pack` each workspace package, install the tarballs into an empty
 * project outside the repository, then import every subpath, type-check and run a small server with the
 * installed TypeScript, and run the installed `switchboard` bin. publint lints each tarball.
 *
 * Offline: the project's package-lock.json pins TypeScript, @types/node and the registry dependencies of the
 * tarballs to the versions and integrity hashes of the root package-lock.json, so `npm install --offline`
 * takes them from the npm cache that `npm ci` filled. The tarballs need nothing else.
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIRS = ['jsonrpc', 'mcp', 'gateway', 'otel', 'dashboard', 'redis', 'cli'] as const;
/** Budget of the whole set-up (3 packs and one install take 3-6 s on 2 idle cores). */
const SETUP_TIMEOUT_MS = 60_000;

interface LockEntry {
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly [field: string]: unknown;
}

interface Packed {
  readonly dir: (typeof DIRS)[number];
  readonly name: string;
  readonly version: string;
  readonly filename: string;
  readonly size: number;
  readonly unpackedSize: number;
  readonly entryCount: number;
  readonly files: readonly { path: string; size: number }[];
}

/**
 * The environment of every npm and node child: without the `npm_*` variables of an enclosing `npm test` (they
 * name the repository as the project, e.g. `npm_config_local_prefix`), but with the cache and config files.
 */
const KEEP_NPM = new Set(['npm_config_cache', 'npm_config_userconfig', 'npm_config_globalconfig', 'npm_config_cafile']);
const CHILD_ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || KEEP_NPM.has(k.toLowerCase())));

/** Runs a command; throws with its whole output unless it exits 0. */
function sh(command: string, args: readonly string[], options: SpawnSyncOptions & { cwd: string; input?: string }): string {
  const run = spawnSync(command, args, { encoding: 'utf8', env: CHILD_ENV, timeout: 45_000, ...options });
  if (run.status !== 0) {
    const where = `"${[command, ...args].join(' ')}" in "${options.cwd}"`;
    throw new Error(`Command failed: ${where}: exit ${String(run.status)}${run.error ? ` (${run.error.message})` : ''}\n--- stdout\n${String(run.stdout)}\n--- stderr\n${String(run.stderr)}`);
  }
  return String(run.stdout);
}

/** Every file below `dir`, as paths relative to it with `/`. */
function walk(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? walk(p, base) : [relative(base, p).split('\\').join('/')];
  });
}

let work = '';
let app = '';
const packed: Packed[] = [];
const installed = (name: string): string => join(app, 'node_modules', name);

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'switchboard-install-'));
  const tarballs = join(work, 'tarballs');
  app = join(work, 'app');
  mkdirSync(tarballs);
  for (const dir of DIRS) {
    const out = sh('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tarballs], { cwd: join(ROOT, 'packages', dir) });
    const [info] = JSON.parse(out) as Omit<Packed, 'dir'>[];
    packed.push({ dir, ...info! });
  }

  // The project a user starts from: TypeScript and Node types at the versions this repository pins.
  const rootPkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  // The peer dependencies of the tarballs (@opentelemetry/api of @switchboard/otel) are the user's own dependencies,
  // at the version this repository pins.
  // Each is installed from a tarball packed from this workspace's node_modules: offline, npm resolves a peer against
  // a registry version only with that package's registry metadata in its cache, which `npm ci` does not put there.
  const peers = Object.fromEntries(DIRS.flatMap((dir) => Object.keys(peerDependenciesOf(dir))).map((name) => {
    const out = sh('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tarballs, join(ROOT, 'node_modules', name)], { cwd: work });
    const [info] = JSON.parse(out) as { filename: string }[];
    return [name, `file:${join(tarballs, info!.filename)}`];
  }));
  const registryDependencies = { typescript: rootPkg.devDependencies.typescript!, '@types/node': rootPkg.devDependencies['@types/node']! };
  const dependencies = { ...registryDependencies, ...peers };
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'tarball-user', private: true, type: 'module', dependencies }, null, 2));
  const rootLock = (JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> }).packages;
  const lockPackages: Record<string, LockEntry> = { '': { name: 'tarball-user', dependencies: registryDependencies } };
  // TypeScript, @types/node, the peers and the registry dependencies of the tarballs, with everything they depend on.
  const pending = [...Object.keys(registryDependencies), ...DIRS.flatMap((dir) => Object.keys(dependenciesOf(dir)))].filter((n) => !n.startsWith('@switchboard/') && !(n in peers));
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (lockPackages[`node_modules/${name}`] !== undefined) continue;
    const entry = rootLock[`node_modules/${name}`];
    if (entry === undefined) throw new Error(`The root package-lock.json has no top-level entry: "node_modules/${name}"`);
    // The package, the copies of its dependencies nested under it (another version than the top-level one, e.g.
    // a string-width nested under wrap-ansi), and its optional dependencies.
    const prefix = `node_modules/${name}`;
    for (const [key, found] of Object.entries(rootLock)) {
      if (key !== prefix && !key.startsWith(`${prefix}/node_modules/`)) continue;
      const { dev: _dev, devOptional: _devOptional, ...rest } = found;
      lockPackages[key] = rest;
      pending.push(...Object.keys(found.dependencies ?? {}), ...Object.keys(found.optionalDependencies ?? {}));
    }
  }
  writeFileSync(join(app, 'package-lock.json'), JSON.stringify({ name: 'tarball-user', lockfileVersion: 3, requires: true, packages: lockPackages }, null, 2));

  // What the README's "Install" section tells a user to run, plus --offline.
  sh('npm', ['install', '--offline', '--no-audit', '--no-fund', ...packed.map((p) => join(tarballs, p.filename))], { cwd: app });
}, SETUP_TIMEOUT_MS);

afterAll(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

/** The required peer dependencies of a package (an optional one, such as the CLI's gpt-tokenizer, is left out). */
function peerDependenciesOf(dir: string): Record<string, string> {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8')) as { peerDependencies?: Record<string, string>; peerDependenciesMeta?: Record<string, { optional?: boolean }> };
  return Object.fromEntries(Object.entries(manifest.peerDependencies ?? {}).filter(([name]) => manifest.peerDependenciesMeta?.[name]?.optional !== true));
}

function dependenciesOf(dir: string): Record<string, string> {
  return (JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {};
}

describe('the packed tarballs', () => {
  it('hold the licence, the README, dist/ and src/ (and the CLI its report schema), but no build info and no tests', () => {
    for (const p of packed) {
      const paths = p.files.map((f) => f.path);
      expect(paths, p.name).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json']));
      expect(paths.filter((f) => f.startsWith('dist/')).length, p.name).toBeGreaterThan(0);
      expect(paths.filter((f) => f.startsWith('src/')).length, p.name).toBeGreaterThan(0);
      if (p.name === 'switchboard') expect(paths, p.name).toContain('schema/doctor-report.schema.json');
      expect(paths.filter((f) => !/^(LICENSE|README\.md|package\.json|dist\/.+\.(js|js\.map|d\.ts|d\.ts\.map)|src\/.+\.ts|bin\/[^/]+\.js|schema\/[^/]+\.schema\.json|page\/[^/]+\.(html|js|css))$/.test(f)), p.name).toEqual([]);
      expect(paths.filter((f) => /tsbuildinfo|\.test\.ts$|(^|\/)test\//.test(f)), p.name).toEqual([]);
    }
  });

  it('have source maps whose sources are all in the tarball or in the map (declaration maps are not shipped: 417 KB the install budgets need)', () => {
    const broken: string[] = [];
    for (const p of packed) {
      const base = installed(p.name);
      const files = new Set(walk(base));
      for (const file of files) {
        if (/\.(js|d\.ts)$/.test(file)) {
          const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(join(base, file), 'utf8'))?.[1];
          if (url !== undefined && !files.has(join(dirname(file), url).split('\\').join('/'))) broken.push(`${p.name}/${file} maps to missing "${url}"`);
        }
        if (!file.endsWith('.map')) continue;
        const map = JSON.parse(readFileSync(join(base, file), 'utf8')) as { sources: string[]; sourceRoot?: string; sourcesContent?: (string | null)[] };
        map.sources.forEach((source, i) => {
          // An inlined dependency's files (scripts/entries.mjs INLINED) travel in the map itself.
          if (typeof map.sourcesContent?.[i] === 'string') return;
          const target = relative(base, resolve(base, dirname(file), map.sourceRoot ?? '', source)).split('\\').join('/');
          if (!files.has(target)) broken.push(`${p.name}/${file} names missing source "${source}"`);
        });
      }
    }
    expect(broken).toEqual([]);
  });

  it('pass publint (strict: warnings and suggestions count too)', async () => {
    for (const p of packed) {
      const tarball = readFileSync(join(work, 'tarballs', p.filename));
      const { messages, pkg } = await publint({ pack: { tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.byteLength) }, strict: true, level: 'suggestion' });
      expect(messages.map((m) => `${m.type}: ${formatMessage(m, pkg, { color: false }) ?? m.code}`), p.name).toEqual([]);
    }
  });
});

describe('installed from the tarballs into an empty project', () => {
  it('every subpath export imports under node, with the same named exports as in this workspace', async () => {
    const specifiers = ['@switchboard/jsonrpc', '@switchboard/gateway', '@switchboard/otel', '@switchboard/dashboard', '@switchboard/redis', '@switchboard/mcp', '@switchboard/mcp/server', '@switchboard/mcp/client', '@switchboard/mcp/stores', '@switchboard/mcp/stdio', '@switchboard/mcp/http', '@switchboard/mcp/node', '@switchboard/mcp/testing'];
    const script = `
      const out = {};
      for (const spec of ${JSON.stringify(specifiers)}) out[spec] = Object.keys(await import(spec)).sort();
      for (const name of ['@switchboard/jsonrpc', '@switchboard/mcp', '@switchboard/gateway', '@switchboard/otel', '@switchboard/dashboard', '@switchboard/redis', 'switchboard']) {
        out[name + '/package.json'] = (await import(name + '/package.json', { with: { type: 'json' } })).default.version;
      }
      try { await import('@switchboard/mcp/dist/server.js'); out.deep = 'imported'; } catch (e) { out.deep = e.code; }
      process.stdout.write(JSON.stringify(out));`;
    writeFileSync(join(app, 'imports.mjs'), script);
    const got = JSON.parse(sh(process.execPath, ['imports.mjs'], { cwd: app })) as Record<string, string[] | string>;

    for (const spec of specifiers) expect(got[spec], spec).toEqual(Object.keys(await import(spec)).sort());
    expect(got['@switchboard/jsonrpc']).toEqual(expect.arrayContaining(['Dispatcher', 'Peer', 'JsonRpcError', 'parseMessage', 'NdjsonDecoder', 'createMemoryTransportPair']));
    // The root holds what both sides share (revisions, protocol errors); the server and the client have their own entries.
    expect(got['@switchboard/mcp']).toEqual(expect.arrayContaining(['McpError', 'PROTOCOL_REVISIONS', 'LEGACY_REVISIONS', 'createStderrLogger']));
    expect(got['@switchboard/mcp']).not.toContain('McpServer');
    expect(got['@switchboard/mcp/client']).toEqual(expect.arrayContaining(['McpClient', 'streamableHttp', 'ConnectionRefusedError']));
    expect(got['@switchboard/mcp/stores']).toEqual(expect.arrayContaining(['InMemoryEventStore', 'InMemorySessionStore', 'InMemoryTaskStore']));
    expect(got['@switchboard/mcp/server']).toEqual(expect.arrayContaining(['McpServer', 'ToolError']));
    expect(got['@switchboard/mcp/stdio']).toEqual(expect.arrayContaining(['serveStdio', 'StdioServerTransport']));
    expect(got['@switchboard/mcp/http']).toEqual(expect.arrayContaining(['createMcpHttpHandler']));
    expect(got['@switchboard/mcp/http']).not.toContain('InMemoryEventStore');
    expect(got['@switchboard/mcp/http']).not.toContain('serveHttp');
    expect(got['@switchboard/mcp/node']).toEqual(['AddressInUseError', 'DEFAULT_LOOPBACK_TIMEOUT_MS', 'DEFAULT_NODE_FETCH_MAX_SOCKETS', 'createNodeFetch', 'nodeFetch', 'serveHttp', 'startLoopbackRedirect', 'toNodeListener']);
    expect(got['@switchboard/mcp/testing']).toEqual(expect.arrayContaining(['connectRawClient']));
    expect(got['@switchboard/otel']).toEqual(expect.arrayContaining(['clientTelemetry', 'serverTelemetry']));
    expect(got['@switchboard/dashboard']).toEqual(expect.arrayContaining(['createDashboard', 'createProxyAnalytics']));
    expect(got['@switchboard/redis']).toEqual(expect.arrayContaining(['redisStores', 'RedisSessionStore', 'RedisEventStore']));
    expect(got['@switchboard/mcp/testing']).toEqual(expect.arrayContaining(['describeStoreConformance', 'storeConformanceChecks']));
    for (const p of packed) expect(got[`${p.name}/package.json`]).toBe(p.version);
    expect(got.deep).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  it('the README examples type-check with the installed tsc (strict, nodenext) and do what the READMEs say', () => {
    writeFileSync(join(app, 'server.ts'), readmeExample('mcp'));
    const rpc = readmeExample('jsonrpc');
    writeFileSync(join(app, 'rpc.ts'), rpc);
    writeFileSync(join(app, 'mistakes.ts'), USER_MISTAKES);
    const tsc = join(app, 'node_modules', 'typescript', 'bin', 'tsc');
    sh(process.execPath, [tsc, '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--outDir', 'out', 'server.ts', 'rpc.ts', 'mistakes.ts'], { cwd: app });

    // @switchboard/jsonrpc: each console.log prints what the comment under it says.
    const printed = [...rpc.matchAll(/^\/\/ (\{.*\})$/gm)].map((m) => m[1]!);
    expect(printed.length).toBeGreaterThan(0);
    expect(sh(process.execPath, ['out/rpc.js'], { cwd: app, timeout: 10_000 })).toBe(printed.map((line) => `${line}\n`).join(''));

    // @switchboard/mcp: the server answers initialize and calls its tool over stdio, then exits at end of input.

    const input = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } },
    ].map((m) => JSON.stringify(m) + '\n').join('');
    const stdout = sh(process.execPath, ['out/server.js'], { cwd: app, input, timeout: 10_000 });
    expect(stdout.trim().split('\n').map((line) => JSON.parse(line) as unknown)).toEqual([
      { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25', capabilities: { logging: {}, tools: { listChanged: true } }, serverInfo: { name: 'calculator', version: '1.0.0' } } },
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: '5' }] } },
    ]);
  }, SETUP_TIMEOUT_MS);

  it('the switchboard bin runs: --version and revisions', () => {
    const bin = join(app, 'node_modules', '.bin', 'switchboard');
    expect(statSync(bin).isFile()).toBe(true);
    expect(sh(bin, ['--version'], { cwd: app })).toBe(`${packed.find((p) => p.dir === 'cli')!.version}\n`);
    expect(sh(bin, ['revisions', '--json'], { cwd: app })).toBe(`${JSON.stringify(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'].map((revision) => ({ revision, era: revision === '2026-07-28' ? 'modern' : 'legacy' })), null, 2)}\n`);
    // Its dependencies (commander, picocolors) came with it: the output and the help.
    expect(sh(bin, ['explain', '404'], { cwd: app })).toMatch(/^404 Not Found\n/);
  });

  it('the doctor runs without the optional gpt-tokenizer and reports its token estimate as such', () => {
    const bin = join(app, 'node_modules', '.bin', 'switchboard');
    writeFileSync(join(app, 'tiny.mjs'), [
      "import { McpServer } from '@switchboard/mcp/server';",
      "import { serveStdio } from '@switchboard/mcp/stdio';",
      "const server = new McpServer({ name: 'tiny', version: '1.0.0' });",
      "server.tool('add', { description: 'Adds two numbers', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } }, ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));",
      'await serveStdio(server);',
    ].join('\n'));
    const run = spawnSync(bin, ['doctor', '--json', '--', process.execPath, 'tiny.mjs'], { cwd: app, encoding: 'utf8', env: CHILD_ENV, timeout: 45_000 });
    const report = JSON.parse(run.stdout) as { measurements: Record<string, number> };
    expect(report.measurements['tools/list.tokens']).toBeUndefined();
    expect(report.measurements['tools/list.tokensEstimated']).toBeGreaterThan(10);
  }, SETUP_TIMEOUT_MS);
});

/** Bytes of the files of the package installed at `dir`, its own nested `node_modules` left out. */
function ownBytes(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((sum, e) => {
    if (e.name === 'node_modules' && e.isDirectory()) return sum;
    const p = join(dir, e.name);
    return sum + (e.isDirectory() ? ownBytes(p) : statSync(p).size);
  }, 0);
}

/**
 * What installing `name` brings: the package and every package its `dependencies` (and installed optional ones)
 * resolve to, as Node resolves them from each package's folder (nested `node_modules` first, then upwards).
 * Optional peers are not followed: npm does not install them.
 */
function installedClosure(name: string): { readonly packages: readonly string[]; readonly bytes: number } {
  const seen = new Map<string, string>(); // folder → name
  const visit = (dep: string, from: string): void => {
    for (let dir = from; ; dir = dirname(dir)) {
      const candidate = join(dir, 'node_modules', dep);
      if (!dir.endsWith('node_modules') && statSync(candidate, { throwIfNoEntry: false })?.isDirectory() === true) {
        if (seen.has(candidate)) return;
        seen.set(candidate, dep);
        const pkg = JSON.parse(readFileSync(join(candidate, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> };
        for (const next of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) visit(next, candidate);
        return;
      }
      if (dir === app || dirname(dir) === dir) throw new Error(`"${dep}" (needed by ${from}) is not installed`);
    }
  };
  visit(name, app);
  return { packages: [...seen.values()].sort(), bytes: [...seen.keys()].reduce((sum, dir) => sum + ownBytes(dir), 0) };
}

const MiB = 1024 * 1024;

describe('installed size (what `npm install` or `npx switchboard` downloads and unpacks)', () => {
  // The budgets of issue 22: the library stays under 5 MiB, the CLI under 10 MiB (it was 41 MiB in 34 packages,
  // 30 MiB of it gpt-tokenizer with every encoding: now an optional peer, see doctor/checks/primitives/tokenCount.ts).
  it.each([
    ['@switchboard/mcp', 5],
    ['switchboard', 10],
  ] as const)('%s with its dependencies stays within %i MiB', (name, budgetMiB) => {
    const { packages, bytes } = installedClosure(name);
    console.log(`install size ${name}: ${(bytes / MiB).toFixed(1)} MiB in ${packages.length} packages (${packages.join(', ')})`);
    expect(packages).not.toContain('gpt-tokenizer');
    expect(bytes / MiB).toBeLessThanOrEqual(budgetMiB);
  });
});

/** The first ```ts block of a package README (the example a registry reader copies). */
function readmeExample(dir: string): string {
  const code = /```ts\n([\s\S]*?)```/.exec(readFileSync(join(ROOT, 'packages', dir, 'README.md'), 'utf8'))?.[1];
  if (code === undefined) throw new Error(`No \`\`\`ts example in "packages/${dir}/README.md"`);
  return code;
}

/** Mistakes the installed declarations must catch; an unused @ts-expect-error fails the compile. */
const USER_MISTAKES = `// @ts-expect-error serveHttp is in @switchboard/mcp/node, not in the runtime-neutral ./http
import { serveHttp } from '@switchboard/mcp/http';
// @ts-expect-error only the subpaths of "exports" resolve
import { McpServer as Deep } from '@switchboard/mcp/dist/server.js';
import { McpServer } from '@switchboard/mcp/server';

// @ts-expect-error serverInfo needs a version
new McpServer({ name: 'no-version' });
const server = new McpServer({ name: 'ok', version: '1.0.0' });
// @ts-expect-error a content block needs a known type
server.tool('t', {}, async () => ({ content: [{ type: 'txt', text: 'x' }] }));
export { serveHttp, Deep };
`;
