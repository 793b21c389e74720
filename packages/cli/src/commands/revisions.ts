/**
 * `switchboard revisions`: every MCP protocol revision this build serves, oldest first, with its era. A server
 * serves them all unless its `revisions` option narrows it (a dual-era server).
 */
import { isModernRevision, LATEST_LEGACY_REVISION, PROTOCOL_REVISIONS } from '@switchboard/mcp';
import { ExitCode } from '../errors.js';
import type { Output } from '../output.js';

/** The revisions served and their era, oldest first. */
export function servedRevisions(): { readonly revision: string; readonly era: 'legacy' | 'modern' }[] {
  return PROTOCOL_REVISIONS.map((revision) => ({ revision, era: isModernRevision(revision) ? 'modern' : 'legacy' }));
}

/** Runs the command. */
export function revisionsCommand(options: { readonly output: Output; readonly json: boolean }): number {
  const { output } = options;
  const rows = servedRevisions();
  if (options.json) {
    output.json(rows);
    return ExitCode.Ok;
  }
  for (const { revision, era } of rows) {
    const note = era === 'modern' ? 'modern (stateless, per-request _meta)' : `legacy (session, initialize)${revision === LATEST_LEGACY_REVISION ? ', the latest session-based revision' : ''}`;
    output.line(`${revision}  ${note}`);
  }
  return ExitCode.Ok;
}
