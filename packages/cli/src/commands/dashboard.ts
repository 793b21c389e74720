/**
 * `switchboard dashboard [--port N] -- <command…>` and `switchboard dashboard [--port N] <url>`: the bridge
 * (`createProxyServer` of `@switchboard/gateway`) in front of any MCP server, with failure analytics on every call
 * through it (`createProxyAnalytics` of `@switchboard/dashboard`) and their live page on the same port: the MCP
 * endpoint at `/mcp`, the dashboard at `/`, the analytics as JSON at `/api/analytics` (and live at `/api/events`).
 *
 * The page and its data pass the MCP endpoint's Host and Origin rules (127.0.0.1 by default); the data needs the
 * access token: `--token`, else `SWITCHBOARD_DASHBOARD_TOKEN`, else a random one made now and printed on stderr in
 * the page's address fragment (`/#token=…`: a browser never sends a fragment, and the page removes it from its
 * address). Stdout stays empty. SIGINT/SIGTERM drain the requests in flight, then stop the upstream.
 */
import { randomBytes } from 'node:crypto';
import { createDashboard, createProxyAnalytics } from '@switchboard/dashboard';
import { createProxyServer, type ProxyServer } from '@switchboard/gateway';
import { serveHttp } from '@switchboard/mcp/node';
import type { CliIo } from '../cliIo.js';
import { ERA_CHOICES, type EraChoice } from '../connect.js';
import { ExitCode } from '../errors.js';
import type { Output } from '../output.js';
import { connectorFor, describeTarget, resolveTarget, type Target, type TargetSpec } from '../target.js';
import { terminalText } from '../terminalText.js';
import { SERVE_DRAIN_MS } from './serve.js';
import { reportFailure } from './serverCommand.js';

/** The environment variable read for the access token when `--token` is not given. */
export const DASHBOARD_TOKEN_ENV = 'SWITCHBOARD_DASHBOARD_TOKEN';
/** Width of the page's time buckets (10 s) and how many are kept (30 min): a live session's view. */
const BUCKET_MS = 10_000;
const BUCKETS = 180;

/** What `dashboard` is told. */
export interface DashboardCommandOptions {
  readonly io: CliIo;
  readonly output: Output;
  /** The upstream: a URL, a host configuration name, or a command after `--`. */
  readonly spec: TargetSpec;
  /** The HTTP port (0: one the system picks). @default 0 */
  readonly port?: number;
  /** The address to bind. @default '127.0.0.1' */
  readonly host?: string;
  /** The access token of the page's data. @default `SWITCHBOARD_DASHBOARD_TOKEN`, else a random one */
  readonly token?: string;
  /** The era the upstream is spoken in. @default 'auto' */
  readonly era?: EraChoice;
  /** How long an upstream request may stay silent before it is given up (a `timeout`), in ms. @default 60,000 */
  readonly requestTimeoutMs?: number;
}

/** Runs the command: resolves once it stopped. */
export async function dashboardCommand(options: DashboardCommandOptions): Promise<number> {
  const { io, output } = options;
  const given = options.token ?? io.env[DASHBOARD_TOKEN_ENV];
  const token = given !== undefined && given !== '' ? given : randomBytes(24).toString('base64url');
  const watch = createProxyAnalytics({ limits: { bucketMs: BUCKET_MS, buckets: BUCKETS } });
  let target: Target;
  let front: ProxyServer;
  try {
    target = resolveTarget(options.spec, io);
    const connector = connectorFor(target, { io, onstderr: (line) => output.note(output.colors.dim(`upstream: ${terminalText(line)}`)) });
    front = await createProxyServer({
      upstream: connector,
      client: { era: ERA_CHOICES[options.era ?? 'auto'], instrumentation: watch.instrumentation, ...(options.requestTimeoutMs === undefined ? {} : { timeoutMs: options.requestTimeoutMs }) },
    });
  } catch (error) {
    return reportFailure(output, error, true);
  }
  watch.attach(front);
  const dashboard = createDashboard({ analytics: watch.analytics, token, path: '/', title: `Switchboard dashboard: ${describeTarget(target)}` });
  let handle: Awaited<ReturnType<typeof serveHttp>>;
  try {
    handle = await serveHttp({ server: front, host: options.host ?? '127.0.0.1', port: options.port ?? 0, onRefused: watch.analytics.onHttpRefused, otherPaths: dashboard.listener });
  } catch (error) {
    dashboard.close();
    await front.close();
    return reportFailure(output, error, true);
  }
  const upstream = front.upstream;
  const page = new URL('/', handle.url);
  output.note(`switchboard: dashboard of ${terminalText(describeTarget(target))} (${upstream.era} era, ${upstream.protocolVersion})`);
  output.note(`  MCP endpoint: ${handle.url}`);
  // A token the user gave is not printed again; one made here is, in the fragment only.
  output.note(`  dashboard:    ${page.href}${given === undefined || given === '' ? `#token=${token}` : ' (with your token)'}`);
  output.note(`  analytics:    ${new URL('/api/analytics', handle.url).href} (Authorization: Bearer <token>) — Ctrl-C stops`);
  await new Promise<void>((resolve) => {
    if (io.signal === undefined || io.signal.aborted) return resolve();
    io.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  dashboard.close();
  await handle.close({ drainMs: SERVE_DRAIN_MS });
  await front.close();
  output.note('switchboard: stopped');
  return ExitCode.Ok;
}
