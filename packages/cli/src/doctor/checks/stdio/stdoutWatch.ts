/**
 * The stdout watch, run last: stray stdout seen by any process the doctor started (MCP 2025-11-25
 * basic/transports.mdx "stdio": nothing but MCP messages on stdout). The raw session of `stdio.hygiene` lives well
 * under a second, so a server that logs on stdout a while after start-up (a timer, a heartbeat, a log line once
 * it is idle) is caught only by the processes that live longer: the connect step's client, which lives for the whole
 * run, and the other checks' processes. Each of them records the first such line in `facts.stdoutNoise`; this check
 * reports it when no raw session has already.
 */
import { STDIO_IDS } from '../../requirements/stdio.js';
import type { Check, CheckContext, StdoutNoise } from '../../types.js';
import { quoteLine, short } from './probeMessages.js';

/** When and where the line was read, e.g. `2.1 s after start, while eras.revisions ran`. */
function when(noise: StdoutNoise): string {
  const by = noise.by === 'connect' ? ', during the connect step' : noise.by === '' ? '' : `, while ${noise.by} ran`;
  return `${(noise.afterMs / 1000).toFixed(1)} s after start${by}`;
}

function run(ctx: CheckContext): Promise<void> {
  const noise = ctx.facts.stdoutNoise;
  if (ctx.target.transport !== 'stdio' || noise === undefined || noise.reported === true) return Promise.resolve();
  const raw = noise.line;
  const what = raw.replace(/^\uFEFF/, '').replace(/\r$/, '') === '' ? 'is empty' : `is not a JSON-RPC message: ${quoteLine(short(raw))}`;
  ctx.report(STDIO_IDS.stdoutNotProtocol, {
    message: `stdout line ${noise.lineNumber}, ${when(noise)}, ${what}`,
    evidence: [`stdout line ${noise.lineNumber}: ${raw}`],
  });
  ctx.facts.stdoutNoise = { ...noise, reported: true };
  return Promise.resolve();
}

/** The stdout watch: the last stdio check. */
export const STDIO_STDOUT_WATCH_CHECK: Check = {
  id: 'stdio.stdout-watch',
  title: 'stdout watch',
  area: 'stdio',
  transports: ['stdio'],
  requirements: [STDIO_IDS.stdoutNotProtocol],
  // Stray stdout may be why no connection was made: it is reported either way.
  needsConnection: false,
  run,
};
