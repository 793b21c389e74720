// The client's multi round-trip loop (MCP 2026-07-28 basic/patterns/mrtr.mdx) against our own server's handle():
// every request the loop sends is recorded whole, and answered by the real McpServer with no connection.
import { describe, expect, it } from 'vitest';
import { silentLogger, type JsonRpcId, type JsonRpcRequest, type JsonRpcResponse } from '@switchboard/jsonrpc';
import { RequestAbortedError } from '../protocol/clientErrors.js';
import { McpError, mcpErrorFromWire } from '../protocol/errors.js';
import { McpServer } from '../server/mcpServer.js';
import type { ClientCore, InputQuestion } from './clientCore.js';
import { InputRoundsExceededError, InvalidResultError, NotSupportedError } from './errors.js';
import { MAX_INPUT_REQUESTS_PER_ROUND, answerInputRequests, readInputRequired, requestWithInputRounds } from './inputRounds.js';
import type { InputContext, McpClientOptions, RequestOptions } from './options.js';

const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const ASK_NAME = { mode: 'form', message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } as const;
const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm' };
const ROOTS = { roots: [{ uri: 'file:///w', name: 'w' }] };

/**
 * A ClientCore whose `send` hands each request to `McpServer.handle` (a fresh id per request, the modern envelope
 * with the capabilities the callbacks imply) and whose `answerInput` calls the options' callbacks.
 */
class HandleCore implements Pick<ClientCore, 'era' | 'revision' | 'options' | 'send' | 'answerInput' | 'logger'> {
  readonly era = 'modern' as const;
  readonly revision = '2026-07-28' as const;
  readonly logger = silentLogger;
  readonly sent: JsonRpcRequest[] = [];
  readonly asked: { question: InputQuestion; ctx: InputContext }[] = [];
  #nextId = 0;

  constructor(
    readonly server: McpServer,
    readonly options: McpClientOptions,
  ) {}

  get capabilities(): Record<string, unknown> {
    const o = this.options;
    return { ...(o.onElicitation ? { elicitation: { form: {} } } : {}), ...(o.onSampling ? { sampling: {} } : {}), ...(o.onListRoots ? { roots: {} } : {}), ...o.capabilities };
  }

  async send<T>(method: string, params: Record<string, unknown> | undefined, options?: RequestOptions): Promise<T> {
    const id: JsonRpcId = this.#nextId++;
    const message: JsonRpcRequest = { jsonrpc: '2.0', id, method, params: { ...params, _meta: { [PV]: this.revision, [CAPS]: this.capabilities, ...options?.meta } } };
    this.sent.push(message);
    const response = (await this.server.handle(message)) as JsonRpcResponse;
    if ('error' in response) throw mcpErrorFromWire(response.error);
    const { _meta: _serverInfo, ...result } = response.result as Record<string, unknown>;
    return result as T;
  }

  answerInput(question: InputQuestion, ctx: InputContext): Promise<unknown> {
    this.asked.push({ question, ctx });
    const o = this.options;
    if (question.method === 'elicitation/create') return o.onElicitation!(question.params as never, ctx);
    if (question.method === 'sampling/createMessage') return o.onSampling!(question.params as never, ctx);
    return o.onListRoots!(ctx);
  }
}

function makeServer(): McpServer {
  const server = new McpServer({ name: 'rounds', version: '1' }, { logger: silentLogger });
  server.tool('greet', {}, async (_args, ctx) => {
    const answer = await ctx.elicit(ASK_NAME, { key: 'who' });
    return { content: [{ type: 'text', text: answer.action === 'accept' ? `Hello, ${String(answer.content?.name)}!` : `No name (${answer.action})` }] };
  });
  server.tool('everything', {}, async (_args, ctx) => {
    const [name, sampled, roots] = await Promise.all([ctx.elicit(ASK_NAME), ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Capital?' } }], maxTokens: 5 }), ctx.listRoots()]);
    return { content: [{ type: 'text', text: `${String(name.content?.name)} ${JSON.stringify(sampled.content)} ${roots.roots.length}` }] };
  });
  server.tool('two_steps', {}, async (_args, ctx) => {
    const first = await ctx.elicit(ASK_NAME, { key: 'step1' });
    const second = await ctx.elicit({ ...ASK_NAME, message: 'Colour?' }, { key: 'step2' });
    return { content: [{ type: 'text', text: `${String(first.content?.name)} likes ${String(second.content?.name)}` }] };
  });
  server.tool('needs_roots', {}, async (_args, ctx) => ({ content: [{ type: 'text', text: String((await ctx.listRoots()).roots.length) }] }));
  server.prompt('hello', {}, async (_args, ctx) => {
    const answer = await ctx.elicit(ASK_NAME, { key: 'who' });
    return { messages: [{ role: 'user', content: { type: 'text', text: `Hi ${String(answer.content?.name)}` } }] };
  });
  server.resource('test://me', { name: 'me' }, async (uri, ctx) => {
    const answer = await ctx.elicit(ASK_NAME, { key: 'who' });
    return { contents: [{ uri, text: String(answer.content?.name) }] };
  });
  server.tool('plain', {}, () => ({ content: [{ type: 'text', text: 'plain' }] }));
  return server;
}

const accept = (name: string) => ({ action: 'accept' as const, content: { name } });

describe('requestWithInputRounds against our server', () => {
  it('answers the input request and retries as a new request with inputResponses and the exact requestState', async () => {
    const core = new HandleCore(makeServer(), { connector: undefined as never, onElicitation: () => Promise.resolve(accept('Ada')) });
    const result = await requestWithInputRounds(core, { method: 'tools/call', params: { name: 'greet', arguments: {} } });
    expect(result).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'Hello, Ada!' }] });
    expect(core.sent).toHaveLength(2);
    const [first, retry] = core.sent as [JsonRpcRequest, JsonRpcRequest];
    const envelope = { [PV]: '2026-07-28', [CAPS]: { elicitation: { form: {} } } };
    expect(first).toEqual({ jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: 'greet', arguments: {}, _meta: envelope } });
    const state = (retry.params as Record<string, unknown>).requestState;
    expect(typeof state).toBe('string');
    expect(retry).toEqual({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'greet', arguments: {}, inputResponses: { who: accept('Ada') }, requestState: state, _meta: envelope } });
    expect(core.asked).toEqual([{ question: { method: 'elicitation/create', params: ASK_NAME }, ctx: { signal: expect.any(AbortSignal), era: 'modern', method: 'elicitation/create', key: 'who' } }]);
  });

  it('answers several input requests of one round together, each with its callback, under the same keys', async () => {
    const core = new HandleCore(makeServer(), {
      connector: undefined as never,
      onElicitation: () => Promise.resolve(accept('Ada')),
      onSampling: () => Promise.resolve(SAMPLED as never),
      onListRoots: () => Promise.resolve(ROOTS),
    });
    const result = await requestWithInputRounds(core, { method: 'tools/call', params: { name: 'everything' } });
    expect(result).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'Ada {"type":"text","text":"Paris"} 1' }] });
    const retry = core.sent[1]!.params as Record<string, unknown>;
    expect(retry.inputResponses).toEqual({ 'elicitation-0': accept('Ada'), 'sampling-0': SAMPLED, 'roots-0': ROOTS });
    expect(core.asked.map((a) => a.ctx.key).sort()).toEqual(['elicitation-0', 'roots-0', 'sampling-0']);
  });

  it('runs round after round, each retry carrying only that round’s answers and the latest state', async () => {
    const answers = ['Ada', 'green'];
    const core = new HandleCore(makeServer(), { connector: undefined as never, onElicitation: () => Promise.resolve(accept(answers.shift()!)) });
    const result = await requestWithInputRounds(core, { method: 'tools/call', params: { name: 'two_steps' } });
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'Ada likes green' }] });
    expect(core.sent.map((m) => m.id)).toEqual([0, 1, 2]);
    const [, second, third] = core.sent.map((m) => m.params as Record<string, unknown>);
    expect(second!.inputResponses).toEqual({ step1: accept('Ada') });
    expect(third!.inputResponses).toEqual({ step2: accept('green') });
    expect(third!.requestState).not.toBe(second!.requestState);
  });

  it('works the same for prompts/get and resources/read', async () => {
    const core = new HandleCore(makeServer(), { connector: undefined as never, onElicitation: () => Promise.resolve(accept('Bo')) });
    expect(await requestWithInputRounds(core, { method: 'prompts/get', params: { name: 'hello' } })).toEqual({
      resultType: 'complete',
      messages: [{ role: 'user', content: { type: 'text', text: 'Hi Bo' } }],
    });
    expect(await requestWithInputRounds(core, { method: 'resources/read', params: { uri: 'test://me' } })).toMatchObject({ contents: [{ uri: 'test://me', text: 'Bo' }] });
    expect(core.sent).toHaveLength(4);
  });

  it('a complete answer at once is returned after one request, without asking anything', async () => {
    const core = new HandleCore(makeServer(), { connector: undefined as never });
    expect(await requestWithInputRounds(core, { method: 'tools/call', params: { name: 'plain' } })).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'plain' }] });
    expect(core.sent).toHaveLength(1);
  });

  it('declines an elicitation it has no callback for (when the capability was declared by hand)', async () => {
    const core = new HandleCore(makeServer(), { connector: undefined as never, capabilities: { elicitation: {} } });
    expect(await requestWithInputRounds(core, { method: 'tools/call', params: { name: 'greet' } })).toMatchObject({ content: [{ type: 'text', text: 'No name (decline)' }] });
    expect((core.sent[1]!.params as Record<string, unknown>).inputResponses).toEqual({ who: { action: 'decline' } });
  });

  it('fails with NotSupportedError for roots or sampling it has no callback for, and sends no retry', async () => {
    const core = new HandleCore(makeServer(), { connector: undefined as never, capabilities: { roots: {} } });
    const failure = requestWithInputRounds(core, { method: 'tools/call', params: { name: 'needs_roots' } });
    await expect(failure).rejects.toThrow(NotSupportedError);
    await expect(failure).rejects.toThrow('Not supported: "roots/list" was asked for by "tools/call" (input request "roots-0"), and the client has no onListRoots callback to answer it (revision "2026-07-28")');
    expect(core.sent).toHaveLength(1);
  });

  it('an answer the server refuses (-32602) settles the request with that typed error after one retry: no loop', async () => {
    const core = new HandleCore(makeServer(), { connector: undefined as never, onListRoots: () => Promise.resolve({ roots: [{ uri: 'https://example.com/not-a-file' }] }) });
    const failure = requestWithInputRounds(core, { method: 'tools/call', params: { name: 'needs_roots' } });
    await expect(failure).rejects.toBeInstanceOf(McpError);
    await expect(failure).rejects.toMatchObject({ code: -32602, message: 'Invalid params: input response "roots-0" (roots/list): "roots[0].uri" must be a file URI' });
    expect(core.sent).toHaveLength(2);
    const elicit = new HandleCore(makeServer(), { connector: undefined as never, onElicitation: () => Promise.resolve({ action: 'later' } as never) });
    await expect(requestWithInputRounds(elicit, { method: 'tools/call', params: { name: 'greet' } })).rejects.toMatchObject({ code: -32602 });
    expect(elicit.sent).toHaveLength(2);
  });

  it('a callback that throws fails the request with its error and aborts the other questions of the round', async () => {
    let samplingSignal: AbortSignal | undefined;
    const core = new HandleCore(makeServer(), {
      connector: undefined as never,
      onElicitation: () => Promise.reject(new Error('user closed the dialog')),
      onSampling: (_p, ctx) => {
        samplingSignal = ctx.signal;
        return new Promise(() => {});
      },
      onListRoots: () => Promise.resolve(ROOTS),
    });
    await expect(requestWithInputRounds(core, { method: 'tools/call', params: { name: 'everything' } })).rejects.toThrow('user closed the dialog');
    expect(samplingSignal?.aborted).toBe(true);
    expect(core.sent).toHaveLength(1);
  });

  it('aborting the caller’s signal while a callback waits rejects with RequestAbortedError and aborts the callback', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const core = new HandleCore(makeServer(), {
      connector: undefined as never,
      onElicitation: (_p, ctx) => {
        seen = ctx.signal;
        queueMicrotask(() => controller.abort(new Error('gave up')));
        return new Promise(() => {});
      },
    });
    const failure = requestWithInputRounds(core, { method: 'tools/call', params: { name: 'greet' } }, { signal: controller.signal });
    await expect(failure).rejects.toThrow(RequestAbortedError);
    expect(seen?.aborted).toBe(true);
    expect(core.sent).toHaveLength(1);
  });

  it('stops after maxInputRounds answered rounds with InputRoundsExceededError', async () => {
    // A server that never has enough: the declined answer makes it ask again (MCP 2026-07-28 "SHOULD respond with a
    // new InputRequiredResult").
    const server = new McpServer({ name: 'greedy', version: '1' }, { logger: silentLogger });
    server.tool('greedy', {}, async (_args, ctx) => {
      ctx.requestState = Number(ctx.requestState ?? 0) + 1;
      await ctx.elicit(ASK_NAME, { key: `ask-${String(ctx.requestState)}` });
      return { content: [] };
    });
    const core = new HandleCore(server, { connector: undefined as never, maxInputRounds: 2, onElicitation: () => Promise.resolve(accept('x')) });
    const failure = requestWithInputRounds(core, { method: 'tools/call', params: { name: 'greedy' } });
    await expect(failure).rejects.toThrow(InputRoundsExceededError);
    await expect(failure).rejects.toMatchObject({ code: 'input_rounds_exceeded', method: 'tools/call', rounds: 2 });
    expect(core.sent).toHaveLength(3);
  });
});

/** A ClientCore that answers each send from a script (for results our server never gives). */
function scripted(results: unknown[], options: Partial<McpClientOptions> = {}): Pick<ClientCore, 'era' | 'revision' | 'options' | 'send' | 'answerInput'> & { sent: { method: string; params: unknown }[] } {
  const sent: { method: string; params: unknown }[] = [];
  return {
    era: 'modern',
    revision: '2026-07-28',
    options: { connector: undefined as never, ...options },
    sent,
    send<T>(method: string, params: Record<string, unknown> | undefined): Promise<T> {
      sent.push({ method, params });
      return Promise.resolve(results.shift() as T);
    },
    answerInput: (question) => Promise.resolve({ answered: question.method }),
  };
}

describe('requestWithInputRounds on results our server never sends', () => {
  it('retries at once with the state alone when there are no input requests, and never invents a requestState', async () => {
    const core = scripted([{ resultType: 'input_required', requestState: 'busy-1' }, { resultType: 'input_required', inputRequests: { k: { method: 'roots/list' } } }, { content: [] }], { onListRoots: () => Promise.resolve(ROOTS) });
    expect(await requestWithInputRounds(core, { method: 'tools/call', params: { name: 't', arguments: { a: 1 } } })).toEqual({ content: [] });
    expect(core.sent).toEqual([
      { method: 'tools/call', params: { name: 't', arguments: { a: 1 } } },
      { method: 'tools/call', params: { name: 't', arguments: { a: 1 }, requestState: 'busy-1' } },
      { method: 'tools/call', params: { name: 't', arguments: { a: 1 }, inputResponses: { k: { answered: 'roots/list' } } } },
    ]);
  });

  it('returns a result without resultType as complete, and a task result as received', async () => {
    expect(await requestWithInputRounds(scripted([{ content: [] }]), { method: 'tools/call', params: { name: 't' } })).toEqual({ content: [] });
    expect(await requestWithInputRounds(scripted([{ resultType: 'task', taskId: 'x', status: 'working' }]), { method: 'tools/call', params: { name: 't' } })).toEqual({ resultType: 'task', taskId: 'x', status: 'working' });
  });

  it('refuses malformed input_required results with InvalidResultError', async () => {
    const cases: [unknown, string][] = [
      [{ resultType: 'input_required' }, 'an "input_required" result has neither "inputRequests" nor "requestState"'],
      [{ resultType: 'input_required', requestState: 7 }, '"requestState" is not a string'],
      [{ resultType: 'input_required', inputRequests: [] }, '"inputRequests" is not an object'],
      [{ resultType: 'input_required', inputRequests: { k: { method: 'tools/call' } } }, 'input request "k" is not an elicitation/create, sampling/createMessage or roots/list request'],
      [{ resultType: 'input_required', inputRequests: { k: { method: 'roots/list', params: 'x' } } }, 'input request "k" has params that are not an object'],
    ];
    for (const [result, reason] of cases) {
      const failure = requestWithInputRounds(scripted([result]), { method: 'tools/call', params: { name: 't' } });
      await expect(failure).rejects.toThrow(InvalidResultError);
      await expect(failure).rejects.toThrow(`Invalid result of "tools/call": ${reason}`);
    }
    await expect(requestWithInputRounds(scripted(['nope']), { method: 'tools/call', params: {} })).rejects.toThrow('Invalid result of "tools/call": the result is not an object');
  });

  it('keeps the input fields a caller passed out of the retries', async () => {
    const core = scripted([{ resultType: 'input_required', inputRequests: { k: { method: 'roots/list' } } }, { content: [] }], { onListRoots: () => Promise.resolve(ROOTS) });
    await requestWithInputRounds(core, { method: 'tools/call', params: { name: 't', requestState: 'mine', inputResponses: { old: {} } } });
    expect(core.sent[1]).toEqual({ method: 'tools/call', params: { name: 't', inputResponses: { k: { answered: 'roots/list' } } } });
  });
});

describe('readInputRequired and answerInputRequests', () => {
  it('reads both fields as given', () => {
    expect(readInputRequired('tools/call', { resultType: 'input_required', inputRequests: { a: { method: 'roots/list' } }, requestState: 's' })).toEqual({
      inputRequests: { a: { method: 'roots/list' } },
      requestState: 's',
    });
  });

  it('an already aborted signal answers nothing', async () => {
    const core = scripted([]);
    const controller = new AbortController();
    controller.abort();
    await expect(answerInputRequests(core, { a: { method: 'roots/list' } }, { method: 'tools/call', signal: controller.signal })).rejects.toThrow(RequestAbortedError);
  });
});

describe('a hostile input_required result', () => {
  it(`more than ${MAX_INPUT_REQUESTS_PER_ROUND} input requests in one round is an InvalidResultError, nothing is asked`, () => {
    const question = { method: 'elicitation/create', params: { message: 'ok?', requestedSchema: { type: 'object', properties: {} } } };
    const many = Object.fromEntries(Array.from({ length: MAX_INPUT_REQUESTS_PER_ROUND + 1 }, (_, i) => [`q${i}`, question]));
    expect(() => readInputRequired('tools/call', { resultType: 'input_required', inputRequests: many })).toThrow(InvalidResultError);
    const enough = Object.fromEntries(Object.entries(many).slice(0, MAX_INPUT_REQUESTS_PER_ROUND));
    expect(Object.keys(readInputRequired('tools/call', { resultType: 'input_required', inputRequests: enough }).inputRequests!)).toHaveLength(MAX_INPUT_REQUESTS_PER_ROUND);
  });
});
