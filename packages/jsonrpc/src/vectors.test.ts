/**
 * Replays every vector of test/fixtures/jsonrpc-vectors.json, each as its own test:
 * - client-to-server vectors through parseMessage + Dispatcher (the text as given), and through the NDJSON
 *   stdio pipeline (NdjsonDecoder + parseMessage + Dispatcher, using `request_single_line` when present);
 * - server-to-client vectors fed to a Peer acting as a client.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseMessage } from './classify.js';
import { Dispatcher } from './dispatcher.js';
import { stringifyReply } from './reply.js';
import { JsonRpcError, JsonRpcLocalError, ErrorCode } from './errors.js';
import { NdjsonDecoder } from './ndjson.js';
import type { Logger } from './logger.js';
import { Peer } from './peer.js';
import { captureLogger, scriptedTransport } from './testing.js';
import type { JsonRpcParams } from './message.js';

interface Vector {
  readonly group: string;
  readonly name: string;
  readonly direction: 'client-to-server' | 'server-to-client';
  readonly request: string;
  readonly request_single_line?: string;
  readonly expected_response: unknown;
  readonly compare?: 'unordered' | 'raw-id-token' | 'code-in-set-and-no-crash';
  readonly alternatives?: readonly { readonly when: string; readonly response: unknown }[];
  readonly notes: string;
}

interface VectorFile {
  readonly fixture: { readonly methods: Record<string, string>; readonly not_registered: readonly string[] };
  readonly vectors: readonly Vector[];
}

const file = JSON.parse(
  readFileSync(new URL('../test/fixtures/jsonrpc-vectors.json', import.meta.url), 'utf8'),
) as VectorFile;

/** The fixture methods the vector file lists. */
function fixtureDispatcher(logger?: Logger): Dispatcher {
  const dispatcher = new Dispatcher(logger === undefined ? {} : { logger });
  const isNumber = (value: unknown): value is number => typeof value === 'number';
  const subtractOperands = (params: JsonRpcParams | undefined): [number, number] | undefined => {
    if (Array.isArray(params)) {
      const [a, b] = params as unknown[];
      return params.length === 2 && isNumber(a) && isNumber(b) ? [a, b] : undefined;
    }
    if (params !== undefined && !Array.isArray(params)) {
      const named = params as { readonly [key: string]: unknown };
      const a = Object.hasOwn(named, 'minuend') ? named['minuend'] : undefined;
      const b = Object.hasOwn(named, 'subtrahend') ? named['subtrahend'] : undefined;
      return isNumber(a) && isNumber(b) ? [a, b] : undefined;
    }
    return undefined;
  };
  dispatcher.register(
    'subtract',
    (params) => {
      const [a, b] = subtractOperands(params)!;
      return a - b;
    },
    { validate: (params) => (subtractOperands(params) ? undefined : 'expected [minuend, subtrahend] or {minuend, subtrahend}') },
  );
  dispatcher.register('sum', (params) => (params as number[]).reduce((a, b) => a + b, 0), {
    validate: (params) =>
      Array.isArray(params) && params.every((value) => typeof value === 'number') ? undefined : 'expected an array of numbers',
  });
  dispatcher.register('get_data', () => ['hello', 5]);
  dispatcher.register('update', () => undefined);
  dispatcher.register('notify_hello', () => undefined);
  dispatcher.register('notify_sum', () => undefined);
  dispatcher.register('echo', (params) => params);
  dispatcher.register('noop', () => null);
  dispatcher.register('throws', () => {
    throw new Error('boom: secret detail');
  });
  return dispatcher;
}

/** Drops `error.message` (the spec's texts are examples): compare `code` and `id` (and everything else). */
function normalize(reply: unknown): unknown {
  if (Array.isArray(reply)) return reply.map(normalize);
  if (typeof reply !== 'object' || reply === null) return reply;
  const { error, ...rest } = reply as { error?: { code: number } };
  return error === undefined ? rest : { ...rest, error: { code: error.code } };
}

function matches(actual: unknown, expected: unknown, compare: Vector['compare']): boolean {
  const a = normalize(actual);
  const e = normalize(expected);
  if (compare === 'unordered' && Array.isArray(a) && Array.isArray(e)) {
    const sa = a.map((x) => JSON.stringify(x, ['jsonrpc', 'id', 'result', 'error', 'code'])).sort();
    const se = e.map((x) => JSON.stringify(x, ['jsonrpc', 'id', 'result', 'error', 'code'])).sort();
    return JSON.stringify(sa) === JSON.stringify(se);
  }
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(e));
}

/** Sorts object keys recursively, for order-insensitive deep comparison. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  const out = new Map<string, unknown>();
  for (const key of Object.keys(value).sort()) out.set(key, canonical((value as Record<string, unknown>)[key]));
  return Object.fromEntries(out);
}

const FOLLOW_UP = '{"jsonrpc":"2.0","method":"get_data","id":"follow-up"}';
const FOLLOW_UP_REPLY = { jsonrpc: '2.0', id: 'follow-up', result: ['hello', 5] };

/** Checks a reply text against a vector (expected or alternative), honouring its compare mode. */
function expectReply(vector: Vector, text: string | undefined, options: { readonly lineDelimited: boolean }): void {
  const actual: unknown = text === undefined ? null : JSON.parse(text);
  const candidates: unknown[] = [vector.expected_response];
  for (const alternative of vector.alternatives ?? []) {
    if (alternative.when.startsWith('line-delimited') && !options.lineDelimited) continue;
    candidates.push(alternative.response);
  }
  if (vector.compare === 'raw-id-token') {
    // The reply must never carry a silently altered id: either the exact raw token, or a refusal.
    const expected = vector.expected_response as { id: unknown };
    const token = /"id"\s*:\s*(-?\d+)/.exec(vector.request)![1]!;
    expect(String(expected.id) === token || token.length > 15).toBe(true);
    const rounded = String(Number(token));
    if (rounded !== token) expect(text ?? '').not.toContain(rounded);
    const carriesToken = text !== undefined && new RegExp(`"id":${token}[,}]`).test(text);
    const refusal = candidates.slice(1).some((candidate) => matches(actual, candidate, undefined));
    expect(carriesToken || refusal, `reply ${text}`).toBe(true);
    return;
  }
  if (vector.compare === 'code-in-set-and-no-crash') {
    const ok = candidates.some((candidate) =>
      candidate === 'result equals params' ? true : matches(actual, candidate, undefined),
    );
    expect(ok, `reply ${text?.slice(0, 200)}`).toBe(true);
    return;
  }
  const ok = candidates.some((candidate) => matches(actual, candidate, vector.compare));
  expect(ok, `reply ${text?.slice(0, 300)}`).toBe(true);
}

const clientToServer = file.vectors.filter((vector) => vector.direction === 'client-to-server');
const serverToClient = file.vectors.filter((vector) => vector.direction === 'server-to-client');

describe('JSON-RPC vectors: parseMessage + Dispatcher', () => {
  it('the vector file has the documented shape (68 vectors, 3 server-to-client)', () => {
    expect(file.vectors).toHaveLength(68);
    expect(serverToClient).toHaveLength(3);
  });

  it('the fixture leaves the not_registered names unregistered', () => {
    const dispatcher = fixtureDispatcher();
    for (const name of file.fixture.not_registered) expect(dispatcher.has(name)).toBe(false);
    for (const name of Object.keys(file.fixture.methods)) expect(dispatcher.has(name)).toBe(true);
  });

  for (const vector of clientToServer) {
    it(`vector ${vector.group}/${vector.name}`, async () => {
      const logger = captureLogger();
      const dispatcher = fixtureDispatcher(logger);
      const text = await dispatcher.handleText(vector.request, undefined);
      expectReply(vector, text, { lineDelimited: false });
      // The engine keeps answering.
      expect(JSON.parse((await dispatcher.handleText(FOLLOW_UP, undefined))!)).toEqual(FOLLOW_UP_REPLY);
      // Nothing was polluted, and thrown error text never reaches the wire.
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      expect(text ?? '').not.toContain('secret detail');
    });
  }
});

describe('JSON-RPC vectors: NDJSON stdio pipeline (NdjsonDecoder + parseMessage + Dispatcher)', () => {
  const encoder = new TextEncoder();
  for (const vector of clientToServer) {
    it(`vector ${vector.group}/${vector.name} over NDJSON, then a follow-up request`, async () => {
      const dispatcher = fixtureDispatcher();
      const decoder = new NdjsonDecoder();
      const line = vector.request_single_line ?? vector.request;
      expect(line).not.toContain('\n');
      const bytes = encoder.encode(`${line}\n${FOLLOW_UP}\n`);
      // Feed it in three arbitrary chunks.
      const cut1 = Math.floor(bytes.length / 3);
      const cut2 = Math.floor((2 * bytes.length) / 3);
      const events = [
        ...decoder.push(bytes.subarray(0, cut1)),
        ...decoder.push(bytes.subarray(cut1, cut2)),
        ...decoder.push(bytes.subarray(cut2)),
        ...decoder.end(),
      ];
      const replies: (string | undefined)[] = [];
      for (const event of events) {
        expect(event.kind).toBe('line');
        if (event.kind === 'line') replies.push(await dispatcher.handleText(event.text, undefined));
      }
      const last = replies.pop();
      expect(JSON.parse(last!)).toEqual(FOLLOW_UP_REPLY);
      // A blank line is skipped by the decoder (the vectors' line-delimited alternative).
      expect(replies.length).toBeLessThanOrEqual(1);
      expectReply(vector, replies[0], { lineDelimited: true });
    });
  }
});

describe('JSON-RPC vectors: server-to-client, fed to a Peer acting as client', () => {
  for (const vector of serverToClient) {
    it(`vector ${vector.group}/${vector.name}`, async () => {
      const logger = captureLogger();
      const transport = scriptedTransport();
      const peer = new Peer({ transport, logger });
      await peer.start();
      // Put requests 0 and 1 in flight, so that the vector's id 1 (when it has one) is pending.
      const first = peer.request('ping', undefined, { timeoutMs: 1000 });
      const second = peer.request('ping', undefined, { timeoutMs: 1000 });
      first.catch(() => {});
      second.catch(() => {});
      expect(transport.sent.map((message) => (message as { id: unknown }).id)).toEqual([0, 1]);
      transport.deliver(parseMessage(vector.request));
      await Promise.resolve();
      // No reply is ever sent to a response.
      expect(vector.expected_response).toBeNull();
      expect(transport.sent).toHaveLength(2);
      const id = (JSON.parse(vector.request) as { id: unknown }).id;
      if (id === 1) {
        // A malformed response fails the pending call; it never succeeds.
        const outcome = await second.then(
          (value) => ({ ok: true, value }),
          (error: unknown) => ({ ok: false, error }),
        );
        expect(outcome.ok).toBe(false);
        expect((outcome as { error: unknown }).error).toBeInstanceOf(JsonRpcError);
        expect(((outcome as { error: JsonRpcError }).error).code).toBe(ErrorCode.InvalidRequest);
      } else {
        expect(logger.lines.some((line) => line.level === 'warn')).toBe(true);
        expect(peer.pendingCount).toBe(2);
      }
      // The connection still works: request 0 resolves on a good response.
      transport.deliver(parseMessage('{"jsonrpc":"2.0","id":0,"result":"pong"}'));
      await expect(first).resolves.toBe('pong');
      await peer.close();
      await expect(second).rejects.toBeInstanceOf(id === 1 ? JsonRpcError : JsonRpcLocalError);
    });
  }
});

describe('stringifyReply', () => {
  it('stringifyReply replaces an unserializable response with -32603 for its id', () => {
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const text = stringifyReply([
      { jsonrpc: '2.0', id: 1, result: deep },
      { jsonrpc: '2.0', id: 2, result: 'ok' },
    ]);
    expect(JSON.parse(text)).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } },
      { jsonrpc: '2.0', id: 2, result: 'ok' },
    ]);
  });
});
