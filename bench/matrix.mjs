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
//   protocol   '2025-11-25' (default: initialize handshake, legacy session) or '2026-07-28' (HTTP only: no
//              handshake, per-request envelope); the 2026-07-28 rows join once Switchboard serves that era.

export const ROWS = [
  // ---------------------------------------------------------------- stdio
  { key: 'raw-stdio', label: 'raw floor', transport: 'stdio', role: 'raw', script: 'raw-stdio.js' },
  { key: 'switchboard-stdio', label: 'Switchboard', transport: 'stdio', role: 'ours', script: 'switchboard.js', targets: 'stdio' },
  { key: 'sdk-v1-stdio', label: 'SDK v1', transport: 'stdio', role: 'sdk', script: 'sdk-v1.js' },
  { key: 'sdk-v2-stdio', label: 'SDK v2', transport: 'stdio', role: 'sdk', script: 'sdk-v2.js' },
  // ---------------------------------------------------------------- Streamable HTTP, JSON bodies
  { key: 'raw-http-json', label: 'raw floor', transport: 'http', response: 'json', role: 'raw', script: 'raw-http.js', args: ['--response', 'json'] },
  { key: 'switchboard-legacy-json', label: 'Switchboard (legacy session)', transport: 'http', response: 'json', role: 'ours', script: 'switchboard.js', args: ['--response', 'json'], targets: 'http-legacy' },
  // The default responseMode 'auto' with the official clients' Accept (both types): a quick call is answered with JSON.
  { key: 'switchboard-legacy-both', label: 'Switchboard (both media types accepted)', transport: 'http', response: 'json', role: 'ours', script: 'switchboard.js', args: ['--response', 'auto'], targets: 'http-legacy' },
  { key: 'sdk-v1-stateful-json', label: 'SDK v1 stateful', transport: 'http', response: 'json', role: 'sdk', script: 'sdk-v1.js', args: ['--mode', 'stateful', '--response', 'json'] },
  { key: 'sdk-v1-stateless-json', label: 'SDK v1 stateless', transport: 'http', response: 'json', role: 'sdk', script: 'sdk-v1.js', args: ['--mode', 'stateless', '--response', 'json'] },
  { key: 'sdk-v2-stateful-json', label: 'SDK v2 stateful', transport: 'http', response: 'json', role: 'sdk', script: 'sdk-v2.js', args: ['--mode', 'stateful', '--response', 'json'] },
  // ---------------------------------------------------------------- Streamable HTTP, SSE bodies
  { key: 'raw-http-sse', label: 'raw floor', transport: 'http', response: 'sse', role: 'raw', script: 'raw-http.js', args: ['--response', 'sse'] },
  { key: 'switchboard-legacy-sse', label: 'Switchboard (legacy session)', transport: 'http', response: 'sse', role: 'ours', script: 'switchboard.js', args: ['--response', 'sse'], targets: 'http-legacy' },
  // the SDK rows keep no SSE event history; this one shows what Switchboard's default resumability costs
  { key: 'switchboard-legacy-sse-nostore', label: 'Switchboard (no event store)', transport: 'http', response: 'sse', role: 'ours', script: 'switchboard.js', args: ['--response', 'sse', '--no-event-store'] },
  { key: 'sdk-v1-stateful-sse', label: 'SDK v1 stateful', transport: 'http', response: 'sse', role: 'sdk', script: 'sdk-v1.js', args: ['--mode', 'stateful', '--response', 'sse'] },
  { key: 'sdk-v2-stateful-sse', label: 'SDK v2 stateful', transport: 'http', response: 'sse', role: 'sdk', script: 'sdk-v2.js', args: ['--mode', 'stateful', '--response', 'sse'] },
  // createMcpHandler serves 2025-era requests through its stateless legacy leg, which always answers SSE
  // (its responseMode applies to 2026-07-28 exchanges only).
  { key: 'sdk-v2-handler-sse', label: 'SDK v2 createMcpHandler', transport: 'http', response: 'sse', role: 'sdk', script: 'sdk-v2.js', args: ['--mode', 'handler'] },
  // ---------------------------------------------------------------- 2026-07-28 stateless (when Switchboard has it):
  // the load generator already speaks it (protocol '2026-07-28': no initialize, `_meta` envelope on every
  // request, MCP-Protocol-Version / Mcp-Method / Mcp-Name headers); SDK v2's createMcpHandler answers it.
  // { key: 'switchboard-stateless-json', label: 'Switchboard (2026-07-28 stateless)', transport: 'http', response: 'json', role: 'ours', script: 'switchboard.js', args: ['--response', 'json'], protocol: '2026-07-28', targets: 'http-stateless' },
  // { key: 'sdk-v2-handler-modern-json', label: 'SDK v2 createMcpHandler (2026-07-28)', transport: 'http', response: 'json', role: 'sdk', script: 'sdk-v2.js', args: ['--mode', 'handler', '--response', 'json'], protocol: '2026-07-28' },
];

/** The throughput cells: C in flight × text payload bytes, for every row. */
export const CELLS = [
  { concurrency: 1, payloadBytes: 64 },
  { concurrency: 16, payloadBytes: 64 },
  { concurrency: 1, payloadBytes: 16384 },
  { concurrency: 16, payloadBytes: 16384 },
];

/** The goals, by row `targets` kind. Ratios are Switchboard ÷ raw floor of the same group and cell. */
export const TARGETS = {
  stdio: {
    rpsMin: (cell) => (cell.concurrency === 1 ? 0.8 : 0.75),
    p99Max: 2,
    cpuMax: 1.5,
    rssMax: 1.3,
    vsSdkMin: { 'sdk-v1-stdio': 2, 'sdk-v2-stdio': 2.5 },
  },
  'http-legacy': { rpsMin: () => 0.6, p99Max: 2, cpuMax: 2, rssMax: 1.3, vsSdkMin: {} },
  'http-stateless': { rpsMin: () => 0.6, p99Max: 2, cpuMax: 2, rssMax: 1.3, vsSdkMin: { 'sdk-v2-handler-modern-json': 5 } },
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
    rows: ['switchboard-stdio', 'sdk-v1-stdio', 'sdk-v2-stdio', 'switchboard-legacy-json', 'sdk-v1-stateful-json', 'sdk-v2-stateful-json', 'sdk-v1-stateless-json', 'sdk-v2-handler-sse'],
    tools: 500,
    cell: { concurrency: 16, payloadBytes: 64 },
  },
  idleSessions: {
    rows: ['raw-http-json', 'switchboard-legacy-json', 'sdk-v1-stateful-json', 'sdk-v2-stateful-json'],
    sessions: 1000,
  },
  inflight: {
    rows: ['raw-stdio', 'switchboard-stdio', 'sdk-v1-stdio', 'sdk-v2-stdio'],
    calls: 10000,
    // Switchboard queues past maxConcurrentRequestsPerSession (default 64); lift it so all 10k are held.
    extraArgs: { 'switchboard-stdio': ['--max-concurrent', '20000'] },
  },
  coldStart: {
    rows: ['raw-stdio', 'switchboard-stdio', 'sdk-v1-stdio', 'sdk-v2-stdio'],
  },
};

/** Knobs per mode. */
export const MODES = {
  full: { reps: 5, warmupMs: 2000, durationMs: 2000, maxRequests: 2_000_000, flatnessReps: 5, idleSessionReps: 3, inflightReps: 3, inflightDelayMs: 4000, coldStartReps: 7, dispatchRounds: 10, dispatchRoundMs: 400, responses: ['json', 'sse'] },
  // quick: JSON-bodied HTTP rows only, flatness for Switchboard only, 300 idle sessions.
  quick: { reps: 1, warmupMs: 250, durationMs: 600, maxRequests: 500_000, flatnessReps: 1, idleSessionReps: 1, inflightReps: 1, inflightDelayMs: 2000, coldStartReps: 3, dispatchRounds: 4, dispatchRoundMs: 250, responses: ['json'], idleSessions: 300, flatnessRows: ['switchboard-stdio', 'switchboard-legacy-json'] },
  smoke: { reps: 1, warmupMs: 0, durationMs: 0, maxRequests: 12, flatnessReps: 1, idleSessionReps: 1, inflightReps: 1, inflightDelayMs: 200, coldStartReps: 1, dispatchRounds: 1, dispatchRoundMs: 50, responses: ['json', 'sse'], idleSessions: 20, inflightCalls: 200 },
};
