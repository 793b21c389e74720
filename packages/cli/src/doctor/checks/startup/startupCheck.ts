/**
 * The stdio start-up check: whether the command resolves (with the doctor's PATH and with a desktop host's), whether
 * the process starts, stays up and answers its first request, and how long that first answer took
 * (`facts.startupMs`, also the report's `startupMs` measurement). It speaks first as a host does: `initialize` (MCP 2025-11-25 basic/lifecycle.mdx
 * "Initialization"), or `server/discover` for `--era modern` (MCP 2026-07-28 basic/transports/stdio.mdx
 * "Backward Compatibility"); with `--era auto` a server silent for a second also gets `server/discover`, so a
 * modern-only server that ignores `initialize` still counts as answering.
 */
import { serverEnvironment } from '../../checkContext.js';
import { DESKTOP_HOST_PATHS, pathOf, resolveCommand, type CommandResolution } from '../../pathSearch.js';
import { STARTUP } from '../../requirements/startup.js';
import type { Check, CheckContext, StdioLine, StdioWire } from '../../types.js';
import { discoverRequest, initializeRequest, received, responseOf, sent, short, type WireRequest } from '../stdio/probeMessages.js';
import { waitOrEnd } from '../stdio/waits.js';

/**
 * A first answer later than this is a slow start, milliseconds. Not lower: a Node server with a few dependencies
 * starts in 0.3–1 s on an idle machine and 2–3.5 s on a loaded one (measured: the demo server under a load average
 * of 16 on 2 cores), which is not worth a warning; a package runner installing on each start takes longer.
 */
export const SLOW_START_MS = 5_000;

/** With `--era auto`: how long `initialize` alone may go unanswered before `server/discover` is sent too, milliseconds. */
export const DISCOVER_AFTER_MS = 1_000;

/** How many stderr lines a finding quotes (the last ones). */
const STDERR_LINES = 10;

/** How many stdout lines a finding quotes (the first ones). */
const STDOUT_LINES = 5;

type StdioTarget = Extract<CheckContext['target'], { transport: 'stdio' }>;

/** The stderr tail and the first stdout lines, as evidence. */
function outputEvidence(wire: StdioWire): string[] {
  const stdout = wire.lines.slice(0, STDOUT_LINES).map((line, i) => `stdout line ${i + 1}: ${line.raw}`);
  const stderr = wire.stderrTail.slice(-STDERR_LINES).map((line) => `stderr: ${line}`);
  return [...stdout, ...(stderr.length === 0 ? ['stderr: (nothing)'] : stderr)];
}

/** How the process ended, in words. */
function exitWords(exit: NonNullable<StdioWire['exit']>): string {
  if (exit.signal !== null) return `was killed by ${exit.signal}`;
  return `exited with code ${exit.code ?? 'unknown'}`;
}

/** The file a relative path command names from the child's working directory. */
function fromCwd(command: string, cwd: string | undefined): string {
  if (cwd === undefined || command.startsWith('/') || /^[A-Za-z]:[\\/]/.test(command)) return command;
  return `${cwd.replace(/[\\/]$/, '')}/${command}`;
}

/** Resolves the target's command with the PATH the child gets (the target's over the doctor's). */
async function resolveTarget(ctx: CheckContext, target: StdioTarget, path: string | undefined): Promise<CommandResolution> {
  return resolveCommand({
    command: fromCwd(target.command, target.cwd),
    path,
    platform: ctx.env.platform,
    ...(ctx.env.environment.PATHEXT === undefined ? {} : { pathExt: ctx.env.environment.PATHEXT }),
    isExecutable: (file) => ctx.env.isExecutable(file),
  });
}

/** Sends the first request(s) and waits for the first response; `undefined` on timeout or exit. */
async function firstAnswer(ctx: CheckContext, wire: StdioWire): Promise<{ readonly line: StdioLine | undefined; readonly sent: readonly WireRequest[] }> {
  const requests: WireRequest[] = [ctx.era === 'modern' ? discoverRequest('startup-1') : initializeRequest('startup-1')];
  const match = (line: StdioLine) => responseOf(line) !== undefined;
  await wire.send(requests[0]).catch(() => undefined);
  const budget = ctx.requestTimeoutMs;
  if (ctx.era !== 'auto' || budget <= DISCOVER_AFTER_MS) return { line: (await waitOrEnd(ctx, wire, { match, timeoutMs: budget })).line, sent: requests };
  const early = await waitOrEnd(ctx, wire, { match, timeoutMs: DISCOVER_AFTER_MS });
  if (early.line !== undefined || early.ended || ctx.signal.aborted) return { line: early.line, sent: requests };
  requests.push(discoverRequest('startup-2'));
  await wire.send(requests[1]).catch(() => undefined);
  return { line: (await waitOrEnd(ctx, wire, { match, timeoutMs: budget - DISCOVER_AFTER_MS })).line, sent: requests };
}

/** Reports why nothing answered: the command, the spawn, the exit, or silence. */
function reportNoAnswer(ctx: CheckContext, options: { readonly wire: StdioWire; readonly target: StdioTarget; readonly resolution: CommandResolution; readonly path: string | undefined; readonly sent: readonly WireRequest[] }): void {
  const { wire, target, resolution, path } = options;
  const exit = wire.exit;
  const methods = options.sent.map((r) => `"${r.method}"`).join(' and ');
  if (exit?.error !== undefined) {
    reportSpawnError(ctx, { error: exit.error, target, resolution, path });
    return;
  }
  if (exit !== undefined) {
    ctx.report(STARTUP.exitedAtStart, { message: `The process ${exitWords(exit)} before answering ${methods}`, evidence: [`${exitWords(exit)}`, ...outputEvidence(wire)] });
    return;
  }
  const evidence = [...options.sent.map(sent), ...outputEvidence(wire)];
  const seen = wire.lines.length === 0 ? 'nothing on stdout' : `${wire.lines.length} stdout line(s) but no JSON-RPC response`;
  ctx.report(STARTUP.noAnswer, { message: `No answer to ${methods} within ${ctx.requestTimeoutMs} ms: the process runs and wrote ${seen}`, evidence });
}

/** The process could not be started: ENOENT is a command not found, anything else a failed start. */
function reportSpawnError(ctx: CheckContext, options: { readonly error: { readonly code: string; readonly message: string }; readonly target: StdioTarget; readonly resolution: CommandResolution; readonly path: string | undefined }): void {
  const { error, target, resolution, path } = options;
  const evidence = [`spawn ${target.command}: ${error.code}: ${error.message}`, `PATH=${path ?? '(unset)'}`, ...(target.cwd === undefined ? [] : [`cwd=${target.cwd}`])];
  if (error.code !== 'ENOENT') {
    ctx.report(STARTUP.spawnFailed, { message: `Starting "${target.command}" failed with ${error.code}`, evidence: [...evidence, ...(resolution.file === undefined ? [] : [`resolved: ${resolution.file}`])] });
    return;
  }
  ctx.report(STARTUP.commandNotFound, { message: notFoundMessage(target, resolution), evidence: [...evidence, searchedWords(resolution)] });
}

/** The `code` of an error that says why a process could not start (`ENOENT`, `EACCES`), if it is one. */
function spawnCodeOf(error: unknown): { readonly code: string; readonly message: string } | undefined {
  const errno = (value: unknown): string | undefined => {
    const code = typeof value === 'object' && value !== null ? (value as { code?: unknown }).code : undefined;
    return typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : undefined;
  };
  if (typeof error !== 'object' || error === null) return undefined;
  const failure = (error as { failure?: unknown }).failure;
  const code = errno(error) ?? errno((error as { cause?: unknown }).cause) ?? (failure === 'not_found' ? 'ENOENT' : undefined);
  return code === undefined ? undefined : { code, message: error instanceof Error ? error.message : code };
}

function notFoundMessage(target: StdioTarget, resolution: CommandResolution): string {
  if (resolution.file !== undefined) {
    return `"${target.command}" resolves to "${resolution.file}" but starting it failed with ENOENT: its working directory or the interpreter its first line names does not exist`;
  }
  if (/\s/.test(target.command)) return `"${target.command}" is not found: it contains spaces; the arguments belong in "args"`;
  if (resolution.kind === 'path') return `"${target.command}" does not exist or is not executable`;
  return `"${target.command}" is not found in any directory of the PATH`;
}

function searchedWords(resolution: CommandResolution): string {
  return resolution.kind === 'path' ? 'a path: not searched on PATH' : `searched ${resolution.searched.length} director${resolution.searched.length === 1 ? 'y' : 'ies'}`;
}

/** A bare command the doctor finds, but the minimal PATH of a desktop host on this platform does not. */
async function checkHostPath(ctx: CheckContext, options: { readonly target: StdioTarget; readonly resolution: CommandResolution; readonly path: string | undefined }): Promise<void> {
  const { target, resolution, path } = options;
  const hostPath = DESKTOP_HOST_PATHS[ctx.env.platform];
  // A PATH the entry sets itself reaches the server through the host too.
  if (hostPath === undefined || resolution.kind !== 'search' || resolution.file === undefined || target.env?.PATH !== undefined) return;
  const onHost = await resolveTarget(ctx, target, hostPath);
  if (onHost.file !== undefined) return;
  ctx.report(STARTUP.notOnHostPath, {
    message: `"${target.command}" resolves to "${resolution.file}" with this PATH, but not with the PATH a desktop host launched from the Dock or Finder gives its servers ("${hostPath}")`,
    evidence: [`resolved: ${resolution.file}`, `PATH=${path ?? '(unset)'}`, `desktop host PATH=${hostPath}: not found`],
  });
}

async function run(ctx: CheckContext): Promise<void> {
  if (ctx.target.transport !== 'stdio') return;
  const target = ctx.target;
  // The PATH the server is started with (the doctor's own is left out with --no-inherit-env; with no PATH at all, a
  // bare command is looked up on the system's default, /usr/bin:/bin, as spawn does).
  const path = pathOf(serverEnvironment(ctx.env, target), ctx.env.platform) ?? (target.inheritEnv === false && ctx.env.platform !== 'win32' ? '/usr/bin:/bin' : undefined);
  const resolution = await resolveTarget(ctx, target, path);
  ctx.progress(`starting ${short([target.command, ...target.args].join(' '), 60)}`);
  let wire: StdioWire;
  try {
    wire = await ctx.spawn();
  } catch (error) {
    // A runner may refuse to hand over a process that never started; its typed error still says why.
    const spawnError = spawnCodeOf(error);
    if (spawnError === undefined) throw error;
    reportSpawnError(ctx, { error: spawnError, target, resolution, path });
    return;
  }
  try {
    const { line, sent: requests } = await firstAnswer(ctx, wire);
    if (ctx.signal.aborted) return;
    if (line === undefined) {
      reportNoAnswer(ctx, { wire, target, resolution, path, sent: requests });
    } else {
      const startupMs = Math.max(0, Math.round(line.atMs - wire.startedAtMs));
      ctx.facts.startupMs = startupMs;
      ctx.facts.measurements.startupMs = startupMs;
      if (startupMs > SLOW_START_MS) {
        ctx.report(STARTUP.slowStart, { message: `The first answer came ${startupMs} ms after the process started (more than ${SLOW_START_MS} ms)`, evidence: [...requests.map(sent), received(line)] });
      }
    }
    if (wire.exit?.error === undefined) await checkHostPath(ctx, { target, resolution, path });
  } finally {
    await wire.close();
  }
}

/** The stdio start-up check (it runs before the doctor connects). */
export const STDIO_STARTUP_CHECK: Check = {
  id: 'startup.stdio',
  title: 'start-up (stdio)',
  area: 'startup',
  transports: ['stdio'],
  requirements: [STARTUP.commandNotFound, STARTUP.spawnFailed, STARTUP.notOnHostPath, STARTUP.exitedAtStart, STARTUP.noAnswer, STARTUP.slowStart],
  needsConnection: false,
  run,
};
