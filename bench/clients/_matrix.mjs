// What the client benchmark measures: the clients (one line each), the cells, the goals and the knobs per
// mode. Adding a client is one line in CLIENT_ROWS and one adapter file beside this one.

/**
 * `role`: `raw` is the floor every ratio is taken to (the hand-written client on node:http or stdio pipes);
 * `ours` carries the goals (each such row on its own); `sdk` is compared with; `info` is shown but neither a floor nor a goal.
 */
export const CLIENT_ROWS = [
  { key: 'raw', label: 'raw client', role: 'raw', script: 'raw.mjs', transports: ['stdio', 'http'] },
  // the same hand-written client, POSTing through globalThis.fetch (undici) as the libraries below do
  { key: 'raw-fetch', label: 'raw client (fetch)', role: 'info', script: 'raw.mjs', args: ['--stack', 'fetch'], transports: ['http'] },
  { key: 'switchboard', label: 'Switchboard McpClient', role: 'ours', script: 'switchboard.mjs', transports: ['stdio', 'http'], needs: '@switchboard/mcp/client' },
  // the same client handed `globalThis.fetch` (undici) explicitly: what the default was before it became nodeFetch on Node
  { key: 'switchboard-globalfetch', label: 'Switchboard McpClient + globalThis.fetch', role: 'info', script: 'switchboard.mjs', args: ['--fetch', 'global'], transports: ['http'] },
  { key: 'sdk-v1', label: 'SDK v1 Client', role: 'sdk', script: 'sdk-v1.mjs', transports: ['stdio', 'http'] },
  { key: 'sdk-v2', label: 'SDK v2 Client', role: 'sdk', script: 'sdk-v2.mjs', transports: ['stdio', 'http'] },
];

/** The raw floor servers every client talks to (bench/servers/), legacy session era. */
export const SERVERS = { stdio: 'raw-stdio.js', http: 'raw-http.js' };

/** Cells: transport × calls in flight; one echo call of `payloadBytes` of text each. */
export const CLIENT_CELLS = [
  { transport: 'stdio', concurrency: 1, payloadBytes: 64 },
  { transport: 'stdio', concurrency: 16, payloadBytes: 64 },
  { transport: 'http', concurrency: 1, payloadBytes: 64 },
  { transport: 'http', concurrency: 16, payloadBytes: 64 },
];

/** Goals on client CPU per call, same cell and repetition: ours ÷ raw floor, ours ÷ each SDK client. */
export const CLIENT_TARGETS = { cpuVsRawMax: 1.3, cpuVsSdkMax: { 'sdk-v1': 0.5, 'sdk-v2': 0.5 } };

/** Knobs per mode. */
export const CLIENT_MODES = {
  // 5 s of warm-up: with `--trace-opt`, TurboFan still compiles the raw client and McpClient 2–4 s into a run at C=1
  // over stdio (46 and 64 optimizations, on its background thread, whose CPU the window would count), none after 6 s.
  full: { reps: 5, warmupMs: 5000, durationMs: 3000, maxCalls: 2_000_000 },
  quick: { reps: 1, warmupMs: 500, durationMs: 1000, maxCalls: 500_000 },
  // smoke: one process per client and transport, `smokeCalls` checked calls at C=1 then at C=16
  smoke: { reps: 1, smokeCalls: 32 },
};
