// Turns one client-benchmark run (JSON lines) into Markdown: the goals first, then one table per cell.
//
// Per client and cell, the median of the repetitions; every ratio is the median of the per-repetition
// ratios (each repetition runs every client of a cell back to back, in a rotated order), which cancels most
// of a shared machine's drift; it falls back to the ratio of medians when repetitions cannot be paired.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_ROWS, CLIENT_TARGETS } from './_matrix.mjs';

const median = (xs) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (!s.length) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const f = (n, d = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }) : '—');
const r2 = (n) => (Number.isFinite(n) ? n.toFixed(2) : '—');
const cellKey = (c) => `${c.transport}|${c.concurrency}|${c.payloadBytes}`;
const cellLabel = (c) => `${c.transport === 'http' ? 'HTTP' : 'stdio'} C=${c.concurrency} ${c.payloadBytes >= 1024 ? `${c.payloadBytes / 1024} KiB` : `${c.payloadBytes} B`}`;

/** Median of per-repetition ratios a/b (paired by `rep`), else median(a) / median(b). */
function pairedRatio(aRecs, bRecs, metric) {
  const byRep = new Map(bRecs.map((r) => [r.rep, r[metric]]));
  const ratios = aRecs.filter((r) => byRep.has(r.rep)).map((r) => r[metric] / byRep.get(r.rep));
  if (ratios.length) return median(ratios);
  return median(aRecs.map((r) => r[metric])) / median(bRecs.map((r) => r[metric]));
}

/** Markdown of the run in `file`; also written to `<resultsDir>/client-latest.md`. */
export function renderClientReport(file, resultsDir) {
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const meta = lines.find((l) => l.kind === 'meta') ?? {};
  const recs = lines.filter((l) => l.kind === 'client');
  const ok = recs.filter((r) => r.ok);
  const md = [];
  md.push(`Run \`${meta.run ?? ''}\` — ${meta.date ?? ''}, \`${meta.command ?? ''}\`, Node ${meta.node ?? '?'}, ${meta.cpus ?? '?'} × ${meta.cpuModel ?? '?'}, Linux ${meta.kernel ?? '?'}, commit ${meta.git || '?'}; load average at start ${Array.isArray(meta.loadavg) ? meta.loadavg.map((x) => x.toFixed(2)).join(' ') : '?'}, at end ${Array.isArray(meta.loadavgEnd) ? meta.loadavgEnd.map((x) => x.toFixed(2)).join(' ') : '?'}.`);
  md.push('');

  const cells = [];
  for (const r of recs) if (!cells.some((c) => cellKey(c) === cellKey(r.cell))) cells.push(r.cell);
  const verdicts = [];
  const tables = [];
  for (const cell of cells) {
    const inCell = (r) => cellKey(r.cell) === cellKey(cell);
    const good = ok.filter(inCell);
    const raw = good.filter((r) => r.role === 'raw');
    const of = (key) => good.filter((r) => r.row === key);
    const t = [];
    t.push(`#### ${cellLabel(cell)}`);
    t.push('');
    t.push('| client | calls/s | calls/s ×raw | p50 ms | p99 ms | client CPU µs/call | CPU ×raw | CPU ×raw (fetch) | CPU ÷ SDK v1 | CPU ÷ SDK v2 | server CPU µs/call | client peak RSS MiB | runs | failed |');
    t.push('|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|');
    for (const row of CLIENT_ROWS) {
      const mine = of(row.key);
      const failed = recs.filter((r) => inCell(r) && r.row === row.key && !r.ok);
      if (!mine.length && !failed.length) continue;
      const cpu = median(mine.map((r) => r.cpuUsPerCall));
      const cpuRaw = raw.length && mine.length ? pairedRatio(mine, raw, 'cpuUsPerCall') : NaN;
      const rpsRaw = raw.length && mine.length ? pairedRatio(mine, raw, 'callsPerSec') : NaN;
      const vs = (key) => (of(key).length && mine.length ? pairedRatio(mine, of(key), 'cpuUsPerCall') : NaN);
      const goal = (value, max) => {
        if (row.role !== 'ours' || !Number.isFinite(value)) return r2(value);
        return `${r2(value)} ${value <= max ? '✓' : '✗'} (≤${max})`;
      };
      if (row.role === 'ours') {
        const where = cellLabel(cell);
        if (mine.length) {
          verdicts.push({ goal: `${row.label}: client CPU/call ÷ raw ≤ ${CLIENT_TARGETS.cpuVsRawMax}`, where, value: cpuRaw, ok: cpuRaw <= CLIENT_TARGETS.cpuVsRawMax });
          for (const [key, max] of Object.entries(CLIENT_TARGETS.cpuVsSdkMax)) {
            const label = CLIENT_ROWS.find((r) => r.key === key)?.label ?? key;
            verdicts.push({ goal: `${row.label}: client CPU/call ÷ ${label} ≤ ${max}`, where, value: vs(key), ok: vs(key) <= max });
          }
        } else verdicts.push({ goal: `${row.label}: every measurement succeeds`, where, value: NaN, ok: false });
      }
      const sdkCell = (key) => (row.role === 'sdk' && row.key === key ? '1.00' : goal(vs(key), CLIENT_TARGETS.cpuVsSdkMax[key]));
      t.push(
        `| ${row.label} | ${f(median(mine.map((r) => r.callsPerSec)))} | ${r2(rpsRaw)} | ${f(median(mine.map((r) => r.p50Ms)), 3)} | ${f(median(mine.map((r) => r.p99Ms)), 3)} | ${f(cpu, 1)} | ${goal(cpuRaw, CLIENT_TARGETS.cpuVsRawMax)} | ${r2(vs('raw-fetch'))} | ${sdkCell('sdk-v1')} | ${sdkCell('sdk-v2')} | ${f(median(mine.map((r) => r.serverCpuUsPerCall)), 1)} | ${f(median(mine.map((r) => r.clientPeakRssMiB)), 1)} | ${mine.length} | ${failed.length} |`,
      );
    }
    t.push('');
    tables.push(...t);
  }
  if (verdicts.length) {
    md.push(`#### Goals: ${verdicts.filter((v) => v.ok).length} of ${verdicts.length} met`);
    md.push('');
    md.push('| goal | cell | measured | |');
    md.push('|---|---|--:|:-:|');
    for (const v of verdicts) md.push(`| ${v.goal} | ${v.where} | ${r2(v.value)} | ${v.ok ? '✓' : '✗'} |`);
    md.push('');
  }
  md.push(...tables);
  const failures = recs.filter((r) => !r.ok);
  if (failures.length) {
    md.push('Failed measurements:');
    md.push('');
    for (const r of failures) md.push(`- ${r.row} ${cellLabel(r.cell)} rep ${r.rep + 1}: ${String(r.firstFailure).slice(0, 300)}`);
    md.push('');
  }
  const text = md.join('\n');
  writeFileSync(join(resultsDir, 'client-latest.md'), text + '\n');
  return text;
}

/** Replaces the text between the client-results markers of bench/README.md. */
export function updateClientReadme(readmePath, md) {
  const start = '<!-- bench:client:start -->';
  const end = '<!-- bench:client:end -->';
  const text = readFileSync(readmePath, 'utf8');
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i === -1 || j < i) throw new Error(`${readmePath} has no ${start} … ${end} section`);
  writeFileSync(readmePath, `${text.slice(0, i + start.length)}\n\n${md}\n\n${text.slice(j)}`);
}
