/**
 * `switchboard bridge [--port N] -- <command…>` and `switchboard bridge [--port N] <url>`: one MCP server, of any era
 * and transport, served on Streamable HTTP to clients of every era (`createProxyServer` of `@switchboard/gateway`).
 * A stdio server of the session-based revisions is reached by 2026-07-28 clients, and a 2026-07-28-only server by
 * 2025 clients. It binds 127.0.0.1 by default with the HTTP handler's security defaults (Host and Origin checked,
 * DNS-rebinding protection), prints its URL on stderr (stdout stays empty), and runs until the io's `signal` aborts
 * (SIGINT/SIGTERM in `main.ts`): the POSTs in flight drain for up to {@link SERVE_DRAIN_MS}, then the upstream is
 * closed (a stdio server's process group is signalled: stdin end, SIGTERM, SIGKILL).
 */
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

/** What `bridge` is told. */
export interface BridgeOptions {
  readonly io: CliIo;
  readonly output: Output;
  /** The upstream: a URL, a host configuration name, or a command after `--`. */
  readonly spec: TargetSpec;
  /** The HTTP port of the front (0: one the system picks). @default 0 */
  readonly port?: number;
  /** The address to bind. @default '127.0.0.1' */
  readonly host?: string;
  /** The era the upstream is spoken in (`auto`: probe, then fall back). @default 'auto' */
  readonly era?: EraChoice;
  /** How POSTs are answered (the HTTP handler's `responseMode`). @default 'auto' */
  readonly responseMode?: 'auto' | 'json' | 'sse';
  /**
   * How long an upstream request may stay silent (no answer, no progress) before the bridge gives up on it, in ms:
   * a tool call then answers an `isError` result saying it timed out, and the upstream is sent
   * `notifications/cancelled`. @default the client's `DEFAULT_REQUEST_TIMEOUT_MS` (60,000)
   */
  readonly requestTimeoutMs?: number;
}

/** Runs the command: resolves once the bridge stopped. */
export async function bridgeCommand(options: BridgeOptions): Promise<number> {
  const { io, output } = options;
  let target: Target;
  let front: ProxyServer;
  try {
    target = resolveTarget(options.spec, io);
    const connector = connectorFor(target, { io, onstderr: (line) => output.note(output.colors.dim(`upstream: ${terminalText(line)}`)) });
    front = await createProxyServer({ upstream: connector, client: { era: ERA_CHOICES[options.era ?? 'auto'], ...(options.requestTimeoutMs === undefined ? {} : { timeoutMs: options.requestTimeoutMs }) } });
  } catch (error) {
    return reportFailure(output, error, { connecting: true, timeoutOption: '--request-timeout-ms' });
  }
  let handle: Awaited<ReturnType<typeof serveHttp>>;
  try {
    handle = await serveHttp({ server: front, host: options.host ?? '127.0.0.1', port: options.port ?? 0, responseMode: options.responseMode ?? 'auto' });
  } catch (error) {
    await front.close();
    return reportFailure(output, error, { connecting: true, timeoutOption: '--request-timeout-ms' });
  }
  const upstream = front.upstream;
  output.note(`switchboard: bridging ${terminalText(describeTarget(target))} (${upstream.era} era, ${upstream.protocolVersion}) on ${handle.url} for clients of every era (Ctrl-C stops)`);
  await new Promise<void>((resolve) => {
    if (io.signal === undefined || io.signal.aborted) return resolve();
    io.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await handle.close({ drainMs: SERVE_DRAIN_MS });
  await front.close();
  output.note('switchboard: stopped');
  return ExitCode.Ok;
}
