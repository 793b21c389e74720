/**
 * JSON-RPC and MCP error codes, explained per revision (data; see `entry.ts`). Every code of the protocol's
 * `McpErrorCode` table has an entry here (a test keeps it so), plus one for the codes of the -32000…-32099 range
 * that no revision defines.
 */
import { ALL, LEGACY, MODERN, type Explanation } from './entry.js';

const JSONRPC = 'JSON-RPC 2.0 §5.1 "Error object"';
const ERRORS_2026 = 'MCP 2026-07-28 basic/index.mdx "Error Codes"';

/** The error-code entries, in code order (most negative last). */
export const CODE_EXPLANATIONS: readonly Explanation[] = [
  {
    id: 'code:-32700',
    kind: 'code',
    title: 'Parse error',
    codes: [-32700],
    meanings: [{ revisions: ALL, meaning: 'The receiver could not parse the message as JSON. No request could be read, so the answer has no usable id.' }],
    causes: [
      'Over stdio: text that is not a message reached the stream (a banner, a console.log, a progress bar) or a message was split across lines',
      'Over HTTP: an empty body or a body that is not JSON (a GET or DELETE answered as if it were a POST)',
      'A line ended with CRLF or began with a byte order mark and the receiver does not strip them',
    ],
    fixes: [
      'Send logs to stderr only; one JSON message per line on stdout, never pretty-printed',
      'POST exactly one JSON-RPC message with Content-Type: application/json',
      'Write LF line endings without a BOM (receivers should tolerate both, but not all do)',
    ],
    spec: [JSONRPC, 'MCP 2025-11-25 basic/transports.mdx "stdio"'],
    fieldBugs: ['B11', 'B12', 'B13', 'B15'],
  },
  {
    id: 'code:-32600',
    kind: 'code',
    title: 'Invalid Request',
    codes: [-32600],
    meanings: [
      { revisions: LEGACY, meaning: 'The JSON is not a valid request object (no "jsonrpc": "2.0", a bad id type, a method that is not a string). Also used for a second initialize on a live session.' },
      { revisions: MODERN, meaning: 'The JSON is not a valid request object. There is no initialize in this era, so a client still sending one to a modern-only server may see it refused.' },
    ],
    causes: [
      'A hand-written message without "jsonrpc": "2.0" or with an id that is null, an object or a fraction',
      'A second initialize on a session that is already initialized',
      'A batch (an array) sent to a revision that removed batching (2025-06-18 on)',
    ],
    fixes: [
      'Build messages with a JSON-RPC library, or check the id is a string or an integer',
      'Start a new session (without Mcp-Session-Id) instead of initializing twice',
      'Send one message per request; batches only on 2025-03-26',
    ],
    spec: [JSONRPC, 'MCP 2025-11-25 basic/lifecycle.mdx "Initialization"', 'MCP 2025-06-18 changelog.mdx'],
    fieldBugs: ['B05', 'B06', 'B07', 'B30'],
  },
  {
    id: 'code:-32601',
    kind: 'code',
    title: 'Method not found',
    codes: [-32601],
    meanings: [
      { revisions: LEGACY, meaning: 'The server does not implement the method, or the method belongs to a capability the server did not advertise (prompts/list without "prompts").' },
      { revisions: MODERN, meaning: 'The same, and also a method this era removed (initialize, ping, logging/setLevel, resources/subscribe); over HTTP it comes with status 404.' },
    ],
    causes: [
      'The server lacks the capability: check the capabilities in its initialize result (or server/discover)',
      'A client and server on different eras: a modern client calling a removed method, or a legacy client probing server/discover',
      'A typo in the method name (methods are case-sensitive: tools/list, not tools/List)',
    ],
    fixes: [
      'Call only what the server advertised; switchboard list <target> shows it',
      'Negotiate the era first (--era auto), or pin the era the server speaks',
      'Fix the method name',
    ],
    spec: [JSONRPC, 'MCP 2025-11-25 basic/lifecycle.mdx "Capability Negotiation"', ERRORS_2026],
    fieldBugs: ['B08'],
  },
  {
    id: 'code:-32602',
    kind: 'code',
    title: 'Invalid params',
    codes: [-32602],
    meanings: [
      { revisions: LEGACY, meaning: 'The params are wrong for the method: an unknown tool or prompt, a bad cursor, a missing argument, an unsupported log level. A tool whose arguments fail its own checks should answer a tool result with isError instead.' },
      { revisions: MODERN, meaning: 'As before, and also: a required _meta field is missing (protocolVersion, clientCapabilities; HTTP 400), a resource that does not exist (it replaced -32002), a bad requestState.' },
    ],
    causes: [
      'The tool, prompt or resource name is not one the server lists (names are case-sensitive)',
      'The arguments do not match the inputSchema (a string where a number is expected, a missing required field)',
      'Modern era: the request has no params._meta with the revision and client capabilities',
      'A cursor from another list, another server, or a previous run',
    ],
    fixes: [
      'List first and use the exact name',
      'Check the arguments against the tool\'s inputSchema (switchboard list <target> --json)',
      'Send the per-request _meta fields, or use a client that does',
      'Restart pagination without a cursor',
    ],
    spec: [JSONRPC, 'MCP 2025-11-25 server/tools.mdx "Error Handling"', 'MCP 2026-07-28 server/resources.mdx "Error Handling"', ERRORS_2026],
    fieldBugs: ['B09', 'B40', 'B44'],
  },
  {
    id: 'code:-32603',
    kind: 'code',
    title: 'Internal error',
    codes: [-32603],
    meanings: [{ revisions: ALL, meaning: 'The server failed while handling the request: an exception escaped a handler. Not the place for "not found" or bad arguments, which have their own codes.' }],
    causes: [
      'A bug or an unhandled exception in the server\'s handler (read the server\'s stderr or logs)',
      'A dependency of the handler failed (database, API, file) and the server did not turn it into a tool result',
      'The server answers an unknown tool or bad params with -32603 instead of -32602',
    ],
    fixes: [
      'Run the server by hand and reproduce the call: switchboard call <target> <tool> --args JSON',
      'Return a tool result with isError: true for expected failures, so the model can read them',
      'Report the wrong code to the server\'s authors',
    ],
    spec: [JSONRPC, 'MCP 2025-11-25 server/tools.mdx "Error Handling"'],
    fieldBugs: ['B09'],
  },
  {
    id: 'code:-32000',
    kind: 'code',
    title: 'Server error (implementation-defined); also "Connection closed"',
    codes: [-32000],
    meanings: [
      { revisions: LEGACY, meaning: 'Implementation-defined. SDK servers use it for transport refusals (a bad header, no session id, "Method not allowed"); SDK clients raise it locally as "Connection closed" when the server process or stream ended.' },
      { revisions: MODERN, meaning: 'A legacy implementation-defined code: new servers should not use it and a client must not assume a meaning. The local "Connection closed" of SDK clients is not a server answer at all.' },
    ],
    causes: [
      'A local "Connection closed": the server process exited or crashed at start (wrong path, missing dependency, a runtime too old, a missing environment variable)',
      'The server wrote something that is not a message on stdout and the client gave up on the stream',
      'An HTTP server refused the request at the transport (no Mcp-Session-Id, a bad MCP-Protocol-Version, GET or DELETE not allowed)',
    ],
    fixes: [
      'Run the exact command the host runs, with its environment, and read its stderr: switchboard list -- <command>',
      'Move every log to stderr',
      'Read the HTTP status and body that came with it: switchboard explain <status>',
    ],
    spec: ['MCP 2025-11-25 schema.ts "JSONRPCError"', ERRORS_2026],
    fieldBugs: ['B15'],
  },
  {
    id: 'code:-32001',
    kind: 'code',
    title: 'Session not found, or "Request timed out"',
    codes: [-32001],
    meanings: [
      { revisions: LEGACY, meaning: 'Implementation-defined. Two uses in the wild: SDK servers answer "Session not found" with HTTP 404 (the session ended or the server restarted), and SDK clients raise "Request timed out" locally when no response came within their timeout (60 s by default).' },
      { revisions: MODERN, meaning: 'A legacy implementation-defined code; there are no sessions in this era. A local timeout in a client is not a server answer.' },
    ],
    causes: [
      '"Request timed out": the tool runs longer than the client\'s timeout and sends no progress, or the server is stuck or never answers (a handler waiting on input the client cannot give)',
      '"Session not found": the server restarted or reaped the idle session, or a load balancer sent the request to another instance',
      'The server wrote its answer to stderr or not at all',
    ],
    fixes: [
      'Raise the client timeout (--timeout-ms here) or have the tool send progress notifications, which reset it',
      'Start a new session (a new initialize without Mcp-Session-Id); behind a load balancer, route a session to one instance',
      'Reproduce with switchboard call and watch stderr',
    ],
    spec: ['MCP 2025-11-25 basic/lifecycle.mdx "Timeouts"', 'MCP 2025-11-25 basic/transports.mdx "Session Management"'],
  },
  {
    id: 'code:-32002',
    kind: 'code',
    title: 'Resource not found',
    codes: [-32002],
    meanings: [
      { revisions: LEGACY, meaning: 'resources/read named a URI the server has no resource for; data.uri says which.' },
      { revisions: MODERN, meaning: 'Retired: 2026-07-28 answers a missing resource with -32602. Servers must not send -32002 in this era; clients should still accept it from older servers.' },
    ],
    causes: [
      'The URI is misspelled, or was listed earlier and is gone',
      'A template was filled with a value the server does not know',
    ],
    fixes: ['List the resources again (switchboard list <target>) and read a URI from the list', 'Check the template\'s variables'],
    spec: ['MCP 2025-11-25 server/resources.mdx "Error Handling"', 'MCP 2026-07-28 server/resources.mdx "Error Handling"'],
  },
  {
    id: 'code:-32020',
    kind: 'code',
    title: 'Header mismatch',
    codes: [-32020],
    meanings: [
      { revisions: LEGACY, meaning: 'Not defined: a legacy server sending it uses a code of the reserved range on its own.' },
      { revisions: MODERN, meaning: 'An HTTP header required by 2026-07-28 is missing, malformed, or says something else than the body (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*); sent with HTTP 400.' },
    ],
    causes: [
      'A proxy or client rewrote the body without updating the Mcp-Method / Mcp-Name headers',
      'A client that sends the body\'s _meta revision but another MCP-Protocol-Version header',
      'A tool argument mirrored to an Mcp-Param-* header with another value or encoding',
    ],
    fixes: ['Send headers that repeat the body exactly', 'Update the client; check what reaches the server with a logging proxy'],
    spec: [ERRORS_2026, 'MCP 2026-07-28 basic/transports/streamable-http.mdx "Request Metadata Headers"'],
  },
  {
    id: 'code:-32021',
    kind: 'code',
    title: 'Missing required client capability',
    codes: [-32021],
    meanings: [
      { revisions: LEGACY, meaning: 'Not defined in these revisions.' },
      { revisions: MODERN, meaning: 'The request needs a client capability the request did not declare in _meta (for example elicitation for a tool that asks the user); data.requiredCapabilities lists them; HTTP 400.' },
    ],
    causes: ['The client did not declare the capability (it has no elicitation or sampling handler)', 'The capability was declared on an earlier request only: in this era each request declares its own'],
    fixes: ['Use a client that can answer the input (switchboard call answers elicitation at a terminal)', 'Declare the capability in every request\'s _meta'],
    spec: [ERRORS_2026],
  },
  {
    id: 'code:-32022',
    kind: 'code',
    title: 'Unsupported protocol version',
    codes: [-32022],
    meanings: [
      { revisions: LEGACY, meaning: 'Not defined; a legacy server answers an unknown revision in initialize with a revision of its own, not an error.' },
      { revisions: MODERN, meaning: 'The server does not serve the revision the request claims; data.supported lists what it serves and data.requested echoes the claim; HTTP 400.' },
    ],
    causes: ['A modern client against a server that serves only session-based revisions (or the other way round)', 'A client claiming a revision newer than the server knows'],
    fixes: ['Let the client negotiate (--era auto falls back to initialize)', 'Pin a revision from data.supported'],
    spec: [ERRORS_2026, 'MCP 2026-07-28 basic/versioning.mdx "Version Negotiation"'],
  },
  {
    id: 'code:-32042',
    kind: 'code',
    title: 'URL elicitation required',
    codes: [-32042],
    meanings: [
      { revisions: ['2025-11-25'], meaning: 'The request cannot go on until the user completes one or more URL elicitations (data.elicitations, each with an elicitationId), typically an authorization in a browser.' },
      { revisions: ['2024-11-05', '2025-03-26', '2025-06-18'], meaning: 'Not defined in these revisions.' },
      { revisions: MODERN, meaning: 'Retired: the modern era asks for input with an input_required result instead.' },
    ],
    causes: ['The server needs the user to visit a URL (sign-in, consent) before the tool can run'],
    fixes: ['Open the URL listed in data.elicitations, then retry; use a client that supports URL elicitation'],
    spec: ['MCP 2025-11-25 schema.ts "URLElicitationRequiredError"'],
  },
  {
    id: 'code:reserved',
    kind: 'code',
    title: 'A code of the -32000…-32099 range that the spec does not define',
    meanings: [
      { revisions: LEGACY, meaning: 'Implementation-defined server errors (JSON-RPC reserves -32000…-32099 for them); only the server\'s documentation says what it means.' },
      { revisions: MODERN, meaning: '-32000…-32019 are legacy implementation-defined codes (no new ones may be allocated); -32023…-32099 are reserved for the spec and must not be sent until it defines them.' },
    ],
    causes: ['The server (or its SDK) made up its own code', 'A newer spec revision defines it and this build does not know it yet'],
    fixes: ['Read the message and data of the error and the server\'s documentation', 'Report to the server\'s authors: application errors belong outside -32768…-32000, tool failures in a result with isError'],
    spec: [JSONRPC, ERRORS_2026],
  },
];
