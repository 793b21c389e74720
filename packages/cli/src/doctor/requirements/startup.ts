/**
 * The start-up requirements (see `Requirement`): whether the server starts and answers at all, before any other
 * check. A stdio server is a subprocess the host launches (MCP 2025-11-25 basic/transports.mdx "stdio") and its first
 * answer opens the lifecycle (basic/lifecycle.mdx "Initialization"); an HTTP server must be reachable at its URL.
 */
import type { Requirement, SpecRef } from '../types.js';

const STDIO: SpecRef = { revision: '2025-11-25', page: 'basic/transports.mdx', section: 'stdio' };
const INITIALIZATION: SpecRef = { revision: '2025-11-25', page: 'basic/lifecycle.mdx', section: 'Initialization' };
const TIMEOUTS: SpecRef = { revision: '2025-11-25', page: 'basic/lifecycle.mdx', section: 'Timeouts' };
const STREAMABLE_HTTP: SpecRef = { revision: '2025-11-25', page: 'basic/transports.mdx', section: 'Streamable HTTP' };

/** The id of each start-up requirement. */
export const STARTUP = {
  commandNotFound: 'startup.command-not-found',
  spawnFailed: 'startup.spawn-failed',
  notOnHostPath: 'startup.not-on-host-path',
  exitedAtStart: 'startup.exited-at-start',
  noAnswer: 'startup.no-answer',
  slowStart: 'startup.slow-start',
  httpUnreachable: 'startup.http-unreachable',
  httpDns: 'startup.http-dns',
  httpTls: 'startup.http-tls',
} as const;

export const STARTUP_REQUIREMENTS: readonly Requirement[] = [
  {
    id: STARTUP.commandNotFound,
    area: 'startup',
    title: 'The command is found',
    behaviour: 'The configured command names a program that exists: a path to an executable file, or a name found in a directory of the PATH the server is started with.',
    spec: STDIO,
    revisions: 'all',
    transports: ['stdio'],
    severity: 'error',
    causes: [
      'The program is not installed, or installed under another name (`python` vs `python3`, `uv` vs `uvx`)',
      'It is installed in a directory only the interactive shell adds to PATH (nvm, Homebrew, `~/.local/bin`, a virtualenv)',
      'The command and its arguments are written as one string ("npx -y pkg") instead of a command and an `args` list',
      'The working directory (`cwd`) does not exist, or a script names an interpreter on its first line that does not exist',
    ],
    fix: 'Use the absolute path of the program as the command (`which npx` / `where npx` prints it), or set PATH in the entry\'s `env`; put each argument in `args`.',
    fixture: { file: 'stdio-command-not-found', transport: 'stdio', command: ['switchboard-no-such-command-2f7c'] },
  },
  {
    id: STARTUP.spawnFailed,
    area: 'startup',
    title: 'The command can be started',
    behaviour: 'The operating system starts the configured program: the file is executable by the user the host runs as.',
    spec: STDIO,
    revisions: 'all',
    transports: ['stdio'],
    severity: 'error',
    causes: [
      'The file lacks the executable bit (a script checked out or unpacked without `chmod +x`)',
      'The command names a directory, or a file for another platform or architecture',
      'On Windows, a `.cmd` or `.bat` shim (npx, uvx) started without a shell',
    ],
    fix: 'Make the file executable (`chmod +x`), or start it through its interpreter (`node server.js`, `python server.py`); on Windows use `cmd /c npx …` or the `.exe`.',
  },
  {
    id: STARTUP.notOnHostPath,
    area: 'startup',
    title: 'The command is found with a desktop host\'s PATH',
    behaviour: 'A bare command name resolves with the minimal PATH a desktop host gives its servers when it was launched from the Dock or Finder (macOS: `/usr/bin:/bin:/usr/sbin:/sbin`), not only with the shell\'s PATH the doctor was run with.',
    spec: null,
    source: 'https://github.com/modelcontextprotocol/python-sdk/issues/478',
    revisions: 'all',
    transports: ['stdio'],
    severity: 'warning',
    causes: [
      'The program comes from nvm, Homebrew on Apple Silicon (`/opt/homebrew/bin`), `~/.local/bin` or another directory the shell profile adds',
      'The host app inherits launchd\'s environment, which never reads `~/.zshrc` or `~/.bash_profile`',
    ],
    fix: 'Configure the absolute path of the program (`which npx`), and when it is a script that starts `node` or `python` through `/usr/bin/env`, also set PATH in the entry\'s `env` to include the interpreter\'s directory.',
  },
  {
    id: STARTUP.exitedAtStart,
    area: 'startup',
    title: 'The server keeps running',
    behaviour: 'The process keeps running and reads messages from stdin until the client closes it; it does not exit before answering its first request.',
    spec: STDIO,
    revisions: 'all',
    transports: ['stdio'],
    severity: 'error',
    causes: [
      'It failed at start-up: a missing module or dependency, a syntax error, a missing environment variable or API key (see its stderr)',
      'Wrong arguments: the program is not started in its stdio server mode (a missing `stdio` or `--stdio` argument, or the wrong subcommand)',
      'It ends when stdin is not a terminal, or it reads stdin to its end before serving',
    ],
    fix: 'Run the exact command in a terminal and read its stderr; install what is missing, pass the arguments and environment variables its documentation asks for.',
    fixture: { file: 'stdio-exits-at-start', transport: 'stdio' },
  },
  {
    id: STARTUP.noAnswer,
    area: 'startup',
    title: 'The server answers its first request',
    behaviour: 'The server answers `initialize` (or `server/discover` in the modern era) with a result or an error on stdout, within the client\'s request timeout.',
    spec: INITIALIZATION,
    revisions: 'all',
    transports: ['stdio'],
    severity: 'error',
    causes: [
      'It writes its answers somewhere else (stderr, a log file) or buffers stdout and never flushes it (Python without `-u` behind a pipe)',
      'It waits for something before serving: a network connection, a login prompt, a file lock',
      'It is not an MCP stdio server at all, or it was started in another mode (an HTTP server, a REPL)',
    ],
    fix: 'Run the command in a terminal, paste an `initialize` request and see where the answer goes; write JSON-RPC messages to stdout only, flushed after each line.',
    fixture: { file: 'stdio-no-answer', transport: 'stdio' },
  },
  {
    id: STARTUP.slowStart,
    area: 'startup',
    title: 'The server starts quickly',
    behaviour: 'The first answer comes within about 5 seconds of the start: hosts start every stdio server when they launch and wait for it, a slow start delays every session, and hosts with short timeouts give up.',
    spec: TIMEOUTS,
    revisions: 'all',
    transports: ['stdio'],
    severity: 'warning',
    causes: [
      'A package runner downloads or installs the package at each start (`npx -y`, `uvx` without a cache)',
      'Heavy imports or start-up work (loading models, connecting to databases) before the server reads stdin',
    ],
    fix: 'Install the package once and configure its installed binary; defer expensive work until a tool needs it and answer `initialize` first.',
    fixture: { file: 'stdio-slow-start', transport: 'stdio', requestTimeoutMs: 9000 },
  },
  {
    id: STARTUP.httpUnreachable,
    area: 'startup',
    title: 'Something listens at the URL',
    behaviour: 'A server accepts connections at the URL\'s host and port and answers an HTTP request.',
    spec: STREAMABLE_HTTP,
    revisions: 'all',
    transports: ['http'],
    severity: 'error',
    causes: [
      'The server is not running, or it crashed',
      'It listens on another port, or on another address (`127.0.0.1` vs `::1` for `localhost`, a container\'s port not published)',
      'A firewall or proxy drops the connection',
    ],
    fix: 'Start the server and check the port it prints; use the exact host and port it listens on (`127.0.0.1` rather than `localhost` when it binds IPv4 only).',
    fixture: { file: 'startup-http-refused', transport: 'http' },
  },
  {
    id: STARTUP.httpDns,
    area: 'startup',
    title: 'The URL\'s host name resolves',
    behaviour: 'The host name of the URL resolves to an address.',
    spec: STREAMABLE_HTTP,
    revisions: 'all',
    transports: ['http'],
    severity: 'error',
    causes: ['A typing error in the host name', 'A name only a VPN or another network\'s DNS knows', 'No network'],
    fix: 'Check the host name (`nslookup <host>`), connect the VPN it needs, or use the address.',
    fixture: { file: 'startup-http-dns', transport: 'http' },
  },
  {
    id: STARTUP.httpTls,
    area: 'startup',
    title: 'The TLS handshake succeeds',
    behaviour: 'An `https://` URL reaches a server that speaks TLS with a certificate the client trusts, for that host name.',
    spec: STREAMABLE_HTTP,
    revisions: 'all',
    transports: ['http'],
    severity: 'error',
    causes: [
      'The URL says `https://` but the server speaks plain HTTP on that port (or the reverse)',
      'A self-signed or expired certificate, or one issued for another host name',
      'A company proxy that re-signs TLS with a certificate the client does not trust',
    ],
    fix: 'Use the scheme the server speaks; give the server a valid certificate for its host name, or add the issuing CA to the client (`NODE_EXTRA_CA_CERTS` for Node hosts).',
    fixture: { file: 'startup-http-tls', transport: 'http' },
  },
];
