/**
 * The security part of the standing suite, against real server processes: the conformance
 * server plus handlers that fail on purpose (`test/fixtures/security-server.mjs`), over Streamable HTTP on
 * 127.0.0.1 (port 0) and over stdio.
 *
 * - Every response body the suite sees (HTTP bodies, SSE events, stdout lines) is scanned: no exception text, no
 *   stack frame, no file URL or absolute path, no `…Error:` class name. The fixture's exceptions all carry a marker
 *   and an absolute path, and the probes themselves match none of the patterns (checked before sending), so a
 *   hit can only come from the server.
 * - Prototype-pollution attempts (`__proto__`, `constructor.prototype`) in the envelope, params, tool arguments,
 *   `_meta`, ids, method names and header values never change the server's built-in prototypes (a fixture tool
 *   reports them from inside the server process) and never crash it.
 * - Session ids: 1,000 of them unique, UUID-shaped, not sequential, their random bits balanced.
 * - Echoed client input is capped at 200 characters.
 * - Each limit (body size, batch size, line length, JSON depth, subscription count and URI length, events kept
 *   per stream) is reached once and answered with its documented error.
 *
 * Expected codes and statuses come from the specs cited beside each row. An HTTP error answer's body is a
 * JSON-RPC error response without an `id` member when the id is unknown (MCP 2025-11-25 basic/transports.mdx
 * "Sending Messages to the Server"; field bug B45).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { endStdin } from '../helpers/process.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/security-server.mjs', import.meta.url));
/** The marker every exception of the fixture carries (see SECRET there). */
const SECRET_MARKER = 'sb-secret-91d7';
/** The limits the fixture is started with: small, so each is cheap to reach. */
const LIMITS = {
  maxSubscriptionsPerSession: 4,
  maxSubscriptionUriLength: 256,
  maxBodyBytes: 64 * 1024,
  maxBatchSize: 4,
  maxEventsPerStream: 5,
  maxLineBytes: 64 * 1024,
} as const;
/** `@switchboard/jsonrpc` parseJson's default depth cap (not an option of serveHttp/serveStdio yet). */
const MAX_JSON_DEPTH = 64;
/** `@switchboard/jsonrpc` MAX_ECHO_CHARS: echoed input is cut there, `…` appended. */
const MAX_ECHO = 200;
/** The Dispatcher's default maxBatchSize (McpServer does not change it): the limit for stdio batches. */
const DISPATCHER_MAX_BATCH = 100;
const VERSION = '2025-11-25';

// ---------------------------------------------------------------------------------------------------------------
// The scan

const LEAK_PATTERNS: readonly (readonly [string, RegExp])[] = [
  ['exception text', new RegExp(SECRET_MARKER)],
  ['stack frame', /\bat\s+(?:async\s+)?(?:[\w$.#<>[\]]+\s+\()?(?:file:|node:|\/|[A-Za-z]:\\)/],
  ['source position', /\.(?:m?js|cjs|ts):\d+:\d+/],
  ['file URL', /file:\/\//i],
  ['Node internals', /node:internal/],
  ['absolute path', /\/(?:work|home|tmp|usr|root|opt|var|etc|Users|private|proc)\//],
  ['checkout path', new RegExp(process.cwd().replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))],
  ['error class name', /\b(?:[A-Z]\w*)?Error:/],
];

let scanned = 0;
const leaks: string[] = [];

/** Scans one response body (or SSE event, or stdout line). */
function scan(where: string, text: string): void {
  scanned++;
  for (const [name, pattern] of LEAK_PATTERNS) {
    const hit = pattern.exec(text);
    if (hit !== null) leaks.push(`${where}: ${name}: …${text.slice(Math.max(0, hit.index - 60), hit.index + 80)}…`);
  }
}

/** A probe must not match the scan itself, so that a hit can only come from the server. */
function probe(text: string): string {
  for (const [name, pattern] of LEAK_PATTERNS) if (pattern.test(text)) throw new Error(`probe matches the scan (${name}): ${text.slice(0, 120)}`);
  return text;
}

afterEach(() => {
  expect(leaks.splice(0), 'response bodies leaking internals').toEqual([]);
});

// ---------------------------------------------------------------------------------------------------------------
// Helpers

type Json = any;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function req(id: unknown, method: string, params?: unknown): string {
  return JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
}

function initParams(protocolVersion = VERSION): Json {
  return { protocolVersion, capabilities: {}, clientInfo: { name: 'security-probe', version: '0' } };
}

/** `depth` nested arrays around `0` inside ping params (the envelope object and `params` count: depth + 2 in all). */
function nestedPing(id: number, total: number): string {
  const inner = total - 2;
  return `{"jsonrpc":"2.0","id":${id},"method":"ping","params":{"deep":${'['.repeat(inner)}0${']'.repeat(inner)}}}`;
}

/** Every string member of a JSON value, for echo-length checks. */
function strings(value: Json): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(strings);
}

function expectEchoCapped(answer: Json, input: string): void {
  for (const s of strings(answer.error)) {
    expect(s.length, `an echoed string of ${s.length} characters`).toBeLessThanOrEqual(MAX_ECHO + 200);
    expect(s.includes(input)).toBe(false);
  }
  // The echoed part is the input's first 200 characters followed by "…".
  expect(JSON.stringify(answer.error)).toContain(`${input.slice(0, MAX_ECHO)}…`);
}

/** The server process's view of the built-in prototypes, through the fixture's `pollution_probe` tool. */
interface PrototypeReport {
  polluted: unknown;
  isAdmin: unknown;
  objectPrototype: string[];
  arrayPrototype: number;
  functionPrototype: string[];
}
const CLEAN_OBJECT_PROTOTYPE = Object.getOwnPropertyNames(Object.prototype).sort();

function expectUnpolluted(report: PrototypeReport): void {
  expect(report.polluted).toBeNull();
  expect(report.isAdmin).toBeNull();
  expect(report.objectPrototype).toEqual(CLEAN_OBJECT_PROTOTYPE);
}

/** Attempts on the JSON-RPC level, each line one message; `n` makes ids unique per transport. */
function pollutionLines(n: string): { line: string; id: unknown; expect: 'result' | number | 'ignored' }[] {
  const P = '{"polluted":"yes","isAdmin":true}';
  const C = `{"prototype":${P}}`;
  return [
    // JSON-RPC 2.0 §4: extra envelope members are not part of a request; the request is still served (ping).
    { line: `{"jsonrpc":"2.0","id":"${n}-env","method":"ping","__proto__":${P},"constructor":${C}}`, id: `${n}-env`, expect: 'result' },
    { line: `{"jsonrpc":"2.0","id":"${n}-params","method":"ping","params":{"__proto__":${P},"constructor":${C},"_meta":{"__proto__":${P}}}}`, id: `${n}-params`, expect: 'result' },
    // MCP 2025-11-25 server/tools.mdx: arguments are the tool's business; the tool sees them as own keys.
    { line: `{"jsonrpc":"2.0","id":"${n}-args","method":"tools/call","params":{"name":"echo_args","arguments":{"__proto__":${P},"constructor":${C},"a":{"__proto__":${P}}},"_meta":{"__proto__":${P},"constructor":${C},"progressToken":"__proto__"}}}`, id: `${n}-args`, expect: 'result' },
    { line: `{"jsonrpc":"2.0","id":"${n}-zod","method":"tools/call","params":{"name":"zod_args","arguments":{"__proto__":${P},"constructor":${C},"text":"x"}}}`, id: `${n}-zod`, expect: 'result' },
    { line: `{"jsonrpc":"2.0","id":"${n}-json-schema","method":"tools/call","params":{"name":"json_schema_2020_12_tool","arguments":{"__proto__":${P},"email":"a@b.c"}}}`, id: `${n}-json-schema`, expect: 'result' },
    // Names that are Object.prototype members: unknown tool/prompt -32602 (MCP 2025-11-25 server/tools.mdx and
    // server/prompts.mdx "Error Handling"), unknown method -32601 (JSON-RPC 2.0 §5.1).
    { line: req(`${n}-tool-proto`, 'tools/call', { name: '__proto__' }), id: `${n}-tool-proto`, expect: -32602 },
    { line: req(`${n}-tool-ctor`, 'tools/call', { name: 'constructor' }), id: `${n}-tool-ctor`, expect: -32602 },
    { line: req(`${n}-tool-tostring`, 'tools/call', { name: 'toString' }), id: `${n}-tool-tostring`, expect: -32602 },
    { line: req(`${n}-prompt-proto`, 'prompts/get', { name: '__proto__' }), id: `${n}-prompt-proto`, expect: -32602 },
    { line: req(`${n}-prompt-hasown`, 'prompts/get', { name: 'hasOwnProperty' }), id: `${n}-prompt-hasown`, expect: -32602 },
    // MCP 2025-11-25 schema.ts GetPromptRequestParams: argument values are strings → an object one is -32602.
    { line: `{"jsonrpc":"2.0","id":"${n}-prompt-args","method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{"__proto__":${P},"arg1":"a","arg2":"b"}}}`, id: `${n}-prompt-args`, expect: -32602 },
    { line: `{"jsonrpc":"2.0","id":"${n}-prompt-args-str","method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{"__proto__":"x","constructor":"y","arg1":"a","arg2":"b"}}}`, id: `${n}-prompt-args-str`, expect: 'result' },
    { line: req(`${n}-m-proto`, '__proto__'), id: `${n}-m-proto`, expect: -32601 },
    { line: req(`${n}-m-ctor`, 'constructor'), id: `${n}-m-ctor`, expect: -32601 },
    { line: req(`${n}-m-valueof`, 'valueOf'), id: `${n}-m-valueof`, expect: -32601 },
    { line: req(`${n}-m-hasown`, 'hasOwnProperty'), id: `${n}-m-hasown`, expect: -32601 },
    // MCP 2025-11-25 server/utilities/logging.mdx "Error Handling": an invalid level is -32602.
    { line: req(`${n}-level`, 'logging/setLevel', { level: '__proto__' }), id: `${n}-level`, expect: -32602 },
    { line: req(`${n}-level-ctor`, 'logging/setLevel', { level: 'constructor' }), id: `${n}-level-ctor`, expect: -32602 },
    // MCP 2025-11-25 server/utilities/completion.mdx: an unknown argument has no completions; context is data.
    { line: `{"jsonrpc":"2.0","id":"${n}-complete","method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"__proto__","value":"x"},"context":{"arguments":{"__proto__":${P}}}}}`, id: `${n}-complete`, expect: 'result' },
    { line: req(`${n}-complete-ctor`, 'completion/complete', { ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'constructor', value: '' } }), id: `${n}-complete-ctor`, expect: 'result' },
    // `__proto__` is no URI: -32602 (params that fail their schema); an unknown resource named through a
    // prototype key is -32002 (MCP 2025-11-25 server/resources.mdx "Error Handling").
    { line: req(`${n}-read-proto`, 'resources/read', { uri: '__proto__' }), id: `${n}-read-proto`, expect: -32602 },
    { line: req(`${n}-read-proto-uri`, 'resources/read', { uri: 'test://__proto__' }), id: `${n}-read-proto-uri`, expect: -32002 },
    { line: req(`${n}-sub-proto`, 'resources/subscribe', { uri: '__proto__' }), id: `${n}-sub-proto`, expect: 'result' },
    { line: req(`${n}-unsub-proto`, 'resources/unsubscribe', { uri: '__proto__' }), id: `${n}-unsub-proto`, expect: 'result' },
    // Request ids that are Object.prototype member names are ordinary string ids (JSON-RPC 2.0 §4).
    { line: req('__proto__', 'ping'), id: '__proto__', expect: 'result' },
    { line: req('constructor', 'ping'), id: 'constructor', expect: 'result' },
    { line: req('hasOwnProperty', 'tools/call', { name: 'pollution_probe' }), id: 'hasOwnProperty', expect: 'result' },
    // Notifications and stray responses naming prototype members: never answered (JSON-RPC 2.0 §4.1, §5).
    { line: '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"__proto__","reason":"x"}}', id: undefined, expect: 'ignored' },
    { line: '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"__proto__","progress":1}}', id: undefined, expect: 'ignored' },
    { line: `{"jsonrpc":"2.0","method":"__proto__","params":${P}}`, id: undefined, expect: 'ignored' },
    { line: '{"jsonrpc":"2.0","id":"__proto__","result":{"__proto__":{"polluted":"yes"}}}', id: undefined, expect: 'ignored' },
    { line: '{"jsonrpc":"2.0","id":"constructor","error":{"code":-1,"message":"x","data":{"__proto__":{"polluted":"yes"}}}}', id: undefined, expect: 'ignored' },
  ];
}

function checkPollutionAnswer(row: { expect: 'result' | number | 'ignored' }, answer: Json): void {
  if (row.expect === 'result') expect(answer, JSON.stringify(answer)).toHaveProperty('result');
  else if (typeof row.expect === 'number') expect(answer.error.code).toBe(row.expect);
}

/** JSON-RPC-level bad inputs, each with its spec-defined answer: an error code, or a tool result with `isError`. */
function badRequestRows(): [label: string, method: string, params: unknown, expected: number | 'isError'][] {
  const huge = 'n'.repeat(60_000);
  return [
    // MCP 2025-11-25 server/tools.mdx "Error Handling": unknown tool → -32602; a failing tool → isError result.
    ['unknown tool', 'tools/call', { name: 'no_such_tool' }, -32602],
    ['unknown tool, 60,000-character name', 'tools/call', { name: huge }, -32602],
    ['tool throws an Error', 'tools/call', { name: 'throws_sync' }, 'isError'],
    ['tool rejects with a TypeError', 'tools/call', { name: 'throws_async' }, 'isError'],
    ['tool throws a non-Error with a stack', 'tools/call', { name: 'throws_value' }, 'isError'],
    // JSON-RPC 2.0 §5.1: the server failed → -32603.
    ['tool returns a non-result', 'tools/call', { name: 'bad_result' }, -32603],
    // MCP 2025-11-25 server/tools.mdx "Error Handling": invalid arguments are reported in an isError result (SEP-1303).
    ['arguments fail the inputSchema', 'tools/call', { name: 'touch', arguments: { uri: 1 } }, 'isError'],
    // JSON-RPC 2.0 §4.2 / MCP 2025-11-25 schema.ts CallToolRequestParams: malformed params → -32602.
    ['params is an array', 'tools/call', [1, 2], -32602],
    // JSON-RPC 2.0 §4: params MUST be a structured value, else it is no Request object → -32600 (HTTP 400 with its id).
    ['params is a string', 'tools/call', 'x', -32600],
    ['name is a number', 'tools/call', { name: 7 }, -32602],
    ['arguments is null (B09)', 'tools/call', { name: 'test_simple_text', arguments: null }, -32602],
    ['arguments is an array', 'tools/call', { name: 'test_simple_text', arguments: [] }, -32602],
    // MCP 2025-11-25 server/prompts.mdx "Error Handling": invalid prompt name, missing arguments → -32602.
    ['unknown prompt', 'prompts/get', { name: 'no_such_prompt' }, -32602],
    ['missing required prompt arguments', 'prompts/get', { name: 'test_prompt_with_arguments' }, -32602],
    ['prompt argument not a string', 'prompts/get', { name: 'test_prompt_with_arguments', arguments: { arg1: 1, arg2: 'b' } }, -32602],
    ['prompt handler throws', 'prompts/get', { name: 'throws_prompt' }, -32603],
    // MCP 2025-11-25 server/resources.mdx "Error Handling": not found → -32002; internal errors → -32603.
    ['unknown resource', 'resources/read', { uri: 'test://no/such/resource' }, -32002],
    ['resource handler throws', 'resources/read', { uri: 'test://throws' }, -32603],
    ['uri is missing', 'resources/read', {}, -32602],
    // MCP 2025-11-25 server/utilities/pagination.mdx "Error Handling": invalid cursor → -32602.
    ['cursor is not base64', 'tools/list', { cursor: '!!not a cursor!!' }, -32602],
    ['cursor of another list', 'tools/list', { cursor: btoa('prompts:1') }, -32602],
    ['cursor past the end', 'resources/list', { cursor: btoa('resources:999999') }, -32602],
    ['cursor is a number', 'prompts/list', { cursor: 5 }, -32602],
    ['cursor of 50,000 characters', 'tools/list', { cursor: 'A'.repeat(50_000) }, -32602],
    // MCP 2025-11-25 server/utilities/logging.mdx "Error Handling": invalid log level → -32602.
    ['unknown log level', 'logging/setLevel', { level: 'loudest' }, -32602],
    // MCP 2025-11-25 server/utilities/completion.mdx "Error Handling": invalid prompt name / missing arguments → -32602.
    ['completion of an unknown prompt', 'completion/complete', { ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'a', value: '' } }, -32602],
    ['completion with a bad ref type', 'completion/complete', { ref: { type: 'ref/other' }, argument: { name: 'a', value: '' } }, -32602],
    ['completion without argument', 'completion/complete', { ref: { type: 'ref/prompt', name: 'test_simple_prompt' } }, -32602],
    ['completion handler throws', 'completion/complete', { ref: { type: 'ref/prompt', name: 'throws_prompt' }, argument: { name: 'arg', value: '' } }, -32603],
    // JSON-RPC 2.0 §5.1: method not found → -32601.
    ['unknown method', 'tools/destroy', {}, -32601],
    // MCP 2025-11-25 basic/lifecycle.mdx: a second initialize on a live session is refused (-32600, B30).
    ['second initialize', 'initialize', initParams(), -32600],
  ];
}

/** Requests that quote a 5,000-character input back in their error: [method, params, the input]. */
function echoCases(): [string, unknown, string][] {
  const long = (c: string) => `${c}${'x'.repeat(5000)}`;
  return [
    ['tools/call', { name: long('t') }, long('t')],
    ['prompts/get', { name: long('p') }, long('p')],
    ['resources/read', { uri: `test://${long('r')}` }, `test://${long('r')}`],
    ['tools/list', { cursor: long('c') }, long('c')],
    ['logging/setLevel', { level: long('l') }, long('l')],
    ['completion/complete', { ref: { type: 'ref/prompt', name: long('q') }, argument: { name: 'a', value: '' } }, long('q')],
    ['completion/complete', { ref: { type: long('k') }, argument: { name: 'a', value: '' } }, long('k')],
    ['resources/subscribe', { uri: `test://${long('s')}` }, `test://${long('s')}`],
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP

interface HttpAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
  /** The JSON-RPC messages of the body: the JSON value (array members spread) or the SSE events' data. */
  readonly messages: Json[];
  /** SSE event ids, in order (empty for JSON bodies). */
  readonly eventIds: string[];
}

function parseSse(text: string): { messages: Json[]; eventIds: string[] } {
  const messages: Json[] = [];
  const eventIds: string[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      else if (line.startsWith('id:')) eventIds.push(line.slice(3).trim());
    }
    const payload = data.join('\n');
    if (payload !== '') messages.push(JSON.parse(payload));
  }
  return { messages, eventIds };
}

function toAnswer(status: number, headers: http.IncomingHttpHeaders, text: string, where: string): HttpAnswer {
  scan(where, text);
  if (String(headers['content-type'] ?? '').startsWith('text/event-stream')) return { status, headers, text, ...parseSse(text) };
  let messages: Json[] = [];
  if (String(headers['content-type'] ?? '').startsWith('application/json') && text !== '') {
    const value = JSON.parse(text);
    messages = Array.isArray(value) ? value : [value];
  }
  return { status, headers, text, messages, eventIds: [] };
}

class HttpServerChild {
  proc!: ChildProcessWithoutNullStreams;
  port = 0;
  stderr = '';
  readonly agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

  async start(): Promise<void> {
    this.proc = spawn(process.execPath, [FIXTURE, 'http', JSON.stringify(LIMITS)], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.proc.stdout.on('data', (d: Buffer) => scan('http child stdout', d.toString()));
    this.port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line; stderr: ${this.stderr}`)), 15_000);
      this.proc.stderr.setEncoding('utf8');
      this.proc.stderr.on('data', (chunk: string) => {
        this.stderr += chunk;
        const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(this.stderr);
        if (m !== null) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      });
      this.proc.once('exit', (code) => reject(new Error(`server exited ${code}: ${this.stderr}`)));
    });
  }

  request(method: string, path: string, options: { headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<HttpAnswer> {
    const body = options.body;
    if (typeof body === 'string') probe(body);
    for (const value of Object.values(options.headers ?? {})) probe(value);
    return new Promise((resolve, reject) => {
      const r = http.request(
        { host: '127.0.0.1', port: this.port, method, path, agent: this.agent, headers: { ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }), ...options.headers } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(toAnswer(res.statusCode ?? 0, res.headers, Buffer.concat(chunks).toString('utf8'), `HTTP ${method} ${path.slice(0, 40)}`)));
          res.on('error', reject);
        },
      );
      r.on('error', reject);
      r.end(body);
    });
  }

  /** Opens a GET stream and returns its events as they come, and a way to stop reading. */
  openStream(headers: Record<string, string>): { events: { id: string | undefined; message: Json }[]; status: Promise<number>; close(): void } {
    const events: { id: string | undefined; message: Json }[] = [];
    let buffer = '';
    let request: http.ClientRequest;
    const status = new Promise<number>((resolve, reject) => {
      request = http.request({ host: '127.0.0.1', port: this.port, method: 'GET', path: '/mcp', agent: false, headers }, (res) => {
        resolve(res.statusCode ?? 0);
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            scan('HTTP GET stream event', block);
            let id: string | undefined;
            const data: string[] = [];
            for (const line of block.split('\n')) {
              if (line.startsWith('id:')) id = line.slice(3).trim();
              else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
            }
            events.push({ id, message: data.join('\n') === '' ? undefined : JSON.parse(data.join('\n')) });
          }
        });
        res.on('error', () => {});
      });
      request.on('error', (error) => (events.length === 0 ? reject(error) : undefined));
      request.end();
    });
    return { events, status, close: () => request.destroy() };
  }

  async stop(): Promise<number | null> {
    this.agent.destroy();
    if (this.proc.exitCode !== null) return this.proc.exitCode;
    const exited = new Promise<number | null>((resolve) => this.proc.once('exit', (code) => resolve(code)));
    this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 5000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  }
}

const JSON_AND_SSE = 'application/json, text/event-stream';

class HttpSession {
  constructor(
    readonly child: HttpServerChild,
    readonly id: string,
    readonly version: string,
  ) {}

  static async open(child: HttpServerChild, version = VERSION): Promise<HttpSession> {
    const init = await child.request('POST', '/mcp', {
      headers: { 'content-type': 'application/json', accept: JSON_AND_SSE },
      body: req(0, 'initialize', initParams(version)),
    });
    expect(init.status).toBe(200);
    const id = init.headers['mcp-session-id'] as string;
    const session = new HttpSession(child, id, version);
    expect((await session.post('{"jsonrpc":"2.0","method":"notifications/initialized"}')).status).toBe(202);
    return session;
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { 'content-type': 'application/json', accept: JSON_AND_SSE, 'mcp-session-id': this.id, 'mcp-protocol-version': this.version, ...extra };
  }

  post(body: string | Buffer, extra: Record<string, string> = {}): Promise<HttpAnswer> {
    return this.child.request('POST', '/mcp', { headers: this.headers(extra), body });
  }

  /** Sends one request and returns its response (the message carrying its id). */
  async call(id: string | number, method: string, params?: unknown): Promise<Json> {
    const answer = await this.post(req(id, method, params));
    expect(answer.status, `${method} ${JSON.stringify(params)?.slice(0, 100)}: ${answer.text.slice(0, 300)}`).toBe(200);
    const response = answer.messages.find((m) => m.id === id && !('method' in m));
    expect(response, `a response to ${method} with id ${JSON.stringify(id)}`).toBeDefined();
    return response;
  }

  async probePrototypes(id: string): Promise<PrototypeReport> {
    const answer = await this.call(id, 'tools/call', { name: 'pollution_probe' });
    return JSON.parse(answer.result.content[0].text as string) as PrototypeReport;
  }
}

/**
 * Expects an HTTP error answer: its status, and one JSON-RPC error with this code; its `id` is the request's when
 * the body was read and held one (`id`), else absent.
 */
function expectHttpError(answer: HttpAnswer, status: number, code: number, id?: string | number): Json {
  expect(answer.status, answer.text.slice(0, 300)).toBe(status);
  expect(String(answer.headers['content-type'])).toMatch(/^application\/json/);
  const body = JSON.parse(answer.text);
  expect(body.jsonrpc).toBe('2.0');
  if (id === undefined) expect(body).not.toHaveProperty('id');
  else expect(body.id).toBe(id);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  return body;
}

describe('Streamable HTTP: the conformance server with failing handlers, a child process on 127.0.0.1', () => {
  const child = new HttpServerChild();
  let session: HttpSession;

  beforeAll(async () => {
    await child.start();
    session = await HttpSession.open(child);
  });

  afterAll(async () => {
    // The server survived everything: it still answers, and it was still running when asked to stop.
    const alive = child.proc.exitCode === null;
    const code = await child.stop();
    expect(alive, `the server process died: ${child.stderr.slice(-2000)}`).toBe(true);
    expect(code).toBe(0);
  });

  it('JSON-RPC-level bad inputs get their spec-defined errors, handler failures none of their text', async () => {
    const rows = badRequestRows();
    for (const [i, [label, method, params, expected]] of rows.entries()) {
      // Refused at the HTTP level, 400 with the request's id: a second initialize (B30), a non-Request (§4).
      if (expected === -32600) {
        const answer = await session.post(req(`row-${i}`, method, params));
        expect(answer.status, label).toBe(400);
        expect(answer.messages[0]).toMatchObject({ id: `row-${i}`, error: { code: expected } });
        continue;
      }
      const answer = await session.call(`row-${i}`, method, params);
      if (expected === 'isError') {
        expect(answer.result, label).toMatchObject({ isError: true });
      } else {
        expect(answer.error?.code, `${label}: ${JSON.stringify(answer).slice(0, 300)}`).toBe(expected);
        expect(answer.error.message, label).toMatch(/^[A-Z]/);
      }
    }
    // The exceptions were thrown and logged (on stderr, not in any answer).
    await sleep(50);
    expect(child.stderr).toContain(SECRET_MARKER);
  });

  it('echoed input is capped at 200 characters (tool, prompt, resource, cursor, level, completion ref, header)', async () => {
    const cases = echoCases();
    for (const [i, [method, params, input]] of cases.entries()) {
      const answer = await session.call(`echo-${i}`, method, params);
      expectEchoCapped(answer, input);
      expect(JSON.stringify(answer).length).toBeLessThan(1500);
    }
    // A header value quoted in a refusal is capped the same way (MCP 2025-11-25 basic/transports.mdx "Protocol
    // Version Header": an unsupported version is 400).
    const version = `2025-${'9'.repeat(5000)}`;
    const refused = expectHttpError(await session.post(req(1, 'ping'), { 'mcp-protocol-version': version }), 400, -32000, 1);
    expect(refused.error.message.length).toBeLessThan(MAX_ECHO + 200);
  });

  it('transport-level bad inputs: each refused with its HTTP status and a JSON-RPC error, with the id only when the request was readable', async () => {
    // JSON-RPC 2.0 §5.1 + MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server": not JSON → 400 -32700.
    expectHttpError(await session.post('{"jsonrpc":"2.0","id":1,'), 400, -32700);
    expectHttpError(await session.post(''), 400, -32700);
    // Invalid UTF-8 outside a string cannot be JSON (RFC 8259 §8.1: JSON text is UTF-8) → -32700.
    expectHttpError(await session.post(Buffer.from([0xff, 0xfe, 0x7b, 0x7d])), 400, -32700);
    // JSON, but not a JSON-RPC message (JSON-RPC 2.0 §5.1) → 400 -32600.
    expectHttpError(await session.post('{"foo":1}'), 400, -32600);
    expectHttpError(await session.post('42'), 400, -32600);
    expectHttpError(await session.post('[]'), 400, -32600);
    // Invalid UTF-8 inside a string: the text decodes (U+FFFD) and is a valid ping; the specs leave it to the
    // receiver, so we ask only for a well-formed answer with the id (not a crash, no echo of the bytes as code).
    const inString = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":"utf8","method":"ping","params":{"x":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}}')]);
    const utf8 = await session.post(inString);
    expect(utf8.messages.find((m) => m.id === 'utf8')).toEqual({ jsonrpc: '2.0', id: 'utf8', result: {} });
    // MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server": Content-Type must be JSON → 415 (RFC 9110 §15.5.16).
    expectHttpError(await session.post(req(1, 'ping'), { 'content-type': 'text/plain' }), 415, -32000);
    // Accept must allow application/json or text/event-stream → 406 (RFC 9110 §15.5.7).
    expectHttpError(await session.post(req(1, 'ping'), { accept: 'text/html' }), 406, -32000, 1);
    // MCP 2025-11-25 basic/transports.mdx "Protocol Version Header": invalid or unsupported → 400.
    expectHttpError(await session.post(req(1, 'ping'), { 'mcp-protocol-version': '1999-01-01' }), 400, -32000, 1);
    expectHttpError(await session.post(req(1, 'ping'), { 'mcp-protocol-version': '2025-06-18' }), 400, -32000, 1);
    // MCP 2025-11-25 basic/transports.mdx "Session Management": no session id → 400; unknown → 404 (-32001, TS SDK).
    const noSession = { 'content-type': 'application/json', accept: JSON_AND_SSE, 'mcp-protocol-version': VERSION };
    expectHttpError(await child.request('POST', '/mcp', { headers: noSession, body: req(1, 'ping') }), 400, -32000, 1);
    for (const id of ['00000000-0000-4000-8000-000000000000', '__proto__', 'constructor', 'x'.repeat(2000)]) {
      expectHttpError(await session.post(req(1, 'ping'), { 'mcp-session-id': id }), 404, -32001, 1);
    }
    // MCP 2025-11-25 basic/transports.mdx "Security Warning": Origin MUST be validated; Host guards DNS rebinding → 403.
    expectHttpError(await session.post(req(1, 'ping'), { origin: 'http://evil.example' }), 403, -32000);
    expectHttpError(await session.post(req(1, 'ping'), { host: 'evil.example' }), 403, -32000);
    // RFC 9110 §15.5.6: the endpoint serves GET, POST and DELETE → 405 with Allow.
    const put = expectHttpError(await child.request('PUT', '/mcp', { headers: session.headers(), body: req(1, 'ping') }), 405, -32000);
    expect(put.error.message).toMatch(/^Method Not Allowed/);
    // MCP 2025-11-25 basic/transports.mdx "Listening for Messages from the Server": GET must accept SSE → 406.
    expectHttpError(await child.request('GET', '/mcp', { headers: session.headers({ accept: 'application/json' }) }), 406, -32000);
    // "Resumability and Redelivery": the server MAY refuse a Last-Event-ID it cannot serve → 400.
    for (const lastEventId of ['never-issued.1', '__proto__', 'a.b.99999999999']) {
      expectHttpError(await child.request('GET', '/mcp', { headers: session.headers({ accept: 'text/event-stream', 'last-event-id': lastEventId }) }), 400, -32000);
    }
    // MCP 2024-11-05 basic/transports.mdx "HTTP with SSE": POST /messages needs a live session's id (the body is
    // read first, so the refusal carries the request's id, JSON-RPC 2.0 §5).
    const legacy = { 'content-type': 'application/json' };
    expectHttpError(await child.request('POST', '/messages', { headers: legacy, body: req(1, 'ping') }), 400, -32000, 1);
    expectHttpError(await child.request('POST', '/messages?sessionId=__proto__', { headers: legacy, body: req(1, 'ping') }), 404, -32001, 1);
    // A path the server does not serve: 404 (RFC 9110 §15.5.5).
    expect((await child.request('GET', '/mcp-other', {})).status).toBe(404);
  });

  it('prototype-pollution attempts in the envelope, params, arguments, _meta, ids and headers change nothing in the server', async () => {
    expectUnpolluted(await session.probePrototypes('probe-before'));
    for (const row of pollutionLines('http')) {
      const answer = await session.post(row.line);
      if (row.expect === 'ignored') {
        expect(answer.status, row.line).toBe(202);
        continue;
      }
      expect(answer.status, row.line).toBe(200);
      checkPollutionAnswer(row, answer.messages.find((m) => m.id === row.id));
    }
    // The tool saw __proto__ and constructor as its own keys (JSON.parse semantics), and nothing else changed.
    const echoed = JSON.parse((await session.call('echo-keys', 'tools/call', { name: 'echo_args', arguments: JSON.parse('{"__proto__":{"x":1},"b":2}') })).result.content[0].text);
    expect(echoed).toEqual({ keys: ['__proto__', 'b'], spread: ['__proto__', 'b'], polluted: null });
    // Header values and a legacy session id naming prototype members.
    // MCP 2025-11-25 basic/transports.mdx "Session Management": an unknown session id is 404, whatever its text.
    expectHttpError(await session.post(req('hdr', 'ping'), { 'mcp-session-id': '__proto__', 'last-event-id': '__proto__.1' }), 404, -32001, 'hdr');
    expectHttpError(await child.request('GET', '/mcp', { headers: session.headers({ accept: 'text/event-stream', 'last-event-id': 'constructor.1' }) }), 400, -32000);
    // A 2025-03-26 session accepts batches: members carrying the same attempts.
    const old = await HttpSession.open(child, '2025-03-26');
    const batch = `[${pollutionLines('batch').filter((r) => r.expect !== 'ignored').slice(0, LIMITS.maxBatchSize).map((r) => r.line).join(',')}]`;
    const batchAnswer = await old.post(batch);
    expect(batchAnswer.status).toBe(200);
    expect(batchAnswer.messages).toHaveLength(LIMITS.maxBatchSize);
    const after = await session.probePrototypes('probe-after');
    expectUnpolluted(after);
  });

  it('session ids are unguessable: 1,000 are unique UUIDs, not sequential, their random bits balanced', async () => {
    // MCP 2025-11-25 basic/transports.mdx "Session Management": the id SHOULD be globally unique and
    // cryptographically secure (e.g. a securely generated UUID) and MUST be visible ASCII (0x21-0x7E).
    const ids: string[] = [];
    const init = req(0, 'initialize', initParams());
    const headers = { 'content-type': 'application/json', accept: 'application/json' };
    for (let wave = 0; wave < 1000; wave += 25) {
      const answers = await Promise.all(Array.from({ length: 25 }, () => child.request('POST', '/mcp', { headers, body: init })));
      for (const a of answers) {
        expect(a.status).toBe(200);
        ids.push(a.headers['mcp-session-id'] as string);
      }
    }
    expect(new Set(ids).size).toBe(1000);
    const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    for (const id of ids) {
      expect(id).toMatch(UUID_V4);
      expect(id).toHaveLength(36);
      expect(id).toMatch(/^[\x21-\x7e]+$/);
    }
    // Not sequential: consecutive ids (in issue order) differ in about half of their 122 random bits, never by a
    // small step.
    const bits = ids.map((id) => {
      const hex = id.replace(/-/g, '');
      // Drop the version nibble (index 12) and the two variant bits (top of index 16).
      const all = [...hex].map((h) => parseInt(h, 16).toString(2).padStart(4, '0')).join('');
      return all.slice(0, 48) + all.slice(52, 64) + all.slice(66);
    });
    expect(bits[0]).toHaveLength(122);
    for (let i = 1; i < ids.length; i++) {
      const delta = BigInt(`0x${ids[i]!.replace(/-/g, '')}`) - BigInt(`0x${ids[i - 1]!.replace(/-/g, '')}`);
      expect(delta < 0n ? -delta : delta).toBeGreaterThan(1n << 64n);
      let differing = 0;
      for (let b = 0; b < 122; b++) if (bits[i]![b] !== bits[i - 1]![b]) differing++;
      // Binomial(122, 1/2): mean 61, sd 5.5; 25..97 is over 6.5 sd either way.
      expect(differing).toBeGreaterThan(25);
      expect(differing).toBeLessThan(97);
    }
    // Each random bit position is set in 40-60 % of the ids (sd 1.6 % over 1,000: over 6 sd).
    for (let b = 0; b < 122; b++) {
      const ones = bits.filter((s) => s[b] === '1').length;
      expect(ones, `bit ${b}`).toBeGreaterThan(400);
      expect(ones, `bit ${b}`).toBeLessThan(600);
    }
    // Distinct 16-bit prefixes: about 992 expected for random ids; sequential or clustered ids give few.
    expect(new Set(ids.map((id) => id.slice(0, 4))).size).toBeGreaterThan(950);
    // Close the sessions we opened (MCP 2025-11-25 basic/transports.mdx "Session Management": DELETE ends one).
    for (let i = 0; i < ids.length; i += 50) {
      const answers = await Promise.all(ids.slice(i, i + 50).map((id) => child.request('DELETE', '/mcp', { headers: { 'mcp-session-id': id, 'mcp-protocol-version': VERSION } })));
      for (const a of answers) expect(a.status).toBe(200);
    }
  }, 40_000);

  it('SSE event ids do not reveal the session id', async () => {
    const stream = child.openStream(session.headers({ accept: 'text/event-stream' }));
    expect(await stream.status).toBe(200);
    await session.call('sub-watch', 'resources/subscribe', { uri: 'test://watched-resource' });
    await session.call('touch-1', 'tools/call', { name: 'touch', arguments: { uri: 'test://watched-resource', n: 2 } });
    for (let i = 0; i < 250 && stream.events.filter((e) => e.message !== undefined).length < 2; i++) await sleep(20);
    stream.close();
    // Accept naming SSE alone: a quick result is otherwise answered as JSON (no event ids to check).
    const answer = await session.post(req('ids', 'tools/call', { name: 'test_simple_text' }), { accept: 'text/event-stream' });
    const ids = [...answer.eventIds, ...stream.events.map((e) => e.id).filter((id): id is string => id !== undefined)];
    expect(ids.length).toBeGreaterThan(2);
    for (const id of ids) expect(id.includes(session.id)).toBe(false);
    await session.call('unsub-watch', 'resources/unsubscribe', { uri: 'test://watched-resource' });
  });

  describe('each limit, reached once, answered with its documented error', () => {
    it(`body size: a body over maxBodyBytes (${LIMITS.maxBodyBytes}) is 413 with a JSON-RPC error`, async () => {
      // RFC 9110 §15.5.14 (413 Content Too Large); MCP 2025-11-25 basic/transports.mdx "Sending Messages to the
      // Server": an input the server cannot accept gets an HTTP error status, the body a JSON-RPC error without id.
      const fits = req('fits', 'ping', { pad: 'p'.repeat(LIMITS.maxBodyBytes - 200) });
      expect((await session.post(fits)).messages).toContainEqual({ jsonrpc: '2.0', id: 'fits', result: {} });
      const over = req('over', 'ping', { pad: 'p'.repeat(LIMITS.maxBodyBytes) });
      const body = expectHttpError(await session.post(over), 413, -32000);
      expect(body.error.message).toBe(`Payload Too Large: the request body exceeds the limit: more than ${LIMITS.maxBodyBytes} bytes`);
    });

    it(`batch size: a batch over maxBatchSize (${LIMITS.maxBatchSize}) is refused whole with 400 and -32600`, async () => {
      // JSON-RPC 2.0 §6 (batches; MCP 2025-03-26 basic/index.mdx "Batching"): a refused batch is one error
      // response, id null (here: no id member, B45); HTTP 400 as for any input not accepted.
      const old = await HttpSession.open(child, '2025-03-26');
      const members = (n: number) => `[${Array.from({ length: n }, (_, i) => req(`b${i}`, 'ping')).join(',')}]`;
      const ok = await old.post(members(LIMITS.maxBatchSize));
      expect(ok.status).toBe(200);
      expect(ok.messages.map((m) => m.id).sort()).toEqual(['b0', 'b1', 'b2', 'b3']);
      const body = expectHttpError(await old.post(members(LIMITS.maxBatchSize + 1)), 400, -32600);
      expect(body.error.message).toBe(`Invalid Request: batch of ${LIMITS.maxBatchSize + 1} messages exceeds the limit of ${LIMITS.maxBatchSize}`);
      // A 2025-11-25 session accepts no batch at all (batching removed by MCP 2025-06-18 changelog.mdx).
      expectHttpError(await session.post(members(2)), 400, -32600);
    });

    it(`JSON depth: text nested deeper than ${MAX_JSON_DEPTH} levels is 400 and -32600 naming the limit`, async () => {
      expect((await session.post(nestedPing(1, MAX_JSON_DEPTH))).messages).toContainEqual({ jsonrpc: '2.0', id: 1, result: {} });
      const body = expectHttpError(await session.post(nestedPing(2, MAX_JSON_DEPTH + 1)), 400, -32600);
      expect(body.error.data).toEqual({ maxDepth: MAX_JSON_DEPTH });
      // 4 MiB is over the body limit: a deep body just under it is refused by depth, cheaply.
      const deep = '['.repeat(LIMITS.maxBodyBytes - 10);
      expectHttpError(await session.post(deep), 400, -32600);
    });

    it(`subscriptions: at most ${LIMITS.maxSubscriptionsPerSession} URIs of at most ${LIMITS.maxSubscriptionUriLength} characters per session, -32602 naming the limit`, async () => {
      // MCP 2025-11-25 server/resources.mdx "Subscriptions": subscribe answers {}; a request whose params break a
      // documented limit is Invalid params (JSON-RPC 2.0 §5.1 -32602).
      const s = await HttpSession.open(child);
      for (let i = 0; i < LIMITS.maxSubscriptionsPerSession; i++) {
        expect(await s.call(`s${i}`, 'resources/subscribe', { uri: `test://sub/${i}` })).toEqual({ jsonrpc: '2.0', id: `s${i}`, result: {} });
      }
      expect(await s.call('s-over', 'resources/subscribe', { uri: 'test://sub/over' })).toEqual({
        jsonrpc: '2.0',
        id: 's-over',
        error: {
          code: -32602,
          message: `Invalid params: too many subscriptions: this session already holds the limit of ${LIMITS.maxSubscriptionsPerSession}: unsubscribe from one first`,
          data: { uri: 'test://sub/over', maxSubscriptionsPerSession: LIMITS.maxSubscriptionsPerSession },
        },
      });
      expect(await s.call('u0', 'resources/unsubscribe', { uri: 'test://sub/0' })).toEqual({ jsonrpc: '2.0', id: 'u0', result: {} });
      expect(await s.call('u-never', 'resources/unsubscribe', { uri: 'test://never/subscribed' })).toEqual({ jsonrpc: '2.0', id: 'u-never', result: {} });
      const long = `test://${'l'.repeat(LIMITS.maxSubscriptionUriLength)}`;
      expect(await s.call('s-long', 'resources/subscribe', { uri: long })).toEqual({
        jsonrpc: '2.0',
        id: 's-long',
        error: {
          code: -32602,
          message: `Invalid params: "uri" is too long to subscribe to: ${long.length} characters, the limit is ${LIMITS.maxSubscriptionUriLength}`,
          data: { uri: `${long.slice(0, MAX_ECHO)}…`, maxSubscriptionUriLength: LIMITS.maxSubscriptionUriLength },
        },
      });
      expect(await s.call('s-fits', 'resources/subscribe', { uri: long.slice(0, LIMITS.maxSubscriptionUriLength) })).toEqual({ jsonrpc: '2.0', id: 's-fits', result: {} });
    });

    it(`events per stream: a resume after more than maxEventsPerStream (${LIMITS.maxEventsPerStream}) events replays the newest ones, same ids, in order`, async () => {
      // MCP 2025-11-25 basic/transports.mdx "Resumability and Redelivery": a resumed stream replays what came after
      // Last-Event-ID on that stream, with the ids they had; this store keeps the newest maxEventsPerStream events
      // of a stream (InMemoryEventStoreOptions.maxEventsPerStream: "older ones are dropped first").
      const s = await HttpSession.open(child);
      const stream = child.openStream(s.headers({ accept: 'text/event-stream' }));
      expect(await stream.status).toBe(200);
      await s.call('w', 'resources/subscribe', { uri: 'test://watched-resource' });
      const total = 3 * LIMITS.maxEventsPerStream;
      await s.call('t', 'tools/call', { name: 'touch', arguments: { uri: 'test://watched-resource', n: total } });
      const updates = () => stream.events.filter((e) => e.message !== undefined);
      for (let i = 0; i < 500 && updates().length < total; i++) await sleep(10);
      stream.close();
      const sent = updates();
      expect(sent).toHaveLength(total);
      for (const e of sent) expect(e.message).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'test://watched-resource' } });
      expect(new Set(sent.map((e) => e.id)).size).toBe(total);
      // Resume from the first event, long dropped: what is left is replayed, the newest ones, same ids, in order.
      const resumed = child.openStream(s.headers({ accept: 'text/event-stream', 'last-event-id': sent[0]!.id! }));
      expect(await resumed.status).toBe(200);
      for (let i = 0; i < 500 && resumed.events.filter((e) => e.message !== undefined).length < LIMITS.maxEventsPerStream; i++) await sleep(10);
      await sleep(50);
      resumed.close();
      const replayed = resumed.events.filter((e) => e.message !== undefined);
      expect(replayed.map((e) => e.id)).toEqual(sent.slice(-LIMITS.maxEventsPerStream).map((e) => e.id));
      // An id this server never issued is refused (the server MAY refuse what it cannot serve): 400.
      const [streamId] = sent[0]!.id!.split(/\.(?=\d+$)/);
      expectHttpError(await child.request('GET', '/mcp', { headers: s.headers({ accept: 'text/event-stream', 'last-event-id': `${streamId}.999999999` }) }), 400, -32000);
    });
  });

  it('after all of it the server still answers and its prototypes are clean', async () => {
    expect(await session.call('final-ping', 'ping')).toEqual({ jsonrpc: '2.0', id: 'final-ping', result: {} });
    expectUnpolluted(await session.probePrototypes('probe-final'));
  });
});

// ---------------------------------------------------------------------------------------------------------------
// stdio

class StdioServerChild {
  readonly proc: ChildProcessWithoutNullStreams;
  readonly messages: Json[] = [];
  stderr = '';
  readonly #waiters = new Set<() => void>();
  #sync = 0;

  constructor() {
    this.proc = spawn(process.execPath, [FIXTURE, 'stdio', JSON.stringify(LIMITS)], { stdio: ['pipe', 'pipe', 'pipe'] });
    let buffer = '';
    this.proc.stdout.setEncoding('utf8');
    this.proc.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        scan('stdout line', line);
        // MCP 2025-11-25 basic/transports.mdx "stdio": nothing but MCP messages on stdout.
        this.messages.push(JSON.parse(line));
      }
      for (const w of [...this.#waiters]) w();
    });
    this.proc.stderr.setEncoding('utf8');
    this.proc.stderr.on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.proc.stdin.on('error', () => {});
  }

  write(data: string | Buffer): void {
    if (typeof data === 'string') probe(data);
    this.proc.stdin.write(data);
  }

  /** Waits for the first message from index `from` on that `match` accepts. */
  waitFor(match: (m: Json) => boolean, from = 0, timeoutMs = 10_000): Promise<Json> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = this.messages.slice(from).find(match);
        if (found === undefined) return false;
        this.#waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`no matching message; stderr: ${this.stderr.slice(-1000)}`));
      }, timeoutMs);
      if (!check()) this.#waiters.add(check);
    });
  }

  response(id: unknown): Promise<Json> {
    return this.waitFor((m) => m.id === id && !('method' in m));
  }

  async request(id: string | number, method: string, params?: unknown): Promise<Json> {
    this.write(`${req(id, method, params)}\n`);
    return this.response(id);
  }

  /**
   * Writes `bytes` (one or more lines) then a ping, and returns what was answered in between: lines are handled
   * in order, and an answer that needs no handler (a parse error, an oversized line) comes before the ping's.
   */
  async exchange(bytes: string | Buffer): Promise<Json[]> {
    const from = this.messages.length;
    const id = `sync-${++this.#sync}`;
    this.write(bytes);
    this.write(`${req(id, 'ping')}\n`);
    await this.response(id);
    const end = this.messages.findIndex((m) => m.id === id);
    return this.messages.slice(from, end);
  }

  async handshake(version = VERSION): Promise<void> {
    expect(await this.request('init', 'initialize', initParams(version))).toMatchObject({ result: { protocolVersion: version } });
    this.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  }

  /** Ends stdin (the MCP shutdown for stdio, MCP 2025-11-25 basic/lifecycle.mdx "Shutdown") and returns the exit code. */
  stop(): Promise<number | null> {
    return endStdin(this.proc);
  }
}

const ID_NULL_ERROR = (code: number) => expect.objectContaining({ jsonrpc: '2.0', id: null, error: expect.objectContaining({ code }) });

describe('stdio: the same server as a child process, raw lines on stdin', () => {
  let child: StdioServerChild;

  beforeAll(async () => {
    child = new StdioServerChild();
    await child.handshake();
  });

  afterAll(async () => {
    const alive = child.proc.exitCode === null;
    const code = await child.stop();
    expect(alive, `the server process died: ${child.stderr.slice(-2000)}`).toBe(true);
    expect(code).toBe(0);
  });

  it('JSON-RPC-level bad inputs get their spec-defined errors, handler failures none of their text', async () => {
    for (const [i, [label, method, params, expected]] of badRequestRows().entries()) {
      const answer = await child.request(`row-${i}`, method, params);
      if (expected === 'isError') expect(answer.result, label).toMatchObject({ isError: true });
      else expect(answer.error?.code, `${label}: ${JSON.stringify(answer).slice(0, 300)}`).toBe(expected);
    }
    await sleep(50);
    expect(child.stderr).toContain(SECRET_MARKER);
  });

  it('echoed input is capped at 200 characters', async () => {
    for (const [i, [method, params, input]] of echoCases().entries()) {
      const answer = await child.request(`echo-${i}`, method, params);
      expectEchoCapped(answer, input);
      expect(JSON.stringify(answer).length).toBeLessThan(1500);
    }
  });

  it('bad lines: not JSON, not JSON-RPC, invalid UTF-8 → one error each with id null', async () => {
    // JSON-RPC 2.0 §5.1 / §5: the id cannot be read → "id": null; -32700 for invalid JSON, -32600 for a non-Request.
    expect(await child.exchange('{"jsonrpc":"2.0","id":1,\n')).toEqual([ID_NULL_ERROR(-32700)]);
    expect(await child.exchange('not json at all\n')).toEqual([ID_NULL_ERROR(-32700)]);
    expect(await child.exchange(Buffer.from([0xff, 0xfe, 0x7b, 0x7d, 0x0a]))).toEqual([ID_NULL_ERROR(-32700)]);
    expect(await child.exchange('{"foo":1}\n')).toEqual([ID_NULL_ERROR(-32600)]);
    expect(await child.exchange('[]\n')).toEqual([ID_NULL_ERROR(-32600)]);
    // Invalid UTF-8 inside a string decodes to U+FFFD; the specs leave it to the receiver: a well-formed answer.
    const inString = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":"utf8","method":"ping","params":{"x":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}}\n')]);
    expect(await child.exchange(inString)).toEqual([{ jsonrpc: '2.0', id: 'utf8', result: {} }]);
    // A 2025-11-25 session takes no batches (removed by MCP 2025-06-18 changelog.mdx): one -32600.
    expect(await child.exchange(`[${req('b1', 'ping')},${req('b2', 'ping')}]\n`)).toEqual([ID_NULL_ERROR(-32600)]);
  });

  it('prototype-pollution attempts change nothing in the server process', async () => {
    const report = async (id: string): Promise<PrototypeReport> =>
      JSON.parse((await child.request(id, 'tools/call', { name: 'pollution_probe' })).result.content[0].text as string) as PrototypeReport;
    expectUnpolluted(await report('probe-before'));
    for (const row of pollutionLines('stdio')) {
      const answers = await child.exchange(`${row.line}\n`);
      if (row.expect === 'ignored') {
        // Notifications and responses are never answered (JSON-RPC 2.0 §4.1, §5).
        expect(answers, row.line).toEqual([]);
        continue;
      }
      checkPollutionAnswer(row, answers.find((m) => m.id === row.id) ?? (await child.response(row.id)));
    }
    expectUnpolluted(await report('probe-after'));
  });

  describe('each limit, reached once, answered with its documented error', () => {
    it(`line length: a line over maxLineBytes (${LIMITS.maxLineBytes}) is one -32600 with id null, and the next line is served`, async () => {
      // JSON-RPC 2.0 §5: the oversized message's id is not read → "id": null; MCP 2025-11-25 basic/transports.mdx
      // "stdio": one message per line, so the stream resynchronises at the next newline.
      const fits = req('fits', 'ping', { pad: 'p'.repeat(LIMITS.maxLineBytes - 200) });
      expect(await child.exchange(`${fits}\n`)).toEqual([{ jsonrpc: '2.0', id: 'fits', result: {} }]);
      const over = req('over', 'ping', { pad: 'p'.repeat(LIMITS.maxLineBytes) });
      expect(await child.exchange(`${over}\n`)).toEqual([
        { jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: message exceeds the limit of ${LIMITS.maxLineBytes} bytes` } },
      ]);
    });

    it(`JSON depth: a line nested deeper than ${MAX_JSON_DEPTH} levels is -32600 with id null naming the limit`, async () => {
      expect(await child.exchange(`${nestedPing(1, MAX_JSON_DEPTH)}\n`)).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
      expect(await child.exchange(`${nestedPing(2, MAX_JSON_DEPTH + 1)}\n`)).toEqual([
        { jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: JSON nested deeper than ${MAX_JSON_DEPTH} levels`, data: { maxDepth: MAX_JSON_DEPTH } } },
      ]);
      expect(await child.exchange(`${'['.repeat(LIMITS.maxLineBytes - 10)}\n`)).toEqual([ID_NULL_ERROR(-32600)]);
    });

    it(`subscriptions: count and URI length per session, -32602 naming the limit`, async () => {
      for (let i = 0; i < LIMITS.maxSubscriptionsPerSession; i++) {
        expect(await child.request(`s${i}`, 'resources/subscribe', { uri: `test://sub/${i}` })).toEqual({ jsonrpc: '2.0', id: `s${i}`, result: {} });
      }
      expect(await child.request('s-over', 'resources/subscribe', { uri: 'test://sub/over' })).toMatchObject({
        error: { code: -32602, data: { uri: 'test://sub/over', maxSubscriptionsPerSession: LIMITS.maxSubscriptionsPerSession } },
      });
      const long = `test://${'l'.repeat(LIMITS.maxSubscriptionUriLength)}`;
      expect(await child.request('s-long', 'resources/subscribe', { uri: long })).toMatchObject({
        error: { code: -32602, data: { uri: `${long.slice(0, MAX_ECHO)}…`, maxSubscriptionUriLength: LIMITS.maxSubscriptionUriLength } },
      });
      expect(await child.request('u-never', 'resources/unsubscribe', { uri: long })).toEqual({ jsonrpc: '2.0', id: 'u-never', result: {} });
    });

    it(`batch size: a 2025-03-26 session's batch over ${DISPATCHER_MAX_BATCH} members is one -32600 with id null`, async () => {
      // JSON-RPC 2.0 §6 + MCP 2025-03-26 basic/index.mdx "Batching": batches are received at 2025-03-26; one over the
      // limit is refused as a whole (no member runs), its members' ids unread → "id": null.
      const old = new StdioServerChild();
      try {
        await old.handshake('2025-03-26');
        const members = (n: number) => `[${Array.from({ length: n }, (_, i) => req(`b${i}`, 'ping')).join(',')}]\n`;
        // The reply to a batch is one array of responses (JSON-RPC 2.0 §6), on one line.
        const [ok] = await old.exchange(members(DISPATCHER_MAX_BATCH));
        expect(ok).toHaveLength(DISPATCHER_MAX_BATCH);
        expect((ok as Json[]).map((m) => m.id)).toEqual(Array.from({ length: DISPATCHER_MAX_BATCH }, (_, i) => `b${i}`));
        expect(await old.exchange(members(DISPATCHER_MAX_BATCH + 1))).toEqual([
          {
            jsonrpc: '2.0',
            id: null,
            error: { code: -32600, message: `Invalid Request: batch of ${DISPATCHER_MAX_BATCH + 1} messages exceeds the limit of ${DISPATCHER_MAX_BATCH}` },
          },
        ]);
      } finally {
        expect(await old.stop()).toBe(0);
      }
    });
  });

  it('after all of it the server still answers', async () => {
    expect(await child.request('final-ping', 'ping')).toEqual({ jsonrpc: '2.0', id: 'final-ping', result: {} });
  });
});

it('every response body above was scanned', () => {
  // A floor well under what the suite produces (over 300 bodies), so a helper that stopped scanning shows here.
  expect(scanned).toBeGreaterThan(300);
});
