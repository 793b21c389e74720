/**
 * A `<target>`: what the user named on the command line, resolved to a server to reach. A URL (`http(s)://…`,
 * Streamable HTTP), a command after `--` (stdio), or a name from a host configuration file (`hostConfigs.ts`).
 * Shared by every command that talks to a server (and by the doctor).
 */
import path from 'node:path';
import { httpSse, streamableHttp, type ClientConnector } from '@switchboard/mcp/client';
import { storedAuth, watchScopeChallenges } from './credentials.js';
import { spawnStdio } from '@switchboard/mcp/stdio';
import { CliError } from './errors.js';
import { findServer, type HostConfigFile } from './hostConfigs.js';
import type { CliIo } from './cliIo.js';

/** A server to reach, resolved. */
export type Target =
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      /** Variables set over the CLI's environment (`--env`, or the configuration entry's `env`). */
      readonly env: Readonly<Record<string, string>>;
      /** `false` (`--no-inherit-env`): the server gets `env` only, none of the CLI's environment. */
      readonly inheritEnv: boolean;
      readonly cwd?: string;
      /** The host configuration entry it came from, when it came from one. */
      readonly from?: { readonly name: string; readonly file: HostConfigFile };
    }
  | {
      readonly kind: 'http';
      /** `streamable-http`, or `sse` for a 2024-11-05 HTTP+SSE entry of a host configuration. */
      readonly transport: 'streamable-http' | 'sse';
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
      readonly from?: { readonly name: string; readonly file: HostConfigFile };
    };

/** What the command line said about the target. */
export interface TargetSpec {
  /** A URL or a host configuration name; absent when `command` is given. */
  readonly target?: string;
  /** The words after `--`: the command and its arguments. */
  readonly command?: readonly string[];
  /** `--env K=V`, repeated (stdio). */
  readonly env?: readonly string[];
  /** `false` (`--no-inherit-env`): a stdio server gets `env` only, none of the CLI's environment. @default true */
  readonly inheritEnv?: boolean;
  /** `--cwd DIR` (stdio), against the CLI's working directory. */
  readonly cwd?: string;
  /** `--config FILE`: read server names from this file only. */
  readonly config?: string;
}

/** Reads `K=V` pairs (`--env`). @throws CliError `usage` on a pair without `=` */
export function parseEnvPairs(pairs: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new CliError('usage', `Invalid --env value: expected K=V, got "${pair}"`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
}

/**
 * Resolves what the command line named.
 * @throws CliError `usage` (no target, or both a target and a command), `target_not_found`, `config_invalid`
 */
export function resolveTarget(spec: TargetSpec, io: CliIo): Target {
  const env = parseEnvPairs(spec.env ?? []);
  const inheritEnv = spec.inheritEnv ?? true;
  const cwd = spec.cwd === undefined ? undefined : path.resolve(io.cwd, spec.cwd);
  const command = spec.command ?? [];
  if (command.length > 0) {
    if (spec.target !== undefined) throw new CliError('usage', `Give a target or a command after --, not both (got "${spec.target}" and "${command.join(' ')}")`);
    return { kind: 'stdio', command: command[0]!, args: command.slice(1), env, inheritEnv, ...(cwd === undefined ? {} : { cwd }) };
  }
  const target = spec.target;
  if (target === undefined || target === '') throw new CliError('usage', 'Missing target: give a URL, a server name from a host configuration, or -- <command> [args…]');
  if (/^https?:\/\//i.test(target)) {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      throw new CliError('usage', `Invalid URL: "${target}"`);
    }
    return { kind: 'http', transport: 'streamable-http', url: url.href, headers: {} };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) throw new CliError('usage', `Unsupported URL scheme: "${target}" (use http:// or https://, or -- <command> for stdio)`);
  const found = findServer(target, { io, ...(spec.config === undefined ? {} : { configFile: spec.config }) });
  const from = { name: found.name, file: found.file };
  const entry = found.entry;
  if (entry.kind === 'http') return { kind: 'http', transport: entry.transport, url: entry.url, headers: entry.headers, from };
  const entryCwd = cwd ?? entry.cwd;
  return { kind: 'stdio', command: entry.command, args: entry.args, env: { ...entry.env, ...env }, inheritEnv, ...(entryCwd === undefined ? {} : { cwd: entryCwd }), from };
}

/** How a target is named in messages: the URL, or the command line. */
export function describeTarget(target: Target): string {
  const name = target.from === undefined ? '' : `"${target.from.name}" (${target.from.file.path}): `;
  return target.kind === 'http' ? `${name}${target.url}` : `${name}${[target.command, ...target.args].join(' ')}`;
}

/**
 * The client connector for a target. A stdio child gets the CLI's environment with the target's `env` over it,
 * and its stderr lines go to `onstderr`; `shutdownGraceMs` is each step of its shutdown (spawnStdio's, 2 s by
 * default). An HTTP target is reached with `fetch` (globalThis.fetch by default); `onScopeChallenge` is told the
 * `scope` of each 403 `insufficient_scope` challenge answered to the stored credentials (`undefined` as each new POST
 * goes out: see `watchScopeChallenges`).
 */
export function connectorFor(
  target: Target,
  options: {
    readonly io: CliIo;
    readonly onstderr?: (line: string) => void;
    readonly fetch?: typeof globalThis.fetch;
    readonly shutdownGraceMs?: number;
    readonly onScopeChallenge?: (scope: string | undefined) => void;
  },
): ClientConnector {
  if (target.kind === 'http') {
    const headers = Object.keys(target.headers).length === 0 ? undefined : target.headers;
    // The user's stored OAuth credentials for this URL (`switchboard login`), refreshed when they expire; an
    // Authorization header given with the target wins (no OAuth then).
    const stored = headers !== undefined && Object.keys(headers).some((h) => h.toLowerCase() === 'authorization') ? undefined : storedAuth(options.io);
    const auth = stored === undefined || options.onScopeChallenge === undefined ? stored : watchScopeChallenges(stored, options.onScopeChallenge);
    const http = { url: target.url, ...(headers === undefined ? {} : { headers }), ...(auth === undefined ? {} : { auth }), ...(options.fetch === undefined ? {} : { fetch: options.fetch }) };
    return target.transport === 'sse' ? httpSse(http) : streamableHttp(http);
  }
  return spawnStdio({
    command: target.command,
    args: target.args,
    env: target.inheritEnv ? { ...options.io.env, ...target.env } : target.env,
    inheritEnv: false,
    ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
    ...(options.onstderr === undefined ? {} : { onstderr: options.onstderr }),
    ...(options.shutdownGraceMs === undefined ? {} : { shutdownGraceMs: options.shutdownGraceMs }),
  });
}
