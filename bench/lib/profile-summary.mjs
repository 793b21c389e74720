// Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time and inclusive time per function,
// grouped by function + file, so "where does the time go" has an answer in text.
//   node bench/lib/profile-summary.mjs <file.cpuprofile> [--top 30] [--filter <substring of url>]
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const file = args[0];
const top = args.includes('--top') ? Number(args[args.indexOf('--top') + 1]) : 30;
const filter = args.includes('--filter') ? args[args.indexOf('--filter') + 1] : undefined;
if (!file) {
  console.error('usage: node bench/lib/profile-summary.mjs <file.cpuprofile> [--top N] [--filter text]');
  process.exit(2);
}
const prof = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children || []) parent.set(c, n.id);
const selfUs = new Map();
const dts = prof.timeDeltas;
for (let i = 0; i < prof.samples.length; i++) {
  const id = prof.samples[i];
  selfUs.set(id, (selfUs.get(id) || 0) + (dts[i] || 0));
}
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const key = (n) => {
  const cf = n.callFrame;
  const url = cf.url.replace(/^file:\/\//, '').replace(/.*node_modules\//, 'nm/').replace(/.*\/packages\//, 'packages/');
  return `${cf.functionName || '(anonymous)'}  ${url}${url ? ':' + (cf.lineNumber + 1) : ''}`;
};
const self = new Map();
const incl = new Map();
for (const [id, us] of selfUs) {
  const n = byId.get(id);
  const k = key(n);
  self.set(k, (self.get(k) || 0) + us);
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const kk = key(byId.get(cur));
    if (seen.has(kk)) continue;
    seen.add(kk);
    incl.set(kk, (incl.get(kk) || 0) + us);
  }
}
const fileSelf = new Map();
for (const [k, us] of self) {
  const f = k.split('  ')[1]?.replace(/:\d+$/, '') || '(native)';
  fileSelf.set(f, (fileSelf.get(f) || 0) + us);
}
const pct = (us) => ((100 * us) / total).toFixed(1).padStart(5) + '%';
const show = (title, m) => {
  console.log(`\n## ${title}`);
  for (const [k, us] of [...m].filter(([k]) => !filter || k.includes(filter)).sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}  ${k}`);
};
console.log(`total sampled: ${(total / 1000).toFixed(0)} ms`);
show('self time by function', self);
show('inclusive time by function', incl);
show('self time by file', fileSelf);
