/**
 * `switchboard gateway --config gateway.json [--port N] [--host H]`: many MCP servers behind one Streamable HTTP
 * endpoint (`@switchboard/gateway`). The configuration is validated against the published JSON Schema
 * (`schema/gateway-config.schema.json` of `@switchboard/gateway`) and reloaded when the file changes: upstreams
 * added, removed or changed are started, closed or restarted, the others keep their connection (a file that does
 * not validate is reported and the running configuration kept). Each upstream's health goes to stderr at start
 * and on every change; stdout is never written. The endpoint binds 127.0.0.1 by default with the server's
 * security defaults (DNS-rebinding protection on loopback) and its URL is printed on stderr. SIGINT/SIGTERM drain
 * the calls in flight (up to {@link SERVE_DRAIN_MS}) and stop every upstream, stdio process groups included.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { createGateway, gatewayOptionsFromConfig, GatewayConfigError, parseGatewayConfig, upstreamOptionsFromConfig, type Gateway, type GatewayAuthConfig, type GatewayConfig, type GatewayOptions, type UpstreamHealth } from '@switchboard/gateway';
import { jwtVerifier, type HttpAuthOptions } from '@switchboard/mcp/http';
import { serveHttp, type ServeHttpHandle } from '@switchboard/mcp/node';
import type { RedisStores } from '@switchboard/redis';
import type { CliIo } from '../cliIo.js';
import { ExitCode } from '../errors.js';
import type { Output } from '../output.js';
import { terminalText } from '../terminalText.js';
import { openRedisStores, redisUrlOf } from './redisOption.js';
import { SERVE_DRAIN_MS } from './serve.js';
import { reportFailure } from './serverCommand.js';

/** How long the configuration file must be quiet before a reload, in ms (an editor's save is often several writes). */
export const CONFIG_RELOAD_DEBOUNCE_MS = 100;

/** What `gateway` is told. */
export interface GatewayCommandOptions {
  readonly io: CliIo;
  readonly output: Output;
  /** The configuration file (against the working directory). */
  readonly config: string;
  /** The port to serve on; 0 picks a free one. @default 0 */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** Log every upstream event (info level) on stderr. @default false (warnings and errors only) */
  readonly verbose?: boolean;
  /**
   * Share the front's sessions, SSE events, tasks, request states and notifications with other gateway instances
   * through this Redis (`--redis-url`). @default the `SWITCHBOARD_REDIS_URL` environment variable; unset: in memory
   */
  readonly redisUrl?: string;
}

/** One line of an upstream's health, for stderr. */
export function healthLine(health: UpstreamHealth): string {
  switch (health.state) {
    case 'ready':
      return `upstream "${health.name}" ready (${health.era ?? '?'} ${health.revision ?? ''}, ${health.tools} tools, ${health.prompts} prompts, ${health.resources} resources)`;
    case 'down': {
      const retry = health.nextAttemptAt === undefined ? '' : `; next attempt in ${Math.max(0, Math.round((health.nextAttemptAt - Date.now()) / 100) / 10)} s`;
      return `upstream "${health.name}" down: ${health.lastError ?? 'unknown error'} (failures: ${health.failures}${retry})`;
    }
    case 'connecting':
      return `upstream "${health.name}" connecting${health.failures > 0 ? ` (attempt ${health.failures + 1})` : ''}`;
    case 'closed':
      return `upstream "${health.name}" closed`;
  }
}

/** The gateway's logger type (`@switchboard/jsonrpc`'s `Logger`). */
type Logger = NonNullable<GatewayOptions['logger']>;

/** A logger on the io's stderr: warnings and errors, and info with `verbose`. Never throws. */
function stderrLogger(io: CliIo, verbose: boolean): Logger {
  const write = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    // An upstream's state changes are the health lines already.
    if (/^Upstream "[^"]*" is (down|ready)/.test(message)) return;
    try {
      const extra = fields === undefined ? '' : ` ${JSON.stringify(fields, (_key, value: unknown) => (value instanceof Error ? value.message : value))}`;
      io.stderr(`switchboard gateway: ${level} ${terminalText(message)}${extra}\n`);
    } catch {
      // Logging never crashes the gateway.
    }
  };
  const ignore = () => undefined;
  return { debug: ignore, info: verbose ? write('info') : ignore, warn: write('warn'), error: write('error') };
}

async function readConfig(file: string): Promise<GatewayConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new GatewayConfigError(`Cannot read the gateway config "${file}": ${(error as Error).message}`, '');
  }
  return parseGatewayConfig(text);
}

/**
 * The HTTP handler's `auth` option for the config's `auth` block: bearer JWTs of `issuer` (default the first
 * authorization server) checked against its key set, for the gateway's own endpoint only (upstreams keep their own
 * credentials, `headers`, and never see a caller's token). Read once at start: a reload does not change it.
 */
function frontAuth(config: GatewayAuthConfig): HttpAuthOptions {
  const issuer = config.issuer ?? config.authorizationServers[0]!;
  return {
    resource: config.resource,
    authorizationServers: config.authorizationServers,
    verifier: jwtVerifier({ issuer, ...(config.jwksUrl === undefined ? {} : { jwksUrl: config.jwksUrl }) }),
    ...(config.allowedAudiences === undefined ? {} : { allowedAudiences: config.allowedAudiences }),
    ...(config.requiredScopes === undefined ? {} : { requiredScopes: config.requiredScopes }),
    ...(config.scopesSupported === undefined ? {} : { scopesSupported: config.scopesSupported }),
  };
}

/** Runs the command: resolves once the gateway stopped (the io's signal aborted), with the exit code. */
export async function gatewayCommand(options: GatewayCommandOptions): Promise<number> {
  const { io, output } = options;
  const file = path.resolve(io.cwd, options.config);
  const dir = path.dirname(file);
  const resolvePath = (p: string) => path.resolve(dir, p);
  let config: GatewayConfig;
  try {
    config = await readConfig(file);
  } catch (error) {
    output.error(terminalText((error as Error).message));
    return ExitCode.Usage;
  }
  const note = (text: string) => output.note(`switchboard gateway: ${terminalText(text)}`);
  const redisUrl = redisUrlOf(options.redisUrl, io);
  let stores: RedisStores | undefined;
  try {
    stores = redisUrl === undefined ? undefined : await openRedisStores(redisUrl, { io });
  } catch (error) {
    return reportFailure(output, error, { connecting: true, timeoutOption: false });
  }
  let gateway: Gateway;
  try {
    const fromConfig = gatewayOptionsFromConfig(config, { resolvePath });
    gateway = createGateway({
      ...fromConfig,
      ...(stores === undefined ? {} : { server: { ...fromConfig.server, ...stores.serverOptions } }),
      // With Redis the configured rate limit counts each caller across every gateway instance on it.
      ...(stores === undefined || fromConfig.middleware?.rateLimit === undefined
        ? {}
        : { middleware: { ...fromConfig.middleware, rateLimit: { ...fromConfig.middleware.rateLimit, store: stores.rateLimitStore } } }),
      logger: stderrLogger(io, options.verbose === true),
      onHealth: (health) => note(healthLine(health)),
    });
  } catch (error) {
    await stores?.close();
    output.error(terminalText(`Invalid gateway config "${file}": ${(error as Error).message}`));
    return ExitCode.Usage;
  }
  let handle: ServeHttpHandle;
  try {
    const auth = config.auth === undefined ? undefined : frontAuth(config.auth);
    handle = await serveHttp({ server: gateway.server, host: options.host ?? '127.0.0.1', port: options.port ?? 0, ...stores?.httpOptions, ...(auth === undefined ? {} : { auth }) });
  } catch (error) {
    await gateway.close();
    await stores?.close();
    return reportFailure(output, error, { connecting: true, timeoutOption: false });
  }
  note(`serving ${Object.keys(config.upstreams).length} upstreams on ${handle.url}${stores === undefined ? '' : ' with the stores on Redis'} (Ctrl-C stops)`);

  // Reload on change: one reload at a time, the latest file wins.
  let reloading: Promise<void> = Promise.resolve();
  const reload = () => {
    reloading = reloading.then(async () => {
      let next: GatewayConfig;
      try {
        next = await readConfig(file);
      } catch (error) {
        note(`${(error as Error).message} — keeping the running configuration`);
        return;
      }
      try {
        const changes = await gateway.update(upstreamOptionsFromConfig(next, { resolvePath }));
        note(`reloaded ${path.basename(file)}: ${changes.added.length} added, ${changes.removed.length} removed, ${changes.replaced.length} restarted, ${changes.kept.length} kept`);
        // Only the upstreams are applied while running; the gateway-wide settings are read at start.
        const { upstreams: _before, ...settings } = config;
        const { upstreams: _after, ...nextSettings } = next;
        if (JSON.stringify(settings) !== JSON.stringify(nextSettings)) note('settings other than "upstreams" changed too: they apply after a restart');
        config = { ...config, upstreams: next.upstreams };
      } catch (error) {
        note(`Invalid gateway config: ${(error as Error).message} — keeping the running configuration`);
      }
    });
  };
  const watcher: FSWatcher = watch(file, { ignoreInitial: true, atomic: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  watcher.on('all', () => {
    clearTimeout(timer);
    timer = setTimeout(reload, CONFIG_RELOAD_DEBOUNCE_MS);
  });
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));

  await new Promise<void>((resolve) => {
    if (io.signal === undefined || io.signal.aborted) return resolve();
    io.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  clearTimeout(timer);
  await watcher.close();
  await reloading;
  await handle.close({ drainMs: SERVE_DRAIN_MS });
  await gateway.close();
  await stores?.close();
  note('stopped');
  return ExitCode.Ok;
}
