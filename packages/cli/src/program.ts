/**
 * The command line's grammar (commander): the commands, their options, the help text with the exit codes. Each
 * action runs a command module and leaves its exit code in the returned state; nothing here touches the process.
 */
import { MAX_TIMER_MS } from '@switchboard/jsonrpc';
import { Command, InvalidArgumentError, Option, type CommanderError } from 'commander';
import { callCommand, callWords } from './commands/call.js';
import { doctorCommand } from './commands/doctor.js';
import type { ServerCommandOptions } from './commands/serverCommand.js';
import { DEV_HELP, devCommand } from './commands/dev.js';
import { explainCommand } from './commands/explain.js';
import { gatewayCommand } from './commands/gateway.js';
import { INSTALL_HELP, INSTALL_HOSTS, INSTALL_SCOPES, installCommand, type InstallOptions } from './commands/install.js';
import { listCommand } from './commands/list.js';
import { loginCommand } from './commands/login.js';
import { readCommand } from './commands/read.js';
import { revisionsCommand } from './commands/revisions.js';
import { serveCommand } from './commands/serve.js';
import { bridgeCommand } from './commands/bridge.js';
import { dashboardCommand } from './commands/dashboard.js';
import { ERA_CHOICES, type EraChoice } from './connect.js';
import type { TargetSpec } from './target.js';
import { runGeneration } from './dev/child.js';
import type { CliIo } from './cliIo.js';
import { Output } from './output.js';
import { VERSION } from './version.js';

/** The commands that take a `-- <command> [args…]`: those with a `<target>`, and `install`. */
export const SERVER_COMMANDS: ReadonlySet<string> = new Set(['list', 'call', 'read', 'doctor', 'install', 'bridge', 'dashboard']);

const EXIT_CODES = `
Exit codes:
  0  done (and the tool result was not an error)
  1  the command failed: a tool result with isError, an error answer of the server, a result that breaks the spec
  2  usage error, or the server could not be reached or started
  doctor: 0 no finding at or above --fail-on (muted ones aside), 1 one was found or a check crashed or timed out,
          2 could not connect (or a usage error)

Targets:
  <url>                    http(s)://… — Streamable HTTP
  <name>                   a server of a host configuration file: .mcp.json, .cursor/mcp.json, .vscode/mcp.json
                           (project), ~/.claude.json, ~/.cursor/mcp.json, VS Code's user mcp.json,
                           Claude Desktop's claude_desktop_config.json (user); --config FILE reads one file only
  -- <command> [args…]     stdio: the command to start, last on the line (--env K=V, --no-inherit-env, --cwd DIR
                           before the --)

Examples:
  switchboard doctor http://127.0.0.1:3000/mcp
  switchboard doctor --json -- node server.js --stdio
  switchboard list http://127.0.0.1:3000/mcp
  switchboard list -- node server.js --stdio
  switchboard call add_numbers --args '{"a":2,"b":3}' -- node server.js --stdio
  switchboard call add_numbers --args '{"a":2,"b":3}' http://127.0.0.1:3000/mcp
  switchboard read my-server sqlite://demo/schema/users
  switchboard explain -32001
  switchboard explain "MCP error -32000: Connection closed"
`;

const DOCTOR_HELP = `
The progress goes to stderr (a live task list on a terminal); the report to stdout. The doctor calls no tool
unless --call names one.

Exit codes:
  0  no finding at or above --fail-on (default warning), muted ones aside, and every check finished
  1  such a finding, or a check crashed (the doctor's own failure) or timed out
  2  could not connect, or a usage error (a bad flag, a baseline that cannot be read or written)

In CI: --fail-on error lets warnings pass; --ignore ID mutes one finding id; --write-baseline FILE records
today's findings (by id and a fingerprint of their evidence) and --baseline FILE mutes them in later runs, so
only new findings, or known ones whose evidence changed, fail the run. Muted findings are still listed (and in
--json, with "muted"). A finding caused by a known SDK's default says which package and what can change it.

Examples:
  switchboard doctor http://127.0.0.1:3000/mcp
  switchboard doctor -- node server.js --stdio
  switchboard doctor my-server --json > report.json
  switchboard doctor --call add --args '{"a":2,"b":3}' -- node server.js --stdio
  switchboard doctor --write-baseline doctor-baseline.json -- node server.js --stdio
  switchboard doctor --baseline doctor-baseline.json --fail-on error -- node server.js --stdio
`;

const GATEWAY_HELP = `
The upstreams are connected and listed in parallel, each under its own deadline (connectTimeoutMs); one that
hangs or dies is reported on stderr and left out of the catalog, then tried again with backoff. Each upstream's
tools and prompts are served as <prefix>_<name> (the prefix defaults to the upstream's name). Editing the file
adds, removes or restarts the upstreams that changed; the others stay connected.

Example gateway.json:
  { "upstreams": {
      "files":  { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
                  "tools": { "deny": ["write_*"] } },
      "search": { "url": "http://127.0.0.1:3001/mcp", "prefix": "web" } } }

Examples:
  switchboard gateway --config gateway.json --port 3000
`;

const BRIDGE_HELP = `
The front is a dual-era server: 2026-07-28 clients (server/discover, per-request _meta, input_required rounds,
subscriptions/listen) and 2024-11-05 … 2025-11-25 clients (initialize sessions) reach the same upstream, whatever
era it speaks. One upstream session serves every client for the bridge's life. The URL goes to stderr; stdout
stays empty. SIGINT/SIGTERM drain the requests in flight (10 s at most), then stop the upstream (its process group).

Examples:
  switchboard bridge -- node old-server.js --stdio
  switchboard bridge --port 3000 -- npx -y @modelcontextprotocol/server-everything
  switchboard bridge --port 3001 https://example.com/mcp
`;

const DASHBOARD_HELP = `
The bridge in front of any MCP server, with every call through it classified (ok, tool_error, protocol_error,
refused, era_mismatch, timeout, cancelled, transport) and shown live: MCP endpoint at /mcp, the dashboard at /,
the analytics as JSON at /api/analytics. The MCP endpoint, the page and its data follow one set of Host and Origin
rules (loopback names, or the --allowed-host names; a non-loopback --host needs them); the data needs the access token (--token, else $SWITCHBOARD_DASHBOARD_TOKEN, else a random one printed in the
page's address after #, which no browser sends; prefer the variable to --token, which other local users can
read in the process list). Addresses go to stderr; stdout stays empty. SIGINT/SIGTERM drain the requests in
flight (10 s at most), then stop the upstream (its process group).

Examples:
  switchboard dashboard -- node server.js --stdio
  switchboard dashboard --port 3000 -- npx -y @modelcontextprotocol/server-everything
  switchboard dashboard --port 3001 https://example.com/mcp
`;

/** The state one parse leaves: the exit code of the command that ran. */
export interface ProgramState {
  exitCode: number;
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0 || n > 65_535) throw new InvalidArgumentError(`expected a port number 0…65535, got "${value}"`);
  return n;
}

function positiveInteger(value: string): number {
  const n = Number(value);
  // Every such option becomes a timer, and a timer fires at once past 2^31 - 1 ms.
  if (!Number.isSafeInteger(n) || n <= 0 || n > MAX_TIMER_MS) throw new InvalidArgumentError(`expected a positive integer of milliseconds up to ${MAX_TIMER_MS}, got "${value}"`);
  return n;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** The flags that name a server (see {@link targetOptions}). */
interface TargetFlags {
  readonly env: string[];
  readonly inheritEnv: boolean;
  readonly cwd?: string;
  readonly config?: string;
}

interface ServerFlags extends TargetFlags {
  readonly timeoutMs?: number;
  readonly era: EraChoice;
  readonly json?: boolean;
}

/** Adds the options that say how to reach a stdio server (or find one in a host configuration). */
function targetOptions(command: Command): Command {
  return command
    .option('--env <K=V>', 'set a variable for a stdio server (repeatable)', collect, [])
    .option('--no-inherit-env', 'a stdio server gets only the --env variables (and its configuration entry\'s env), none of this process\'s environment, which may hold secrets (a bare command is then looked up on that PATH, else /usr/bin:/bin)')
    .option('--cwd <dir>', 'working directory of a stdio server')
    .option('--config <file>', 'read server names from this host configuration file only');
}

/** Adds the options every server command takes. */
function serverOptions(command: Command): Command {
  return targetOptions(command)
    .option('--timeout-ms <ms>', 'budget of the whole command: connect, every request, the output (default 60000)', positiveInteger)
    .addOption(new Option('--era <era>', 'which protocol era to speak: legacy (session-based, initialize), modern (2026-07-28), auto (probe, then fall back)').choices(Object.keys(ERA_CHOICES)).default('auto'))
    .option('--json', 'print JSON on stdout');
}

/**
 * Builds the program for one run.
 * @param options `io`: where output goes; `command`: the words after `--` (a stdio server); `state`: receives the exit code
 */
export function buildProgram(options: { readonly io: CliIo; readonly command: readonly string[]; readonly state: ProgramState }): Command {
  const { io, command, state } = options;
  const output = new Output(io);
  const specOf = (flags: TargetFlags, target: string | undefined): TargetSpec => ({
    ...(target === undefined ? {} : { target }),
    command,
    env: flags.env,
    ...(flags.inheritEnv ? {} : { inheritEnv: false }),
    ...(flags.cwd === undefined ? {} : { cwd: flags.cwd }),
    ...(flags.config === undefined ? {} : { config: flags.config }),
  });
  const server = (flags: ServerFlags, target: string | undefined): ServerCommandOptions => ({
    io,
    output,
    spec: specOf(flags, target),
    era: flags.era,
    ...(flags.timeoutMs === undefined ? {} : { timeoutMs: flags.timeoutMs }),
    json: flags.json === true,
  });
  /** With `-- <command>`, the target is absent and the positionals shift left by one. */
  const shift = (positionals: (string | undefined)[]): (string | undefined)[] => (command.length > 0 ? [undefined, ...positionals] : positionals);

  const program = new Command('switchboard')
    .description('The Switchboard MCP toolkit: diagnose, list, call and read any MCP server, explain MCP errors')
    .version(VERSION, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show the help')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError('(switchboard --help shows the usage)')
    .addHelpText('after', EXIT_CODES)
    .allowExcessArguments(false);

  targetOptions(program.command('doctor'))
    .usage('[options] <url | name>  |  doctor [options] -- <command> [args…]')
    .argument('[target]', 'URL or host configuration name (omit with -- <command>)')
    .description('diagnose a server: start-up, transport, eras, error codes, tools; a report with the evidence, spec section, causes and fix')
    .option('--timeout-ms <ms>', 'budget of the whole run: the report comes by then (default 60000)', positiveInteger)
    .option('--request-timeout-ms <ms>', 'budget of each request or wait (default 10000)', positiveInteger)
    .addOption(new Option('--era <era>', 'which protocol era the checks connect in: legacy (session-based), modern (2026-07-28), auto').choices(Object.keys(ERA_CHOICES)).default('auto'))
    .option('--call <tool>', 'call this tool (and no other) and check its result; the doctor calls no tool otherwise')
    .option('--args <json>', 'the arguments of --call, a JSON object')
    .option('--foreign-token <token>', 'an access token issued for another resource: an HTTP server that asks for credentials must refuse it (else SWITCHBOARD_DOCTOR_FOREIGN_TOKEN)')
    .option('--json', 'print the report as JSON on stdout (it validates against schema/doctor-report.schema.json)')
    .addOption(new Option('--fail-on <severity>', 'the lowest severity that makes the exit code 1').choices(['error', 'warning']).default('warning'))
    .option('--ignore <finding-id>', 'mute this finding id (repeatable); muted findings are listed but never fail the run', collect, [])
    .option('--baseline <file>', 'mute the findings this file lists (by id and evidence fingerprint)')
    .option('--write-baseline <file>', "write this run's findings to a baseline file (they are muted in this run's report too)")
    .addHelpText('after', DOCTOR_HELP)
    .action(async (target: string | undefined, flags: Omit<ServerFlags, 'timeoutMs'> & { timeoutMs?: number; requestTimeoutMs?: number; call?: string; args?: string; foreignToken?: string; failOn: 'error' | 'warning'; ignore: string[]; baseline?: string; writeBaseline?: string }) => {
      state.exitCode = await doctorCommand({
        io,
        output,
        spec: specOf(flags, target),
        era: flags.era,
        ...(flags.timeoutMs === undefined ? {} : { timeoutMs: flags.timeoutMs }),
        ...(flags.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: flags.requestTimeoutMs }),
        ...(flags.call === undefined ? {} : { call: flags.call }),
        ...(flags.args === undefined ? {} : { args: flags.args }),
        ...(flags.foreignToken === undefined ? {} : { foreignToken: flags.foreignToken }),
        json: flags.json === true,
        failOn: flags.failOn,
        ignore: flags.ignore,
        ...(flags.baseline === undefined ? {} : { baseline: flags.baseline }),
        ...(flags.writeBaseline === undefined ? {} : { writeBaseline: flags.writeBaseline }),
      });
    });
  serverOptions(program.command('list').argument('[target]', 'URL or host configuration name').description('list the tools, resources, resource templates and prompts (tables, or --json)')).action(
    async (target: string | undefined, flags: ServerFlags) => {
      state.exitCode = await listCommand(server(flags, shift([target])[0]));
    },
  );
  serverOptions(
    program
      .command('call')
      .argument('[target]', 'URL or host configuration name (omit with -- <command>); may also come after the tool')
      .argument('[tool]', 'the tool to call')
      .description('call a tool: progress and logs live on stderr, elicitation at the terminal; exit 1 on isError')
      .option('--args <json>', 'the arguments, a JSON object'),
  ).action(async (first: string | undefined, second: string | undefined, flags: ServerFlags & { args?: string }) => {
    const { target, tool } = command.length > 0 ? { target: undefined, tool: first } : callWords(first, second, { io, ...(flags.config === undefined ? {} : { config: flags.config }) });
    state.exitCode = await callCommand({ ...server(flags, target), tool, args: flags.args });
  });
  serverOptions(
    program
      .command('read')
      .argument('[target]', 'URL or host configuration name (omit with -- <command>)')
      .argument('[uri]', 'the resource URI')
      .description('read a resource: text as it is, blobs summarised (--out FILE writes the bytes)')
      .option('--out <file>', 'write the contents to this file'),
  ).action(async (first: string | undefined, second: string | undefined, flags: ServerFlags & { out?: string }) => {
    const [target, uri] = shift([first, second]);
    state.exitCode = await readCommand({ ...server(flags, target), uri: uri ?? (command.length > 0 ? first : undefined), out: flags.out });
  });
  program
    .command('explain')
    .argument('<query...>', 'an error code (-32601), an HTTP status (404) or a quoted error message')
    .description('what an MCP error code, HTTP status or error message means, per revision, with causes and fixes')
    .option('--json', 'print the entries as JSON')
    .action((query: string[], flags: { json?: boolean }) => {
      state.exitCode = explainCommand({ output, query: query.join(' '), json: flags.json === true });
    });
  program
    .command('serve')
    .argument('<module>', 'a module whose default export is an McpServer (or a function returning one)')
    .description('run a server module on stdio, or on Streamable HTTP with --port')
    .option('--port <n>', 'serve Streamable HTTP on this port (0: any free port) instead of stdio', port)
    .option('--host <host>', 'the address to bind with --port', '127.0.0.1')
    .option('--redis-url <url>', 'share sessions, SSE events, tasks and notifications with other instances through this Redis (default: $SWITCHBOARD_REDIS_URL)')
    .action(async (module: string, flags: { port?: number; host: string; redisUrl?: string }) => {
      state.exitCode = await serveCommand({ io, output, module, host: flags.host, ...(flags.port === undefined ? {} : { port: flags.port }), ...(flags.redisUrl === undefined ? {} : { redisUrl: flags.redisUrl }) });
    });
  program
    .command('gateway')
    .description('many MCP servers behind one Streamable HTTP endpoint: upstreams connected in parallel, namespaced, filtered, reconnected; health on stderr, the file reloaded on change')
    .requiredOption('--config <file>', 'the gateway configuration (JSON; schema: @switchboard/gateway/schema/gateway-config.schema.json)')
    .option('--port <n>', 'the port to serve on (0: any free port; the URL is printed on stderr)', port, 0)
    .option('--host <host>', 'the address to bind', '127.0.0.1')
    .option('--verbose', 'log every upstream event on stderr')
    .option('--redis-url <url>', 'share the front\'s sessions, SSE events, tasks and notifications with other gateway instances through this Redis (default: $SWITCHBOARD_REDIS_URL)')
    .addHelpText('after', GATEWAY_HELP)
    .action(async (flags: { config: string; port: number; host: string; verbose?: boolean; redisUrl?: string }) => {
      state.exitCode = await gatewayCommand({ io, output, config: flags.config, port: flags.port, host: flags.host, verbose: flags.verbose === true, ...(flags.redisUrl === undefined ? {} : { redisUrl: flags.redisUrl }) });
    });
  targetOptions(program.command('bridge'))
    .usage('[options] <url | name>  |  bridge [options] -- <command> [args…]')
    .argument('[target]', 'the upstream server: URL or host configuration name (omit with -- <command>)')
    .description('serve one MCP server of any era and transport on Streamable HTTP to clients of every era (2026-07-28 and 2024-11-05 … 2025-11-25)')
    .option('--port <n>', 'the HTTP port (0: any free port)', port, 0)
    .option('--host <host>', 'the address to bind', '127.0.0.1')
    .addOption(new Option('--era <era>', 'the era to speak to the upstream: legacy, modern, auto (probe, then fall back)').choices(Object.keys(ERA_CHOICES)).default('auto'))
    .addOption(new Option('--response-mode <mode>', 'how POSTs are answered: auto (JSON, SSE once the handler sends a message first), json, sse').choices(['auto', 'json', 'sse']).default('auto'))
    .option('--request-timeout-ms <ms>', 'give up on an upstream request silent this long: a tool answers that it timed out (default 60000)', positiveInteger)
    .addHelpText('after', BRIDGE_HELP)
    .action(async (target: string | undefined, flags: TargetFlags & { port: number; host: string; era: EraChoice; responseMode: 'auto' | 'json' | 'sse'; requestTimeoutMs?: number }) => {
      state.exitCode = await bridgeCommand({
        io,
        output,
        spec: specOf(flags, target),
        port: flags.port,
        host: flags.host,
        era: flags.era,
        responseMode: flags.responseMode,
        ...(flags.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: flags.requestTimeoutMs }),
      });
    });
  targetOptions(program.command('dashboard'))
    .usage('[options] <url | name>  |  dashboard [options] -- <command> [args…]')
    .argument('[target]', 'the MCP server to watch: URL or host configuration name (omit with -- <command>)')
    .description('the bridge in front of any MCP server, with a live failure-analytics dashboard: MCP at /mcp, the page at /, JSON at /api/analytics')
    .option('--port <n>', 'the HTTP port (0: any free port)', port, 0)
    .option('--host <host>', 'the address to bind', '127.0.0.1')
    .option('--allowed-host <name>', 'a Host value (name, or name:port) the MCP endpoint and the dashboard answer instead of the loopback names (repeatable; required with a non-loopback --host)', collect, [])
    .option('--token <token>', 'the access token of the dashboard\'s data (default: $SWITCHBOARD_DASHBOARD_TOKEN, else a random one)')
    .addOption(new Option('--era <era>', 'the era to speak to the upstream: legacy, modern, auto (probe, then fall back)').choices(Object.keys(ERA_CHOICES)).default('auto'))
    .option('--request-timeout-ms <ms>', 'give up on an upstream request silent this long: counted as a timeout (default 60000)', positiveInteger)
    .addHelpText('after', DASHBOARD_HELP)
    .action(async (target: string | undefined, flags: TargetFlags & { port: number; host: string; allowedHost: string[]; token?: string; era: EraChoice; requestTimeoutMs?: number }) => {
      state.exitCode = await dashboardCommand({
        io,
        output,
        spec: specOf(flags, target),
        port: flags.port,
        host: flags.host,
        allowedHosts: flags.allowedHost,
        era: flags.era,
        ...(flags.token === undefined ? {} : { token: flags.token }),
        ...(flags.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: flags.requestTimeoutMs }),
      });
    });
  program
    .command('dev')
    .argument('<module>', 'a module whose default export is an McpServer (or a function returning one)')
    .description('like serve, and reloads when a file in the module\'s folder changes (hosts stay connected: HTTP keeps its port and each session its id)')
    .option('--port <n>', 'serve Streamable HTTP on this port (0: any free port) instead of stdio', port)
    .option('--host <host>', 'the address to bind with --port', '127.0.0.1')
    .addHelpText('after', DEV_HELP)
    .action(async (module: string, flags: { port?: number; host: string }) => {
      state.exitCode = await devCommand({ io, output, module, host: flags.host, ...(flags.port === undefined ? {} : { port: flags.port }) });
    });
  program
    .command('dev-generation', { hidden: true })
    .description('one generation of switchboard dev (started by it, in a child process)')
    .argument('<mode>')
    .argument('<file>')
    .argument('[protect]')
    .action(async (mode: string, file: string, protect: string | undefined) => {
      state.exitCode = await runGeneration({ io, mode: mode === 'http' ? 'http' : 'stdio', file, protect: protect !== '0' });
    });
  program
    .command('install')
    .argument('[module]', 'a server module (default export an McpServer); or give a command after --')
    .description('check that a server starts, then add it to a host\'s configuration (absolute paths)')
    .addOption(new Option('--host <host>', 'the host whose configuration to write').choices(INSTALL_HOSTS).makeOptionMandatory())
    .addOption(new Option('--scope <scope>', 'user (home folder), project (working directory), local (claude-code: this project, in ~/.claude.json)').choices(INSTALL_SCOPES).default('user'))
    .option('--name <name>', 'the server\'s name in the host (default: the name the server gives, its serverInfo.name; with --no-check, the module\'s or the command\'s name)')
    .option('--env <K=V>', 'a variable the host sets for the server (repeatable)', collect, [])
    .option('--print', 'print the entry on stdout instead of writing the file')
    .option('--force', 'replace an entry of the same name')
    .option('--no-check', 'do not start the server before writing')
    .option('--timeout-ms <ms>', 'budget of the start check (default 20000)', positiveInteger)
    .addHelpText('after', INSTALL_HELP)
    .action(async (module: string | undefined, flags: Pick<InstallOptions, 'host' | 'scope' | 'name' | 'print' | 'force' | 'check' | 'timeoutMs'> & { env: string[] }) => {
      state.exitCode = await installCommand({ io, output, command, ...flags, ...(module === undefined ? {} : { module }) });
    });
  program
    .command('login')
    .argument('[url]', 'the MCP server URL to sign in to (OAuth)')
    .description('sign in to an MCP server that needs OAuth; tokens are stored per user (mode 0600) and used by list, call, read and doctor')
    .option('--no-browser', 'print the sign-in URL instead of opening a browser')
    .option('--scope <scope>', 'the scope to ask for (default: what the server lists)')
    .option('--timeout-ms <ms>', 'how long to wait for the sign-in (default 300000)', positiveInteger)
    .option('--client-metadata-url <url>', "this client's Client ID Metadata Document URL, used when the authorization server supports CIMD")
    .option('--logout', 'forget the stored tokens of this URL')
    .option('--list', 'list the stored sign-ins')
    .action(async (url: string | undefined, flags: { browser: boolean; scope?: string; timeoutMs?: number; clientMetadataUrl?: string; logout?: boolean; list?: boolean }) => {
      state.exitCode = await loginCommand({
        io,
        output,
        ...(url === undefined ? {} : { url }),
        noBrowser: !flags.browser,
        ...(flags.scope === undefined ? {} : { scope: flags.scope }),
        ...(flags.timeoutMs === undefined ? {} : { timeoutMs: flags.timeoutMs }),
        ...(flags.clientMetadataUrl === undefined ? {} : { clientMetadataUrl: flags.clientMetadataUrl }),
        logout: flags.logout === true,
        list: flags.list === true,
      });
    });
  program
    .command('revisions')
    .description('list the MCP protocol revisions this build serves, with their era')
    .option('--json', 'print JSON')
    .action((flags: { json?: boolean }) => {
      state.exitCode = revisionsCommand({ output, json: flags.json === true });
    });
  program
    .command('version')
    .description('print the version')
    .action(() => {
      io.stdout(`${VERSION}\n`);
      state.exitCode = 0;
    });
  return program;
}

/** The exit code of a commander failure: 0 for help and version, 2 for every usage error. */
export function commanderExitCode(error: CommanderError): number {
  return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help' ? 0 : 2;
}
