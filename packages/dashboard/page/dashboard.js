// The Switchboard dashboard page: reads the analytics snapshot (api/events, Server-Sent Events read with fetch so
// the token travels in a header; api/analytics when streams are not available) and draws it with Chart.js.
// Plain browser JavaScript, served as written: no build step. Every string from the server (tool names, client
// names, users, messages) is put in the page as text (textContent), never as markup.
'use strict';

(function dashboard() {
  const CLASSES = ['ok', 'tool_error', 'protocol_error', 'refused', 'era_mismatch', 'timeout', 'cancelled', 'transport'];
  const COLORS = {
    ok: '#2e9e5b',
    tool_error: '#e67e22',
    protocol_error: '#c0392b',
    refused: '#8e44ad',
    era_mismatch: '#2f5bd3',
    timeout: '#b7950b',
    cancelled: '#7f8c8d',
    transport: '#6d2e2e',
  };
  const TOKEN_KEY = 'switchboard-dashboard-token';
  const MAX_ROWS = 50;
  const RECENT_ROWS = 12;
  const $ = (id) => document.getElementById(id);
  const state = { token: undefined, renders: 0, controller: undefined, charts: {} };

  // The token: from the address's fragment (never sent to a server), kept for this tab, and taken out of the
  // address bar so that no history entry or copied link holds it.
  function takeToken() {
    const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
    if (match !== null) {
      sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
      history.replaceState(null, '', location.pathname + location.search);
    }
    return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
  }

  function setStatus(text, kind) {
    const el = $('status');
    el.textContent = text;
    el.className = `status ${kind ?? ''}`;
  }

  function askToken(message) {
    $('main').hidden = true;
    $('login').hidden = false;
    $('login-error').textContent = message ?? '';
    setStatus('locked', 'down');
  }

  $('token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const value = $('token-input').value.trim();
    if (value === '') return;
    sessionStorage.setItem(TOKEN_KEY, value);
    $('token-input').value = '';
    start();
  });

  function refusedToken() {
    sessionStorage.removeItem(TOKEN_KEY);
    state.token = undefined;
    askToken('The token was refused (401): check it and try again.');
  }

  // ---- the live feed ----

  async function follow() {
    const controller = new AbortController();
    state.controller = controller;
    let response;
    try {
      response = await fetch('api/events', { headers: { authorization: `Bearer ${state.token}`, accept: 'text/event-stream' }, cache: 'no-store', signal: controller.signal });
    } catch {
      return retry();
    }
    if (response.status === 401) return refusedToken();
    if (!response.ok || response.body === null) {
      // No stream (too many open, or a proxy that buffers): read the JSON every second instead.
      return poll();
    }
    setStatus('live', 'live');
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          onEvent(block);
        }
      }
    } catch {
      // the stream broke: reconnect below
    }
    retry();
  }

  function onEvent(block) {
    let name = 'message';
    const data = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') name = value;
      else if (field === 'data') data.push(value);
    }
    if (name === 'snapshot' && data.length > 0) render(JSON.parse(data.join('\n')));
  }

  function retry() {
    setStatus('reconnecting…', 'down');
    setTimeout(() => void follow(), 1000);
  }

  async function poll() {
    setStatus('live (polling)', 'live');
    for (;;) {
      let response;
      try {
        response = await fetch('api/analytics', { headers: { authorization: `Bearer ${state.token}` }, cache: 'no-store' });
      } catch {
        setStatus('unreachable', 'down');
        await new Promise((resolve) => setTimeout(resolve, 1000));
        continue;
      }
      if (response.status === 401) return refusedToken();
      if (response.ok) render(await response.json());
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  // ---- drawing ----

  // A duration in milliseconds, in the unit that reads best: "0.173 ms", "17 ms", "1.2 s".
  function fmtMs(ms) {
    if (ms === undefined || ms === null) return '–';
    if (ms >= 1000) return `${(ms / 1000).toFixed(ms >= 10_000 ? 0 : 1)} s`;
    if (ms >= 10) return `${ms.toFixed(0)} ms`;
    if (ms >= 1) return `${ms.toFixed(1)} ms`;
    return `${ms.toFixed(3)} ms`;
  }

  // A log axis labelled at the powers of ten only.
  function powerTick(value) {
    return Number.isInteger(Math.log10(value)) ? fmtMs(value) : '';
  }

  function pct(ratio) {
    return `${(ratio * 100).toFixed(ratio > 0 && ratio < 0.1 ? 1 : 0)} %`;
  }

  function cell(tr, text, className) {
    const td = document.createElement('td');
    td.textContent = String(text);
    if (className !== undefined) td.className = className;
    tr.appendChild(td);
    return td;
  }

  // One coloured chip per key: its count (or, for a row of the latest failures, its code; '' for none).
  function chips(td, counts, keys) {
    for (const key of keys) {
      const n = counts[key];
      if (n === undefined || n === 0) continue;
      const span = document.createElement('span');
      span.className = 'chip';
      span.style.background = COLORS[key] ?? '#555';
      span.textContent = n === '' ? key : `${key} ${n}`;
      td.appendChild(span);
    }
  }

  function keyList(td, list, other) {
    const parts = list.map((k) => `${k.key} (${k.failures})`);
    if (other > 0) parts.push(`others (${other})`);
    td.textContent = parts.length === 0 ? '–' : parts.join(', ');
  }

  // The table's rows made anew (at most MAX_ROWS: pass fewer rows for less).
  function fill(tableId, rows, makeRow) {
    const body = $(tableId).tBodies[0];
    const fresh = document.createElement('tbody');
    for (const row of rows.slice(0, MAX_ROWS)) fresh.appendChild(makeRow(row));
    body.replaceWith(fresh);
  }

  function chartOf(id, config) {
    let chart = state.charts[id];
    if (chart === undefined) {
      chart = new window.Chart($(id), config);
      state.charts[id] = chart;
    }
    return chart;
  }

  function timeLabel(iso, bucketMs) {
    const d = new Date(iso);
    const hh = String(d.getHours()).padStart(2, '0');
    const mm = String(d.getMinutes()).padStart(2, '0');
    const ss = String(d.getSeconds()).padStart(2, '0');
    return bucketMs < 60_000 ? `${hh}:${mm}:${ss}` : `${hh}:${mm}`;
  }

  function drawOverTime(overTime) {
    const chart = chartOf('over-time', {
      type: 'bar',
      data: { labels: [], datasets: CLASSES.map((c) => ({ label: c, data: [], backgroundColor: COLORS[c], stack: 'calls' })) },
      options: {
        animation: false,
        maintainAspectRatio: false,
        scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } } },
        plugins: { legend: { position: 'bottom' } },
      },
    });
    chart.data.labels = overTime.buckets.map((b) => timeLabel(b.start, overTime.bucketMs));
    chart.data.datasets.forEach((dataset, i) => {
      dataset.data = overTime.buckets.map((b) => b.classes[CLASSES[i]] ?? 0);
    });
    chart.update('none');
  }

  function drawLatency(tools) {
    const rows = tools.filter((t) => t.latencyMs.p50 !== undefined).slice(0, 20);
    const chart = chartOf('latency', {
      type: 'bar',
      data: {
        labels: [],
        datasets: [
          { label: 'p50', data: [], backgroundColor: '#8fb3f5' },
          { label: 'p95', data: [], backgroundColor: '#2f5bd3' },
          { label: 'p99', data: [], backgroundColor: '#1b2f73' },
        ],
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        scales: { y: { type: 'logarithmic', ticks: { callback: powerTick } } },
        plugins: { legend: { position: 'bottom' } },
      },
    });
    chart.data.labels = rows.map((t) => t.key);
    chart.data.datasets[0].data = rows.map((t) => t.latencyMs.p50);
    chart.data.datasets[1].data = rows.map((t) => t.latencyMs.p95);
    chart.data.datasets[2].data = rows.map((t) => t.latencyMs.p99);
    chart.update('none');
    fill('latency-table', rows, (t) => {
      const tr = document.createElement('tr');
      cell(tr, t.key);
      cell(tr, t.count, 'num');
      cell(tr, fmtMs(t.latencyMs.p50), 'num');
      cell(tr, fmtMs(t.latencyMs.p95), 'num');
      cell(tr, fmtMs(t.latencyMs.p99), 'num');
      return tr;
    });
  }

  function render(snapshot) {
    if (snapshot === null || typeof snapshot !== 'object' || snapshot.version !== 1) return;
    $('login').hidden = true;
    $('main').hidden = false;
    const total = snapshot.total;
    $('kpi-calls').textContent = String(total.count);
    $('kpi-errors').textContent = String(total.errors);
    $('kpi-ratio').textContent = pct(total.errorRatio);
    $('kpi-latency').textContent = total.count === 0 ? '–' : `${fmtMs(total.latencyMs.p50)} / ${fmtMs(total.latencyMs.p95)} / ${fmtMs(total.latencyMs.p99)}`;
    $('kpi-since').textContent = new Date(snapshot.since).toLocaleString();
    $('latency-error').textContent = (snapshot.latencyRelativeError * 100).toFixed(1);

    const classes = document.createElement('ul');
    classes.id = 'classes';
    classes.className = 'classes';
    for (const c of CLASSES) {
      const li = document.createElement('li');
      li.dataset.class = c;
      const name = document.createElement('span');
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = COLORS[c];
      name.appendChild(swatch);
      name.appendChild(document.createTextNode(c));
      const count = document.createElement('span');
      count.className = 'count';
      count.textContent = String(total.classes[c] ?? 0);
      li.appendChild(name);
      li.appendChild(count);
      classes.appendChild(li);
    }
    $('classes').replaceWith(classes);

    drawOverTime(snapshot.overTime);

    const failing = snapshot.byTool.filter((t) => t.errors > 0).sort((a, b) => b.errors - a.errors);
    $('no-failures').hidden = failing.length > 0;
    fill('failing-tools', failing, (t) => {
      const tr = document.createElement('tr');
      tr.dataset.tool = t.key;
      cell(tr, t.key);
      cell(tr, t.count, 'num');
      cell(tr, t.errors, 'num');
      cell(tr, pct(t.errorRatio), 'num');
      chips(cell(tr, ''), t.classes, CLASSES.slice(1));
      keyList(cell(tr, ''), t.failingClients ?? [], t.otherFailingClients ?? 0);
      keyList(cell(tr, ''), t.failingUsers ?? [], t.otherFailingUsers ?? 0);
      return tr;
    });

    drawLatency(snapshot.byTool);

    const recent = snapshot.recentFailures ?? [];
    $('no-recent').hidden = recent.length > 0;
    fill('recent', recent.slice(0, RECENT_ROWS), (f) => {
      const tr = document.createElement('tr');
      cell(tr, timeLabel(f.at, 0), 'time');
      cell(tr, f.tool ?? f.method);
      chips(cell(tr, ''), { [f.class]: f.code ?? '' }, [f.class]);
      cell(tr, f.client ?? '–');
      cell(tr, f.user ?? '–');
      cell(tr, fmtMs(f.durationMs), 'num');
      cell(tr, f.message ?? '', 'message');
      cell(tr, f.traceId ?? '', 'trace');
      return tr;
    });

    const messages = [];
    for (const t of snapshot.byTool) for (const m of t.topMessages ?? []) messages.push({ tool: t.key, message: m.message, count: m.count });
    messages.sort((a, b) => b.count - a.count);
    fill('messages', messages, (m) => {
      const tr = document.createElement('tr');
      cell(tr, m.tool);
      cell(tr, m.message, 'message');
      cell(tr, m.count, 'num');
      return tr;
    });

    const person = (r) => {
      const tr = document.createElement('tr');
      cell(tr, r.key);
      cell(tr, r.count, 'num');
      cell(tr, r.errors, 'num');
      cell(tr, fmtMs(r.latencyMs.p95), 'num');
      return tr;
    };
    fill('clients', snapshot.byClient, person);
    fill('users', snapshot.byUser, person);
    fill('methods', [...snapshot.byMethod, ...snapshot.byRevision.map((r) => ({ ...r, key: `revision ${r.key}` }))], (r) => {
      const tr = document.createElement('tr');
      cell(tr, r.key);
      cell(tr, r.count, 'num');
      cell(tr, r.errors, 'num');
      return tr;
    });

    state.renders++;
    document.body.dataset.renders = String(state.renders);
    document.body.dataset.calls = String(total.count);
  }

  // The dashboard's title (it may name the watched command or URL): only through the token, set as text.
  async function showTitle() {
    try {
      const response = await fetch('api/meta', { headers: { authorization: `Bearer ${state.token}` }, cache: 'no-store' });
      if (!response.ok) return;
      const meta = await response.json();
      if (typeof meta?.title !== 'string') return;
      document.title = meta.title;
      $('title').textContent = meta.title;
    } catch {
      // the generic title stays
    }
  }

  function start() {
    state.token = takeToken();
    if (state.token === undefined) return askToken();
    $('login').hidden = true;
    setStatus('connecting…');
    void showTitle();
    void follow();
  }

  start();
})();
