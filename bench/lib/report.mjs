// Turns one run's JSON lines into the Markdown table (latest.md) and the ratio chart (ratios.svg, drawn
// by vega-lite → vega, headless `view.toSVG()`).
//
// Aggregation: for each cell and server, the median of the repetitions. Ratios to the raw floor (and to
// each SDK) are the median of the per-repetition ratios — every repetition measures all the servers of a
// cell back to back, so pairing by repetition cancels most of the drift of a shared machine — and fall
// back to the ratio of medians when repetitions cannot be paired.
import { readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROWS, TARGETS, SCENARIO_TARGETS } from '../matrix.mjs';

const median = (xs) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (!s.length) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const f = (n, d = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }) : '—');
const r2 = (n) => (Number.isFinite(n) ? n.toFixed(2) : '—');
/** A cell's group: transport, body type and era (rows are compared with the raw floor of their own group). */
const groupOf = (rec) => `${rec.transport === 'stdio' ? 'stdio' : `http-${rec.response}`}${rec.protocol === '2026-07-28' ? '-modern' : ''}`;
const GROUP_TITLES = {
  stdio: 'stdio',
  'http-json': 'HTTP (JSON)',
  'http-sse': 'HTTP (SSE)',
  'stdio-modern': 'stdio 2026-07-28',
  'http-json-modern': 'HTTP (JSON) 2026-07-28',
  'http-sse-modern': 'HTTP (SSE) 2026-07-28',
};
const groupTitle = (g) => GROUP_TITLES[g] ?? g;
const sizeLabel = (b) => (b >= 1024 ? `${b / 1024} KiB` : `${b} B`);
const cellLabel = (g, c) => `${groupTitle(g)} C=${c.concurrency} ${sizeLabel(c.payloadBytes)}`;
const mark = (ok) => (ok ? '✓' : '✗');

/** Median of per-repetition ratios a/b (paired by `rep`); falls back to median(a)/median(b). */
function pairedRatio(aRecs, bRecs, metric) {
  const byRep = new Map(bRecs.map((r) => [r.rep, r[metric]]));
  const ratios = aRecs.filter((r) => byRep.has(r.rep)).map((r) => r[metric] / byRep.get(r.rep));
  if (ratios.length) return median(ratios);
  return median(aRecs.map((r) => r[metric])) / median(bRecs.map((r) => r[metric]));
}

export async function renderReport(file, resultsDir) {
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const meta = lines.find((l) => l.kind === 'meta') || {};
  const recs = lines.filter((l) => l.kind !== 'meta');
  const md = [];
  const chart = [];
  const verdicts = [];
  const target = (what, where, measured, goal, ok) => verdicts.push({ what, where, measured, goal, ok });

  md.push(`Run \`${meta.run ?? ''}\` — ${meta.date ?? ''}, \`${meta.command ?? ''}\`, Node ${meta.node ?? '?'}, ${meta.cpus ?? '?'} × ${meta.cpuModel ?? '?'}, ${meta.memGiB ?? '?'} GiB, Linux ${meta.kernel ?? '?'}, commit ${meta.git || '?'}; load average at start ${Array.isArray(meta.loadavg) ? meta.loadavg.map((x) => x.toFixed(2)).join(' ') : '?'}.`);
  md.push('');

  // ------------------------------------------------------------------------------------- throughput
  const tp = recs.filter((r) => r.kind === 'throughput' && r.ok);
  const tpFailed = recs.filter((r) => r.kind === 'throughput' && !r.ok);
  if (tp.length || tpFailed.length) {
    const reps = Math.max(...tp.map((r) => r.rep + 1), 0);
    md.push(`### tools/call echo — medians of ${reps} interleaved repetition${reps === 1 ? '' : 's'}`);
    md.push('');
    md.push('Ratios are to the raw floor of the same transport and cell (Switchboard rows: goal and ✓/✗ after the ratio).');
    md.push('');
    md.push('| cell | server | req/s | ×raw | p50 ms | p99 ms | p99 ×raw | CPU µs/req | CPU ×raw | peak RSS MiB | RSS ×raw | runs | failed |');
    md.push('|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|');
    const cells = [];
    for (const r of [...tp, ...tpFailed]) {
      const g = groupOf(r);
      const k = `${g}|${r.cell.concurrency}|${r.cell.payloadBytes}`;
      if (!cells.some((c) => c.k === k)) cells.push({ k, g, cell: r.cell });
    }
    const gOrder = Object.keys(GROUP_TITLES);
    cells.sort((a, b) => gOrder.indexOf(a.g) - gOrder.indexOf(b.g) || a.cell.payloadBytes - b.cell.payloadBytes || a.cell.concurrency - b.cell.concurrency);
    const vsSdk = [];
    const vsSession = [];
    for (const { g, cell } of cells) {
      const inCell = (r) => groupOf(r) === g && r.cell.concurrency === cell.concurrency && r.cell.payloadBytes === cell.payloadBytes;
      const ok = tp.filter(inCell);
      const bad = tpFailed.filter(inCell);
      const keys = ROWS.map((r) => r.key).filter((k) => ok.some((r) => r.row === k) || bad.some((r) => r.row === k));
      const raw = ok.filter((r) => r.role === 'raw');
      for (const key of keys) {
        const rs = ok.filter((r) => r.row === key);
        const row = ROWS.find((r) => r.key === key);
        const m = (metric) => median(rs.map((r) => r[metric]));
        const ratio = (metric) => (raw.length && rs.length && row.role !== 'raw' ? pairedRatio(rs, raw, metric) : row.role === 'raw' && rs.length ? 1 : NaN);
        const t = row.targets ? TARGETS[row.targets] : undefined;
        const withGoal = (val, goal, cmp) => {
          if (!t || !Number.isFinite(val)) return r2(val);
          const pass = cmp === '≥' ? val >= goal : val <= goal;
          return `${r2(val)} ${mark(pass)} (${cmp}${goal})`;
        };
        const rpsR = ratio('rps');
        const p99R = ratio('p99Ms');
        const cpuR = ratio('cpuUsPerReq');
        const rssR = ratio('peakRssMiB');
        const label = cellLabel(g, cell);
        if (t && rs.length && raw.length) {
          target(`req/s ÷ raw ≥ ${t.rpsMin(cell)}`, label, rpsR, t.rpsMin(cell), rpsR >= t.rpsMin(cell));
          target(`p99 ÷ raw ≤ ${t.p99Max}`, label, p99R, t.p99Max, p99R <= t.p99Max);
          target(`CPU/req ÷ raw ≤ ${t.cpuMax}`, label, cpuR, t.cpuMax, cpuR <= t.cpuMax);
          if (t.rssMax !== undefined) target(`peak RSS ÷ raw ≤ ${t.rssMax}`, label, rssR, t.rssMax, rssR <= t.rssMax);
        }
        md.push(
          `| ${label} | ${row.label} | ${f(m('rps'))} | ${t ? withGoal(rpsR, t.rpsMin(cell), '≥') : r2(rpsR)} | ${f(m('p50Ms'), 3)} | ${f(m('p99Ms'), 2)} | ${t ? withGoal(p99R, t.p99Max, '≤') : r2(p99R)} | ${f(m('cpuUsPerReq'), 1)} | ${t ? withGoal(cpuR, t.cpuMax, '≤') : r2(cpuR)} | ${f(m('peakRssMiB'), 1)} | ${t && t.rssMax !== undefined ? withGoal(rssR, t.rssMax, '≤') : r2(rssR)} | ${rs.length} | ${bad.filter((r) => r.row === key).length} |`,
        );
        if (row.role !== 'raw' && rs.length) {
          for (const [metric, name] of [['rps', 'req/s ÷ raw'], ['cpuUsPerReq', 'CPU/req ÷ raw'], ['p99Ms', 'p99 ÷ raw'], ['peakRssMiB', 'peak RSS ÷ raw']]) {
            const v = ratio(metric);
            if (Number.isFinite(v)) chart.push({ cell: label, server: row.label.replace(' (legacy session)', ''), metric: name, ratio: v });
          }
        }
        if (row.role === 'ours') {
          // The fastest peer of the cell (highest median req/s) carries the goal; every peer gets its line.
          let fastest;
          for (const sdk of ROWS.filter((x) => x.role === 'sdk' && groupOf(x) === g)) {
            const ss = ok.filter((r) => r.row === sdk.key);
            if (!ss.length || !rs.length) continue;
            if (!fastest || median(ss.map((r) => r.rps)) > median(fastest.ss.map((r) => r.rps))) fastest = { sdk, ss };
          }
          for (const sdk of ROWS.filter((x) => x.role === 'sdk' && groupOf(x) === g)) {
            const ss = ok.filter((r) => r.row === sdk.key);
            if (!ss.length || !rs.length) continue;
            const rr = pairedRatio(rs, ss, 'rps');
            const cr = pairedRatio(ss, rs, 'cpuUsPerReq');
            const goal = fastest?.sdk === sdk ? t?.vsFastestPeerMin : undefined;
            if (goal) target(`req/s ÷ fastest peer (${sdk.label}) ≥ ${goal}`, label, rr, goal, rr >= goal);
            vsSdk.push(`| ${label} | ${row.label} | ${sdk.label} | ${f(median(ss.map((r) => r.rps)))} | ${goal ? `${r2(rr)} ${mark(rr >= goal)} (≥${goal})` : r2(rr)} | ${r2(cr)} | ${r2(pairedRatio(ss, rs, 'peakRssMiB'))} |`);
          }
          // A 2026-07-28 request costs what a session request costs: CPU ÷ the legacy-session row, same cell and repetition.
          const session = row.sessionRow ? tp.filter((r) => r.row === row.sessionRow && r.cell.concurrency === cell.concurrency && r.cell.payloadBytes === cell.payloadBytes) : [];
          if (t?.cpuVsSessionMax && session.length && rs.length) {
            const sr = pairedRatio(rs, session, 'cpuUsPerReq');
            target(`CPU/req ÷ session row ≤ ${t.cpuVsSessionMax}`, label, sr, t.cpuVsSessionMax, sr <= t.cpuVsSessionMax);
            vsSession.push(`| ${label} | ${row.label} | ${f(m('cpuUsPerReq'), 1)} | ${f(median(session.map((r) => r.cpuUsPerReq)), 1)} | ${r2(sr)} ${mark(sr <= t.cpuVsSessionMax)} (≤${t.cpuVsSessionMax}) |`);
          }
        }
      }
    }
    md.push('');
    if (vsSdk.length) {
      md.push('### Switchboard against each SDK (same cell, same run)');
      md.push('');
      md.push('| cell | ours | SDK server | SDK req/s | our req/s ÷ SDK | SDK CPU/req ÷ ours | SDK RSS ÷ ours |');
      md.push('|---|---|---|--:|--:|--:|--:|');
      md.push(...vsSdk);
      md.push('');
    }
    if (vsSession.length) {
      md.push('### 2026-07-28 against the legacy session (CPU per request, same cell, same repetition)');
      md.push('');
      md.push('| cell | row | CPU µs/req | session row CPU µs/req | ÷ session |');
      md.push('|---|---|--:|--:|--:|');
      md.push(...vsSession);
      md.push('');
    }
  }

  // ---------------------------------------------------------------------------------------- flatness
  const fl = recs.filter((r) => r.kind === 'flatness' && r.ok && Number.isFinite(r.rps));
  if (fl.length) {
    md.push(`### Flatness: tools/call with 500 registered tools ÷ with 1 (${cellLabel('stdio', fl[0].cell).replace('stdio ', '')}, interleaved)`);
    md.push('');
    md.push('| server | req/s, 1 tool | req/s, 500 tools | 500 ÷ 1 | CPU µs/req 1 → 500 |');
    md.push('|---|--:|--:|--:|--:|');
    for (const key of ROWS.map((r) => r.key).filter((k) => fl.some((r) => r.row === k))) {
      const row = ROWS.find((r) => r.key === key);
      const one = fl.filter((r) => r.row === key && r.tools === 1);
      const many = fl.filter((r) => r.row === key && r.tools !== 1);
      const ratio = pairedRatio(many, one, 'rps');
      const transport = row.transport === 'stdio' ? 'stdio' : `HTTP ${row.response}`;
      const goal = row.role === 'ours' ? SCENARIO_TARGETS.flatnessMin : undefined;
      if (goal) target(`500 tools ÷ 1 tool ≥ ${goal}`, `${transport}`, ratio, goal, ratio >= goal);
      md.push(`| ${row.label} (${transport}) | ${f(median(one.map((r) => r.rps)))} | ${f(median(many.map((r) => r.rps)))} | ${goal ? `${r2(ratio)} ${mark(ratio >= goal)} (≥${goal})` : r2(ratio)} | ${f(median(one.map((r) => r.cpuUsPerReq)), 1)} → ${f(median(many.map((r) => r.cpuUsPerReq)), 1)} |`);
    }
    md.push('');
  }

  // ----------------------------------------------------------------------------------- idle sessions
  const idle = recs.filter((r) => r.kind === 'idle-sessions' && r.ok);
  if (idle.length) {
    md.push(`### Idle legacy sessions: retained heap per session after GC (${idle[0].sessions} sessions, HTTP)`);
    md.push('');
    md.push('| server | KiB per session (heap + external) | of which JS heap | sessions opened /s | runs |');
    md.push('|---|--:|--:|--:|--:|');
    for (const key of ROWS.map((r) => r.key).filter((k) => idle.some((r) => r.row === k))) {
      const row = ROWS.find((r) => r.key === key);
      const rs = idle.filter((r) => r.row === key);
      const kib = median(rs.map((r) => r.kibPerSession));
      const goal = row.role === 'ours' ? SCENARIO_TARGETS.idleSessionKibMax : undefined;
      if (goal) target(`idle session ≤ ${goal} KiB`, 'HTTP legacy session', kib, goal, kib <= goal);
      md.push(`| ${row.label} | ${goal ? `${f(kib, 2)} ${mark(kib <= goal)} (≤${goal})` : f(kib, 2)} | ${f(median(rs.map((r) => r.heapOnlyKibPerSession)), 2)} | ${f(median(rs.map((r) => r.openSessionsPerSec)))} | ${rs.length} |`);
    }
    md.push('');
  }

  // ---------------------------------------------------------------------------------------- inflight
  const inf = recs.filter((r) => r.kind === 'inflight' && r.ok);
  if (inf.length) {
    md.push(`### ${f(inf[0].calls)} calls in flight on stdio (each held ${f(inf[0].delayMs)} ms): peak RSS above idle`);
    md.push('');
    md.push('| server | idle RSS MiB | peak RSS MiB | above idle MiB | ÷ raw | all held at once | runs |');
    md.push('|---|--:|--:|--:|--:|:-:|--:|');
    const rawInf = inf.filter((r) => r.role === 'raw');
    for (const key of ROWS.map((r) => r.key).filter((k) => inf.some((r) => r.row === k))) {
      const row = ROWS.find((r) => r.key === key);
      const rs = inf.filter((r) => r.row === key);
      const above = median(rs.map((r) => r.aboveIdleMiB));
      const goal = row.role === 'ours' ? SCENARIO_TARGETS.inflightMibMax : undefined;
      if (goal) target(`${f(inf[0].calls)} in flight ≤ ${goal} MiB above idle`, 'stdio', above, goal, above <= goal);
      md.push(`| ${row.label} | ${f(median(rs.map((r) => r.idleRssMiB)), 1)} | ${f(median(rs.map((r) => r.peakRssMiB)), 1)} | ${goal ? `${f(above, 1)} ${mark(above <= goal)} (≤${goal})` : f(above, 1)} | ${rawInf.length ? r2(above / median(rawInf.map((r) => r.aboveIdleMiB))) : '—'} | ${rs.every((r) => r.allInFlightAtOnce) ? 'yes' : 'no'} | ${rs.length} |`);
    }
    md.push('');
  }

  // -------------------------------------------------------------------------------------- cold start
  const cold = recs.filter((r) => r.kind === 'cold-start' && r.ok);
  if (cold.length) {
    const rawCold = cold.filter((r) => r.role === 'raw');
    md.push('### Cold start on stdio: spawn → first response (median of interleaved runs)');
    md.push('');
    md.push('| server | → initialize result ms | → first tools/call result ms | ÷ raw (initialize) | ÷ raw (first call) | runs |');
    md.push('|---|--:|--:|--:|--:|--:|');
    for (const key of ROWS.map((r) => r.key).filter((k) => cold.some((r) => r.row === k))) {
      const row = ROWS.find((r) => r.key === key);
      const rs = cold.filter((r) => r.row === key);
      const ri = rawCold.length ? pairedRatio(rs, rawCold, 'initializeMs') : NaN;
      const rc = rawCold.length ? pairedRatio(rs, rawCold, 'firstCallMs') : NaN;
      const goal = row.role === 'ours' ? SCENARIO_TARGETS.coldStartMax : undefined;
      if (goal) target(`cold start ÷ raw ≤ ${goal}`, 'stdio, to initialize result', ri, goal, ri <= goal);
      md.push(`| ${row.label} | ${f(median(rs.map((r) => r.initializeMs)), 1)} | ${f(median(rs.map((r) => r.firstCallMs)), 1)} | ${goal ? `${r2(ri)} ${mark(ri <= goal)} (≤${goal})` : r2(ri)} | ${r2(rc)} | ${rs.length} |`);
    }
    md.push('');
  }

  // ---------------------------------------------------------------------------------------- dispatch
  const disp = recs.filter((r) => r.kind === 'dispatch' && r.ok);
  if (disp.length) {
    const d = disp[disp.length - 1];
    const sb = d.opsPerSec.switchboard;
    const jr = d.opsPerSec['json-rpc-2.0'];
    const ratio = median(d.samples.switchboard.map((v, i) => v / d.samples['json-rpc-2.0'][i]));
    const goal = SCENARIO_TARGETS.dispatchMin;
    target(`dispatch ÷ json-rpc-2.0 ≥ ${goal}`, 'in-process', ratio, goal, ratio >= goal);
    md.push(`### In-process JSON-RPC dispatch (text in → text out, ${d.payload} B param, median of ${d.rounds} alternating rounds)`);
    md.push('');
    md.push('| engine | calls/s | ÷ json-rpc-2.0 |');
    md.push('|---|--:|--:|');
    md.push(`| @switchboard/jsonrpc Dispatcher | ${f(sb)} | ${r2(ratio)} ${mark(ratio >= goal)} (≥${goal}) |`);
    const raw = d.opsPerSec['switchboard-no-depth-scan'];
    if (raw !== undefined) {
      const scan = median(d.samples.switchboard.map((v, i) => v / d.samples['switchboard-no-depth-scan'][i]));
      md.push(`| @switchboard/jsonrpc Dispatcher without the JSON depth pre-scan | ${f(raw)} | ${r2(median(d.samples['switchboard-no-depth-scan'].map((v, i) => v / d.samples['json-rpc-2.0'][i])))} (with ÷ without: ${r2(scan)}) |`);
    }
    md.push(`| json-rpc-2.0 1.8.1 JSONRPCServer | ${f(jr)} | 1.00 |`);
    md.push('');
  }

  // ------------------------------------------------------------------------------------------ verdicts
  if (verdicts.length) {
    const pass = verdicts.filter((v) => v.ok).length;
    const summary = [];
    summary.push(`### Targets: ${pass} of ${verdicts.length} met`);
    summary.push('');
    summary.push('| goal | where | measured | |');
    summary.push('|---|---|--:|:-:|');
    for (const v of verdicts) summary.push(`| ${v.what} | ${v.where} | ${r2(v.measured)} | ${mark(v.ok)} |`);
    summary.push('');
    md.splice(2, 0, ...summary);
  }

  const failedRecs = recs.filter((r) => r.ok === false);
  if (failedRecs.length) {
    md.push(`### Failed measurements (${failedRecs.length})`);
    md.push('');
    for (const r of failedRecs.slice(0, 30)) md.push(`- ${r.kind} ${r.row}${r.cell ? ` C=${r.cell.concurrency} ${r.cell.payloadBytes} B` : ''}${r.tools ? ` tools=${r.tools}` : ''}: ${String(r.firstFailure).slice(0, 200)}`);
    md.push('');
  }

  const text = md.join('\n');
  writeFileSync(join(resultsDir, 'latest.md'), text + '\n');
  if (chart.length) {
    const svg = await renderChart(chart);
    writeFileSync(join(resultsDir, 'ratios.svg'), svg);
  }
  return { md: text, verdicts };
}

/** Grouped bars of every ratio to the raw floor, one panel per metric (vega-lite → vega → SVG). */
/** Switchboard in reds, SDK v1 in blues, SDK v2 in greens, tmcp in purples, anything else in greys; variants get lighter. */
function palette(servers) {
  const families = [
    [/^Switchboard/, ['#d62728', '#ff7f0e', '#e377c2', '#8c564b', '#ff9896']],
    [/^SDK v1/, ['#1f77b4', '#6baed6', '#9ecae1']],
    [/^SDK v2/, ['#2ca02c', '#74c476', '#a1d99b', '#006d2c', '#bcbd22']],
    [/^tmcp/, ['#6a3d9a', '#9e9ac8']],
    [/./, ['#7f7f7f', '#bdbdbd', '#525252']],
  ];
  const used = new Map();
  return servers.map((s) => {
    const i = families.findIndex(([re]) => re.test(s));
    const n = used.get(i) ?? 0;
    used.set(i, n + 1);
    return families[i][1][n % families[i][1].length];
  });
}

export async function renderChart(data) {
  const cellOrder = [...new Set(data.map((d) => d.cell))];
  const servers = [...new Set(data.map((d) => d.server))].sort((a, b) => (a.startsWith('Switchboard') === b.startsWith('Switchboard') ? a.localeCompare(b) : a.startsWith('Switchboard') ? -1 : 1));
  const vl = await import('vega-lite');
  const vega = await import('vega');
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    data: { values: data },
    facet: { row: { field: 'metric', type: 'nominal', title: null, sort: ['req/s ÷ raw', 'CPU/req ÷ raw', 'p99 ÷ raw', 'peak RSS ÷ raw'], header: { labelAngle: 0, labelAlign: 'left', labelFontWeight: 'bold' } } },
    spec: {
      width: 760,
      height: 150,
      layer: [
        {
          mark: { type: 'bar', tooltip: true },
          encoding: {
            x: { field: 'cell', type: 'nominal', title: null, sort: cellOrder, axis: { labelAngle: -30, labelLimit: 220 } },
            xOffset: { field: 'server', type: 'nominal', sort: servers },
            y: { field: 'ratio', type: 'quantitative', title: '× raw floor (log)', scale: { type: 'log' } },
            y2: { datum: 1 },
            color: { field: 'server', type: 'nominal', title: 'server', sort: servers, scale: { domain: servers, range: palette(servers) }, legend: { labelLimit: 320 } },
          },
        },
        { mark: { type: 'rule', color: '#333', strokeDash: [4, 3] }, encoding: { y: { datum: 1 } } },
      ],
    },
    resolve: { scale: { y: 'independent' } },
    title: { text: 'Each server ÷ the raw floor of its transport, same cell, same run (bars start at 1 = raw floor; log scale)', anchor: 'start' },
    config: { font: 'sans-serif', view: { stroke: null } },
  };
  const compiled = vl.compile(spec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

/** Replaces the text between the results markers of a Markdown file. */
function replaceResults(readme, chartPath, md) {
  const text = readFileSync(readme, 'utf8');
  const start = '<!-- bench:results:start -->';
  const end = '<!-- bench:results:end -->';
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a === -1 || b === -1) throw new Error(`${readme} has no results markers`);
  const body = `${start}\n\n![ratios to the raw floor](${chartPath})\n\n${md}\n${end}`;
  writeFileSync(readme, text.slice(0, a) + body + text.slice(b + end.length));
}

/** Rewrites the results sections of bench/README.md and of the project README, and copies the chart. */
export function updateReadme(benchDir, resultsDir, md) {
  replaceResults(join(benchDir, 'README.md'), 'ratios.svg', md);
  replaceResults(join(benchDir, '..', 'README.md'), 'bench/ratios.svg', md);
  try {
    copyFileSync(join(resultsDir, 'ratios.svg'), join(benchDir, 'ratios.svg'));
  } catch {
    /* no chart in this run */
  }
}
