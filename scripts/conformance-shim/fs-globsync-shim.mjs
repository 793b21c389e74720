// node:fs plus a minimal `globSync("**/<name>", { cwd })`, the only form the suite uses (tier-check only).
import fs from 'node:fs';
import path from 'node:path';

export * from 'node:fs';
export default fs;

/**
 * @param {string} pattern `**\/<file name>`
 * @param {{ cwd?: string }} [opts]
 * @returns {string[]} matching paths relative to `cwd`
 */
export function globSync(pattern, opts = {}) {
  const cwd = opts.cwd ?? process.cwd();
  const base = pattern.replace(/^\*\*\//, '');
  /** @type {string[]} */
  const out = [];
  /** @param {string} dir */
  const walk = (dir) => {
    for (const e of fs.readdirSync(path.join(cwd, dir), { withFileTypes: true })) {
      const rel = dir ? path.join(dir, e.name) : e.name;
      if (e.isDirectory()) walk(rel); else if (e.name === base) out.push(rel);
    }
  };
  walk('');
  return out;
}
