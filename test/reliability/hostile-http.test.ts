/**
 * Hostile HTTP clients against the real server: `serveHttp` on 127.0.0.1 (port 0) serving the conformance fixture
 * (`examples/conformance-server/server.js`), driven with `node:http` requests and raw `node:net` sockets.
 *
 * Every row states the answer it expects and the rule that answer comes from. The rules are the MCP 2025-11-25
 * transport (cited as `T "<section>"` for `MCP 2025-11-25 basic/transports.mdx "<section>"`), JSON-RPC 2.0, the HTTP
 * RFCs, and where the spec leaves the choice to the server, the convention this project documents (`docs/architecture.md`,
 * field bugs in `docs/field-bugs.md`, the statuses listed on `createMcpHttpHandler`). Error bodies are JSON-RPC error
 * responses with no `id` member when the request id is unknown (T "Sending Messages to the Server" item 4, B45).
 *
 * Headers are varied one at a time from a request the spec calls valid, then in pairwise combinations from a small
 * all-pairs generator; when two values are wrong at once, the expected refusal is the first in the documented order of
 * checks (Host, Origin, Content-Type, body, session, MCP-Protocol-Version, Accept: `protocol/classify.ts` "The order of
 * the ladder", with Host/Origin applied by the transport before it).
 *
 * Sizes stay small here (a 64 KiB body limit); `STRESS=1` uses more sockets and streams.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@switchboard/jsonrpc';
import { serveHttp } from '@switchboard/mcp/node';
import type { ServeHttpHandle } from '@switchboard/mcp/node';
import { createConformanceServer } from '../../examples/conformance-server/server.js';

const STRESS = process.env['STRESS'] === '1';
const MAX_BODY = 64 * 1024;
const REVISION = '2025-11-25';
const ACCEPT_BOTH = 'application/json, text/event-stream';

let handle: ServeHttpHandle;
let port = 0;
let sessionId = '';
let nextId = 1;

interface Reply {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** Header values: a string sets the header, `undefined` leaves it out (Host included: then Node's default). */
type Headers = Record<string, string | undefined>;

function send(method: string, headers: Headers, body?: string | Buffer | readonly Buffer[], path = '/mcp'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const set: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) if (v !== undefined) set[k] = v;
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: set, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (Array.isArray(body)) {
      for (const chunk of body as readonly Buffer[]) req.write(chunk);
      req.end();
    } else {
      req.end(body as string | Buffer | undefined);
    }
  });
}

/** The JSON-RPC messages of an answer: the JSON body, or the `data:` of each SSE event (priming events are empty). */
function messagesOf(reply: Reply): Record<string, unknown>[] {
  const type = reply.headers['content-type'] ?? '';
  if (type.startsWith('application/json')) {
    const value = JSON.parse(reply.body) as unknown;
    return (Array.isArray(value) ? value : [value]) as Record<string, unknown>[];
  }
  if (type.startsWith('text/event-stream')) {
    return reply.body
      .split('\n')
      .filter((line) => line.startsWith('data:') && line.slice(5).trim() !== '')
      .map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>);
  }
  return [];
}

function baseHeaders(): Headers {
  return {
    host: `127.0.0.1:${port}`,
    accept: ACCEPT_BOTH,
    'content-type': 'application/json',
    'mcp-protocol-version': REVISION,
    'mcp-session-id': sessionId,
  };
}

function toolsList(id: number): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' });
}

// ---------------------------------------------------------------------------------------------------------
// Expected answers

/** An expected refusal: HTTP status, JSON-RPC code, what the message names, and the rule. */
interface Refusal {
  readonly status: number;
  readonly code: number;
  readonly names: RegExp;
  readonly rule: string;
}

/** `ok`: 200 with the result, in a type the Accept header allows; or a refusal. */
type Expected = { readonly ok: true; readonly types: readonly string[] } | ({ readonly ok: false } & Refusal);

const ANY_TYPE = ['application/json', 'text/event-stream'];

const REFUSE = {
  host: { status: 403, code: -32000, names: /Host/, rule: 'T "Security Warning" (DNS rebinding: validate Host); conformance dns-rebinding-protection' },
  origin: { status: 403, code: -32000, names: /Origin/, rule: 'T "Security Warning": servers MUST validate Origin, invalid ⇒ 403 Forbidden' },
  mediaType: { status: 415, code: -32000, names: /Content-Type/, rule: 'T "Sending Messages to the Server" (the body is a JSON-RPC message); RFC 9110 §15.5.16; documented 415' },
  noSession: { status: 400, code: -32000, names: /Mcp-Session-Id/, rule: 'T "Session Management" item 2: no session id on a non-initialize request SHOULD get 400' },
  unknownSession: { status: 404, code: -32001, names: /[Ss]ession/, rule: 'T "Session Management" item 3: an unknown or ended session id MUST get 404' },
  badVersion: { status: 400, code: -32000, names: /MCP-Protocol-Version/, rule: 'T "Protocol Version Header": an invalid or unsupported version MUST get 400' },
  wrongVersion: { status: 400, code: -32000, names: /MCP-Protocol-Version/, rule: 'T "Protocol Version Header" + basic/lifecycle.mdx "Version Negotiation": the negotiated one (B22)' },
  notAcceptable: { status: 406, code: -32000, names: /Accept/, rule: 'T "Sending Messages to the Server" items 2 and 5; RFC 9110 §15.5.7 (no type we can send is acceptable; B19)' },
} as const satisfies Record<string, Refusal>;

/** Where a refusal stands in the documented order of checks (lower is checked first). */
const ORDER: readonly Refusal[] = [REFUSE.host, REFUSE.origin, REFUSE.mediaType, REFUSE.noSession, REFUSE.unknownSession, REFUSE.badVersion, REFUSE.wrongVersion, REFUSE.notAcceptable];

/** One value of one header: what goes on the wire (given the row's Host) and its verdict alone. */
interface Level {
  readonly label: string;
  readonly value: (host: string | undefined) => string | undefined;
  /** The refusal this value alone causes, or the types the answer may have (Accept only), or nothing. */
  readonly verdict: Refusal | { readonly types: readonly string[] } | undefined;
}

const level = (label: string, value: string | undefined | ((host: string | undefined) => string | undefined), verdict?: Level['verdict']): Level => ({
  label,
  value: typeof value === 'function' ? value : () => value,
  verdict,
});

/** The factors: each header with the values a hostile or sloppy client sends. `Host` is computed per row. */
function factors(): Record<string, readonly Level[]> {
  return {
    accept: [
      level('both types (what the spec asks)', ACCEPT_BOTH, { types: ANY_TYPE }),
      level('JSON only (B19: answered in JSON)', 'application/json', { types: ['application/json'] }),
      level('SSE only', 'text/event-stream', { types: ['text/event-stream'] }),
      level('absent (RFC 9110 §12.5.1: anything)', undefined, { types: ANY_TYPE }),
      level('*/*', '*/*', { types: ANY_TYPE }),
      level('text/html', 'text/html', REFUSE.notAcceptable),
      level('both with q=0', 'application/json;q=0, text/event-stream;q=0', REFUSE.notAcceptable),
    ],
    'content-type': [
      level('application/json', 'application/json'),
      level('with charset (B21)', 'application/json; charset=utf-8'),
      level('upper case (RFC 9110 §8.3.1)', 'Application/JSON'),
      level('text/plain', 'text/plain', REFUSE.mediaType),
      level('absent', undefined, REFUSE.mediaType),
      level('a JSON-looking other type', 'application/json-patch+json', REFUSE.mediaType),
    ],
    'mcp-protocol-version': [
      level('the negotiated one', REVISION),
      level('absent (the negotiated one is assumed)', undefined),
      level('2025-03-26 (never defined the header; tolerated, B22)', '2025-03-26'),
      level('another header revision (2025-06-18)', '2025-06-18', REFUSE.wrongVersion),
      level('not a revision', '1999-01-01', REFUSE.badVersion),
      level('garbage', 'latest', REFUSE.badVersion),
    ],
    'mcp-session-id': [
      level('the live session', () => sessionId),
      level('absent', undefined, REFUSE.noSession),
      level('empty', '', REFUSE.noSession),
      level('unknown', '00000000-0000-4000-8000-000000000000', REFUSE.unknownSession),
      level('visible ASCII, not ours', 'x'.repeat(200), REFUSE.unknownSession),
    ],
    host: [
      level('127.0.0.1:port', () => `127.0.0.1:${port}`),
      level('localhost:port', () => `localhost:${port}`),
      level('[::1]:port', () => `[::1]:${port}`),
      level('upper case (RFC 9110 §4.2.3: host names are case-insensitive)', () => `LOCALHOST:${port}`),
      level('a foreign name', () => `evil.example:${port}`, REFUSE.host),
      level('a rebinding look-alike', 'localhost.evil.example', REFUSE.host),
    ],
    origin: [
      level('absent (not a browser)', undefined),
      level('same origin', (host) => `http://${host ?? ''}`, undefined),
      level('a foreign site', 'https://evil.example', REFUSE.origin),
      level('"null" (sandboxed page)', 'null', REFUSE.origin),
      level('same host, other scheme', (host) => `https://${host ?? ''}`, REFUSE.origin),
    ],
  };
}

/** The verdict of a whole row: the first refusal in the documented order, else 200 in an allowed type. */
function expectedFor(row: Record<string, Level>): Expected {
  const refusals: Refusal[] = [];
  let types: readonly string[] = ANY_TYPE;
  for (const [name, lv] of Object.entries(row)) {
    const v = lv.verdict;
    if (v === undefined) continue;
    if ('types' in v) types = v.types;
    else refusals.push(v);
    // An Origin value computed from a foreign Host is refused by the Host check anyway.
    void name;
  }
  if (refusals.length === 0) return { ok: true, types };
  // Without a session id, a version that is no revision is named before the missing session (ladder.ts step 5).
  if (refusals.includes(REFUSE.noSession) && refusals.includes(REFUSE.badVersion)) refusals.splice(refusals.indexOf(REFUSE.noSession), 1);
  const first = [...refusals].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b))[0]!;
  return { ok: false, ...first };
}

/**
 * A greedy all-pairs generator: every pair of values of every two factors appears in at least one row (not the full
 * cross product). Deterministic: rows are built in order, each starting from the first uncovered pair and filled with
 * the values that cover the most uncovered pairs.
 */
function allPairs<T>(space: Record<string, readonly T[]>): Record<string, T>[] {
  const names = Object.keys(space);
  const key = (a: string, i: number, b: string, j: number): string => `${a}=${i}|${b}=${j}`;
  const uncovered = new Set<string>();
  for (let x = 0; x < names.length; x++) {
    for (let y = x + 1; y < names.length; y++) {
      for (let i = 0; i < space[names[x]!]!.length; i++) for (let j = 0; j < space[names[y]!]!.length; j++) uncovered.add(key(names[x]!, i, names[y]!, j));
    }
  }
  const rows: Record<string, number>[] = [];
  while (uncovered.size > 0) {
    const [seed] = uncovered;
    const [[a, i], [b, j]] = seed!.split('|').map((p) => { const [n, v] = p.split('='); return [n!, Number(v)] as const; }) as [[string, number], [string, number]];
    const row: Record<string, number> = { [a]: i, [b]: j };
    for (const name of names) {
      if (name in row) continue;
      let best = 0;
      let bestGain = -1;
      for (let v = 0; v < space[name]!.length; v++) {
        let gain = 0;
        for (const [other, ov] of Object.entries(row)) {
          const x = names.indexOf(name) < names.indexOf(other) ? key(name, v, other, ov) : key(other, ov, name, v);
          if (uncovered.has(x)) gain++;
        }
        if (gain > bestGain) {
          bestGain = gain;
          best = v;
        }
      }
      row[name] = best;
    }
    for (let x = 0; x < names.length; x++) {
      for (let y = x + 1; y < names.length; y++) uncovered.delete(key(names[x]!, row[names[x]!]!, names[y]!, row[names[y]!]!));
    }
    rows.push(row);
  }
  return rows.map((row) => Object.fromEntries(names.map((n) => [n, space[n]![row[n]!]!])));
}

/** Sends a row's request (POST tools/list) and checks the answer against the expected verdict. */
async function runRow(row: Record<string, Level>, label: string): Promise<void> {
  const hostValue = row['host']!.value(undefined);
  const headers: Headers = {};
  for (const [name, lv] of Object.entries(row)) headers[name] = name === 'origin' ? lv.value(hostValue) : lv.value(undefined);
  const id = nextId++;
  const reply = await send('POST', headers, toolsList(id));
  const expected = expectedFor(row);
  const context = `${label}: ${Object.entries(row).map(([n, lv]) => `${n}=${lv.label}`).join(', ')}`;
  if (expected.ok) {
    expect(reply.status, context).toBe(200);
    const type = (reply.headers['content-type'] ?? '').split(';')[0]!.trim();
    expect(expected.types, context).toContain(type);
    const answers = messagesOf(reply).filter((m) => m['id'] === id);
    expect(answers, context).toHaveLength(1);
    expect(answers[0], context).toMatchObject({ jsonrpc: '2.0', id, result: { tools: expect.any(Array) as unknown } });
    return;
  }
  // A refusal decided after the body was read carries the request's id (JSON-RPC 2.0 §5: the id when it could be
  // read); Host/Origin (403) and Content-Type (415) are refused before the body is read.
  expectRefusal(reply, expected, context, expected.status === 403 || expected.status === 415 ? undefined : id);
}

/** A refusal: the status, a JSON body that is a JSON-RPC error response without `id`, naming what is wrong. */
function expectRefusal(reply: Reply, expected: Refusal, context: string, idInBody?: unknown): void {
  expect(reply.status, `${context} [${expected.rule}]`).toBe(expected.status);
  expect(reply.headers['content-type'], context).toMatch(/^application\/json/);
  const body = JSON.parse(reply.body) as { jsonrpc: string; id?: unknown; error: { code: number; message: string } };
  expect(body, context).toMatchObject({ jsonrpc: '2.0', error: { code: expected.code } });
  if (idInBody === undefined) expect(Object.hasOwn(body, 'id'), context).toBe(false);
  else expect(body.id, context).toEqual(idInBody);
  expect(body.error.message, context).toMatch(expected.names);
  // Sentence case, no trailing period, no stack or path.
  expect(body.error.message, context).toMatch(/^[A-Z][^\n]*[^.]$/);
  expect(reply.body, context).not.toMatch(/\bat .*\(|node_modules|\/work\//);
  expect(Object.keys(body).sort(), context).toEqual(idInBody === undefined ? ['error', 'jsonrpc'] : ['error', 'id', 'jsonrpc']);
}

// ---------------------------------------------------------------------------------------------------------

beforeAll(async () => {
  handle = await serveHttp({ server: createConformanceServer({ logger: silentLogger }), port: 0, maxBodyBytes: MAX_BODY, logger: silentLogger });
  port = handle.port;
  const init = await send('POST', { accept: ACCEPT_BOTH, 'content-type': 'application/json' }, JSON.stringify({
    jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'hostile', version: '0' } },
  }));
  expect(init.status).toBe(200);
  sessionId = String(init.headers['mcp-session-id']);
  expect(messagesOf(init)[0]).toMatchObject({ id: 0, result: { protocolVersion: REVISION } });
  const done = await send('POST', baseHeaders(), JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  expect(done.status).toBe(202);
});

afterAll(async () => {
  await handle?.close();
});

describe('headers, one at a time (every other header as the spec asks)', () => {
  const space = factors();
  for (const [name, levels] of Object.entries(space)) {
    for (const lv of levels) {
      it(`${name}: ${lv.label}`, async () => {
        const row: Record<string, Level> = {};
        for (const [n, ls] of Object.entries(space)) row[n] = n === name ? lv : ls[0]!;
        await runRow(row, 'single');
      });
    }
  }
});

describe('headers, pairwise (all pairs of values, not the cross product)', () => {
  const rows = allPairs(factors());

  it('the generator covers every pair of values in far fewer rows than the cross product', () => {
    const space = factors();
    const names = Object.keys(space);
    const product = names.reduce((n, name) => n * space[name]!.length, 1);
    expect(rows.length).toBeLessThan(product / 100);
    for (let x = 0; x < names.length; x++) {
      for (let y = x + 1; y < names.length; y++) {
        for (const a of space[names[x]!]!) {
          for (const b of space[names[y]!]!) expect(rows.some((r) => r[names[x]!]!.label === a.label && r[names[y]!]!.label === b.label), `${names[x]}=${a.label} with ${names[y]}=${b.label}`).toBe(true);
        }
      }
    }
  });

  it(`${rows.length} rows, each answered with the first refusal in the documented order, or 200`, async () => {
    for (const [index, row] of rows.entries()) await runRow(row, `pair row ${index}`);
  });
});

describe('bodies', () => {
  /** A POST with the spec's headers and this body. */
  const post = (body: string | Buffer | readonly Buffer[], headers: Headers = {}): Promise<Reply> => send('POST', { ...baseHeaders(), ...headers }, body);
  const PARSE = { status: 400, code: -32700, names: /^Parse error/, rule: 'JSON-RPC 2.0 §5.1 (not JSON ⇒ -32700, id unknown); T "Sending Messages to the Server" item 4 (HTTP error status)' };
  const INVALID = { status: 400, code: -32600, names: /^Invalid Request/, rule: 'JSON-RPC 2.0 §5.1 (JSON, but not a request object ⇒ -32600)' };
  const TOO_LARGE = { status: 413, code: -32000, names: /limit/, rule: 'RFC 9110 §15.5.14; the documented maxBodyBytes (413, body not buffered)' };
  const TOO_DEEP = { status: 400, code: -32600, names: /64/, rule: 'docs/architecture.md "Deeply nested JSON": depth over 64 ⇒ -32600, data.maxDepth, no id member' };

  const rows: { label: string; body: () => string | Buffer | readonly Buffer[]; expected: Refusal; data?: unknown }[] = [
    { label: 'empty', body: () => '', expected: PARSE },
    { label: 'whitespace only', body: () => ' \r\n\t ', expected: PARSE },
    { label: 'truncated', body: () => toolsList(1).slice(0, 25), expected: PARSE },
    { label: 'two values back to back', body: () => toolsList(1) + toolsList(2), expected: PARSE },
    { label: 'trailing garbage', body: () => `${toolsList(1)}x`, expected: PARSE },
    { label: 'non-UTF-8 outside strings', body: () => Buffer.concat([Buffer.from('{"jsonrpc":"2.0",'), Buffer.from([0xff, 0xfe]), Buffer.from('"id":1,"method":"ping"}')]), expected: PARSE },
    { label: 'UTF-16LE with its BOM (RFC 8259 §8.1: JSON on the wire is UTF-8)', body: () => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(toolsList(1), 'utf16le')]), expected: PARSE },
    { label: 'a number', body: () => '42', expected: INVALID },
    { label: 'an empty batch', body: () => '[]', expected: INVALID },
    { label: 'an object that is no message', body: () => '{"hello":"world"}', expected: INVALID },
    { label: 'over the limit, with Content-Length', body: () => `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(MAX_BODY)}"}}`, expected: TOO_LARGE },
    { label: 'over the limit, chunked (no Content-Length)', body: () => Array.from({ length: 20 }, () => Buffer.alloc(MAX_BODY / 10, 0x20)), expected: TOO_LARGE },
    { label: 'nested 65 deep', body: () => `${'['.repeat(65)}${']'.repeat(65)}`, expected: TOO_DEEP, data: { maxDepth: 64 } },
      // The message object is level 1, params level 2: 63 arrays inside make 65.
    { label: 'nested 65 deep inside params of a valid request', body: () => `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"a":${'['.repeat(63)}${']'.repeat(63)}}}`, expected: TOO_DEEP, data: { maxDepth: 64 } },
    { label: '60,000 opening brackets (refused before parsing)', body: () => '['.repeat(60_000), expected: TOO_DEEP, data: { maxDepth: 64 } },
  ];

  for (const row of rows) {
    it(`${row.label}: ${row.expected.status} ${row.expected.code}`, async () => {
      const reply = await post(row.body());
      expectRefusal(reply, row.expected, row.label);
      if (row.data !== undefined) expect((JSON.parse(reply.body) as { error: { data?: unknown } }).error.data).toEqual(row.data);
    });
  }

  it('the server keeps serving the session after every bad body (a bad request is not a fatal one)', async () => {
    const reply = await post(toolsList(777));
    expect(reply.status).toBe(200);
    expect(messagesOf(reply).find((m) => m['id'] === 777)).toMatchObject({ result: { tools: expect.any(Array) as unknown } });
  });

  const served: { label: string; body: () => string | Buffer; id: number; rule: string }[] = [
    { label: 'exactly maxBodyBytes', id: 11, rule: 'only a larger body is refused', body: () => {
      const head = '{"jsonrpc":"2.0","id":11,"method":"ping","params":{"pad":"';
      return `${head}${'x'.repeat(MAX_BODY - head.length - 3)}"}}`;
    } },
    { label: 'nested exactly 64 deep', id: 12, rule: 'the limit is inclusive', body: () => `{"jsonrpc":"2.0","id":12,"method":"ping","params":{"a":${'['.repeat(62)}${']'.repeat(62)}}}` },
    { label: 'a UTF-8 BOM before the JSON', id: 13, rule: 'RFC 8259 §8.1: a parser MAY ignore it (documented in parseJson)', body: () => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"jsonrpc":"2.0","id":13,"method":"ping"}')]) },
    { label: 'invalid UTF-8 inside a string (read as U+FFFD)', id: 14, rule: 'the documented lenient decoding (ndjson.ts: invalid UTF-8 becomes U+FFFD)', body: () => Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":14,"method":"ping","params":{"x":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}}')]) },
    { label: 'brackets inside strings do not count as nesting', id: 15, rule: 'docs/architecture.md "Deeply nested JSON" (the pre-scan skips strings)', body: () => `{"jsonrpc":"2.0","id":15,"method":"ping","params":{"s":"${'['.repeat(1000)}"}}` },
  ];
  for (const row of served) {
    it(`${row.label}: 200 and the ping result (${row.rule})`, async () => {
      const reply = await post(row.body());
      expect(reply.status).toBe(200);
      expect(messagesOf(reply).filter((m) => m['id'] === row.id)).toEqual([{ jsonrpc: '2.0', id: row.id, result: {} }]);
    });
  }

  it('a batch on a 2025-11-25 session: 400 -32600 (batching removed in MCP 2025-06-18 changelog.mdx)', async () => {
    const reply = await post(`[${toolsList(21)},${toolsList(22)}]`);
    expectRefusal(reply, { status: 400, code: -32600, names: /batch/, rule: 'MCP 2025-06-18 changelog.mdx (JSON-RPC batching removed); docs/architecture.md "Batches over HTTP"' }, 'batch');
  });

  it('a notification, and a response to nothing we asked: 202 with no body (T "Sending Messages to the Server" item 4)', async () => {
    for (const body of ['{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":424242}}', '{"jsonrpc":"2.0","id":424242,"result":{}}']) {
      const reply = await post(body);
      expect(reply.status, body).toBe(202);
      expect(reply.body, body).toBe('');
    }
  });
});

describe('initialize (MCP 2025-11-25 basic/lifecycle.mdx "Initialization", "Version Negotiation")', () => {
  const init = (params: unknown, id: unknown = 'i'): string => JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', ...(params === undefined ? {} : { params }) });
  const paramsFor = (protocolVersion: unknown): unknown => ({ protocolVersion, capabilities: {}, clientInfo: { name: 'hostile', version: '0' } });
  const fresh = (accept = 'application/json'): Headers => ({ host: `127.0.0.1:${port}`, accept, 'content-type': 'application/json' });

  const versions: { asked: unknown; answered: string; rule: string }[] = [
    { asked: '2025-11-25', answered: '2025-11-25', rule: 'supported ⇒ the same version' },
    { asked: '2025-03-26', answered: '2025-03-26', rule: 'supported ⇒ the same version' },
    { asked: '2024-11-05', answered: '2024-11-05', rule: 'supported ⇒ the same version' },
    { asked: '1999-01-01', answered: '2025-11-25', rule: 'unknown ⇒ another version it supports, the latest' },
    { asked: '2026-07-28', answered: '2025-11-25', rule: 'not served in the session era ⇒ the latest session-era version' },
  ];
  for (const row of versions) {
    it(`asks ${String(row.asked)}: 200, protocolVersion ${row.answered} (${row.rule}), a session id of visible ASCII`, async () => {
      const reply = await send('POST', fresh(), init(paramsFor(row.asked)));
      expect(reply.status).toBe(200);
      // T "Session Management" item 1: the id is visible ASCII (0x21 to 0x7E).
      expect(reply.headers['mcp-session-id']).toMatch(/^[\x21-\x7e]+$/);
      expect(messagesOf(reply)).toEqual([{ jsonrpc: '2.0', id: 'i', result: expect.objectContaining({ protocolVersion: row.answered }) as unknown }]);
    });
  }

  const invalid: { label: string; body: string }[] = [
    { label: 'a number for protocolVersion', body: init(paramsFor(42)) },
    { label: 'no params', body: init(undefined) },
    { label: 'params as an array', body: init([]) },
  ];
  for (const row of invalid) {
    it(`${row.label}: 200 with -32602 for its id, and no session (JSON-RPC 2.0 §5.1; the request was read and answered)`, async () => {
      const reply = await send('POST', fresh(), row.body);
      expect(reply.status).toBe(200);
      expect(reply.headers['mcp-session-id']).toBeUndefined();
      expect(messagesOf(reply)).toEqual([{ jsonrpc: '2.0', id: 'i', error: { code: -32602, message: expect.stringMatching(/^Invalid params/) as unknown } }]);
    });
  }

  it('Accept: text/html on initialize: 406, and the body carries the id, which is known (B45)', async () => {
    expectRefusal(await send('POST', fresh('text/html'), init(paramsFor(REVISION), 77)), REFUSE.notAcceptable, 'initialize html', 77);
  });

  it('initialize sent as a notification is no initialize: 400 for the missing session id (T "Session Management" item 2)', async () => {
    expectRefusal(await send('POST', fresh(), JSON.stringify({ jsonrpc: '2.0', method: 'initialize', params: paramsFor(REVISION) })), REFUSE.noSession, 'initialize notification');
  });

  it('initialize inside a batch: 400 -32600 (MCP 2025-03-26 basic/lifecycle.mdx: MUST NOT be part of a batch)', async () => {
    const reply = await send('POST', fresh(), `[${init(paramsFor('2025-03-26'), 'b')}]`);
    expectRefusal(reply, { status: 400, code: -32600, names: /batch/, rule: 'MCP 2025-03-26 basic/lifecycle.mdx "Initialization"' }, 'initialize batch', 'b');
  });
});

describe('batches on a 2025-03-26 session (MCP 2025-03-26 basic/index.mdx "Batching"; JSON-RPC 2.0 §6)', () => {
  let batchSession = '';
  const headers = (): Headers => ({ host: `127.0.0.1:${port}`, accept: 'application/json', 'content-type': 'application/json', 'mcp-session-id': batchSession });

  beforeAll(async () => {
    const init = await send('POST', { host: `127.0.0.1:${port}`, accept: 'application/json', 'content-type': 'application/json' }, JSON.stringify({
      jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'hostile', version: '0' } },
    }));
    batchSession = String(init.headers['mcp-session-id']);
    expect((await send('POST', headers(), '{"jsonrpc":"2.0","method":"notifications/initialized"}')).status).toBe(202);
  });

  it('one answer per request member and per invalid member, none for notifications and responses (§6)', async () => {
    const reply = await send('POST', headers(), JSON.stringify([
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'zzz' } },
      { foo: 1 },
      { jsonrpc: '2.0', id: 424242, result: {} },
      { jsonrpc: '2.0', id: 2, method: 'no/such/method' },
      1,
    ]));
    expect(reply.status).toBe(200);
    const answers = JSON.parse(reply.body) as Record<string, unknown>[];
    expect(Array.isArray(answers)).toBe(true);
    const byId = (id: unknown): unknown[] => answers.filter((a) => a['id'] === id);
    expect(answers).toHaveLength(4);
    expect(byId('a')).toEqual([{ jsonrpc: '2.0', id: 'a', result: {} }]);
    expect(byId(2)).toEqual([{ jsonrpc: '2.0', id: 2, error: { code: -32601, message: expect.stringMatching(/^Method not found/) as unknown } }]);
    // Inside a 200 answer an unknown id stays `"id": null` (JSON-RPC 2.0 §5; B45).
    expect(byId(null)).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) as unknown } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) as unknown } },
    ]);
  });

  it('a batch of notifications and responses only: 202 with no body (T "Sending Messages to the Server" item 4)', async () => {
    const reply = await send('POST', headers(), JSON.stringify([{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'q' } }, { jsonrpc: '2.0', id: 5151, result: {} }]));
    expect(reply.status).toBe(202);
    expect(reply.body).toBe('');
  });

  it('two members with the same id: 400 -32600 naming it (MCP basic/index.mdx "Requests": ids unique in a session)', async () => {
    const reply = await send('POST', headers(), JSON.stringify([{ jsonrpc: '2.0', id: 'dup', method: 'ping' }, { jsonrpc: '2.0', id: 'dup', method: 'ping' }]));
    expectRefusal(reply, { status: 400, code: -32600, names: /id/, rule: 'the documented duplicateRequestId refusal' }, 'duplicate ids', 'dup');
  });

  it('101 members: 400 -32600 naming the limit of 100, none of them run (docs/architecture.md "Batches over HTTP")', async () => {
    const batch = Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }));
    expectRefusal(await send('POST', headers(), JSON.stringify(batch)), { status: 400, code: -32600, names: /101.*100/, rule: 'docs/architecture.md "Batches over HTTP"' }, '101 members');
  });

  it('initialize inside a batch on this session: 400 -32600 with its id (MCP 2025-03-26 basic/lifecycle.mdx)', async () => {
    const reply = await send('POST', headers(), JSON.stringify([{ jsonrpc: '2.0', id: 'x', method: 'initialize', params: {} }, { jsonrpc: '2.0', id: 'y', method: 'ping' }]));
    expectRefusal(reply, { status: 400, code: -32600, names: /batch/, rule: 'MCP 2025-03-26 basic/lifecycle.mdx "Initialization"' }, 'initialize in batch', 'x');
  });
});

describe('methods and streams', () => {
  it('PUT: 405 with Allow (T "Streamable HTTP": the endpoint serves POST and GET, and DELETE; RFC 9110 §15.5.6)', async () => {
    const reply = await send('PUT', baseHeaders(), toolsList(1));
    expectRefusal(reply, { status: 405, code: -32000, names: /Method Not Allowed/, rule: 'RFC 9110 §15.5.6' }, 'PUT');
    expect(reply.headers['allow']).toBe('GET, POST, DELETE');
  });

  it('GET with Accept: application/json only: 406 (T "Listening for Messages from the Server" item 1)', async () => {
    const reply = await send('GET', { ...baseHeaders(), accept: 'application/json', 'content-type': undefined });
    expectRefusal(reply, { status: 406, code: -32000, names: /text\/event-stream/, rule: 'T "Listening for Messages from the Server" item 1' }, 'GET json');
  });

  it('GET without a session id: 400; with an unknown one: 404 (T "Session Management" items 2 and 3)', async () => {
    expectRefusal(await send('GET', { ...baseHeaders(), accept: 'text/event-stream', 'mcp-session-id': undefined }), REFUSE.noSession, 'GET no session');
    expectRefusal(await send('GET', { ...baseHeaders(), accept: 'text/event-stream', 'mcp-session-id': 'nope' }), REFUSE.unknownSession, 'GET unknown session');
  });

  it('many streams on one session: each POST stream carries exactly its own response; a second GET stream is 409', async () => {
    const count = STRESS ? 200 : 40;
    const ids = Array.from({ length: count }, () => nextId++);
    const replies = await Promise.all(ids.map((id) =>
      send('POST', { ...baseHeaders(), accept: 'text/event-stream, application/json' }, JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'test_simple_text', arguments: {} } }))));
    replies.forEach((reply, i) => {
      expect(reply.status).toBe(200);
      const responses = messagesOf(reply).filter((m) => !('method' in m));
      // T "Sending Messages to the Server": the SSE stream of a POST carries the response to that POST's request.
      expect(responses).toEqual([{ jsonrpc: '2.0', id: ids[i], result: { content: [{ type: 'text', text: expect.any(String) as unknown }] } }]);
    });
    // One standalone GET stream per session (the documented 409 of createMcpHttpHandler; T "Multiple Connections"
    // leaves the number to the server).
    const listen = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const set = { host: `127.0.0.1:${port}`, accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': REVISION };
      http.get({ host: '127.0.0.1', port, path: '/mcp', headers: set, agent: false }, resolve).on('error', reject);
    });
    try {
      expect(listen.statusCode).toBe(200);
      expect(listen.headers['content-type']).toMatch(/^text\/event-stream/);
      const second = await send('GET', { ...baseHeaders(), accept: 'text/event-stream', 'content-type': undefined });
      expectRefusal(second, { status: 409, code: -32000, names: /SSE stream/, rule: 'the documented one standalone stream per session' }, 'second GET');
    } finally {
      listen.destroy();
    }
  });
});

// ---------------------------------------------------------------------------------------------------------
// Raw sockets: slow, idle and cut clients

/** Writes `data` to a fresh socket in `pieces` chunks `gapMs` apart, then reads until the server closes. */
function rawExchange(data: Buffer, options: { pieces?: number; gapMs?: number; endAfter?: boolean; readMs?: number } = {}): Promise<string> {
  const { pieces = 1, gapMs = 0, endAfter = false, readMs = 5000 } = options;
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('utf8'));
    }, readMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (error) => {
      clearTimeout(timer);
      if ((error as NodeJS.ErrnoException).code === 'ECONNRESET') resolve(Buffer.concat(chunks).toString('utf8'));
      else reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    socket.on('connect', () => {
      void (async () => {
        const size = Math.ceil(data.length / pieces);
        for (let offset = 0; offset < data.length; offset += size) {
          if (socket.destroyed) return;
          socket.write(data.subarray(offset, offset + size));
          if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
        }
        if (endAfter) socket.end();
      })();
    });
  });
}

function rawPost(body: string, extra = ''): Buffer {
  const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: application/json\r\nContent-Type: application/json\r\n`
    + `Mcp-Session-Id: ${sessionId}\r\nMCP-Protocol-Version: ${REVISION}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n${extra}\r\n`;
  return Buffer.from(head + body);
}

/** Status line and JSON body of a raw HTTP/1.1 answer (Content-Length framed). */
function parseRaw(text: string): { status: number; body: unknown } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  const split = text.indexOf('\r\n\r\n');
  const body = split === -1 ? '' : text.slice(split + 4);
  return { status, body: body === '' ? undefined : (JSON.parse(body) as unknown) };
}

async function pingTime(): Promise<number> {
  const t0 = performance.now();
  const reply = await send('POST', baseHeaders(), '{"jsonrpc":"2.0","id":"t","method":"ping"}');
  expect(reply.status).toBe(200);
  return performance.now() - t0;
}

describe('slow, idle and cut connections (raw sockets)', () => {
  it('slow headers: a request whose head arrives in 30 pieces over ~0.6 s is answered exactly', async () => {
    const id = nextId++;
    const text = await rawExchange(rawPost(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`), { pieces: 30, gapMs: 20 });
    expect(parseRaw(text)).toEqual({ status: 200, body: { jsonrpc: '2.0', id, result: {} } });
  });

  it('slow body: a body that trickles in byte by byte is answered exactly; others are served meanwhile', async () => {
    const id = nextId++;
    const data = rawPost(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
    const slow = rawExchange(data, { pieces: data.length, gapMs: 3 });
    // No head-of-line blocking: while it trickles, a normal client is answered at once.
    expect(await pingTime()).toBeLessThan(1000);
    expect(parseRaw(await slow)).toEqual({ status: 200, body: { jsonrpc: '2.0', id, result: {} } });
  });

  it('idle sockets (connected, silent) do not keep others from being served', async () => {
    const count = STRESS ? 1000 : 100;
    const sockets = await Promise.all(Array.from({ length: count }, () => new Promise<net.Socket>((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1', () => resolve(s));
      s.on('error', reject);
    })));
    try {
      expect(await pingTime()).toBeLessThan(1000);
    } finally {
      for (const s of sockets) s.destroy();
    }
  });

  it('a body shorter than its Content-Length, then the client half-closes: never a 2xx, and the server keeps serving', async () => {
    const full = rawPost('{"jsonrpc":"2.0","id":5,"method":"ping"}');
    const text = await rawExchange(full.subarray(0, full.length - 10), { endAfter: true, readMs: 3000 });
    // RFC 9112 §8: an incomplete message may get an error response before the connection closes; never a success.
    expect(text).not.toMatch(/^HTTP\/1\.1 2/);
    expect(await pingTime()).toBeLessThan(1000);
  });

  it('clients that vanish mid-head and mid-body do not take the server down', async () => {
    const full = rawPost('{"jsonrpc":"2.0","id":6,"method":"ping"}');
    await Promise.all(Array.from({ length: 20 }, (_, i) => new Promise<void>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.write(full.subarray(0, i % 2 === 0 ? 20 : full.length - 5));
        setTimeout(() => { s.destroy(); resolve(); }, 20);
      });
      s.on('error', () => resolve());
    })));
    expect(await pingTime()).toBeLessThan(1000);
  });

  const malformed: { label: string; head: string; rule: string; status: number }[] = [
    { label: 'a Content-Length that is not a number', head: 'Content-Length: abc', status: 400, rule: 'RFC 9112 §6.3: an invalid Content-Length is an unrecoverable error, 400' },
    { label: 'Content-Length and Transfer-Encoding together', head: 'Content-Length: 5\r\nTransfer-Encoding: chunked', status: 400, rule: 'RFC 9112 §6.1: MAY be rejected (a smuggling vector; Node rejects it)' },
    { label: 'a 20 KiB header', head: `X-Pad: ${'p'.repeat(20 * 1024)}`, status: 431, rule: 'RFC 6585 §5: 431 Request Header Fields Too Large (Node caps headers at 16 KiB)' },
  ];
  for (const row of malformed) {
    it(`${row.label}: ${row.status} (${row.rule}), and the server keeps serving`, async () => {
      const text = await rawExchange(Buffer.from(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n${row.head}\r\nConnection: close\r\n\r\n{"a":1}`));
      expect(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1])).toBe(row.status);
      expect(await pingTime()).toBeLessThan(1000);
    });
  }

  it('no Host header on HTTP/1.1: 400 (RFC 9112 §3.2: a server MUST answer 400), and the server keeps serving', async () => {
    const body = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
    const text = await rawExchange(Buffer.from(`POST /mcp HTTP/1.1\r\nAccept: application/json\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`));
    expect(parseRaw(text.replace(/\r\n\r\n[\s\S]*$/, '\r\n\r\n')).status).toBe(400);
    expect(await pingTime()).toBeLessThan(1000);
  });
});

describe('session end', () => {
  it('a second initialize on the live session: 400 -32600 with its id, and the session lives on (B30)', async () => {
    const reply = await send('POST', baseHeaders(), JSON.stringify({
      jsonrpc: '2.0', id: 'again', method: 'initialize', params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'hostile', version: '1' } },
    }));
    expectRefusal(reply, { status: 400, code: -32600, names: /initialized/, rule: 'B30 (docs/architecture.md "Decisions worth knowing")' }, 'second initialize', 'again');
    expect((await send('POST', baseHeaders(), toolsList(31))).status).toBe(200);
  });

  it('DELETE ends the session (200); its id then gets 404 on POST, GET and DELETE (T "Session Management" items 3 and 5)', async () => {
    const reply = await send('DELETE', { ...baseHeaders(), 'content-type': undefined });
    expect(reply.status).toBe(200);
    expectRefusal(await send('POST', baseHeaders(), toolsList(32)), REFUSE.unknownSession, 'POST after DELETE', 32);
    expectRefusal(await send('GET', { ...baseHeaders(), accept: 'text/event-stream' }), REFUSE.unknownSession, 'GET after DELETE');
    expectRefusal(await send('DELETE', baseHeaders()), REFUSE.unknownSession, 'DELETE after DELETE');
  });
});
