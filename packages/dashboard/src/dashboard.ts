/**
 * `createDashboard`: the failure-analytics dashboard of one `Analytics` as a Node request listener, to mount on an
 * opt-in path: `serveHttp({ …, otherPaths: dashboard.listener })` of `@switchboard/mcp/node`, a `node:http` server
 * of your own, or Express/Connect (with `next`, other paths are passed on).
 *
 * Under its base path (`/dashboard` by default; `/` for `switchboard dashboard`):
 * - `GET <base>/`: the page (public: it holds no data and names no target, its title is generic; it asks for the
 *   token);
 * - `GET <base>/assets/…`: its script and styles and Chart.js, from the package's files (`assets.ts`);
 * - `GET <base>/api/analytics`: the analytics snapshot as JSON (`AnalyticsSnapshot` of `@switchboard/mcp/analytics`);
 * - `GET <base>/api/events`: the same snapshot as Server-Sent Events, pushed when it changed (`liveFeed.ts`);
 * - `GET <base>/api/meta`: `{ "title": … }`, the dashboard's own title (which may name what it watches: a command
 *   line, a URL), set by the page's script as text once it has the token.
 * Every path passes the MCP endpoint's Host and Origin rules; the three `api/` paths also need the access token
 * (`access.ts`). Only `GET` and `HEAD` are served (405 otherwise, 403 first for a foreign Origin).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { MAX_TIMER_MS } from '@switchboard/jsonrpc';
import type { AnalyticsSnapshot } from '@switchboard/mcp/analytics';
import { Access, type AccessInput, type Refusal } from './access.js';
import { loadAssets } from './assets.js';
import { LiveFeed, MAX_UNSENT_BYTES, type FeedSink } from './liveFeed.js';

/** What the dashboard reads: an `Analytics` of `@switchboard/mcp/analytics` (or anything shaped like it). */
export interface DashboardSource {
  snapshot(): AnalyticsSnapshot;
  readonly store: { readonly recorded: number };
}

/** Options of {@link createDashboard}. */
export interface DashboardOptions {
  /** The analytics shown (`attachAnalytics(server).analytics`, `createProxyAnalytics().analytics`). */
  readonly analytics: DashboardSource;
  /**
   * The access token the data needs (`Authorization: Bearer <token>`; the page reads it from `#token=…` in its
   * address, or asks). Use a long random one (`crypto.randomBytes(24).toString('base64url')`).
   * @throws TypeError when missing or empty
   */
  readonly token: string;
  /** The base path, starting with `/` (`/` puts the page at the root). @default '/dashboard' */
  readonly path?: string;
  /**
   * The page's heading and title, once the token is given: it is served only to the token (`api/meta`), so it may
   * name what is watched (a command line can hold secrets); the public page says "Switchboard dashboard".
   * @default 'Switchboard dashboard'
   */
  readonly title?: string;
  /**
   * `Host` validation (DNS-rebinding protection), as the MCP HTTP handler's option: on, only `allowedHosts` are
   * served. The four Host/Origin options have `serveHttp`'s names and meaning, so one object can be spread into both
   * (`const hostRules = { allowedHosts: ['mcp.example.com'] }`, then `serveHttp({ ...hostRules, … })` and
   * `createDashboard({ ...hostRules, … })`): one rule set for the MCP endpoint and the dashboard. Unlike
   * `serveHttp`, which turns Host validation off when bound to a non-loopback address without `allowedHosts`, the
   * dashboard keeps it on: bound elsewhere, give `allowedHosts` (to both).
   * @default true
   * @see MCP 2025-11-25 basic/transports.mdx "Security Warning"
   */
  readonly dnsRebindingProtection?: boolean;
  /** Allowed `Host` values (`name` for any port, or `name:port`). @default `LOOPBACK_HOSTS` (localhost, 127.0.0.1, [::1]) */
  readonly allowedHosts?: readonly string[];
  /** Origins allowed besides the dashboard's own (`scheme://host[:port]`). @default none */
  readonly allowedOrigins?: readonly string[];
  /** Skip `Origin` validation. @default false */
  readonly allowAnyOrigin?: boolean;
  /** Live streams open at once at most (`api/events`); the next gets 503. @default 16 */
  readonly maxStreams?: number;
  /** How often the live feed looks for new calls, in ms. @default 250 */
  readonly pushIntervalMs?: number;
}

/** Default {@link DashboardOptions.title}, and the public page's title whatever `title` is. */
const DEFAULT_DASHBOARD_TITLE = 'Switchboard dashboard';
/** Default {@link DashboardOptions.path}. */
export const DEFAULT_DASHBOARD_PATH = '/dashboard';
/** Default {@link DashboardOptions.maxStreams}. */
export const DEFAULT_DASHBOARD_MAX_STREAMS = 16;
/** Default {@link DashboardOptions.pushIntervalMs}. */
export const DEFAULT_DASHBOARD_PUSH_INTERVAL_MS = 250;

/** A dashboard: mount {@link listener}; {@link close} ends its live streams. */
export interface Dashboard {
  /** Its base path, ending with `/` (`/dashboard/`). */
  readonly path: string;
  /**
   * The Node request listener. A path outside the dashboard is passed to `next` when given (Express/Connect), else
   * answered 404.
   */
  readonly listener: (req: IncomingMessage, res: ServerResponse, next?: () => void) => void;
  /** Whether a request path (no query) is the dashboard's. */
  matches(path: string): boolean;
  /** Live streams open now. */
  readonly streams: number;
  /** Ends every live stream and stops the feed's timer. Idempotent. */
  close(): void;
}

/** One answer that is not a stream. */
interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
}

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
} as const;
/** The page's own files only: no inline script, no other origin (Chart.js draws on a canvas). */
const PAGE_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const EVENT_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' };
const JSON_HEADERS = { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

function json(status: number, body: unknown, extra: Readonly<Record<string, string>> = {}): Answer {
  return { status, headers: { ...JSON_HEADERS, ...extra }, body: JSON.stringify(body) };
}

function refused(refusal: Refusal): Answer {
  // RFC 6750 §3: a 401 names the scheme in WWW-Authenticate.
  return json(refusal.status, { error: refusal.error, message: refusal.message }, refusal.status === 401 ? { 'www-authenticate': 'Bearer realm="switchboard-dashboard"' } : {});
}

function checkPath(path: string): string {
  if (typeof path !== 'string' || !path.startsWith('/') || /[?#\s]/.test(path)) {
    throw new TypeError(`Invalid option path: expected a path starting with "/" without "?", "#" or spaces, got "${String(path)}"`);
  }
  return path.endsWith('/') ? path : `${path}/`;
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`Invalid option ${name}: expected a positive integer, got "${String(value)}"`);
  return value;
}

/** `value`, a timer's delay: at most 2^31 - 1 ms, past which `setInterval` fires every millisecond. */
function timerMs(name: string, value: number): number {
  if (value > MAX_TIMER_MS) throw new RangeError(`Invalid option ${name}: expected at most ${MAX_TIMER_MS} ms, got ${String(value)}`);
  return value;
}

function pathOf(url: string | undefined): string {
  const u = url ?? '/';
  const q = u.indexOf('?');
  return q === -1 ? u : u.slice(0, q);
}

/**
 * Creates the dashboard of `options.analytics`. The page shows the classes over time, the failing tools with the
 * clients and users behind their failures, latency percentiles (p50/p95/p99) per tool and the top error messages,
 * updated live (a new call shows within `pushIntervalMs` + drawing). The data holds only what went on the wire.
 *
 * @throws TypeError when `token` is missing or empty, or `path` is not a path
 * @throws RangeError when `maxStreams` or `pushIntervalMs` is not a positive integer
 * @throws Error when the page's files or Chart.js cannot be read (a broken install)
 * @example
 * const { analytics } = attachAnalytics(server);
 * const dashboard = createDashboard({ analytics, token: process.env.DASHBOARD_TOKEN! });
 * await serveHttp({ server, port: 3000, onRefused: analytics.onHttpRefused, otherPaths: dashboard.listener });
 * // http://127.0.0.1:3000/dashboard/#token=…
 * @example
 * // Bound to every interface: the same Host/Origin rules for the MCP endpoint and the dashboard.
 * const hostRules = { allowedHosts: ['mcp.example.com'] };
 * const dashboard = createDashboard({ ...hostRules, analytics, token: process.env.DASHBOARD_TOKEN! });
 * await serveHttp({ ...hostRules, server, host: '0.0.0.0', port: 3000, otherPaths: dashboard.listener });
 */
export function createDashboard(options: DashboardOptions): Dashboard {
  const { analytics } = options;
  if (typeof options.token !== 'string' || options.token === '') throw new TypeError('Invalid option token: expected a non-empty string (the access token the dashboard needs)');
  if (typeof analytics?.snapshot !== 'function') throw new TypeError('Invalid option analytics: expected an Analytics (attachAnalytics(server).analytics)');
  const base = checkPath(options.path ?? DEFAULT_DASHBOARD_PATH);
  const bare = base.slice(0, -1);
  const access = new Access({
    token: options.token,
    dnsRebindingProtection: options.dnsRebindingProtection ?? true,
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
    allowAnyOrigin: options.allowAnyOrigin,
  });
  const assets = loadAssets();
  const meta = JSON.stringify({ title: options.title ?? DEFAULT_DASHBOARD_TITLE });
  const feed = new LiveFeed({
    source: { recorded: () => analytics.store.recorded, snapshotJson: () => JSON.stringify(analytics.snapshot()) },
    intervalMs: timerMs('pushIntervalMs', positive('pushIntervalMs', options.pushIntervalMs ?? DEFAULT_DASHBOARD_PUSH_INTERVAL_MS)),
    maxStreams: positive('maxStreams', options.maxStreams ?? DEFAULT_DASHBOARD_MAX_STREAMS),
  });
  const matches = (path: string): boolean => path.startsWith(base) || path === bare;

  /** The answer to a request for a dashboard path, or `'events'` for an authorized live stream. */
  const answer = (method: string, path: string, input: AccessInput): Answer | 'events' => {
    const refusal = access.guard(input);
    if (refusal !== undefined) return refused(refusal);
    if (method !== 'GET' && method !== 'HEAD') return json(405, { error: 'method_not_allowed', message: 'Method Not Allowed' }, { allow: 'GET, HEAD' });
    // The page's files are addressed relative to it, so its address must end with `/`.
    if (path === bare) return { status: 308, headers: { ...SECURITY_HEADERS, location: base } };
    const rest = path.slice(base.length);
    if (rest === 'api/analytics' || rest === 'api/events' || rest === 'api/meta') {
      const unauthorized = access.authorize(input);
      if (unauthorized !== undefined) return refused(unauthorized);
      if (rest === 'api/meta') return { status: 200, headers: JSON_HEADERS, body: meta };
      return rest === 'api/events' ? 'events' : json(200, analytics.snapshot());
    }
    const file = assets.get(rest);
    if (file === undefined) return json(404, { error: 'not_found', message: 'Not Found' });
    if (input.header('if-none-match') === file.etag) return { status: 304, headers: { ...SECURITY_HEADERS, etag: file.etag } };
    return {
      status: 200,
      headers: { ...SECURITY_HEADERS, 'content-type': file.contentType, 'cache-control': 'no-cache', etag: file.etag, ...(rest === '' ? { 'content-security-policy': PAGE_POLICY } : {}) },
      body: file.body,
    };
  };

  const listener = (req: IncomingMessage, res: ServerResponse, next?: () => void): void => {
    const path = pathOf(req.url);
    if (!matches(path)) {
      if (next !== undefined) next();
      else write(res, 'GET', json(404, { error: 'not_found', message: 'Not Found' }));
      return;
    }
    const method = req.method ?? 'GET';
    const input: AccessInput = {
      // Every field line of the name: Node keeps only the first of repeated Authorization (or Host) lines in
      // `req.headers`, so a good token followed by another would pass; joined (RFC 9110 §5.3) they match no token.
      header: (name) => req.headersDistinct[name]?.join(', '),
      scheme: (req.socket as Partial<TLSSocket>).encrypted === true ? 'https' : 'http',
    };
    let result: Answer | 'events';
    try {
      result = answer(method, path, input);
    } catch {
      result = json(500, { error: 'internal_error', message: 'Internal Server Error' });
    }
    if (result !== 'events') write(res, method, result);
    else if (method === 'HEAD') write(res, method, { status: 200, headers: { ...SECURITY_HEADERS, ...EVENT_HEADERS } });
    else stream(req, res);
  };

  const stream = (req: IncomingMessage, res: ServerResponse): void => {
    const sink: FeedSink = {
      write: (chunk) => {
        if (res.destroyed) return false;
        if (res.writableLength > MAX_UNSENT_BYTES) {
          res.destroy();
          return false;
        }
        res.write(chunk);
        return true;
      },
      end: () => res.end(),
    };
    if (feed.full) {
      write(res, 'GET', json(503, { error: 'too_many_streams', message: 'Too many live streams are open' }, { 'retry-after': '5' }));
      return;
    }
    res.writeHead(200, { ...SECURITY_HEADERS, ...EVENT_HEADERS });
    // A stream is quiet between snapshots: the feed's keep-alive comments, not the socket's idle timer, keep it.
    req.socket.setTimeout(0);
    res.once('close', () => feed.remove(sink));
    feed.add(sink);
  };

  return {
    path: base,
    listener,
    matches,
    get streams(): number {
      return feed.size;
    },
    close: () => feed.close(),
  };
}

function write(res: ServerResponse, method: string, answer: Answer): void {
  if (res.headersSent) return;
  const body = answer.body;
  const length = body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  res.writeHead(answer.status, { ...answer.headers, 'content-length': String(length) });
  res.end(method === 'HEAD' || body === undefined ? undefined : body);
}
