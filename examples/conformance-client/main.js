#!/usr/bin/env node
// @ts-check
/**
 * The client the MCP conformance suite drives in client mode, written on the public `@switchboard/mcp/client` API
 * the way an application would use it.
 *
 *   node examples/conformance-client/main.js <server-url>
 *
 * The suite passes the scenario in `MCP_CONFORMANCE_SCENARIO`, the revision to speak in
 * `MCP_CONFORMANCE_PROTOCOL_VERSION` (the client is pinned to it: no probing) and, for some scenarios, a JSON
 * context in `MCP_CONFORMANCE_CONTEXT`. Each scenario is a few calls (see `scenarios.js`); the `auth/*` ones sign in
 * with `oauth()` when the server answers 401 (the context carries pre-registered credentials for some), list the
 * tools and call `test-tool`; a scenario this file does not know connects, lists the tools and closes.
 *
 * Exit code 0 when the scenario's calls all succeeded, 1 otherwise (the error on stderr), 2 on bad usage, 3 when
 * the whole run took longer than `RUN_DEADLINE_MS` (so no client outlives the suite), 4 when something was still
 * holding the process `LINGER_MS` after `close()` (a handle the client left open). Progress goes to stderr.
 */
import { McpClient, streamableHttp } from '@switchboard/mcp/client';
import { log, scenarioFor } from './scenarios.js';

/** The whole run's bound, in ms: below the per-scenario timeout the runner gives the suite (45 s), so the suite sees an exit. */
const RUN_DEADLINE_MS = 40_000;
/** How long the process may stay alive after `close()` returned, in ms. */
const LINGER_MS = 2_000;
/**
 * Each request's idle budget, and the `server/discover` probe's, in ms. Generous: a requirement set starts all its
 * scenarios at once, and on 2 cores the first clients' probes waited over 5 s (the library default) for an answer.
 */
const REQUEST_TIMEOUT_MS = 20_000;
/**
 * The same for the `auth/*` scenarios, in ms: the request the server answers 401 waits for the whole sign-in
 * (metadata, registration, authorization, token: six HTTP exchanges with the suite's servers), which on a loaded
 * machine took 17 s once. Still below `RUN_DEADLINE_MS`.
 */
const AUTH_REQUEST_TIMEOUT_MS = 35_000;

const deadline = setTimeout(() => {
  log(`the run took over ${RUN_DEADLINE_MS} ms; exiting`);
  process.exit(3);
}, RUN_DEADLINE_MS);
deadline.unref();

/** @param {string} message @returns {never} */
function usage(message) {
  console.error(`conformance-client: ${message}\nusage: node examples/conformance-client/main.js <server-url>`);
  process.exit(2);
}

/** @returns {Record<string, unknown>} */
function readContext() {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  if (!raw) return {};
  try {
    const value = JSON.parse(raw);
    return value && typeof value === 'object' ? value : {};
  } catch {
    return usage(`MCP_CONFORMANCE_CONTEXT is not JSON: '${raw.slice(0, 80)}'`);
  }
}

async function main() {
  const url = process.argv.at(-1);
  if (process.argv.length < 3 || url === undefined || !/^https?:\/\//.test(url)) usage('the last argument must be the server URL');
  const name = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const revision = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
  const scenario = scenarioFor(name);
  const context = readContext();
  /** @type {import('./scenarios.js').Session} */
  const session = {};
  log(`scenario '${name || '(none)'}' at ${revision ?? 'any revision'} against ${url}`);

  const client = await McpClient.connect({
    connector: streamableHttp({ url, ...scenario.transport?.(context) }),
    clientInfo: { name: 'switchboard-conformance-client', version: '1.0.0' },
    ...(revision ? { pin: /** @type {import('@switchboard/mcp/client').McpClientOptions['pin']} */ (revision) } : {}),
    timeoutMs: name.startsWith('auth/') ? AUTH_REQUEST_TIMEOUT_MS : REQUEST_TIMEOUT_MS,
    probeTimeoutMs: name.startsWith('auth/') ? AUTH_REQUEST_TIMEOUT_MS : REQUEST_TIMEOUT_MS,
    ...scenario.options?.(context, session),
  });
  session.client = client;
  log(`connected (${client.era} era, ${client.protocolVersion})`);
  try {
    await scenario.run(client, context);
  } finally {
    await client.close();
  }
}

/** After `close()`, nothing of the client should keep the event loop alive. */
function exitIfLingering() {
  clearTimeout(deadline);
  setTimeout(() => {
    log(`still running ${LINGER_MS} ms after close(): the client left a handle open`);
    process.exit(4);
  }, LINGER_MS).unref();
}

main().then(
  () => {
    exitIfLingering();
    log('done');
  },
  (error) => {
    exitIfLingering();
    const code = error && typeof error === 'object' && 'code' in error ? ` [${String(error.code)}]` : '';
    log(`failed${code}: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
