/**
 * Multi round-trip requests (MCP 2026-07-28 basic/patterns/mrtr.mdx) through `McpServer.handle`, whole wire
 * messages: `ctx.elicit`, `ctx.sample` and `ctx.listRoots` on a modern request answer `input_required` with
 * `inputRequests` and a signed `requestState`; the retry runs the handler again and the same calls resolve from
 * `inputResponses` or from what the state carries. The same handler on a legacy request asks the client live.
 */
import { describe, expect, it, vi } from 'vitest';
import { silentLogger, type JsonRpcParams, type JsonRpcRequest, type JsonRpcResponse } from '@switchboard/jsonrpc';
import type { ClientChannel } from './channel.js';
import { InvalidInputResponseError } from './inputResponses.js';
import { McpServer } from './mcpServer.js';
import type { McpServerOptions } from './options.js';

const INFO = { name: 'rounds', version: '1' };
const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': INFO };
const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const EVERY_CAPABILITY = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };

/** A 2026-07-28 request declaring `capabilities`. */
const modern = (id: number, method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = EVERY_CAPABILITY, meta: Record<string, unknown> = {}): JsonRpcRequest => ({
  jsonrpc: '2.0', id, method, params: { ...params, _meta: { [PV]: '2026-07-28', [CAPS]: capabilities, ...meta } },
});

const ASK_NAME = { mode: 'form', message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } as const;
const SAMPLE = { messages: [{ role: 'user', content: { type: 'text', text: 'q' } }], maxTokens: 5 } as const;
const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'a' }, model: 'm' };
const ROOTS = { roots: [{ uri: 'file:///w', name: 'w' }] };
const accept = (name: string) => ({ action: 'accept', content: { name } });

/** Counts each handler's runs, to show that a retry runs it again from the start. */
const runs = new Map<string, number>();
const ran = (name: string): void => {
  runs.set(name, (runs.get(name) ?? 0) + 1);
};

class RecordingChannel implements ClientChannel {
  readonly sent: { kind: string; method: string; params: JsonRpcParams | undefined }[] = [];
  notify(method: string, params?: JsonRpcParams): Promise<void> {
    this.sent.push({ kind: 'notify', method, params });
    return Promise.resolve();
  }
  request<T>(method: string, params?: JsonRpcParams): Promise<T> {
    this.sent.push({ kind: 'request', method, params });
    const answers: Record<string, unknown> = { 'elicitation/create': accept('live'), 'sampling/createMessage': SAMPLED, 'roots/list': ROOTS };
    return Promise.resolve(answers[method] as T);
  }
}

function makeServer(options: McpServerOptions = {}): McpServer {
  const server = new McpServer(INFO, { logger: silentLogger, ...options });
  server.tool('greet', { inputSchema: { type: 'object', properties: { lang: { type: 'string' } } } }, async ({ lang }, ctx) => {
    ran('greet');
    const answer = await ctx.elicit(ASK_NAME);
    const name = answer.action === 'accept' ? String(answer.content?.name) : 'nobody';
    return { content: [{ type: 'text', text: `${lang === 'fr' ? 'Bonjour' : 'Hello'} ${name}` }] };
  });
  // Three input requests in one round.
  server.tool('three', {}, async (_args, ctx) => {
    const [answer, sampled, roots] = await Promise.all([ctx.elicit(ASK_NAME), ctx.sample(SAMPLE), ctx.listRoots()]);
    return { content: [{ type: 'text', text: `${String(answer.content?.name)} ${sampled.model} ${roots.roots.map((r) => r.uri).join(',')}` }] };
  });
  // Two rounds, the handler's own progress in ctx.requestState, a key of its own choosing.
  server.tool('steps', {}, async (_args, ctx) => {
    const seen = JSON.stringify(ctx.requestState);
    const first = await ctx.elicit({ message: 'First?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }, { key: 'first' });
    ctx.requestState = { step: 1, first: first.content?.name };
    const second = await ctx.elicit({ message: 'Second?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }, { key: 'second' });
    return { content: [{ type: 'text', text: `${String(first.content?.name)} then ${String(second.content?.name)} (state seen: ${seen})` }] };
  });
  // A handler that catches the input request's rejection and answers something else: still input_required.
  server.tool('stubborn', {}, async (_args, ctx) => {
    try {
      await ctx.listRoots();
      return { content: [{ type: 'text', text: 'had roots' }] };
    } catch {
      return { content: [{ type: 'text', text: 'caught' }] };
    }
  });
  server.tool('url', {}, async (_args, ctx) => {
    await ctx.elicit({ mode: 'url', message: 'Sign in', url: 'https://example.com/login' });
    return { content: [{ type: 'text', text: 'signed in' }] };
  });
  server.prompt('named', {}, async (_args, ctx) => {
    const answer = await ctx.elicit(ASK_NAME);
    return { messages: [{ role: 'user', content: { type: 'text', text: `for ${String(answer.content?.name)}` } }] };
  });
  server.resource('test://roots', { name: 'roots' }, async (uri, ctx) => {
    const roots = await ctx.listRoots();
    return { contents: [{ uri, text: roots.roots.map((r) => r.uri).join(',') }] };
  });
  return server;
}

type InputRequired = { resultType: 'input_required'; inputRequests: Record<string, unknown>; requestState: string; _meta: unknown };
const resultOf = (reply: JsonRpcResponse | undefined): InputRequired => (reply as { result: InputRequired }).result;

describe('input_required and the retry', () => {
  it('tools/call: one elicitation, then the retry with its answer and the state resolves it; nothing is sent to the client', async () => {
    const server = makeServer();
    const channel = new RecordingChannel();
    runs.clear();
    const first = await server.handle(modern(1, 'tools/call', { name: 'greet', arguments: { lang: 'fr' } }), { channel });
    expect(first).toEqual({
      jsonrpc: '2.0', id: 1,
      result: { resultType: 'input_required', inputRequests: { 'elicitation-0': { method: 'elicitation/create', params: ASK_NAME } }, requestState: expect.any(String) as unknown, _meta: SERVER_INFO },
    });
    const { requestState } = resultOf(first);
    const retry = await server.handle(modern(2, 'tools/call', { name: 'greet', arguments: { lang: 'fr' }, inputResponses: { 'elicitation-0': accept('Ada') }, requestState }), { channel });
    expect(retry).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'Bonjour Ada' }], resultType: 'complete', _meta: SERVER_INFO } });
    expect(runs.get('greet')).toBe(2);
    expect(channel.sent).toEqual([]);
  });

  it('the same handler on a legacy request asks the client live (one handler API for both eras)', async () => {
    const channel = new RecordingChannel();
    const facts = { protocolVersion: '2025-11-25', clientInfo: undefined, clientCapabilities: { elicitation: {} }, serverCapabilities: undefined, logLevelRank: 0 };
    const reply = await makeServer().handle({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'greet', arguments: {} } }, { facts, channel });
    expect(reply).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'Hello live' }] } });
    expect(channel.sent).toEqual([{ kind: 'request', method: 'elicitation/create', params: ASK_NAME }]);
  });

  it('Promise.all of three asks is one round of three input requests, with the default keys by method', async () => {
    const server = makeServer();
    const first = resultOf(await server.handle(modern(1, 'tools/call', { name: 'three' })));
    expect(first).toEqual({
      resultType: 'input_required',
      inputRequests: {
        'elicitation-0': { method: 'elicitation/create', params: ASK_NAME },
        'sampling-0': { method: 'sampling/createMessage', params: SAMPLE },
        'roots-0': { method: 'roots/list' },
      },
      requestState: expect.any(String) as unknown,
      _meta: SERVER_INFO,
    });
    const inputResponses = { 'elicitation-0': accept('Bo'), 'sampling-0': SAMPLED, 'roots-0': ROOTS };
    expect(await server.handle(modern(2, 'tools/call', { name: 'three', inputResponses, requestState: first.requestState }))).toEqual({
      jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'Bo m file:///w' }], resultType: 'complete', _meta: SERVER_INFO },
    });
  });

  it('several rounds: the state carries the answers of earlier rounds and ctx.requestState', async () => {
    const server = makeServer();
    const round1 = resultOf(await server.handle(modern(1, 'tools/call', { name: 'steps' })));
    expect(round1.inputRequests).toEqual({ first: { method: 'elicitation/create', params: { message: 'First?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } } });
    const round2 = resultOf(await server.handle(modern(2, 'tools/call', { name: 'steps', inputResponses: { first: accept('one') }, requestState: round1.requestState })));
    expect(round2).toMatchObject({ resultType: 'input_required', inputRequests: { second: { method: 'elicitation/create' } } });
    expect(Object.keys(round2.inputRequests)).toEqual(['second']);
    expect(round2.requestState).not.toBe(round1.requestState);
    // The last retry carries only the second answer: the first comes back from the state.
    expect(await server.handle(modern(3, 'tools/call', { name: 'steps', inputResponses: { second: accept('two') }, requestState: round2.requestState }))).toEqual({
      jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'one then two (state seen: {"step":1,"first":"one"})' }], resultType: 'complete', _meta: SERVER_INFO },
    });
  });

  it('prompts/get and resources/read are input-capable too; an input_required result has no cache hints, a retry\'s result is not cacheable', async () => {
    const server = makeServer({ cache: { ttlMs: 60_000, scope: 'public' } });
    const prompt = resultOf(await server.handle(modern(1, 'prompts/get', { name: 'named' })));
    expect(prompt).toEqual({ resultType: 'input_required', inputRequests: { 'elicitation-0': { method: 'elicitation/create', params: ASK_NAME } }, requestState: expect.any(String) as unknown, _meta: SERVER_INFO });
    expect(await server.handle(modern(2, 'prompts/get', { name: 'named', inputResponses: { 'elicitation-0': accept('Cy') }, requestState: prompt.requestState }))).toEqual({
      jsonrpc: '2.0', id: 2, result: { messages: [{ role: 'user', content: { type: 'text', text: 'for Cy' } }], resultType: 'complete', _meta: SERVER_INFO },
    });
    const read = resultOf(await server.handle(modern(3, 'resources/read', { uri: 'test://roots' })));
    expect(read).toEqual({ resultType: 'input_required', inputRequests: { 'roots-0': { method: 'roots/list' } }, requestState: expect.any(String) as unknown, _meta: SERVER_INFO });
    expect(await server.handle(modern(4, 'resources/read', { uri: 'test://roots', inputResponses: { 'roots-0': ROOTS }, requestState: read.requestState }))).toEqual({
      jsonrpc: '2.0', id: 4, result: { contents: [{ uri: 'test://roots', text: 'file:///w' }], resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta: SERVER_INFO },
    });
  });

  it('a handler that catches the rejection of an unanswered ask still answers input_required', async () => {
    expect(resultOf(await makeServer().handle(modern(1, 'tools/call', { name: 'stubborn' })))).toMatchObject({ resultType: 'input_required', inputRequests: { 'roots-0': { method: 'roots/list' } } });
  });
});

describe('what a round refuses', () => {
  it('a missing client capability is -32021 with data.requiredCapabilities, and nothing is asked', async () => {
    const server = makeServer();
    const cases = [
      ['tools/call', { name: 'greet' }, {}, { elicitation: {} }, '"elicitation"'],
      ['prompts/get', { name: 'named' }, { sampling: {} }, { elicitation: {} }, '"elicitation"'],
      ['resources/read', { uri: 'test://roots' }, { elicitation: {} }, { roots: {} }, '"roots"'],
      // Elicitation {} means form mode only: URL mode needs "url".
      ['tools/call', { name: 'url' }, { elicitation: {} }, { elicitation: { url: {} } }, '"elicitation"'],
      ['tools/call', { name: 'url' }, { elicitation: { form: {} } }, { elicitation: { url: {} } }, '"elicitation"'],
    ] as const;
    for (const [method, params, declared, required, names] of cases) {
      expect({ method, params, reply: await server.handle(modern(1, method, params, declared)) }).toEqual({
        method, params, reply: { jsonrpc: '2.0', id: 1, error: { code: -32021, message: `Missing required client capability: ${names}`, data: { requiredCapabilities: required } } },
      });
    }
    expect(resultOf(await server.handle(modern(2, 'tools/call', { name: 'url' }, { elicitation: { url: {} } })))).toMatchObject({
      resultType: 'input_required', inputRequests: { 'elicitation-0': { method: 'elicitation/create', params: { mode: 'url', message: 'Sign in', url: 'https://example.com/login' } } },
    });
    // A handler that catches the capability error and goes on without it is served.
    expect(await server.handle(modern(3, 'tools/call', { name: 'stubborn' }, {}))).toMatchObject({ id: 3, result: { content: [{ type: 'text', text: 'caught' }], resultType: 'complete' } });
  });

  // Core bug (reported to the lead): when one ask of a round lacks its capability and another is pending, the
  // server answers input_required for the pending one (the user is asked to elicit) and only the retry gets the
  // -32021: the request cannot proceed, so the -32021 is due at once (MCP 2026-07-28 basic/patterns/mrtr.mdx).
  it('Promise.all with one ask whose capability is missing: -32021 at once, nothing asked', async () => {
    const reply = await makeServer().handle(modern(1, 'tools/call', { name: 'three' }, { elicitation: {}, roots: {} }));
    expect(reply).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32021, message: 'Missing required client capability: "sampling"', data: { requiredCapabilities: { sampling: {} } } } });
  });

  it('a missing or wrong answer asks again (a new input_required); answers to keys never asked are ignored', async () => {
    const server = makeServer();
    const first = resultOf(await server.handle(modern(1, 'tools/call', { name: 'greet', arguments: {} })));
    const again = resultOf(await server.handle(modern(2, 'tools/call', { name: 'greet', arguments: {}, inputResponses: { other: accept('x') }, requestState: first.requestState })));
    expect(again).toEqual({ resultType: 'input_required', inputRequests: { 'elicitation-0': { method: 'elicitation/create', params: ASK_NAME } }, requestState: expect.any(String) as unknown, _meta: SERVER_INFO });
    expect(await server.handle(modern(3, 'tools/call', { name: 'greet', arguments: {}, inputResponses: { 'elicitation-0': accept('Di'), extra: { anything: 1 } }, requestState: again.requestState }))).toMatchObject({
      id: 3, result: { content: [{ type: 'text', text: 'Hello Di' }], resultType: 'complete' },
    });
    // Without any state (none was needed): the answers alone resolve the round.
    expect(await server.handle(modern(4, 'tools/call', { name: 'greet', arguments: {}, inputResponses: { 'elicitation-0': accept('Ed') } }))).toMatchObject({ id: 4, result: { content: [{ type: 'text', text: 'Hello Ed' }] } });
  });

  it('malformed inputResponses are -32602', async () => {
    const server = makeServer();
    for (const inputResponses of ['x', 1, null, [accept('a')], { 'elicitation-0': 'yes' }, { 'elicitation-0': [1] }]) {
      expect({ inputResponses, reply: await server.handle(modern(1, 'tools/call', { name: 'greet', arguments: {}, inputResponses })) }).toEqual({
        inputResponses, reply: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params: "inputResponses" must be an object of input responses (objects)' } },
      });
    }
  });

  it('a tampered, foreign, re-bound or non-string requestState is -32602', async () => {
    const server = makeServer();
    const invalid = { code: -32602, message: 'Invalid params: "requestState" is not valid for this request (tampered with, expired, or issued for another request)' };
    const { requestState } = resultOf(await server.handle(modern(1, 'tools/call', { name: 'greet', arguments: { lang: 'en' } }, EVERY_CAPABILITY, { 'io.modelcontextprotocol/clientInfo': { name: 'c1', version: '1' } })));
    const retry = (id: number, params: Record<string, unknown>, clientName = 'c1') =>
      server.handle(modern(id, 'tools/call', { name: 'greet', arguments: { lang: 'en' }, inputResponses: { 'elicitation-0': accept('Z') }, ...params }, EVERY_CAPABILITY, { 'io.modelcontextprotocol/clientInfo': { name: clientName, version: '1' } }));
    expect(await retry(2, { requestState })).toMatchObject({ id: 2, result: { resultType: 'complete' } });
    const last = requestState.at(-1) === 'A' ? 'B' : 'A';
    expect(await retry(3, { requestState: `${requestState.slice(0, -1)}${last}` })).toEqual({ jsonrpc: '2.0', id: 3, error: invalid });
    expect(await retry(4, { requestState: 'not-a-state' })).toEqual({ jsonrpc: '2.0', id: 4, error: invalid });
    // Bound to the params (other arguments), the method (prompts/get) and the principal (another client).
    expect(await server.handle(modern(5, 'tools/call', { name: 'greet', arguments: { lang: 'fr' }, requestState }, EVERY_CAPABILITY, { 'io.modelcontextprotocol/clientInfo': { name: 'c1', version: '1' } }))).toEqual({ jsonrpc: '2.0', id: 5, error: invalid });
    expect(await server.handle(modern(6, 'prompts/get', { name: 'named', requestState }, EVERY_CAPABILITY, { 'io.modelcontextprotocol/clientInfo': { name: 'c1', version: '1' } }))).toEqual({ jsonrpc: '2.0', id: 6, error: invalid });
    expect(await retry(7, { requestState }, 'c2')).toEqual({ jsonrpc: '2.0', id: 7, error: invalid });
    // Another server (its own random key) does not accept it.
    expect(await makeServer().handle(modern(8, 'tools/call', { name: 'greet', arguments: { lang: 'en' }, requestState }, EVERY_CAPABILITY, { 'io.modelcontextprotocol/clientInfo': { name: 'c1', version: '1' } }))).toEqual({ jsonrpc: '2.0', id: 8, error: invalid });
    for (const bad of [7, null, {}, ['x']]) {
      expect(await retry(9, { requestState: bad })).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32602, message: 'Invalid params: "requestState" must be a string' } });
    }
  });

  it('an expired requestState is -32602; servers sharing the keys accept each other\'s state', async () => {
    let now = 1_000_000;
    const keys = [{ id: 'k1', secret: 'a shared secret of at least 32 bytes!!' }];
    const options = { requestState: { keys, ttlMs: 1_000, now: () => now } };
    const a = makeServer(options);
    const b = makeServer(options);
    const { requestState } = resultOf(await a.handle(modern(1, 'tools/call', { name: 'greet', arguments: {} })));
    const retry = { name: 'greet', arguments: {}, inputResponses: { 'elicitation-0': accept('Fi') }, requestState };
    expect(await b.handle(modern(2, 'tools/call', retry))).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: 'Hello Fi' }] } });
    // A state never used, presented after its lifetime.
    const later = resultOf(await a.handle(modern(3, 'tools/call', { name: 'greet', arguments: {} }))).requestState;
    now += 1_001;
    expect(await b.handle(modern(3, 'tools/call', { ...retry, requestState: later }))).toEqual({
      jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'Invalid params: "requestState" is not valid for this request (tampered with, expired, or issued for another request)' },
    });
  });

  it('ctx.requestState outside an input-capable modern request throws TypeError (the tool fails)', async () => {
    const server = new McpServer(INFO, { logger: silentLogger });
    server.tool('set', {}, (_args, ctx) => {
      ctx.requestState = 1;
      return { content: [] };
    });
    const facts = { protocolVersion: '2025-11-25', clientInfo: undefined, clientCapabilities: {}, serverCapabilities: undefined, logLevelRank: 0 };
    expect(await server.handle({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'set' } }, { facts })).toEqual({
      jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'Tool "set" failed: internal error' }], isError: true },
    });
  });
});

describe('answers are checked against what was asked, before the handler runs (-32602)', () => {
  const cases = [
    ['greet', 'elicitation-0', { action: 'maybe' }, '"action" must be "accept", "decline" or "cancel"'],
    ['greet', 'elicitation-0', { action: 'decline', content: { name: 'x' } }, '"content" is sent only with "accept", not with "decline"'],
    ['greet', 'elicitation-0', { action: 'accept', content: { name: 7 } }, '"content.name" must be a string'],
    ['greet', 'elicitation-0', { action: 'accept', content: {} }, '"content.name" is required'],
    ['greet', 'elicitation-0', { action: 'accept', content: { name: 'x', role: { admin: true } } }, '"content.role" must be a string, number, boolean or array of strings'],
    ['three', 'sampling-0', { role: 'assistant', content: 'a', model: 'm' }, '"content" must be a content block (an object)'],
    ['three', 'sampling-0', { role: 'robot', content: { type: 'text', text: 'a' }, model: 'm' }, '"role" must be "user" or "assistant"'],
    ['three', 'roots-0', { roots: 5 }, '"roots" must be an array'],
    ['three', 'roots-0', { roots: [{ uri: 'https://example.com' }] }, '"roots[0].uri" must be a file URI'],
  ] as const;

  it.each(cases)('%s, answer %s = %j: %s', async (tool, key, answer, problem) => {
    const server = makeServer();
    const first = resultOf(await server.handle(modern(1, 'tools/call', { name: tool })));
    const good: Record<string, unknown> = { 'elicitation-0': accept('Bo'), 'sampling-0': SAMPLED, 'roots-0': ROOTS };
    runs.clear();
    const reply = await server.handle(modern(2, 'tools/call', { name: tool, inputResponses: { ...good, [key]: answer }, requestState: first.requestState }));
    const method = key.startsWith('elicitation') ? 'elicitation/create' : key.startsWith('sampling') ? 'sampling/createMessage' : 'roots/list';
    expect(reply).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32602, message: `Invalid params: input response "${key}" (${method}): ${problem}` } });
    expect(runs.get(tool) ?? 0).toBe(0);
    // The state was not used up by the bad answer: the corrected retry is served.
    expect(await server.handle(modern(3, 'tools/call', { name: tool, inputResponses: good, requestState: first.requestState }))).toMatchObject({ id: 3, result: { resultType: 'complete' } });
  });

  it('a malformed roots answer no longer reaches the handler as an internal error', async () => {
    const server = makeServer();
    const first = resultOf(await server.handle(modern(1, 'resources/read', { uri: 'test://roots' })));
    expect(await server.handle(modern(2, 'resources/read', { uri: 'test://roots', inputResponses: { 'roots-0': { roots: [{ name: 'w' }] } }, requestState: first.requestState }))).toEqual({
      jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'Invalid params: input response "roots-0" (roots/list): "roots[0].uri" must be a file URI' },
    });
  });

  it('an answer sent without a state is checked when the handler asks: -32602 whatever the handler does with the rejection', async () => {
    const server = makeServer();
    expect(await server.handle(modern(1, 'tools/call', { name: 'greet', inputResponses: { 'elicitation-0': { action: 'yes' } } }))).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params: input response "elicitation-0" (elicitation/create): "action" must be "accept", "decline" or "cancel"' },
    });
    expect(await server.handle(modern(2, 'tools/call', { name: 'stubborn', inputResponses: { 'roots-0': { roots: 'none' } } }))).toEqual({
      jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'Invalid params: input response "roots-0" (roots/list): "roots" must be an array' },
    });
  });

  it('legacy era: a malformed result of a server → client request rejects the handler\'s call with InvalidInputResponseError; escaping, the request is -32602', async () => {
    const facts = { protocolVersion: '2025-11-25', clientInfo: undefined, clientCapabilities: { elicitation: {}, roots: {} }, serverCapabilities: undefined, logLevelRank: 0 };
    const bad: ClientChannel = { notify: () => Promise.resolve(), request: <T>(method: string) => Promise.resolve((method === 'roots/list' ? { roots: [{ uri: 5 }] } : { action: 'sure' }) as T) };
    const server = makeServer();
    const seen: unknown[] = [];
    server.tool('catching', {}, async (_args, ctx) => {
      try {
        await ctx.listRoots();
      } catch (error) {
        seen.push(error);
      }
      return { content: [] };
    });
    expect(await server.handle({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'greet', arguments: {} } }, { facts, channel: bad })).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params: the client\'s answer to elicitation/create: "action" must be "accept", "decline" or "cancel"' },
    });
    await server.handle({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'catching' } }, { facts, channel: bad });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(InvalidInputResponseError);
    expect(seen[0]).toMatchObject({ method: 'roots/list', key: undefined, problem: '"roots[0].uri" must be a file URI' });
  });
});

describe('a requestState is redeemed once', () => {
  const USED = { code: -32602, message: 'Invalid params: "requestState" was already used: a request state continues one retry only' };

  it('a replay of a used state is -32602 and the handler does not run again', async () => {
    const server = makeServer();
    const first = resultOf(await server.handle(modern(1, 'tools/call', { name: 'greet', arguments: {} })));
    const retry = { name: 'greet', arguments: {}, inputResponses: { 'elicitation-0': accept('Ann') }, requestState: first.requestState };
    expect(await server.handle(modern(2, 'tools/call', retry))).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: 'Hello Ann' }] } });
    runs.clear();
    expect(await server.handle(modern(3, 'tools/call', { ...retry, inputResponses: { 'elicitation-0': accept('Mallory') } }))).toEqual({ jsonrpc: '2.0', id: 3, error: USED });
    expect(runs.get('greet') ?? 0).toBe(0);
    // A state whose round continued with another input_required is used too.
    const round1 = resultOf(await server.handle(modern(4, 'tools/call', { name: 'steps' })));
    expect(resultOf(await server.handle(modern(5, 'tools/call', { name: 'steps', inputResponses: { first: accept('one') }, requestState: round1.requestState }))).resultType).toBe('input_required');
    expect(await server.handle(modern(6, 'tools/call', { name: 'steps', inputResponses: { first: accept('one') }, requestState: round1.requestState }))).toEqual({ jsonrpc: '2.0', id: 6, error: USED });
  });

  it('two retries racing with one state: exactly one continues', async () => {
    const server = makeServer();
    const first = resultOf(await server.handle(modern(1, 'tools/call', { name: 'greet', arguments: {} })));
    const retry = (id: number) => server.handle(modern(id, 'tools/call', { name: 'greet', arguments: {}, inputResponses: { 'elicitation-0': accept('R') }, requestState: first.requestState }));
    const replies = await Promise.all([2, 3, 4, 5].map(retry));
    expect(replies.filter((r) => r !== undefined && 'result' in r)).toHaveLength(1);
    expect(replies.filter((r) => r !== undefined && 'error' in r && r.error.code === -32602)).toHaveLength(3);
  });

  it('servers sharing keys and a store refuse each other\'s replays; a custom store is consulted', async () => {
    const claims: string[] = [];
    const used = new Set<string>();
    const requestStateStore = {
      claim: (id: string) => {
        claims.push(id);
        if (used.has(id)) return Promise.resolve(false);
        used.add(id);
        return Promise.resolve(true);
      },
    };
    const options = { requestState: { keys: [{ id: 'k1', secret: 'a shared secret of at least 32 bytes!!' }] }, requestStateStore };
    const [a, b] = [makeServer(options), makeServer(options)];
    const first = resultOf(await a.handle(modern(1, 'tools/call', { name: 'greet', arguments: {} })));
    const retry = { name: 'greet', arguments: {}, inputResponses: { 'elicitation-0': accept('S') }, requestState: first.requestState };
    expect(await a.handle(modern(2, 'tools/call', retry))).toMatchObject({ id: 2, result: { resultType: 'complete' } });
    expect(await b.handle(modern(3, 'tools/call', retry))).toEqual({ jsonrpc: '2.0', id: 3, error: USED });
    expect(claims).toHaveLength(2);
    expect(claims[0]).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(claims[1]).toBe(claims[0]);
  });
});

describe('a requestState is bound to the authenticated principal', () => {
  const INVALID = { code: -32602, message: 'Invalid params: "requestState" is not valid for this request (tampered with, expired, or issued for another request)' };
  const as = (authInfo: unknown) => ({ extra: { authInfo } });

  it('minted for one principal, refused for another: another user of the same client app, another app, no authentication, a client naming itself after the principal', async () => {
    const server = makeServer();
    const alice = { token: 't-a', clientId: 'app', scopes: [], extra: { sub: 'alice' } };
    const first = resultOf(await server.handle(modern(1, 'tools/call', { name: 'greet', arguments: {} }), as(alice)));
    const retry = (id: number, clientName = 'c') => modern(id, 'tools/call', { name: 'greet', arguments: {}, inputResponses: { 'elicitation-0': accept('A') }, requestState: first.requestState }, EVERY_CAPABILITY, { 'io.modelcontextprotocol/clientInfo': { name: clientName, version: '1' } });
    for (const [id, other] of [[2, { token: 't-b', clientId: 'app', scopes: [], extra: { sub: 'bob' } }], [3, { token: 't-a', clientId: 'other-app', scopes: [], extra: { sub: 'alice' } }], [4, undefined]] as const) {
      expect(await server.handle(retry(id), other === undefined ? {} : as(other))).toEqual({ jsonrpc: '2.0', id, error: INVALID });
    }
    expect(await server.handle(retry(5, 'app'), {})).toEqual({ jsonrpc: '2.0', id: 5, error: INVALID });
    // Alice with a refreshed token is still Alice.
    expect(await server.handle(retry(6), as({ ...alice, token: 't-a2' }))).toMatchObject({ id: 6, result: { resultType: 'complete' } });
  });
});

describe('the default requestState codec', () => {
  it('is made on first use: without Web Crypto the server is made and answers, and only sealing or opening a state fails (-32603)', async () => {
    vi.stubGlobal('crypto', undefined);
    try {
      const server = makeServer();
      const listed = await server.handle(modern(1, 'tools/list', {}));
      expect((listed as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(0);
      const first = await server.handle(modern(2, 'tools/call', { name: 'greet', arguments: {} }), { channel: new RecordingChannel() });
      expect(first).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'Internal error' } });
      // Opening one fails the same way: not the client's fault, so not -32602.
      const retry = await server.handle(modern(3, 'tools/call', { name: 'greet', arguments: {}, inputResponses: { 'elicitation-0': accept('Ada') }, requestState: 'v1.k.a.b' }), { channel: new RecordingChannel() });
      expect(retry).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32603, message: 'Internal error' } });
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
