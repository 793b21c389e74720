/**
 * The repository is hermetic: a user's clone holds only the files in git, so nothing may point at documents
 * beside the checkout, every field-bug id the sources cite (`B30`) has its entry in docs/field-bugs.md, and
 * every test an entry names exists under that title. `.ci/run` proves the same from the other side: it runs
 * `npm test` in a fresh clone with no sibling folders.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIELD_BUGS = 'docs/field-bugs.md';

// Assembled from parts so that this file does not contain the strings it looks for.
const SIBLING = ['sha', 'red'].join('');
const FORBIDDEN = [`../${SIBLING}`, `/work/${SIBLING}`, `${SIBLING}/reference`, `${SIBLING}/design`];

/** Files where a field-bug id is a citation: sources, tests, scripts and docs (not lockfiles, data or images). */
const CITING = /\.(?:ts|mts|cts|js|mjs|cjs|md|sh)$|^\.ci\/run$/;

const ID = /\bB\d{2}\b/g;

/** Tracked files plus new ones not ignored yet, so the test also speaks up before a commit. */
function repoFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  return [...new Set(out.split('\0').filter((f) => f !== ''))].filter((f) => existsSync(join(ROOT, f)));
}

/** The file's text, or undefined for a binary file (a NUL byte in its first 8 KiB). */
function textOf(file: string): string | undefined {
  const bytes = readFileSync(join(ROOT, file));
  return bytes.subarray(0, 8192).includes(0) ? undefined : bytes.toString('utf8');
}

interface Entry { readonly id: string; readonly line: number; readonly tests: { readonly file: string; readonly title: string; readonly line: number }[] }

/** Entries of docs/field-bugs.md: `### B42: title` headings, each with its `` - `file`: test title `` lines. */
function entries(): Entry[] {
  const out: { id: string; line: number; tests: Entry['tests'][number][] }[] = [];
  readFileSync(join(ROOT, FIELD_BUGS), 'utf8').split('\n').forEach((text, i) => {
    const heading = /^### (B\d{2}): \S/.exec(text);
    if (heading) {
      out.push({ id: heading[1]!, line: i + 1, tests: [] });
      return;
    }
    const test = /^\s*- `([^`]+\.test\.[cm]?[jt]s)`: (.+)$/.exec(text);
    if (test && out.length > 0) out[out.length - 1]!.tests.push({ file: test[1]!, title: test[2]!.trim(), line: i + 1 });
  });
  return out;
}

/** Titles of `describe`/`it`/`test` calls (with `.skip`, `.each(...)` and the like) in a test file, unescaped. */
function testTitles(text: string): string[] {
  const call = /\b(?:describe|it|test)(?:\.\w+(?:\([^)]*\))?)*\(\s*(['"`])((?:\\.|(?!\1)[^\\])*)\1/g;
  return [...text.matchAll(call)].map((m) => m[2]!.replace(/\\(.)/g, '$1'));
}

describe('hermetic repository', () => {
  it('no file in the repository points at documents outside the checkout', () => {
    const bad: string[] = [];
    for (const file of repoFiles()) {
      const text = textOf(file);
      if (text === undefined) continue;
      text.split('\n').forEach((line, i) => {
        for (const s of FORBIDDEN) if (line.includes(s)) bad.push(`${file}:${i + 1} contains "${s}": ${line.trim().slice(0, 120)}`);
      });
    }
    expect(bad).toEqual([]);
  });

  it(`every field-bug id cited in sources, tests and docs has a heading in ${FIELD_BUGS}`, () => {
    const defined = new Set(entries().map((e) => e.id));
    const cited = new Map<string, string[]>();
    for (const file of repoFiles()) {
      if (!CITING.test(file)) continue;
      const text = textOf(file);
      if (text === undefined) continue;
      text.split('\n').forEach((line, i) => {
        for (const [id] of line.matchAll(ID)) cited.set(id, [...(cited.get(id) ?? []), `${file}:${i + 1}`]);
      });
    }
    expect(cited.size).toBeGreaterThan(0);
    const missing = [...cited].filter(([id]) => !defined.has(id))
      .map(([id, where]) => `${id} (cited at ${where.slice(0, 3).join(', ')}) has no "### ${id}: ..." heading in ${FIELD_BUGS}`);
    expect(missing).toEqual([]);
  });

  it(`each entry of ${FIELD_BUGS} is unique and names tests that exist under that title`, () => {
    const all = entries();
    expect(all.length).toBeGreaterThan(0);
    const bad: string[] = [];
    const seen = new Set<string>();
    const titles = new Map<string, string[]>();
    for (const e of all) {
      if (seen.has(e.id)) bad.push(`${FIELD_BUGS}:${e.line}: ${e.id} has a second entry`);
      seen.add(e.id);
      if (e.tests.length === 0) bad.push(`${FIELD_BUGS}:${e.line}: ${e.id} names no test`);
      for (const t of e.tests) {
        const where = `${FIELD_BUGS}:${t.line} (${e.id})`;
        if (!existsSync(join(ROOT, t.file))) {
          bad.push(`${where}: test file "${t.file}" does not exist`);
          continue;
        }
        if (!titles.has(t.file)) titles.set(t.file, testTitles(readFileSync(join(ROOT, t.file), 'utf8')));
        if (!titles.get(t.file)!.some((title) => title.includes(t.title))) bad.push(`${where}: no test titled "${t.title}" in ${t.file}`);
      }
    }
    expect(bad).toEqual([]);
  });
});
