/**
 * `switchboard dashboard [--port N] -- <command…>` and `switchboard dashboard [--port N] <url>`: the bridge
 * (`createProxyServer` of `@switchboard/gateway`) in front of any MCP server, with failure analytics on every call
 * through it (`createProxyAnalytics` of `@switchboard/dashboard`) and their live page on the same port: the MCP
 * endpoint at `/mcp`, the dashboard at `/`, the analytics as JSON at `/api/analytics` (and live at `/api/events`).
 *
 * The MCP endpoint, the page and its data pass one set of Host and Origin rules (`--allowed-host`, given to both
 * `serveHttp` and `createDashboard`; loopback names by default). A non-loopback `--host` without `--allowed-host` is
 * refused: the MCP endpoint has no auth here, so without Host validation any DNS-rebinding page could use it (MCP
 * 2025-11-25 basic/transports.mdx "Security Warning": servers SHOULD bind only to localhost when running locally and
 * MUST validate the Origin header). The data needs the
 * access token: `--token`, else `SWITCHBOARD_DASHBOARD_TOKEN`, else a random one made now and printed on stderr in
 * the page's address fragment (`/#token=…`: a browser never sends a fragment, and the page removes it from its
 * address). Stdout stays empty. SIGINT/SIGTERM drain the requests in flight, then stop the upstream.
 */
import { randomBytes } from 'node:crypto';
import { createDashboard, createProxyAnalytics } from '@switchboard/dashboard';
import { createProxyServer, type ProxyServer } from '@switchboard/gateway';
import { isLoopbackHost } from '@switchboard/mcp/http';
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
  /**
   * The `Host` names (`name` for any port, or `name:port`) the MCP endpoint and the dashboard answer, instead of the
   * loopback names; required with a non-loopback `host`. @default none (localhost, 127.0.0.1, [::1])
   */
  readonly allowedHosts?: readonly string[];
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
  const host = options.host ?? '127.0.0.1';
  const allowedHosts = options.allowedHosts !== undefined && options.allowedHosts.length > 0 ? options.allowedHosts : undefined;
  if (allowedHosts === undefined && !isLoopbackHost(host)) {
    output.error(`switchboard dashboard: --host ${terminalText(host)} is not a loopback address: name the Host values clients use with --allowed-host (repeatable), or bind 127.0.0.1`);
    return ExitCode.Usage;
  }
  // One Host/Origin rule set for the MCP endpoint and the dashboard: the same object given to both.
  const hostRules = allowedHosts === undefined ? {} : { allowedHosts };
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
    return reportFailure(output, error, { connecting: true, timeoutOption: '--request-timeout-ms' });
  }
  watch.attach(front);
  const dashboard = createDashboard({ ...hostRules, analytics: watch.analytics, token, path: '/', title: `Switchboard dashboard: ${describeTarget(target)}` });
  let handle: Awaited<ReturnType<typeof serveHttp>>;
  try {
    handle = await serveHttp({ ...hostRules, server: front, host, port: options.port ?? 0, onRefused: watch.analytics.onHttpRefused, otherPaths: dashboard.listener });
  } catch (error) {
    dashboard.close();
    await front.close();
    return reportFailure(output, error, { connecting: true, timeoutOption: '--request-timeout-ms' });
  }
  const upstream = front.upstream;
  const endpoint = shownUrl(handle.url, host, allowedHosts);
  const page = new URL('/', endpoint);
  output.note(`switchboard: dashboard of ${terminalText(describeTarget(target))} (${upstream.era} era, ${upstream.protocolVersion})`);
  output.note(`  MCP endpoint: ${endpoint}`);
  // A token the user gave is not printed again; one made here is, in the fragment only.
  output.note(`  dashboard:    ${page.href}${given === undefined || given === '' ? `#token=${token}` : ' (with your token)'}`);
  output.note(`  analytics:    ${new URL('/api/analytics', endpoint).href} (Authorization: Bearer <token>) — Ctrl-C stops`);
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

/**
 * The address to print: bound to a non-loopback address, the first allowed Host name (the bind address itself,
 * `0.0.0.0`, is no name a client may use: it would be refused).
 */
function shownUrl(url: string, host: string, allowedHosts: readonly string[] | undefined): string {
  const first = allowedHosts?.[0];
  if (first === undefined || isLoopbackHost(host)) return url;
  const shown = new URL(url);
  try {
    const named = new URL(`http://${first}`);
    shown.hostname = named.hostname;
    if (named.port !== '') shown.port = named.port;
  } catch {
    return url;
  }
  return shown.href;
}
