/**
 * The code blocks of docs/guide.md come from files under docs/guide/: a block preceded by
 * `<!-- include: docs/guide/<file>#<region> -->` is that `#region` of the file (dedented, marker lines dropped), and
 * `<!-- include: docs/guide/<file> -->` is the whole file. test/guide.test.ts checks that every block matches.
 *
 *   node scripts/guide-blocks.mjs           # lists the blocks that differ from their source (exit 1 if any)
 *   node scripts/guide-blocks.mjs --write   # rewrites those blocks in docs/guide.md from their source
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const GUIDE = path.join(ROOT, 'docs', 'guide.md');

/**
 * The text of `file` (relative to the repository root), or of its `#region name`.
 * @param {string} file
 * @param {string | undefined} [name]
 * @returns {string}
 * @throws {Error} when the region does not exist or has no `#endregion`
 */
export function excerpt(file, name) {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  if (name === undefined) return text.replace(/\n$/, '');
  const lines = text.split('\n');
  const start = lines.findIndex((line) => new RegExp(`#region ${name}(\\s|$)`).test(line));
  if (start === -1) throw new Error(`No region "${name}" in ${file}`);
  const end = lines.findIndex((line, i) => i > start && /#endregion\b/.test(line));
  if (end === -1) throw new Error(`Region "${name}" in ${file} has no #endregion`);
  const body = lines.slice(start + 1, end).filter((line) => !/#(end)?region\b/.test(line));
  const indent = Math.min(...body.filter((l) => l.trim() !== '').map((l) => (/^ */.exec(l)?.[0] ?? '').length));
  return body.map((l) => l.slice(indent)).join('\n');
}

/**
 * @typedef {object} Block
 * @property {string | undefined} include the marker's target (`docs/guide/file#region`), if the block has one
 * @property {string} lang the fence's info string
 * @property {string} body the block's text
 * @property {number} line 1-based line of the opening fence
 * @property {number} bodyStart 0-based index of the first body line
 * @property {number} bodyEnd 0-based index of the closing fence
 */

/**
 * The fenced code blocks of a Markdown text, each with the include marker on the line above it.
 * @param {string} markdown
 * @returns {Block[]}
 * @throws {Error} on an unclosed block
 */
export function guideBlocks(markdown) {
  const lines = markdown.split('\n');
  /** @type {Block[]} */
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)$/.exec(lines[i] ?? '');
    if (open === null) continue;
    const close = lines.findIndex((l, j) => j > i && l === '```');
    if (close === -1) throw new Error(`guide.md line ${i + 1}: unclosed code block`);
    const marker = /^<!-- include: (\S+) -->$/.exec(lines[i - 1] ?? '');
    blocks.push({ include: marker?.[1], lang: open[1] ?? '', body: lines.slice(i + 1, close).join('\n'), line: i + 1, bodyStart: i + 1, bodyEnd: close });
    i = close;
  }
  return blocks;
}

/**
 * The source text a block must equal.
 * @param {string} include
 * @returns {string}
 */
export function sourceOf(include) {
  const [file, name] = include.split('#');
  return excerpt(file ?? '', name);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const markdown = readFileSync(GUIDE, 'utf8');
  const lines = markdown.split('\n');
  const stale = guideBlocks(markdown).filter((b) => b.include !== undefined && b.body !== sourceOf(b.include));
  for (const b of stale) process.stderr.write(`docs/guide.md line ${b.line}: differs from ${b.include ?? ''}\n`);
  if (process.argv.includes('--write')) {
    for (const b of [...stale].reverse()) lines.splice(b.bodyStart, b.bodyEnd - b.bodyStart, ...sourceOf(b.include ?? '').split('\n'));
    writeFileSync(GUIDE, lines.join('\n'));
    process.stderr.write(`docs/guide.md: ${stale.length} block(s) rewritten\n`);
  } else if (stale.length > 0) {
    process.exitCode = 1;
  }
}
