// What is measured: the servers (one line each) and the scenarios. Adding a server or a row is one line in
// ROWS; everything else (interleaving, ratios, targets, table, chart) follows from these fields:
//   key        unique id (used by --only and in the JSON lines)
//   label      what the table shows
//   transport  'stdio' | 'http'
//   response   HTTP body the server is configured to answer with: 'json' | 'sse' (the client checks it)
//   role       'raw' (the floor of its group) | 'ours' | 'sdk'
//   script     file in bench/servers/, started as `node <script> --stdio | --port 0 <args…>`
//   args       extra server flags
//   targets    for role 'ours': which of the goals apply (see TARGETS below)
//   pending    a reason the row is expected to fail for now: its failures are reported, not counted
//   sessionRow for a 2026-07-28 Switchboard row: the legacy-session row its CPU per request is compared with
//   protocol   '2025-11-25' (default: the legacy era, initialize handshake, a session) or '2026-07-28' (the
//              modern era: no handshake, the `_meta` envelope on every request, on HTTP the request metadata
//              headers too). Rows of each era are grouped, interleaved and compared with the floor of their era.


export const ROWS = [
  // ---------------------------------------------------------------- stdio, legacy era (initialize, then a session)
  { key: 'raw-stdio', label: 'raw floor', transport: 'stdio', role: 'raw', script: 'raw-stdio.js' },
  { key: 'switchboard-stdio', label: 'Switchboard', transport: 'stdio', role: 'ours', script: 'switchboard.js', targets: 'stdio' },
  { key: 'sdk-v1-stdio', label: 'SDK v1', transport: 'stdio', role: 'sdk', script: 'sdk-v1.js' },
  { key: 'sdk-v2-stdio', label: 'SDK v2', transport: 'stdio', role: 'sdk', script: 'sdk-v2.js' },
  { key: 'tmcp-stdio', label: 'tmcp', transport: 'stdio', role: 'sdk', script: 'tmcp.js' },
  // ---------------------------------------------------------------- Streamable HTTP, legacy era, JSON bodies
  { key: 'raw-http-json', label: 'raw floor', transport: 'http', response: 'json', role: 'raw', script: 'raw-http.js', args: ['--response', 'json'] },
  { key: 'switchboard-legacy-json', label: 'Switchboard (legacy session)', transport: 'http', response: 'json', role: 'ours', script: 'switchboard.js', args: ['--response', 'json'], targets: 'http-legacy' },
  // The default responseMode 'auto' with the official clients' Accept (both types): a quick call is answered with JSON.
  { key: 'switchboard-legacy-both', label: 'Switchboard (both media types accepted)', transport: 'http', response: 'json', role: 'ours', script: 'switchboard.js', args: ['--response', 'auto'], targets: 'http-legacy' },
  { key: 'sdk-v1-stateful-json', label: 'SDK v1 stateful', transport: 'http', response: 'json', role: 'sdk', script: 'sdk-v1.js', args: ['--mode', 'stateful', '--response', 'json'] },
  { key: 'sdk-v1-stateless-json', label: 'SDK v1 stateless', transport: 'http', response: 'json', role: 'sdk', script: 'sdk-v1.js', args: ['--mode', 'stateless', '--response', 'json'] },
  { key: 'sdk-v2-stateful-json', label: 'SDK v2 stateful', transport: 'http', response: 'json', role: 'sdk', script: 'sdk-v2.js', args: ['--mode', 'stateful', '--response', 'json'] },
  // ---------------------------------------------------------------- Streamable HTTP, legacy era, SSE bodies
  { key: 'raw-http-sse', label: 'raw floor', transport: 'http', response: 'sse', role: 'raw', script: 'raw-http.js', args: ['--response', 'sse'] },
  { key: 'switchboard-legacy-sse', label: 'Switchboard (legacy session)', transport: 'http', response: 'sse', role: 'ours', script: 'switchboard.js', args: ['--response', 'sse'], targets: 'http-legacy' },
  // the SDK rows keep no SSE event history; this one shows what Switchboard's default resumability costs
  { key: 'switchboard-legacy-sse-nostore', label: 'Switchboard (no event store)', transport: 'http', response: 'sse', role: 'ours', script: 'switchboard.js', args: ['--response', 'sse', '--no-event-store'] },
  { key: 'sdk-v1-stateful-sse', label: 'SDK v1 stateful', transport: 'http', response: 'sse', role: 'sdk', script: 'sdk-v1.js', args: ['--mode', 'stateful', '--response', 'sse'] },
  { key: 'sdk-v2-stateful-sse', label: 'SDK v2 stateful', transport: 'http', response: 'sse', role: 'sdk', script: 'sdk-v2.js', args: ['--mode', 'stateful', '--response', 'sse'] },
  // createMcpHandler serves legacy requests through its stateless legacy leg, which always answers SSE
  // (its responseMode applies to 2026-07-28 exchanges only).
  { key: 'sdk-v2-handler-sse', label: 'SDK v2 createMcpHandler', transport: 'http', response: 'sse', role: 'sdk', script: 'sdk-v2.js', args: ['--mode', 'handler'] },
  // tmcp's HTTP transport answers every request with an SSE body (it has no JSON mode): SSE rows only.
  { key: 'tmcp-sse', label: 'tmcp', transport: 'http', response: 'sse', role: 'sdk', script: 'tmcp.js' },
  // ---------------------------------------------------------------- stdio, modern era (2026-07-28, no session)
  // Every server here is dual-era and serves both eras from the same process; the modern rows never send initialize.
  { key: 'raw-stdio-modern', label: 'raw floor (stateless)', transport: 'stdio', role: 'raw', script: 'raw-stdio.js', protocol: '2026-07-28' },
  { key: 'switchboard-stdio-modern', label: 'Switchboard (2026-07-28)', transport: 'stdio', role: 'ours', script: 'switchboard.js', protocol: '2026-07-28', targets: 'stdio-modern', sessionRow: 'switchboard-stdio' },
  { key: 'sdk-v2-stdio-modern', label: 'SDK v2 serveStdio (2026-07-28)', transport: 'stdio', role: 'sdk', script: 'sdk-v2.js', protocol: '2026-07-28' },
  { key: 'tmcp-stdio-modern', label: 'tmcp (2026-07-28)', transport: 'stdio', role: 'sdk', script: 'tmcp.js', protocol: '2026-07-28' },
  // ---------------------------------------------------------------- Streamable HTTP, modern era, JSON bodies
  { key: 'raw-http-json-modern', label: 'raw floor (stateless)', transport: 'http', response: 'json', role: 'raw', script: 'raw-http.js', args: ['--response', 'json'], protocol: '2026-07-28' },
  { key: 'switchboard-modern-json', label: 'Switchboard (2026-07-28)', transport: 'http', response: 'json', role: 'ours', script: 'switchboard.js', args: ['--response', 'json'], protocol: '2026-07-28', targets: 'http-modern', sessionRow: 'switchboard-legacy-json' },
  { key: 'sdk-v2-handler-modern-json', label: 'SDK v2 createMcpHandler (2026-07-28)', transport: 'http', response: 'json', role: 'sdk', script: 'sdk-v2.js', args: ['--mode', 'handler', '--response', 'json'], protocol: '2026-07-28' },
  // ---------------------------------------------------------------- Streamable HTTP, modern era, SSE bodies
  { key: 'raw-http-sse-modern', label: 'raw floor (stateless)', transport: 'http', response: 'sse', role: 'raw', script: 'raw-http.js', args: ['--response', 'sse'], protocol: '2026-07-28' },
  { key: 'switchboard-modern-sse', label: 'Switchboard (2026-07-28)', transport: 'http', response: 'sse', role: 'ours', script: 'switchboard.js', args: ['--response', 'sse'], protocol: '2026-07-28', targets: 'http-modern', sessionRow: 'switchboard-legacy-sse' },
  { key: 'sdk-v2-handler-modern-sse', label: 'SDK v2 createMcpHandler (2026-07-28)', transport: 'http', response: 'sse', role: 'sdk', script: 'sdk-v2.js', args: ['--mode', 'handler', '--response', 'sse'], protocol: '2026-07-28' },
  { key: 'tmcp-modern-sse', label: 'tmcp (2026-07-28)', transport: 'http', response: 'sse', role: 'sdk', script: 'tmcp.js', protocol: '2026-07-28' },
];

/** The throughput cells: C in flight × text payload bytes, for every row. */
export const CELLS = [
  { concurrency: 1, payloadBytes: 64 },
  { concurrency: 16, payloadBytes: 64 },
  { concurrency: 1, payloadBytes: 16384 },
  { concurrency: 16, payloadBytes: 16384 },
];

/**
 * The issues' goals (issue 21 for the C=16 throughput, the 2026-07-28 cost and the peers), by row `targets` kind.
 * Ratios are Switchboard ÷ raw floor of the same group (transport, body type, era) and cell, except:
 * - `vsFastestPeerMin`: Switchboard's req/s ÷ the fastest peer's (any `sdk` row of the same group and cell);
 * - `cpuVsSessionMax` (2026-07-28 rows): CPU per request ÷ that of the row's `sessionRow` (the legacy-session row of
 *   the same transport and body, same cell, same repetition): a stateless request costs what a session one does.
 * `rssMax` is optional (peak RSS not above today's: the same bound as before).
 */
const C16 = (cell) => cell.concurrency === 16;
export const TARGETS = {
  stdio: { rpsMin: () => 0.8, p99Max: 2, cpuMax: 1.5, rssMax: 1.3, vsFastestPeerMin: 1.5 },
  'http-legacy': { rpsMin: (cell) => (C16(cell) ? 0.8 : 0.6), p99Max: 2, cpuMax: 2, rssMax: 1.3, vsFastestPeerMin: 1.5 },
  'stdio-modern': { rpsMin: () => 0.8, p99Max: 1.5, cpuMax: 1.5, vsFastestPeerMin: 1.5, cpuVsSessionMax: 1.1 },
  'http-modern': { rpsMin: () => 0.8, p99Max: 1.5, cpuMax: 1.5, vsFastestPeerMin: 1.5, cpuVsSessionMax: 1.1 },
};

/** Scenario goals. */
export const SCENARIO_TARGETS = {
  flatnessMin: 0.95, // tools/call with 500 tools ÷ with 1 tool
  idleSessionKibMax: 8, // retained heap per idle legacy session after GC
  inflightMibMax: 64, // 10,000 calls in flight: peak RSS above idle
  coldStartMax: 1.3, // cold start to first response ÷ raw floor
  dispatchMin: 1, // Dispatcher ÷ json-rpc-2.0
};

/** Rows of each scenario (keys from ROWS) and their settings. */
export const SCENARIOS = {
  flatness: {
    rows: ['switchboard-stdio', 'sdk-v1-stdio', 'sdk-v2-stdio', 'tmcp-stdio', 'switchboard-legacy-json', 'sdk-v1-stateful-json', 'sdk-v2-stateful-json', 'sdk-v1-stateless-json', 'sdk-v2-handler-sse', 'tmcp-sse'],
    tools: 500,
    cell: { concurrency: 16, payloadBytes: 64 },
  },
  idleSessions: {
    rows: ['raw-http-json', 'switchboard-legacy-json', 'sdk-v1-stateful-json', 'sdk-v2-stateful-json', 'tmcp-sse'],
    sessions: 1000,
  },
  inflight: {
    // not tmcp: its stdio transport answers legacy requests one at a time (10,000 × the delay)
    rows: ['raw-stdio', 'switchboard-stdio', 'sdk-v1-stdio', 'sdk-v2-stdio'],
    calls: 10000,
    // Switchboard queues past maxConcurrentRequestsPerSession (default 64); lift it so all 10k are held.
    extraArgs: { 'switchboard-stdio': ['--max-concurrent', '20000'] },
  },
  coldStart: {
    rows: ['raw-stdio', 'switchboard-stdio', 'sdk-v1-stdio', 'sdk-v2-stdio', 'tmcp-stdio'],
  },
};

/** Knobs per mode. */
export const MODES = {
  full: { reps: 5, warmupMs: 2000, durationMs: 2000, maxRequests: 2_000_000, flatnessReps: 5, idleSessionReps: 3, inflightReps: 3, inflightDelayMs: 4000, coldStartReps: 7, dispatchRounds: 10, dispatchRoundMs: 400, responses: ['json', 'sse'] },
  // quick: JSON-bodied HTTP rows only, flatness for Switchboard only, 300 idle sessions.
  quick: { reps: 1, warmupMs: 250, durationMs: 600, maxRequests: 500_000, flatnessReps: 1, idleSessionReps: 1, inflightReps: 1, inflightDelayMs: 2000, coldStartReps: 3, dispatchRounds: 4, dispatchRoundMs: 250, responses: ['json'], idleSessions: 300, flatnessRows: ['switchboard-stdio', 'switchboard-legacy-json'] },
  smoke: { reps: 1, warmupMs: 0, durationMs: 0, maxRequests: 12, flatnessReps: 1, idleSessionReps: 1, inflightReps: 1, inflightDelayMs: 200, coldStartReps: 1, dispatchRounds: 1, dispatchRoundMs: 50, responses: ['json', 'sse'], idleSessions: 20, inflightCalls: 200 },
};
