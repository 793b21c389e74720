/**
 * Error messages users paste, explained (data; see `entry.ts`). Each pattern is matched against the text as
 * given; a message that also names a code (`MCP error -32000: …`) or a status (`HTTP 404`) gets those entries too
 * (`lookup.ts`).
 */
import { ALL, LEGACY, type Explanation } from './entry.js';

const STDIO_2025 = 'MCP 2025-11-25 basic/transports.mdx "stdio"';

/** The message entries, most specific first. */
export const MESSAGE_EXPLANATIONS: readonly Explanation[] = [
  {
    id: 'message:redirect-refused',
    kind: 'message',
    title: 'Redirect refused',
    pattern: /redirect_refused|redirect.*refused|refused.*redirect/i,
    meanings: [{ revisions: ALL, meaning: 'The server answered with a redirect the client does not follow: to another origin (the body and the configured headers, such as an API key, would go there), a 301/302/303 (they turn a POST into a GET), or more than 5 same-origin 307/308 in a row. Raised by the client (`RedirectRefusedError`, code `redirect_refused`), naming the target.' }],
    causes: [
      'The server moved and redirects its old URL elsewhere',
      'A proxy or load balancer redirects http:// to https://, or adds or removes a trailing slash',
      'A redirect loop in the server or proxy configuration',
    ],
    fixes: [
      'Use the redirect target (the error names it) as the server URL',
      'Configure the client with the https:// URL, or the exact path the server answers on',
      'Fix the loop in the proxy or server configuration',
    ],
    spec: ['MCP 2025-11-25 basic/transports.mdx "Streamable HTTP"'],
  },
  {
    id: 'message:response-too-large',
    kind: 'message',
    title: 'Response too large',
    pattern: /response_too_large|response too large|exceeded \d+ (characters|bytes)/i,
    meanings: [{ revisions: ALL, meaning: 'An answer was larger than the client keeps (a stdio line over `maxLineBytes`, an SSE event over its cap): the request it answers fails at once with its size instead of waiting for its timeout. Raised by the client (`ResponseTooLargeError`, code `response_too_large`).' }],
    causes: [
      'A tool returns a whole file, a large query result or an image as one message',
      'A list (tools, resources) is not paginated and holds thousands of entries',
      'A server that never ends a line or an event (a bug, or a hostile server)',
    ],
    fixes: [
      'Return less per call: paginate, summarise, or return a resource link instead of the content',
      'Paginate the list on the server (a page size)',
      'Raise the client\'s limit only for a server you trust',
    ],
    spec: ['MCP 2025-11-25 server/utilities/pagination.mdx "Pagination"'],
  },
  {
    id: 'message:command-budget',
    kind: 'message',
    title: 'The command did not finish within its budget',
    pattern: /did not finish within its budget|command_timeout/i,
    meanings: [{ revisions: ALL, meaning: 'A switchboard command ran out of its whole budget (`--timeout-ms`, 60 s by default): connecting, every request and the output together. Its requests were cancelled and the server closed; raised by the CLI, not the server.' }],
    causes: [
      'The tool runs longer than the budget (progress does not extend it)',
      'The server is slow to start (npx downloading, a cold container) or never answers',
      'A server that streams without end (progress or an SSE line that never finishes)',
    ],
    fixes: [
      'Raise --timeout-ms for that command',
      'Install the server instead of fetching it at each start; `switchboard doctor` measures the start',
      'Run `switchboard doctor` on the server to see what it sends',
    ],
    spec: ['MCP 2025-11-25 basic/lifecycle.mdx "Timeouts"'],
  },
  {
    id: 'message:connection-closed',
    kind: 'message',
    title: 'Connection closed',
    pattern: /connection closed|closed before|stream ended|EPIPE|socket hang up/i,
    meanings: [{ revisions: ALL, meaning: 'The client lost the server: over stdio the process exited (or closed stdout), over HTTP the stream was cut. It is raised by the client itself, whatever code it carries.' }],
    causes: [
      'The server exited at start: the command or a file it needs is not found, a dependency is missing, the runtime is too old, or an environment variable (an API key) is missing',
      'The host runs the command with another PATH or working directory than your terminal (desktop hosts give a minimal PATH: npx, node or uvx may not resolve)',
      'The server printed something that is not a message on stdout, and the client stopped reading',
      'The server crashed later, during a call (read its stderr)',
    ],
    fixes: [
      'Run the host\'s exact command with its env: switchboard list -- <command> [args…] shows the exit code and last stderr lines',
      'Use absolute paths for the command and its files in the host configuration',
      'Log to stderr only (console.error, not console.log)',
      'Reproduce the call with switchboard call and read the stderr shown',
    ],
    spec: [STDIO_2025, 'MCP 2025-11-25 basic/lifecycle.mdx "Shutdown"'],
    fieldBugs: ['B15'],
  },
  {
    id: 'message:request-timed-out',
    kind: 'message',
    title: 'Request timed out',
    pattern: /timed? ?out|timeout/i,
    meanings: [{ revisions: ALL, meaning: 'The client gave up waiting for a response (SDK clients after 60 s by default); raised by the client, not sent by the server. The request may still be running on the server; the client should have sent notifications/cancelled.' }],
    causes: [
      'The tool takes longer than the client\'s timeout and sends no progress',
      'The server waits for something the client will never give (an elicitation or sampling request the client does not answer)',
      'The server is stuck, or answers on stderr, or not at all (a handler that never resolves)',
      'The first request of a process: a slow start (npx downloading, a cold container)',
    ],
    fixes: [
      'Raise the client timeout (--timeout-ms here; the host\'s own setting there) or send progress notifications, which reset it',
      'Declare only the capabilities the client really answers',
      'Reproduce with switchboard call --timeout-ms and watch stderr',
      'Install the server instead of fetching it at each start',
    ],
    spec: ['MCP 2025-11-25 basic/lifecycle.mdx "Timeouts"', 'MCP 2025-11-25 basic/utilities/progress.mdx "Progress Flow"'],
    fieldBugs: ['B25'],
  },
  {
    id: 'message:not-valid-json',
    kind: 'message',
    title: 'Unexpected token … is not valid JSON',
    pattern: /unexpected token|not valid json|unexpected end of json|json\.parse|invalid json/i,
    meanings: [{ revisions: ALL, meaning: 'A client read a line from the server\'s stdout that is not JSON. Over stdio, stdout carries protocol messages only.' }],
    causes: [
      'A console.log, print or banner on the server\'s stdout (often from a library, or npm\'s own "> script" lines when run through npm run)',
      'A message pretty-printed over several lines',
      'Over HTTP: an HTML error page (a proxy, a 404 page) read as JSON',
    ],
    fixes: [
      'Send every log to stderr; run node (not npm run) from the host configuration',
      'Write one message per line (JSON.stringify without indentation)',
      'Check the URL and the status: switchboard list <url>',
    ],
    spec: [STDIO_2025],
    fieldBugs: ['B15', 'B11'],
  },
  {
    id: 'message:session-not-found',
    kind: 'message',
    title: 'Session not found / no valid session id',
    pattern: /session (id )?not found|no valid session|invalid session|session.*(expired|terminated)|server not initialized|mcp-session-id/i,
    meanings: [
      { revisions: LEGACY, meaning: 'The Streamable HTTP server does not know the session the request names (404), or the request named none on a server that needs one (400).' },
      { revisions: ['2026-07-28'], meaning: 'There are no sessions in this era: a modern client talking to a session-based server, or a server still expecting sessions from a modern client.' },
    ],
    causes: [
      'The server restarted or reaped the idle session, and the client did not re-initialize',
      'Several server instances behind a load balancer without sticky sessions',
      'The client did not send Mcp-Session-Id (it skipped initialize, or a proxy dropped the header)',
      'The client and server are on different eras',
    ],
    fixes: [
      'Re-initialize without the old session id (the client must do it on 404)',
      'Route each session to one instance, or use a modern-era (2026-07-28) server',
      'Echo Mcp-Session-Id on every request after initialize; expose the header through CORS for browser clients',
      'Negotiate the era (--era auto)',
    ],
    spec: ['MCP 2025-11-25 basic/transports.mdx "Session Management"'],
  },
  {
    id: 'message:command-not-found',
    kind: 'message',
    title: 'spawn … ENOENT (command not found)',
    pattern: /ENOENT|command not found|not recognized as an internal|cannot find module/i,
    meanings: [{ revisions: ALL, meaning: 'The host could not start the server: the command (or the script it runs) does not exist where it was looked for.' }],
    causes: [
      'The command is not on the PATH the host gives (desktop hosts start with a minimal PATH: nvm, volta and Homebrew directories are missing)',
      'A relative path, resolved against the host\'s working directory, not yours',
      'The package was never built or installed (dist/ missing)',
    ],
    fixes: ['Use the absolute path of the command (which node, which npx)', 'Use absolute paths for the script, or set cwd', 'Build or install the server first'],
    spec: [STDIO_2025],
  },
  {
    id: 'message:connection-refused',
    kind: 'message',
    title: 'ECONNREFUSED / fetch failed',
    pattern: /ECONNREFUSED|fetch failed|ENOTFOUND|EAI_AGAIN|ECONNRESET|getaddrinfo|nothing listens|connection refused|connection_refused/i,
    meanings: [{ revisions: ALL, meaning: 'No HTTP server answered at that address. Switchboard\'s client says "Nothing listens at <url> (connection refused)" (`ConnectionRefusedError`, code `connection_refused`).' }],
    causes: ['The server is not running, or listens on another port or interface', 'localhost resolves to ::1 and the server listens on 127.0.0.1 only (or the reverse)', 'A wrong host name'],
    fixes: ['Start the server and check the port it prints', 'Use http://127.0.0.1:<port>/… instead of localhost', 'Check the URL'],
    spec: ['MCP 2025-11-25 basic/transports.mdx "Streamable HTTP"'],
  },
  {
    id: 'message:not-acceptable',
    kind: 'message',
    title: 'Not Acceptable: the client must accept application/json and text/event-stream',
    pattern: /not acceptable|must accept/i,
    meanings: [{ revisions: [...LEGACY.slice(1), '2026-07-28'], meaning: 'The server answered 406: the POST\'s Accept header did not list both media types.' }],
    causes: ['A hand-made request without the Accept header', 'A proxy that rewrites Accept'],
    fixes: ['Send Accept: application/json, text/event-stream'],
    spec: ['MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server"'],
    fieldBugs: ['B19'],
  },
  {
    id: 'message:host-origin',
    kind: 'message',
    title: 'Invalid Host or Origin header / Forbidden',
    pattern: /invalid (host|origin)|origin not allowed|host not allowed|dns rebinding|forbidden/i,
    meanings: [{ revisions: ALL, meaning: 'The server refused the request because of where it comes from (403): its Origin or Host header is not one it allows.' }],
    causes: ['A tunnel, container or proxy that changes the Host header', 'A browser client on another origin'],
    fixes: ['Add the host or origin to the server\'s allowed lists', 'Connect through 127.0.0.1 or localhost'],
    spec: ['MCP 2025-11-25 basic/transports.mdx "Security Warning"'],
  },
];
