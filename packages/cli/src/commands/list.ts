/**
 * `switchboard list <target>`: the server's tools, resources, resource templates and prompts as tables (or
 * `--json`), after the negotiated era and revision. A kind the server does not advertise is said so, not asked.
 */
import type { McpClient } from '@switchboard/mcp/client';
import { connectionLine, withClient, type ServerCommandOptions } from './serverCommand.js';
import { ExitCode } from '../errors.js';
import { cut } from '../output.js';

/** What `list --json` prints. */
export interface ListReport {
  readonly server: { readonly name: string; readonly version: string } | null;
  readonly era: 'legacy' | 'modern';
  readonly revision: string;
  readonly transport: string;
  /** `null` when the server does not advertise the capability. */
  readonly tools: readonly unknown[] | null;
  readonly resources: readonly unknown[] | null;
  readonly resourceTemplates: readonly unknown[] | null;
  readonly prompts: readonly unknown[] | null;
}

/**
 * Collects what the server lists (every page).
 * @param signal aborts the listing (the command's budget)
 */
export async function collectListing(client: McpClient, signal?: AbortSignal): Promise<ListReport> {
  const caps = client.serverCapabilities as Record<string, unknown>;
  const info = client.serverInfo;
  const options = signal === undefined ? undefined : { signal };
  return {
    server: info === undefined ? null : { name: info.name, version: info.version },
    era: client.era,
    revision: client.protocolVersion,
    transport: client.transportKind,
    tools: caps.tools === undefined ? null : await client.listAllTools(options),
    resources: caps.resources === undefined ? null : await client.listAllResources(options),
    resourceTemplates: caps.resources === undefined ? null : await client.listAllResourceTemplates(options),
    prompts: caps.prompts === undefined ? null : await client.listAllPrompts(options),
  };
}

/** Lets timers run (the command's deadline among them) between two steps of the output, then checks the budget. */
async function checkpoint(signal: AbortSignal): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  signal.throwIfAborted();
}

type Row = Record<string, unknown>;
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Runs the command. */
export function listCommand(options: ServerCommandOptions): Promise<number> {
  const { output } = options;
  return withClient(options, async (client, _target, signal) => {
    const report = await collectListing(client, signal);
    await checkpoint(signal);
    if (options.json) {
      output.json(report);
      return ExitCode.Ok;
    }
    output.line(cut(connectionLine(client), output.columns));
    // Each table is laid out in linear time; between tables the budget is checked again.
    const section = async (title: string, items: readonly unknown[] | null, table: (rows: Row[]) => void): Promise<void> => {
      await checkpoint(signal);
      output.line();
      if (items === null) {
        output.line(output.colors.dim(`${title}: not offered (no capability)`));
        return;
      }
      output.heading(`${title} (${items.length})`);
      if (items.length > 0) table(items as Row[]);
    };
    const flex = { header: 'DESCRIPTION', flexible: true } as const;
    await section('Tools', report.tools, (rows) => output.table([{ header: 'NAME' }, { header: 'TITLE', max: 30 }, flex], rows.map((t) => [text(t.name), text(t.title), text(t.description)])));
    await section('Resources', report.resources, (rows) => output.table([{ header: 'URI', max: 50 }, { header: 'NAME', max: 30 }, flex], rows.map((r) => [text(r.uri), text(r.title) || text(r.name), text(r.description)])));
    await section('Resource templates', report.resourceTemplates, (rows) =>
      output.table([{ header: 'URI TEMPLATE', max: 50 }, { header: 'NAME', max: 30 }, flex], rows.map((r) => [text(r.uriTemplate), text(r.title) || text(r.name), text(r.description)])),
    );
    await section('Prompts', report.prompts, (rows) =>
      output.table([{ header: 'NAME' }, { header: 'ARGUMENTS', max: 30 }, flex], rows.map((p) => [text(p.name), Array.isArray(p.arguments) ? (p.arguments as Row[]).map((a) => `${text(a.name)}${a.required === true ? '' : '?'}`).join(', ') : '', text(p.description)])),
    );
    return ExitCode.Ok;
  });
}
