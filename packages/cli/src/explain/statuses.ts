/**
 * HTTP statuses a Streamable HTTP (or 2024-11-05 HTTP+SSE) exchange may answer with, explained per revision
 * (data; see `entry.ts`).
 */
import { ALL, LEGACY, MODERN, type Explanation } from './entry.js';

const HTTP_2025 = 'MCP 2025-11-25 basic/transports.mdx "Streamable HTTP"';
const SESSIONS_2025 = 'MCP 2025-11-25 basic/transports.mdx "Session Management"';
const HTTP_2026 = 'MCP 2026-07-28 basic/transports/streamable-http.mdx "Receiving Messages"';

/** The HTTP status entries, in status order. */
export const STATUS_EXPLANATIONS: readonly Explanation[] = [
  {
    id: 'status:202',
    kind: 'status',
    title: '202 Accepted',
    status: 202,
    meanings: [{ revisions: ALL, meaning: 'The server took a notification or a response (a POST with no request in it); there is no body. It is not an answer to a request.' }],
    causes: ['Normal for notifications/initialized, notifications/cancelled and answers to the server\'s requests', 'A request sent with the shape of a notification (no id) gets 202 and never an answer'],
    fixes: ['Nothing to do for notifications', 'Give every request an id'],
    spec: [HTTP_2025, HTTP_2026],
    fieldBugs: ['B23'],
  },
  {
    id: 'status:400',
    kind: 'status',
    title: '400 Bad Request',
    status: 400,
    meanings: [
      { revisions: LEGACY, meaning: 'The server refused the POST before handling it: no Mcp-Session-Id on a server that needs sessions, an MCP-Protocol-Version it does not serve, a body that is not one JSON-RPC message, a second initialize.' },
      { revisions: MODERN, meaning: 'A request of the modern era is malformed: a missing _meta field (-32602), a header that disagrees with the body (-32020), a missing client capability (-32021), an unsupported revision (-32022). The JSON-RPC error in the body says which.' },
    ],
    causes: [
      'A session-based server got a request without Mcp-Session-Id (the client skipped initialize or lost the header)',
      'The client and server are on different eras (a modern request to a legacy server, or the reverse)',
      'A bad or unsupported MCP-Protocol-Version header',
      'The body is empty or not JSON (a GET or DELETE the server reads as a POST)',
    ],
    fixes: [
      'Initialize first and echo Mcp-Session-Id on every later request',
      'Let the client negotiate the era (--era auto) and read the JSON-RPC error code in the body: switchboard explain <code>',
      'Send a revision the server serves',
      'POST one JSON-RPC message with Content-Type: application/json',
    ],
    spec: [SESSIONS_2025, 'MCP 2025-11-25 basic/transports.mdx "Protocol Version Header"', HTTP_2026],
    fieldBugs: ['B22'],
  },
  {
    id: 'status:401',
    kind: 'status',
    title: '401 Unauthorized',
    status: 401,
    meanings: [
      { revisions: ['2024-11-05'], meaning: 'Authorization is up to the server; this revision defines no flow.' },
      { revisions: ['2025-03-26', '2025-06-18', '2025-11-25', ...MODERN], meaning: 'The server needs an OAuth access token (or the one sent is invalid or expired). From 2025-06-18 the WWW-Authenticate header points at the protected resource metadata, where the client finds the authorization server.' },
    ],
    causes: ['No Authorization: Bearer header was sent', 'The token expired or was issued for another resource (audience)', 'A proxy stripped the Authorization header'],
    fixes: ['Sign in through a client that does MCP authorization, or pass a token with the host\'s headers setting', 'Refresh the token; check its audience is this server', 'Check the proxy forwards Authorization'],
    spec: ['MCP 2025-11-25 basic/authorization.mdx "Authorization Flow"'],
  },
  {
    id: 'status:403',
    kind: 'status',
    title: '403 Forbidden',
    status: 403,
    meanings: [{ revisions: ALL, meaning: 'The server refused who or where the request comes from: an Origin it does not allow (the DNS-rebinding guard), a Host it does not serve, or a token without the scope needed.' }],
    causes: [
      'A browser-based client whose Origin the server does not list',
      'The server is reached by a name or address it does not expect in Host (a tunnel, a container port mapping, a reverse proxy)',
      'The token lacks a scope (WWW-Authenticate says insufficient_scope)',
    ],
    fixes: ['Add the origin to the server\'s allowed origins', 'Add the host name to the server\'s allowed hosts, or connect through 127.0.0.1 / localhost', 'Ask for a token with the scope'],
    spec: ['MCP 2025-11-25 basic/transports.mdx "Security Warning"', 'MCP 2026-07-28 basic/transports/streamable-http.mdx "Security & Endpoint"'],
  },
  {
    id: 'status:404',
    kind: 'status',
    title: '404 Not Found',
    status: 404,
    meanings: [
      { revisions: LEGACY, meaning: 'With Mcp-Session-Id: the session is over (ended, expired, or the server restarted); the client must start a new session with initialize. Without: the URL is not an MCP endpoint.' },
      { revisions: MODERN, meaning: 'The method does not exist or is not served (with -32601 in the body), or the URL is not an MCP endpoint.' },
    ],
    causes: [
      'The wrong path: many servers serve /mcp, some /, some /sse (2024-11-05 HTTP+SSE)',
      'The session ended: the server restarted or reaped it, or another instance behind a load balancer got the request',
      'Modern era: a method this era removed or the server does not implement',
    ],
    fixes: ['Check the endpoint path (switchboard list <url> tries it)', 'Re-initialize without the old session id (clients must do it themselves); keep a session on one instance', 'switchboard explain -32601'],
    spec: [SESSIONS_2025, HTTP_2026],
  },
  {
    id: 'status:405',
    kind: 'status',
    title: '405 Method Not Allowed',
    status: 405,
    meanings: [
      { revisions: LEGACY, meaning: 'A GET (the server offers no standalone SSE stream) or a DELETE (the server does not let clients end sessions). Both are allowed answers: a client must go on without them.' },
      { revisions: MODERN, meaning: 'The expected answer of a modern-only server to GET and DELETE (there are no sessions and no GET stream in this era). A POST answered 405 means the URL is wrong.' },
    ],
    causes: ['A client opening the optional GET stream on a server without one', 'A legacy client against a modern-only server', 'A POST to a URL that only serves GET (the 2024-11-05 /sse endpoint)'],
    fixes: ['Nothing, if the client goes on without the stream', 'Negotiate the era (--era auto)', 'POST to the MCP endpoint, not the SSE one'],
    spec: [HTTP_2025, 'MCP 2026-07-28 basic/transports/streamable-http.mdx "Earlier Streamable HTTP Revisions"'],
    fieldBugs: ['B26'],
  },
  {
    id: 'status:406',
    kind: 'status',
    title: '406 Not Acceptable',
    status: 406,
    meanings: [{ revisions: [...LEGACY.slice(1), ...MODERN], meaning: 'The POST\'s Accept header does not list both application/json and text/event-stream, which the client must send; the server cannot pick an answer form.' }],
    causes: ['A hand-made request (curl, a script) without Accept: application/json, text/event-stream', 'A proxy or HTTP library that replaces Accept'],
    fixes: ['Send Accept: application/json, text/event-stream on every POST', 'Check what the proxy forwards'],
    spec: ['MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server"'],
    fieldBugs: ['B19'],
  },
  {
    id: 'status:409',
    kind: 'status',
    title: '409 Conflict',
    status: 409,
    meanings: [{ revisions: LEGACY, meaning: 'Not set by the spec; SDK servers answer it to a second GET stream on one session (only one standalone stream at a time).' }],
    causes: ['The client opened the GET stream twice (a reconnect that did not close the old one)'],
    fixes: ['Close the old stream before reconnecting; resume with Last-Event-ID'],
    spec: [HTTP_2025],
  },
  {
    id: 'status:415',
    kind: 'status',
    title: '415 Unsupported Media Type',
    status: 415,
    meanings: [{ revisions: ALL, meaning: 'The POST body is not declared as application/json.' }],
    causes: ['No Content-Type header, or text/plain (fetch\'s default for a string body)', 'A form encoding from an HTTP tool'],
    fixes: ['Send Content-Type: application/json'],
    spec: [HTTP_2025],
    fieldBugs: ['B21'],
  },
];
