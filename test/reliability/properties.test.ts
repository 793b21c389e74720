/**
 * Property-based tests (fast-check) of the engine's input path, on the real code: the parser (`parseJson`,
 * `parseMessage`, `classifyValue`), the `Dispatcher`, the NDJSON framing (`NdjsonDecoder`, `encodeNdjson`) and the
 * Streamable HTTP classifier (`classifyStreamableHttp`, `checkStreamableHttpHead`), and the whole HTTP handler
 * (`createMcpHttpHandler`, Web path) fed arbitrary headers and bodies.
 *
 * The rules checked come from JSON-RPC 2.0 (§4 a request is answered with its own id, §4.1 a notification is
 * never answered, §5 a response is never answered, §6 a batch is answered with one member per request member and
 * nothing for an all-notification batch) and from MCP 2025-11-25 basic/transports.mdx "stdio" (one message per
 * LF-terminated line) and "Sending Messages to the Server" (a refusal is an HTTP error status; its body a JSON-RPC
 * error response).
 *
 * `numRuns` keeps the file well under 30 s on a loaded 2-core machine; `STRESS=1` runs 20 times as many cases. On a
 * failure fast-check prints the seed and the shrunk counterexample (re-run with `{ seed, path }` to replay it).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_JSON_DEPTH, Dispatcher, ErrorCode, JsonRpcError, NdjsonDecoder, classifyValue, encodeNdjson, isValidId, parseJson, parseMessage } from '@switchboard/jsonrpc';
import { exceedsJsonDepth } from '@switchboard/jsonrpc/internal';
import type { Inbound, InboundSingle, JsonRpcId, JsonRpcResponse, NdjsonEvent } from '@switchboard/jsonrpc';
import { createMcpHttpHandler } from '@switchboard/mcp/http';
import { checkStreamableHttpHead, classifyStreamableHttp } from '../../packages/mcp/src/transports/http/server/ladder/ladder.js';
import { silentLogger } from '@switchboard/jsonrpc';
import { createConformanceServer } from '../../examples/conformance-server/server.js';
import type { HttpServerFacts, StreamableHttpDecision, StreamableHttpFacts } from '../../packages/mcp/src/transports/http/server/ladder/decisions.js';

const STRESS = process.env['STRESS'] === '1';
/** Cases per property: 500 here (smoke, about 3 s for the file), 10,000 under STRESS=1. */
const RUNS = STRESS ? 10_000 : 500;
const params = (numRuns = RUNS): fc.Parameters<unknown> => ({ numRuns });

// ---------------------------------------------------------------------------------------------------------
// Generators

/** Text that is mostly near-JSON (so the parser's deep paths are reached), sometimes anything at all. */
const jsonish: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.json({ maxDepth: 4 }),
  fc.json({ maxDepth: 3 }).chain((text) =>
    fc.tuple(fc.nat({ max: text.length }), fc.nat({ max: 8 })).map(([cut, drop]) => text.slice(0, cut) + text.slice(cut + drop)),
  ),
  fc.array(fc.constantFrom('[', ']', '{', '}', '"', '\\', ',', ':', '1', 'null', ' ', '\ufeff', '"a"'), { maxLength: 120 }).map((a) => a.join('')),
);

/** Ids of every JSON type, including the ones JSON-RPC/MCP refuse (null, unsafe integers, objects). */
const anyId: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 8 }),
  fc.constantFrom(0, -1, 1.5, 2 ** 53, -(2 ** 53), 1.2345678901234567e19, null, true, '1', '', '0'),
  fc.constant([1]),
  fc.constant({ id: 1 }),
);

const validId: fc.Arbitrary<JsonRpcId> = fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constantFrom(0, 1.5, -7, '1', ''));

const method = fc.constantFrom('sync', 'async', 'throws', 'rpcError', 'missing', 'undefined', 'toString', '__proto__', 'constructor');
const paramsArb = fc.option(fc.oneof(fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })), { nil: undefined });

/** One message-shaped value: a request, a notification, a response, or a broken object. */
const messageLike: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ jsonrpc: fc.constant('2.0'), id: validId, method, params: paramsArb }, { requiredKeys: ['jsonrpc', 'id', 'method'] }),
  fc.record({ jsonrpc: fc.constant('2.0'), method, params: paramsArb }, { requiredKeys: ['jsonrpc', 'method'] }),
  fc.record({ jsonrpc: fc.constant('2.0'), id: anyId, result: fc.jsonValue({ maxDepth: 1 }) }),
  fc.record({ jsonrpc: fc.constant('2.0'), id: anyId, error: fc.record({ code: fc.integer(), message: fc.string({ maxLength: 5 }) }) }),
  fc.record(
    {
      jsonrpc: fc.constantFrom('2.0', '1.0', 2, null),
      id: anyId,
      method: fc.oneof(method, fc.integer(), fc.constant(null)),
      params: fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.constant(undefined)),
      result: fc.jsonValue({ maxDepth: 1 }),
      error: fc.jsonValue({ maxDepth: 1 }),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue({ maxDepth: 2 }),
);

/** A whole inbound value: one message, or a batch of them (possibly empty, possibly nested). */
const inboundValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: messageLike },
  { weight: 2, arbitrary: fc.array(messageLike, { maxLength: 8 }) },
  { weight: 1, arbitrary: fc.array(fc.array(messageLike, { maxLength: 2 }), { maxLength: 3 }) },
);

/** Splits `bytes` at arbitrary points (empty chunks included). */
function chunked(bytes: Uint8Array): fc.Arbitrary<Uint8Array[]> {
  return fc.uniqueArray(fc.nat({ max: bytes.length }), { maxLength: Math.min(bytes.length + 1, 40) }).map((cuts) => {
    const sorted = [...cuts].sort((a, b) => a - b);
    const chunks: Uint8Array[] = [];
    let start = 0;
    for (const cut of sorted) {
      chunks.push(bytes.slice(start, cut));
      start = cut;
    }
    chunks.push(bytes.slice(start));
    return chunks;
  });
}

function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  for (const member of Object.values(value)) deepest = Math.max(deepest, depthOf(member));
  return deepest + 1;
}

// ---------------------------------------------------------------------------------------------------------
// Oracles

const KINDS = new Set(['request', 'notification', 'response', 'invalid', 'batch']);

/** JSON-RPC 2.0 §5/§5.1: a well-formed error response (the id echoed when readable, else null). */
function expectErrorResponse(reply: unknown): void {
  expect(reply).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) as unknown, message: expect.any(String) as unknown } });
  const r = reply as { id: unknown; error: { code: number; message: string } };
  expect(Number.isInteger(r.error.code)).toBe(true);
  expect(r.id === null || isValidId(r.id)).toBe(true);
  // Sentence case, no trailing period, no stack trace (project error style).
  expect(r.error.message).toMatch(/^[A-Z]/);
  expect(r.error.message).not.toMatch(/\.$|\n\s+at /);
}

function expectSingle(item: InboundSingle): void {
  expect(['request', 'notification', 'response', 'invalid']).toContain(item.kind);
  if (item.kind === 'invalid') {
    expectErrorResponse(item.reply);
    expect([ErrorCode.ParseError, ErrorCode.InvalidRequest]).toContain(item.reply.error.code);
  }
  if (item.kind === 'request') expect(isValidId(item.message.id)).toBe(true);
  if (item.kind === 'notification') expect(Object.hasOwn(item.message, 'id')).toBe(false);
}

function expectInbound(inbound: Inbound): void {
  expect(KINDS.has(inbound.kind)).toBe(true);
  if (inbound.kind === 'batch') {
    expect(inbound.items.length).toBeGreaterThan(0);
    for (const item of inbound.items) expectSingle(item);
  } else {
    expectSingle(inbound);
  }
}

/** What a dispatcher must answer for one classified member (JSON-RPC 2.0 §4, §4.1, §5). */
function expectedIdOf(item: InboundSingle): { answered: true; id: JsonRpcId | null } | { answered: false } {
  switch (item.kind) {
    case 'request':
      return { answered: true, id: item.message.id };
    case 'invalid':
      return { answered: true, id: item.reply.id };
    case 'notification':
    case 'response':
      return { answered: false };
  }
}

// ---------------------------------------------------------------------------------------------------------
// The dispatcher under test

function makeDispatcher(): Dispatcher {
  const dispatcher = new Dispatcher({ maxBatchSize: 6 });
  dispatcher.register('sync', (p) => ({ echo: p ?? null }));
  dispatcher.register('async', async (p) => {
    await Promise.resolve();
    return { echo: p ?? null };
  });
  dispatcher.register('throws', () => {
    throw new Error('secret text that must not reach the wire');
  });
  dispatcher.register('rpcError', () => {
    throw new JsonRpcError(-32042, 'Refused: by the handler');
  });
  dispatcher.register('undefined', () => undefined);
  return dispatcher;
}

/** Checks a dispatcher answer against JSON-RPC 2.0 for the inbound it was given. */
function expectAnswer(inbound: Inbound, answer: JsonRpcResponse | JsonRpcResponse[] | undefined, maxBatchSize: number): void {
  if (answer !== undefined) expect(JSON.stringify(answer)).not.toContain('secret text');
  if (inbound.kind !== 'batch') {
    const expected = expectedIdOf(inbound);
    if (!expected.answered) {
      expect(answer).toBeUndefined();
      return;
    }
    expect(Array.isArray(answer)).toBe(false);
    const response = answer as JsonRpcResponse;
    // Same id, same type: never coerced ("1" stays a string, 1 stays a number).
    expect(Object.is(response.id, expected.id)).toBe(true);
    expect(response.jsonrpc).toBe('2.0');
    expect('result' in response !== 'error' in response).toBe(true);
    if ('error' in response) expectErrorResponse(response);
    return;
  }
  if (inbound.items.length > maxBatchSize) {
    // An oversized batch is refused as a whole: one error response, not an array.
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: ErrorCode.InvalidRequest } });
    return;
  }
  const expectedIds = inbound.items.flatMap((item) => {
    const e = expectedIdOf(item);
    return e.answered ? [e.id] : [];
  });
  if (expectedIds.length === 0) {
    // §6: an all-notification (or all-response) batch gets nothing back.
    expect(answer).toBeUndefined();
    return;
  }
  expect(Array.isArray(answer)).toBe(true);
  const replies = answer as JsonRpcResponse[];
  // §6: one member per request member (and per invalid member), in input order here.
  expect(replies.map((r) => r.id)).toEqual(expectedIds);
  replies.forEach((r, i) => expect(Object.is(r.id, expectedIds[i])).toBe(true));
  for (const r of replies) expect('result' in r !== 'error' in r).toBe(true);
}

// ---------------------------------------------------------------------------------------------------------

describe('parser: parseJson, parseMessage, classifyValue', () => {
  it('any text: never throws, exactly one kind, every refusal a JSON-RPC error response', () => {
    fc.assert(
      fc.property(jsonish, (text) => {
        const parsed = parseJson(text);
        if (!parsed.ok) expectErrorResponse(parsed.reply);
        const inbound = parseMessage(text);
        expectInbound(inbound);
        // parseMessage is parseJson + classifyValue.
        if (parsed.ok) expect(inbound).toEqual(classifyValue(parsed.value));
        else expect(inbound).toEqual({ kind: 'invalid', reply: parsed.reply });
      }),
      params(),
    );
  });

  it('any JSON value: classifyValue never throws; a request keeps its exact id, a notification has none', () => {
    fc.assert(
      fc.property(inboundValue, (value) => {
        const inbound = classifyValue(value);
        expectInbound(inbound);
        if (!Array.isArray(value)) return;
        if (value.length === 0) {
          expect(inbound).toMatchObject({ kind: 'invalid', reply: { id: null, error: { code: ErrorCode.InvalidRequest } } });
          return;
        }
        expect(inbound.kind).toBe('batch');
        const items = (inbound as { items: readonly InboundSingle[] }).items;
        expect(items).toHaveLength(value.length);
        items.forEach((item, i) => {
          if (item.kind === 'request') expect(Object.is(item.message.id, (value[i] as { id: unknown }).id)).toBe(true);
        });
      }),
      params(),
    );
  });

  it('text and value agree: parseMessage(JSON.stringify(v)) classifies like classifyValue(v)', () => {
    fc.assert(
      fc.property(inboundValue, (value) => {
        const text = JSON.stringify(value);
        if (exceedsJsonDepth(text, DEFAULT_MAX_JSON_DEPTH)) return;
        expect(parseMessage(text)).toEqual(classifyValue(JSON.parse(text)));
      }),
      params(),
    );
  });

  it('the depth pre-scan matches the real nesting of any JSON value, brackets inside strings ignored', () => {
    const bracketStrings = fc.jsonValue({ maxDepth: 6, stringUnit: fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a') });
    fc.assert(
      fc.property(bracketStrings, fc.integer({ min: 1, max: 8 }), (value, limit) => {
        const text = JSON.stringify(value);
        expect(exceedsJsonDepth(text, limit)).toBe(depthOf(value) > limit);
        const parsed = parseJson(text, { maxDepth: limit });
        if (depthOf(value) > limit) {
          expect(parsed).toEqual({
            ok: false,
            reply: { jsonrpc: '2.0', id: null, error: { code: ErrorCode.InvalidRequest, message: expect.stringContaining(`${limit}`) as unknown, data: { maxDepth: limit } } },
          });
        } else {
          expect(parsed).toEqual({ ok: true, value: JSON.parse(text) });
        }
      }),
      params(),
    );
  });
});

describe('Dispatcher', () => {
  it('answers every request exactly once with its own id, never a notification or a response (§4, §4.1, §5, §6)', async () => {
    const dispatcher = makeDispatcher();
    await fc.assert(
      fc.asyncProperty(inboundValue, async (value) => {
        const inbound = classifyValue(value);
        const answer = await dispatcher.handle(inbound, undefined);
        expectAnswer(inbound, answer, dispatcher.maxBatchSize);
      }),
      params(),
    );
  });

  it('arbitrary text through handleText never rejects and yields either nothing or one JSON reply', async () => {
    const dispatcher = makeDispatcher();
    await fc.assert(
      fc.asyncProperty(fc.oneof(jsonish, inboundValue.map((v) => JSON.stringify(v))), async (text) => {
        const inbound = parseMessage(text);
        const reply = await dispatcher.handleText(text, undefined);
        const answer = reply === undefined ? undefined : (JSON.parse(reply) as JsonRpcResponse | JsonRpcResponse[]);
        expectAnswer(inbound, answer, dispatcher.maxBatchSize);
      }),
      params(),
    );
  });

  it('many requests in flight at once, async and sync mixed: each answered once, with its own id', async () => {
    const dispatcher = makeDispatcher();
    const request = fc.record({ jsonrpc: fc.constant('2.0' as const), id: validId, method: fc.constantFrom('sync', 'async', 'throws', 'missing') });
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 30 }), async (requests) => {
        const answers = await Promise.all(requests.map((r) => dispatcher.dispatch(r, undefined)));
        answers.forEach((answer, i) => {
          expect(answer).toBeDefined();
          expect(Object.is(answer!.id, requests[i]!.id)).toBe(true);
        });
      }),
      params(STRESS ? 2000 : 100),
    );
  });
});

describe('NDJSON framing: NdjsonDecoder, encodeNdjson', () => {
  const encoder = new TextEncoder();

  function decodeAll(chunks: readonly Uint8Array[], maxLineBytes?: number): NdjsonEvent[] {
    const decoder = new NdjsonDecoder(maxLineBytes === undefined ? {} : { maxLineBytes });
    const events: NdjsonEvent[] = [];
    for (const chunk of chunks) events.push(...decoder.push(chunk));
    events.push(...decoder.end());
    return events;
  }

  it('valid messages round-trip exactly, whatever the chunking (even inside a UTF-8 sequence) and LF or CRLF', () => {
    const values = fc.array(fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(
        fc.tuple(values, fc.boolean()).chain(([vs, crlf]) => {
          // LF as encodeNdjson writes it, or CRLF as some clients send it (field bug B12).
          const text = vs.map((v) => encodeNdjson(v)).join('');
          const bytes = encoder.encode(crlf ? text.replaceAll('\n', '\r\n') : text);
          return fc.tuple(fc.constant(vs), chunked(bytes));
        }),
        ([vs, chunks]) => {
          const events = decodeAll(chunks);
          expect(events.every((e) => e.kind === 'line')).toBe(true);
          // Text first: each line is exactly what was encoded, its LF (and the CR of a CRLF) gone.
          expect(events.map((e) => (e as { text: string }).text)).toEqual(vs.map((v) => JSON.stringify(v)));
          const decoded = events.map((e) => JSON.parse((e as { text: string }).text) as unknown);
          // The JSON value each message denotes (JSON has no -0, no undefined members).
          expect(decoded).toEqual(vs.map((v) => JSON.parse(JSON.stringify(v)) as unknown));
        },
      ),
      params(),
    );
  });

  it('valid JSON-RPC messages round-trip through framing and parseMessage as the same message', () => {
    const message = fc.oneof(
      fc.record({ jsonrpc: fc.constant('2.0'), id: validId, method: fc.string({ unit: 'binary', maxLength: 10 }), params: paramsArb }, { requiredKeys: ['jsonrpc', 'id', 'method'] }),
      fc.record({ jsonrpc: fc.constant('2.0'), method: fc.string({ maxLength: 10 }), params: paramsArb }, { requiredKeys: ['jsonrpc', 'method'] }),
      fc.record({ jsonrpc: fc.constant('2.0'), id: validId, result: fc.jsonValue({ maxDepth: 2, stringUnit: 'binary' }) }),
    );
    fc.assert(
      fc.property(
        fc.array(message, { minLength: 1, maxLength: 5 }).chain((ms) => fc.tuple(fc.constant(ms), chunked(encoder.encode(ms.map((m) => encodeNdjson(m)).join(''))))),
        ([ms, chunks]) => {
          const lines = decodeAll(chunks).map((e) => (e as { text: string }).text);
          expect(lines).toHaveLength(ms.length);
          lines.forEach((line, i) => {
            const inbound = parseMessage(line);
            expect(['request', 'notification', 'response']).toContain(inbound.kind);
            expect((inbound as { message: unknown }).message).toEqual(JSON.parse(JSON.stringify(ms[i])));
          });
        },
      ),
      params(),
    );
  });

  it('arbitrary bytes: never throws, chunking never changes the events, no event is blank, memory stays bounded', () => {
    const piece = fc.oneof(
      fc.uint8Array({ maxLength: 40 }),
      fc.constantFrom(
        [0x0a], [0x0d, 0x0a], [0x0d], [0xef, 0xbb, 0xbf], [0x00], [0xff, 0xfe], [0xc3], [0xe2, 0x80, 0xa8], [0x20, 0x09, 0x0a],
      ).map((a) => Uint8Array.from(a)),
      fc.constant(encoder.encode('{"jsonrpc":"2.0","id":1,"method":"ping"}\n')),
    );
    const stream = fc.array(piece, { maxLength: 30 }).map((pieces) => {
      const total = pieces.reduce((n, p) => n + p.length, 0);
      const out = new Uint8Array(total);
      let offset = 0;
      for (const p of pieces) {
        out.set(p, offset);
        offset += p.length;
      }
      return out;
    });
    fc.assert(
      fc.property(
        stream.chain((bytes) => fc.tuple(fc.constant(bytes), chunked(bytes), fc.integer({ min: 1, max: 64 }))),
        ([bytes, chunks, limit]) => {
          const whole = decodeAll([bytes], limit);
          // `oversized.bytes` says how much was seen when the cap was crossed, which depends on the chunking.
          const shape = (events: NdjsonEvent[]) => events.map((e) => (e.kind === 'line' ? e.text : 'oversized'));
          expect(shape(decodeAll(chunks, limit))).toEqual(shape(whole));
          // One byte at a time, the worst chunking there is.
          expect(shape(decodeAll(Array.from(bytes, (b) => Uint8Array.of(b)), limit))).toEqual(shape(whole));
          const decoder = new NdjsonDecoder({ maxLineBytes: limit });
          for (const chunk of chunks) {
            decoder.push(chunk);
            expect(decoder.bufferedBytes).toBeLessThanOrEqual(limit);
          }
          for (const event of whole) {
            if (event.kind === 'line') {
              // Blank means JSON whitespace only (RFC 8259 §2); U+2028 and friends are not blank, they fail the parse.
              expect(/^[ \t\r\n]*$/.test(event.text)).toBe(false);
              expect(event.text).not.toContain('\n');
              // Each line then classifies without throwing (what the stdio transport does with it).
              expectInbound(parseMessage(event.text));
            } else {
              expect(event.bytes).toBeGreaterThan(limit);
            }
          }
        },
      ),
      params(),
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// The Streamable HTTP classifier

const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];
const headerValue = (common: readonly string[]): fc.Arbitrary<string | undefined> =>
  fc.oneof(fc.constant(undefined), fc.constantFrom(...common), fc.string({ maxLength: 30 }));

const httpBody: fc.Arbitrary<Inbound | undefined> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: jsonish.map((text) => parseMessage(text)) },
  { weight: 4, arbitrary: inboundValue.map((value) => classifyValue(value)) },
  {
    weight: 2,
    arbitrary: fc
      .record({
        id: validId,
        method: fc.constantFrom('initialize', 'ping', 'tools/list', 'notifications/initialized'),
        meta: fc.option(fc.oneof(fc.constantFrom(...REVISIONS), fc.integer()), { nil: undefined }),
        notify: fc.boolean(),
        batch: fc.boolean(),
      })
      .map(({ id, method: m, meta, notify, batch }) => {
        const message: Record<string, unknown> = { jsonrpc: '2.0', method: m, params: meta === undefined ? {} : { _meta: { 'io.modelcontextprotocol/protocolVersion': meta } } };
        if (!notify) message['id'] = id;
        return classifyValue(batch ? [message, { jsonrpc: '2.0', id: 'second', method: 'ping' }] : message);
      }),
  },
);

/** What the server serves: dual-era, modern-only, legacy-only, or the revisions listed without a modern handle. */
const SERVER_FACTS: readonly HttpServerFacts[] = ([
  [REVISIONS, true],
  [['2026-07-28'], true],
  [REVISIONS.slice(0, 4), false],
  [REVISIONS, false],
] as const).map(([served, modern]) => ({
  servedRevisions: served as HttpServerFacts['servedRevisions'],
  servesModern: modern,
  servesLegacy: served.length > 1,
  capabilities: { tools: {} },
  paramHeaders: () => undefined,
}));

const factsArb: fc.Arbitrary<StreamableHttpFacts> = fc.record({
  httpMethod: fc.oneof(fc.constantFrom('POST', 'GET', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS', 'post', ''), fc.string({ maxLength: 8 })),
  contentType: headerValue(['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'text/plain', 'application/json-seq', ';']),
  accept: headerValue(['application/json, text/event-stream', 'application/json', 'text/event-stream', '*/*', 'text/html', 'application/json;q=0', '']),
  sessionId: headerValue(['s1', '', ' ']),
  protocolVersionHeader: headerValue([...REVISIONS, ' 2025-11-25 ', '2025-13-01']),
  lastEventId: headerValue(['1', '']),
  // A session's revision is one the server negotiated at initialize (or none yet): never the client's text, which
  // an error message would echo as it is (a generated "." once made a refusal message end with a period).
  session: fc.option(fc.record({ protocolVersion: fc.option(fc.constantFrom(...REVISIONS), { nil: undefined }) }), { nil: undefined }),
  body: httpBody,
  responseMode: fc.constantFrom('auto' as const, 'json' as const, 'sse' as const),
  mcpMethod: headerValue(['tools/list', 'tools/call', 'ping', 'TOOLS/LIST', ' tools/list ']),
  mcpName: headerValue(['echo', '=?base64?ZWNobw==?=', '=?base64?bad?=']),
  server: fc.option(fc.constantFrom(...SERVER_FACTS), { nil: undefined }),
});

const REFUSAL_STATUSES = new Set([400, 403, 404, 405, 406, 409, 413, 415, 500, 503]);

function expectDecision(facts: StreamableHttpFacts, decision: StreamableHttpDecision): void {
  expect(['refuse', 'initialize', 'message', 'listen', 'terminate', 'modern']).toContain(decision.kind);
  // Only a server that can serve the modern era gets modern decisions, and it alone answers 405 with POST only.
  if (decision.kind === 'modern') expect(facts.server?.servesModern).toBe(true);
  const modernOnly = facts.server?.servesLegacy === false;
  if (modernOnly) expect(['refuse', 'modern']).toContain(decision.kind);
  switch (decision.kind) {
    case 'refuse':
      // Every refusal has an HTTP error status and a JSON-RPC error response for the body.
      expect(REFUSAL_STATUSES.has(decision.httpStatus)).toBe(true);
      expectErrorResponse(decision.jsonrpcError);
      if (decision.httpStatus === 405) expect(decision.allow).toBe(modernOnly && ['GET', 'DELETE'].includes(facts.httpMethod) ? 'POST' : 'GET, POST, DELETE');
      return;
    case 'modern':
      // A single request or notification, posted; a notification is accepted with no body (B23).
      expect(facts.httpMethod).toBe('POST');
      expect(facts.body?.kind === 'request' || facts.body?.kind === 'notification').toBe(true);
      expect(decision.respondWith === 'accepted').toBe(facts.body?.kind === 'notification');
      return;
    case 'initialize':
      expect(facts.httpMethod).toBe('POST');
      expect(decision.request.method).toBe('initialize');
      expect(['adaptive', 'json', 'sse']).toContain(decision.respondWith);
      return;
    case 'message': {
      expect(facts.httpMethod).toBe('POST');
      expect(decision.sessionId).toBe(facts.sessionId);
      // Every request member is routed (one response each on this POST), none twice, none invented.
      const body = decision.inbound;
      const members = body.kind === 'batch' ? body.items : [body];
      const ids = members.flatMap((m) => (m.kind === 'request' ? [m.message.id] : []));
      expect(decision.requestIds).toEqual(ids);
      expect(new Set(ids).size).toBe(ids.length);
      for (const reply of decision.replies) expectErrorResponse(reply);
      if (decision.respondWith === 'accepted') expect(ids.length + decision.replies.length).toBe(0);
      else expect(ids.length + decision.replies.length).toBeGreaterThan(0);
      return;
    }
    case 'listen':
      expect(facts.httpMethod).toBe('GET');
      expect(decision.sessionId).toBe(facts.sessionId);
      return;
    case 'terminate':
      expect(facts.httpMethod).toBe('DELETE');
      expect(decision.sessionId).toBe(facts.sessionId);
      return;
  }
}

describe('Streamable HTTP classifier: classifyStreamableHttp, checkStreamableHttpHead', () => {
  it('is total: any facts give one well-formed decision, never a throw', () => {
    fc.assert(
      fc.property(factsArb, (facts) => {
        expectDecision(facts, classifyStreamableHttp(facts));
      }),
      params(),
    );
  });

  it('is deterministic: the same facts give the same decision, whatever was classified before', () => {
    fc.assert(
      fc.property(fc.array(factsArb, { minLength: 1, maxLength: 8 }), (all) => {
        const forward = all.map((facts) => classifyStreamableHttp(facts));
        const backward = [...all].reverse().map((facts) => classifyStreamableHttp(facts)).reverse();
        expect(backward).toEqual(forward);
        expect(all.map((facts) => classifyStreamableHttp(facts))).toEqual(forward);
      }),
      params(),
    );
  });

  it('the head check is the classifier\'s first step: its refusal is the decision', () => {
    fc.assert(
      fc.property(factsArb, (facts) => {
        const head = checkStreamableHttpHead(facts.httpMethod, facts.contentType);
        const decision = classifyStreamableHttp(facts);
        if (head !== undefined) expect(decision).toEqual(head);
        // Past the head, only an endpoint without sessions answers 405 (its GET and DELETE, B26).
        else if (facts.server?.servesLegacy !== false) expect([405, 415]).not.toContain(decision.kind === 'refuse' ? decision.httpStatus : 0);
        else expect(decision.kind === 'refuse' && decision.httpStatus === 405).toBe(facts.httpMethod === 'GET' || facts.httpMethod === 'DELETE');
      }),
      params(),
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// The whole HTTP handler (Web path, no socket): arbitrary headers and bodies

describe('Streamable HTTP handler: arbitrary requests end to end', () => {
  it('never a 5xx, never a throw; every error body a JSON-RPC error response; every request id answered once', async () => {
    const handler = createMcpHttpHandler({ server: createConformanceServer({ logger: silentLogger }), maxBodyBytes: 4096, logger: silentLogger });
    const encoder = new TextEncoder();
    try {
      const open = async (): Promise<string> => {
        const init = await handler.fetch(new Request('http://localhost/mcp', {
          method: 'POST',
          headers: { accept: 'application/json', 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'p', version: '0' } } }),
        }));
        const id = init.headers.get('mcp-session-id') ?? '';
        expect(id).not.toBe('');
        return id;
      };
      let sid = await open();
      // Methods that answer without asking the client anything (no sampling or elicitation tools: they would wait).
      const safeCall = fc.record({
        jsonrpc: fc.constant('2.0'),
        id: validId,
        method: fc.constantFrom('ping', 'tools/list', 'resources/list', 'prompts/list', 'tools/call', 'nope', 'notifications/initialized'),
        params: fc.constantFrom(undefined, {}, { name: 'test_simple_text', arguments: {} }, { name: 'missing' }, []),
      }, { requiredKeys: ['jsonrpc', 'method'] });
      const body = fc.oneof(
        safeCall.map((m) => encoder.encode(JSON.stringify(m))),
        fc.array(safeCall, { maxLength: 3 }).map((ms) => encoder.encode(JSON.stringify(ms))),
        jsonish.map((t) => encoder.encode(t)),
        fc.uint8Array({ maxLength: 64 }),
        fc.constant(encoder.encode('['.repeat(5000))),
      );
      const request = fc.record({
        method: fc.constantFrom('POST', 'POST', 'POST', 'GET', 'DELETE', 'PUT'),
        accept: fc.constantFrom(undefined, 'application/json', 'application/json, text/event-stream', 'text/html', '*/*'),
        contentType: fc.constantFrom(undefined, 'application/json', 'text/plain', 'application/json; charset=utf-8'),
        session: fc.constantFrom('live', 'absent', 'unknown'),
        version: fc.constantFrom(undefined, '2025-11-25', '2025-06-18', 'x'),
        origin: fc.constantFrom(undefined, 'http://localhost', 'https://evil.example'),
        body,
      });
      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          const headers: Record<string, string> = {};
          if (r.accept !== undefined) headers['accept'] = r.accept;
          if (r.contentType !== undefined) headers['content-type'] = r.contentType;
          if (r.session === 'live') headers['mcp-session-id'] = sid;
          if (r.session === 'unknown') headers['mcp-session-id'] = 'not-a-session';
          if (r.version !== undefined) headers['mcp-protocol-version'] = r.version;
          if (r.origin !== undefined) headers['origin'] = r.origin;
          // GET streams stay open: only the status and headers are checked, then the stream is cancelled.
          const hasBody = r.method === 'POST' || r.method === 'PUT';
          const response = await handler.fetch(new Request('http://localhost/mcp', { method: r.method, headers, body: hasBody ? r.body : null }));
          expect(response.status).toBeLessThan(500);
          // A DELETE ended the live session: open another, so later cases still reach one.
          if (r.method === 'DELETE' && r.session === 'live' && response.status === 200) sid = await open();
          if (r.method === 'GET' && response.status === 200) {
            await response.body?.cancel();
            return;
          }
          const text = await response.text();
          if (response.status >= 400) {
            const error = JSON.parse(text) as unknown;
            expectErrorResponse({ id: null, ...(error as object) });
            return;
          }
          if (r.method !== 'POST' || response.status === 202) return;
          // A 200 to a POST: one answer per request member, with its id.
          const type = response.headers.get('content-type') ?? '';
          const answers = type.startsWith('application/json')
            ? ([JSON.parse(text) as unknown].flat() as Record<string, unknown>[])
            : text.split('\n').filter((l) => l.startsWith('data:') && l.slice(5).trim() !== '').map((l) => JSON.parse(l.slice(5)) as Record<string, unknown>);
          const inbound = parseMessage(new TextDecoder().decode(r.body));
          const members = inbound.kind === 'batch' ? inbound.items : [inbound];
          const ids = members.flatMap((m) => (m.kind === 'request' ? [m.message.id] : []));
          const responseIds = answers.filter((a) => !('method' in a) && a['id'] !== null).map((a) => a['id']);
          expect(responseIds).toEqual(ids);
        }),
        params(STRESS ? 3000 : 150),
      );
    } finally {
      await handler.close();
    }
  });
});
