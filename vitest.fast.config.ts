/**
 * The fast tier, `npm run test:fast` (scripts/test-fast.mjs): the in-process tests only, no child process, no
 * worker thread, no listening socket. Run it while editing; `npm test` (vitest.config.ts) runs every file before
 * you push. Where a new test file goes:
 *
 * - a test beside its module (`packages/*\/src/**\/*.test.ts`, and `docs/**\/*.test.ts`) is FAST, unless it is
 *   listed in {@link FULL_TIER} with the reason;
 * - a test in `test/` is FULL-TIER (that folder holds the cross-package tests: stdio child processes, servers on
 *   127.0.0.1, interop with other SDKs), unless it is listed in {@link IN_PROCESS} with the reason.
 *
 * Enforced, not guessed: the setup file test/helpers/fastTierGuard.ts makes every spawn, exec, fork, `new
 * Worker` and server `listen` (or UDP `bind`) throw "test:fast runs in-process tests only: move this file to the
 * full tier", and fails the test even when the error is caught. A file that needs a process or a socket goes in
 * FULL_TIER (a unit file) or out of IN_PROCESS (a `test/` file). test/fastTier.test.ts checks the guard and
 * these lists.
 */
import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/** Unit test files that start a process or a server, each with what it starts. Paths from the repository root. */
export const FULL_TIER: Readonly<Record<string, string>> = {
  'packages/cli/src/doctor/doctor.test.ts': 'runs the doctor on the demo server and stub servers as stdio child processes',
  'packages/cli/src/doctor/httpProbe.test.ts': 'probes a node:http server on 127.0.0.1',
  'packages/cli/src/doctor/nodeEnv.test.ts': 'spawns process groups and kills them (SIGTERM, SIGKILL)',
  'packages/cli/src/doctor/stdioWire.test.ts': 'one test reads a real child process (stderr tail, exit facts)',
  'packages/gateway/src/proxy/questionAttribution.test.ts': 'the proxy in front of an upstream on serveHttp on 127.0.0.1 (questions related to their request by the POST stream)',
  'packages/dashboard/src/dashboard.test.ts': 'the dashboard beside serveHttp on 127.0.0.1 (page, token, Host/Origin, live stream over real sockets)',
  'packages/mcp/src/client/modernHttp.test.ts': 'McpClient against serveHttp on 127.0.0.1',
  'packages/mcp/src/client/questionTags.test.ts': 'McpClient against serveHttp on 127.0.0.1 (a question and a log on the POST stream of their request)',
  'packages/mcp/src/client/transports.test.ts': 'McpClient over a stdio child process and over HTTP on 127.0.0.1',
  'packages/mcp/src/transports/stdio/stdioClientTransport.test.ts': 'spawns stdio servers (fixtures and the demo)',
  'packages/mcp/src/transports/stdio/processGroup.test.ts': 'spawns servers and checks how they are stopped (stdin end, SIGTERM, SIGKILL)',
  'packages/mcp/src/transports/http/server/admission.test.ts': 'two tests key callers by the remote address of a real socket',
  'packages/mcp/src/transports/http/server/backpressure.test.ts': 'a client that stops reading a real socket',
  'packages/mcp/src/transports/http/client/clientFakeServer.test.ts': 'the scripted node:http server the client transport tests share',
  'packages/mcp/src/transports/http/server/cors.test.ts': 'the CORS answers through the node and node-fetch paths over real sockets',
  'packages/mcp/src/transports/http/server/connections.test.ts': "the Node adapter's connection limits on real sockets",
  'packages/mcp/src/transports/http/server/drain.test.ts': 'a graceful close of serveHttp with a call in flight',
  'packages/mcp/src/transports/http/server/handler.test.ts': 'the node and node-fetch paths over real sockets',
  'packages/mcp/src/transports/http/client/httpClientOwnServer.test.ts': 'the HTTP client transports against serveHttp on 127.0.0.1',
  'packages/mcp/src/transports/http/client/httpSseClient.test.ts': 'the 2024-11-05 HTTP+SSE client against the fake node:http server',
  'packages/mcp/src/transports/http/server/largeEvent.test.ts': 'a 9 MiB SSE event over a real socket',
  'packages/mcp/src/transports/node/serveHttpAuth.test.ts': 'serveHttp with auth on 127.0.0.1 (raw requests with several Authorization headers)',
  'packages/mcp/src/transports/http/server/modern.test.ts': 'the node and node-fetch paths over real sockets',
  'packages/mcp/src/transports/http/server/node413.test.ts': 'oversized bodies sent over real sockets',
  'packages/mcp/src/transports/http/client/streamableHttpClient.test.ts': 'the Streamable HTTP client against the fake node:http server',
  'packages/mcp/src/transports/node/nodeFetch.test.ts': 'the Node fetch against a node:http server on 127.0.0.1',
};

/** Files in `test/` that run in-process, each with why it lives in `test/` rather than beside a module. */
export const IN_PROCESS: Readonly<Record<string, string>> = {
  'test/cli-doctor-progress.test.ts': 'the CLI progress display without a terminal, on a recorded stream',
  'test/cli-doctor-schema.test.ts': "the shipped JSON Schema of the doctor's report",
  'test/conformance-client-report.test.ts': "the conformance runner's report parser (a script)",
  'test/conformance-task-tools.test.ts': "the conformance server's task fixtures (an example) through the package",
  'test/dist-declarations.test.ts': 'reads the built declarations in dist/ (test:fast builds first)',
  'test/dist-neutral.test.ts': 'reads the built bundles in dist/ (test:fast builds first)',
  'test/doctor-gallery.test.ts': 'the manifest, the checks and the broken-servers gallery agree (reads files)',
  'test/file-names.test.ts': 'file names across every package',
  'test/inbound-wire.test.ts': 'every package-level refusal through a McpServer in memory',
  'test/layering.test.ts': 'the layering rules across every package (reads the sources)',
  'test/package-entries.test.ts': "package.json exports, bundle inputs and dist/ agree",
  'test/reliability/properties.test.ts': 'property-based tests of the input path, in memory (smoke size without STRESS=1)',
};

export default defineConfig({
  test: {
    ...base.test,
    include: ['packages/*/src/**/*.test.ts', 'docs/**/*.test.ts', ...Object.keys(IN_PROCESS)],
    exclude: [...configDefaults.exclude, ...Object.keys(FULL_TIER)],
    setupFiles: ['test/helpers/fastTierGuard.ts'],
    // The files share one worker's module cache instead of a fresh process each: 12 s of CPU instead of 31 s for
    // the same 1,070 tests (2026-12-02, 2 cores). A file that leaves global state behind (fake timers, a changed
    // process.env) can then trouble the next one here; npm test still runs every file in a process of its own.
    isolate: false,
  },
});
