/**
 * The doctor against real servers (test/doctor-interop*.test.ts, two files so vitest runs them side by side): our
 * demo server (examples/demo/main.js, stdio and Streamable HTTP, with each `--era` choice) must come out clean (no error or warning finding); `@modelcontextprotocol/server-everything` and
 * the SDK v1, SDK v2 and tmcp servers of test/interop-servers/ (stdio and Streamable HTTP) must be diagnosed to the
 * end (`connected`, exit code 0 or 1, no check crashed or timed out), and the exact set of finding ids each gets is
 * pinned, so any change in what the doctor says about a server no one here wrote is noticed (each pinned finding
 * was checked by hand against the server's wire behaviour, with raw stdio lines and raw HTTP requests). A pinned
 * finding is expected only when this build's manifest has its requirement; findings that depend on the machine's
 * load (a slow start, a slow list) are left out of the comparison.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDoctor } from '../../packages/cli/src/doctor/doctor.js';
import { nodeDoctorEnv } from '../../packages/cli/src/doctor/nodeEnv.js';
import { REQUIREMENTS } from '../../packages/cli/src/doctor/requirements/index.js';
import type { DoctorOptions, DoctorReport, DoctorTarget } from '../../packages/cli/src/doctor/types.js';
import { DEMO_MAIN } from './demoServer.js';
import { LOOPBACK_ANNOUNCE, LOOPBACK_PRELOAD, ROOT, SERVERS_DIR, missingPackage, startHttpServer, type HttpServerProcess } from '../interop-servers/harness.js';

const EVERYTHING = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

/** One server, as the doctor sees it. */
export interface Peer {
  readonly title: string;
  /** Packages it needs (absent: the rows are skipped). */
  readonly packages: readonly string[];
  /** stdio: the command line; http: how to start it. */
  readonly stdio?: readonly string[];
  readonly http?: () => Promise<HttpServerProcess>;
}

export const DEMO: Peer = {
  title: 'the demo server',
  packages: [],
  stdio: [DEMO_MAIN, '--stdio'],
  http: () => startHttpServer({ args: [DEMO_MAIN, '--port', '0'], ready: /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/ }),
};

function interop(script: string, title: string, packages: readonly string[]): Peer {
  return { title, packages, stdio: [path.join(SERVERS_DIR, script), '--stdio'], http: () => startHttpServer({ args: [path.join(SERVERS_DIR, script), '--port', '0'] }) };
}

export const EVERYTHING_PEER: Peer = {
  title: '@modelcontextprotocol/server-everything',
  packages: ['@modelcontextprotocol/server-everything'],
  stdio: [EVERYTHING, 'stdio'],
  http: () => startHttpServer({ args: ['--require', LOOPBACK_PRELOAD, EVERYTHING, 'streamableHttp'], env: { PORT: '0', ...LOOPBACK_ANNOUNCE }, ready: /INTEROP_LISTENING (http:\/\/127\.0\.0\.1:\d+)\n/, path: '/mcp' }),
};
export const SDK_V1 = interop('sdkV1.mjs', 'SDK v1', ['@modelcontextprotocol/sdk']);
export const SDK_V2 = interop('sdkV2.mjs', 'SDK v2', ['@modelcontextprotocol/server', '@modelcontextprotocol/node']);
export const TMCP = interop('tmcp.mjs', 'tmcp', ['tmcp', '@tmcp/adapter-zod', '@tmcp/transport-stdio', '@tmcp/transport-http', '@modelcontextprotocol/node']);

/** A doctor run of one server on one transport, and the finding ids it must get (sorted). */
export interface Row {
  readonly peer: Peer;
  readonly transport: 'stdio' | 'http';
  readonly era?: DoctorOptions['era'];
  /** `clean`: no error or warning finding (our own server); else the exact finding ids, `<severity> <id>`. */
  readonly expect: 'clean' | readonly string[];
  /**
   * The SDK the server is built on and the finding ids its defaults cause: each of those findings must name that
   * package (`finding.sdk`), and no other finding may name an SDK.
   */
  readonly sdk?: { readonly package: string; readonly ids: readonly string[] };
}

/** The finding ids of pinned entries, errors and warnings only. */
export function failingIds(entries: readonly string[]): string[] {
  return entries.filter((entry) => !entry.startsWith('info ')).map((entry) => entry.split(' ')[1]!);
}

/**
 * What SDK v1 servers get on both transports: an unknown resource answered -32602 at 2025-11-25 (which says
 * -32002), an unknown tool answered with an `isError` tool result instead of a JSON-RPC error, zod schemas declaring
 * draft-07, no modern era (`server/discover` refused).
 */
const V1_COMMON = ['warning protocol.unknown-resource-code', 'warning protocol.unknown-tool-code', 'warning primitives.schema-dialect', 'info eras.legacy-only'];
/** On stdio also: a line that is not JSON gets no -32700 answer. */
export const V1_STDIO = [...V1_COMMON, 'warning stdio.parse-error-reply'];
/** Over HTTP also: 400 (not 404) for an unknown or ended session, and Host/Origin not validated on a local server. */
export const V1_HTTP = [...V1_COMMON, 'error http.ended-session-not-404', 'error http.host-not-validated', 'error http.origin-not-validated'];
/** tmcp 1.20.0 on both transports (its newest legacy revision is 2025-06-18). */
export const TMCP_COMMON = ['warning protocol.unknown-resource-code', 'warning protocol.unknown-tool-code', 'warning primitives.schema-dialect', 'info eras.dual-era'];
/**
 * Findings that depend on how loaded the machine is (a slow start, a slow list): never pinned, never required.
 */
const TIMING_IDS = new Set(['startup.slow-start', 'primitives.slow-list']);
/** The requirements this build knows: a pinned finding of a requirement not in the manifest is not expected. */
const KNOWN = new Set(REQUIREMENTS.map((r) => r.id));

/** Declares the tests of one doctor run. */
export function describeRow(row: Row): void {
  const title = `${row.peer.title} over ${row.transport === 'http' ? 'Streamable HTTP' : 'stdio'}${row.era === undefined ? '' : `, --era ${row.era}`}`;
  const missing = missingPackage(...row.peer.packages);
  if (missing !== undefined) {
    describe(title, () => {
      it.skip(`skipped: ${missing} is not installed (npm ci installs it)`, () => {});
    });
    return;
  }
  describe(title, () => {
    let server: HttpServerProcess | undefined;
    let report: DoctorReport;

    beforeAll(async () => {
      let target: DoctorTarget;
      if (row.transport === 'http') {
        server = await row.peer.http!();
        target = { transport: 'http', url: server.url };
      } else target = { transport: 'stdio', command: process.execPath, args: [...row.peer.stdio!], cwd: ROOT };
      report = await runDoctor({ target, env: nodeDoctorEnv(), timeoutMs: 30_000, requestTimeoutMs: 5_000, ...(row.era === undefined ? {} : { era: row.era }) });
    }, 60_000);

    afterAll(async () => {
      await server?.stop();
    });

    it('is diagnosed to the end: connected, every check finished, exit code 0 or 1', () => {
      expect(report.connected).toBe(true);
      expect(report.checks.filter((c) => c.status === 'crashed' || c.status === 'timed-out' || c.id === 'connect' && c.status !== 'passed').map((c) => `${c.id}: ${c.status} ${c.reason ?? ''}`)).toEqual([]);
      expect([0, 1]).toContain(report.summary.exitCode);
    });

    if (row.expect === 'clean') {
      it('comes out clean: no error or warning finding, exit code 0', () => {
        expect(report.findings.filter((f) => f.severity !== 'info' && !TIMING_IDS.has(f.id)).map((f) => `${f.severity} ${f.id}: ${f.message}`)).toEqual([]);
        expect(report.summary.exitCode).toBe(0);
      });
    } else {
      const pinned = row.expect;
      it(`gets exactly the findings pinned: ${pinned.length === 0 ? 'none' : pinned.join(', ')}`, () => {
        const seen = [...new Set(report.findings.filter((f) => !TIMING_IDS.has(f.id)).map((f) => `${f.severity} ${f.id}`))].sort();
        const expected = pinned.filter((entry) => KNOWN.has(entry.split(' ')[1]!)).sort();
        expect(seen, report.findings.map((f) => `${f.id}: ${f.message} ${JSON.stringify(f.evidence)}`).join('\n')).toEqual(expected);
      });
    }

    const sdk = row.sdk;
    if (sdk !== undefined) {
      it(`names ${sdk.package} on each finding its defaults cause (${sdk.ids.join(', ')}), and no SDK on the others`, () => {
        expect(report.findings.filter((f) => sdk.ids.includes(f.id)).map((f) => `${f.id}: ${f.sdk?.package ?? 'no SDK named'}`)).toEqual(report.findings.filter((f) => sdk.ids.includes(f.id)).map((f) => `${f.id}: ${sdk.package}`));
        expect(report.findings.filter((f) => !sdk.ids.includes(f.id) && f.sdk !== undefined).map((f) => `${f.id}: ${f.sdk?.package}`)).toEqual([]);
      });
    }
  });
}

