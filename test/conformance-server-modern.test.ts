/**
 * The conformance server's 2026-07-28 test tools, on the wire: each request carries the modern `_meta` envelope and
 * is answered statelessly, through `McpServer.handle` (the path every transport shares) and over stdio
 * (`main.js --stdio`, a child process). The HTTP path is exercised by `scripts/conformance.mjs`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { JsonRpcResponse } from '@switchboard/jsonrpc';
import type { McpServer } from '@switchboard/mcp/server';
import { InMemoryClusterBus } from '@switchboard/mcp/stores';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConformanceServer } from '../examples/conformance-server/server.js';
import { STATE_OK_TEXT } from '../examples/conformance-server/inputRequiredTools.js';
import { LOGGING_TOOL_MESSAGES } from '../examples/conformance-server/statelessTools.js';
import { endStdin, stopByPid } from './helpers/process.js';

const CONFORMANCE_MAIN = fileURLToPath(new URL('../examples/conformance-server/main.js', import.meta.url));
const SERVER_INFO_META = { 'io.modelcontextprotocol/serverInfo': { name: 'mcp-conformance-test-server', version: '1.0.0' } };
const ALL_INPUTS = { sampling: {}, elicitation: {}, roots: {} };

function envelope(clientCapabilities: Record<string, unknown> = ALL_INPUTS, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': clientCapabilities,
    'io.modelcontextprotocol/clientInfo': { name: 'conformance-test', version: '1.0.0' },
    ...extra,
  };
}

const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });
const form = (message: string, field: string, type = 'string') => ({
  mode: 'form',
  message,
  requestedSchema: { type: 'object', properties: { [field]: { type } }, required: [field] },
});
const complete = (text: string) => ({ content: [{ type: 'text', text }], resultType: 'complete', _meta: SERVER_INFO_META });

describe('conformance server, 2026-07-28 requests through McpServer.handle', () => {
  let server: McpServer;
  let nextId = 1;
  beforeAll(() => {
    server = createConformanceServer();
  });
  afterAll(async () => {
    await server.close();
  });

  async function request(method: string, params: Record<string, unknown>, capabilities?: Record<string, unknown>): Promise<JsonRpcResponse & Record<string, any>> {
    const id = nextId++;
    const response = await server.handle({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope(capabilities) } });
    expect(response?.id).toBe(id);
    return response as JsonRpcResponse & Record<string, any>;
  }
  const call = (name: string, more: Record<string, unknown> = {}, capabilities?: Record<string, unknown>) =>
    request('tools/call', { name, arguments: {}, ...more }, capabilities);

  it('test_input_required_result_elicitation asks "user_name", then greets with the answer', async () => {
    const first = await call('test_input_required_result_elicitation');
    expect(first.result).toEqual({
      resultType: 'input_required',
      inputRequests: { user_name: { method: 'elicitation/create', params: form('What is your name?', 'name') } },
      requestState: expect.any(String),
      _meta: SERVER_INFO_META,
    });
    const retry = await call('test_input_required_result_elicitation', {
      inputResponses: { user_name: accept({ name: 'Alice' }), unknown_extra_key: accept({ foo: 'bar' }) },
      requestState: first.result.requestState,
    });
    expect(retry.result).toEqual(complete('Hello, Alice!'));
  });

  it('a retry without the asked key gets a new input_required result, not an error', async () => {
    const r = await call('test_input_required_result_elicitation', { inputResponses: { wrong_key: accept({ data: 'wrong' }) } });
    expect(r.result.resultType).toBe('input_required');
    expect(Object.keys(r.result.inputRequests)).toEqual(['user_name']);
  });

  it('inputResponses that are not an object of objects are -32602', async () => {
    for (const inputResponses of [null, { user_name: 12345 }]) {
      const r = await call('test_input_required_result_elicitation', { inputResponses });
      expect(r.error).toEqual({ code: -32602, message: 'Invalid params: "inputResponses" must be an object of input responses (objects)' });
    }
  });

  it('test_input_required_result_sampling and _list_roots ask "capital_question" and "client_roots"', async () => {
    const sampling = await call('test_input_required_result_sampling');
    expect(sampling.result.inputRequests).toEqual({
      capital_question: {
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 },
      },
    });
    const answered = await call('test_input_required_result_sampling', {
      inputResponses: { capital_question: { role: 'assistant', content: { type: 'text', text: 'Paris.' }, model: 'm', stopReason: 'endTurn' } },
      requestState: sampling.result.requestState,
    });
    expect(answered.result).toEqual(complete('Sampling response: Paris.'));

    const roots = await call('test_input_required_result_list_roots');
    expect(roots.result.inputRequests).toEqual({ client_roots: { method: 'roots/list' } });
    const listed = await call('test_input_required_result_list_roots', {
      inputResponses: { client_roots: { roots: [{ uri: 'file:///test/root', name: 'Test Root' }] } },
    });
    expect(listed.result).toEqual(complete('Client roots: file:///test/root'));
  });

  it('test_input_required_result_request_state says state-ok only when its state came back', async () => {
    const first = await call('test_input_required_result_request_state');
    expect(first.result.inputRequests).toEqual({ confirm: { method: 'elicitation/create', params: form('Please confirm', 'ok', 'boolean') } });
    const confirm = { confirm: accept({ ok: true }) };
    const withState = await call('test_input_required_result_request_state', { inputResponses: confirm, requestState: first.result.requestState });
    expect(withState.result).toEqual(complete(`${STATE_OK_TEXT} (ok=true)`));
    const withoutState = await call('test_input_required_result_request_state', { inputResponses: confirm });
    expect(withoutState.result.content[0].text).not.toContain('state-ok');
  });

  it('test_input_required_result_multiple_inputs asks the three keys in one round', async () => {
    const first = await call('test_input_required_result_multiple_inputs');
    expect(first.result.inputRequests).toEqual({
      user_name: { method: 'elicitation/create', params: form('What is your name?', 'name') },
      greeting: { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 } },
      client_roots: { method: 'roots/list' },
    });
    const done = await call('test_input_required_result_multiple_inputs', {
      inputResponses: {
        user_name: accept({ name: 'Alice' }),
        greeting: { role: 'assistant', content: { type: 'text', text: 'Hello there!' }, model: 'm', stopReason: 'endTurn' },
        client_roots: { roots: [] },
      },
      requestState: first.result.requestState,
    });
    expect(done.result).toEqual(complete('Hello there! Alice (roots: (none))'));
  });

  it('test_input_required_result_multi_round asks step1, then step2 with a new state, then completes', async () => {
    const r1 = await call('test_input_required_result_multi_round');
    expect(Object.keys(r1.result.inputRequests)).toEqual(['step1']);
    const r2 = await call('test_input_required_result_multi_round', { inputResponses: { step1: accept({ name: 'Alice' }) }, requestState: r1.result.requestState });
    expect(r2.result.inputRequests).toEqual({ step2: { method: 'elicitation/create', params: form('Step 2: What is your favorite color?', 'color') } });
    expect(r2.result.requestState).not.toBe(r1.result.requestState);
    // The last retry carries only step2: step1's answer comes back in the signed state.
    const r3 = await call('test_input_required_result_multi_round', { inputResponses: { step2: accept({ color: 'blue' }) }, requestState: r2.result.requestState });
    expect(r3.result).toEqual(complete('Alice likes blue'));
  });

  it('test_input_required_result_tampered_state refuses an altered requestState with -32602', async () => {
    const first = await call('test_input_required_result_tampered_state');
    const r = await call('test_input_required_result_tampered_state', {
      inputResponses: { confirm: accept({ ok: true }) },
      requestState: `${String(first.result.requestState)}-TAMPERED`,
    });
    expect(r.error).toEqual({ code: -32602, message: 'Invalid params: "requestState" is not valid for this request (tampered with, expired, or issued for another request)' });
  });

  it('test_input_required_result_capabilities asks only what the request declared', async () => {
    const samplingOnly = await call('test_input_required_result_capabilities', {}, { sampling: {} });
    expect(Object.keys(samplingOnly.result.inputRequests)).toEqual(['capital_question']);
    const elicitationOnly = await call('test_input_required_result_capabilities', {}, { elicitation: {} });
    expect(Object.keys(elicitationOnly.result.inputRequests)).toEqual(['user_name']);
    const none = await call('test_input_required_result_capabilities', {}, {});
    expect(none.result).toEqual(complete('The client declared no capability to ask for input with'));
  });

  it('the prompt test_input_required_result_prompt asks "user_context", then gives its messages', async () => {
    const first = await request('prompts/get', { name: 'test_input_required_result_prompt' });
    expect(first.result.inputRequests).toEqual({
      user_context: { method: 'elicitation/create', params: form('What context should the prompt use?', 'context') },
    });
    const done = await request('prompts/get', { name: 'test_input_required_result_prompt', inputResponses: { user_context: accept({ context: 'tests' }) } });
    expect(done.result).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'Use this context: tests' } }],
      resultType: 'complete',
      _meta: SERVER_INFO_META,
    });
  });

  it('test_missing_capability is -32021 naming sampling when the request did not declare it', async () => {
    const r = await call('test_missing_capability', {}, {});
    expect(r.error).toEqual({ code: -32021, message: 'Missing required client capability: "sampling"', data: { requiredCapabilities: { sampling: {} } } });
  });

  it('test_streaming_elicitation answers with an input request in its result', async () => {
    const r = await call('test_streaming_elicitation', {}, { elicitation: {} });
    expect(r.result.resultType).toBe('input_required');
    expect(Object.keys(r.result.inputRequests)).toEqual(['echo_text']);
  });

  it('test_logging_tool logs only when the request set a log level', async () => {
    const sent: { method: string; params: unknown }[] = [];
    const channel = {
      notify: (method: string, params: unknown) => {
        sent.push({ method, params });
        return Promise.resolve();
      },
      request: () => Promise.reject(new Error('no server → client request in the modern era')),
    };
    const params = { name: 'test_logging_tool', arguments: {} };
    const quiet = await server.handle({ jsonrpc: '2.0', id: 'quiet', method: 'tools/call', params: { ...params, _meta: envelope({}) } }, { channel });
    expect(quiet).toEqual({ jsonrpc: '2.0', id: 'quiet', result: complete('Logging tool executed') });
    expect(sent).toEqual([]);
    const meta = envelope({}, { 'io.modelcontextprotocol/logLevel': 'info' });
    await server.handle({ jsonrpc: '2.0', id: 'loud', method: 'tools/call', params: { ...params, _meta: meta } }, { channel });
    expect(sent.map((n) => [n.method, (n.params as { data: unknown }).data])).toEqual(LOGGING_TOOL_MESSAGES.map((m) => ['notifications/message', m]));
  });

  it('the triggers add, then remove, test_dynamic_tool and test_dynamic_prompt', async () => {
    const names = async (method: string, key: string) =>
      ((await request(method, {})).result[key] as { name: string }[]).map((x) => x.name);
    expect((await call('test_trigger_tool_change')).result).toEqual(complete('test_dynamic_tool added'));
    expect(await names('tools/list', 'tools')).toContain('test_dynamic_tool');
    expect((await call('test_trigger_tool_change')).result).toEqual(complete('test_dynamic_tool removed'));
    expect(await names('tools/list', 'tools')).not.toContain('test_dynamic_tool');
    expect((await call('test_trigger_prompt_change')).result).toEqual(complete('test_dynamic_prompt added'));
    expect(await names('prompts/list', 'prompts')).toContain('test_dynamic_prompt');
    expect((await call('test_trigger_prompt_change')).result).toEqual(complete('test_dynamic_prompt removed'));
  });

  it('in a cluster, a trigger called on one instance changes the lists of every instance (an application channel of the cluster bus)', async () => {
    const bus = new InMemoryClusterBus();
    const [a, b] = ['a', 'b'].map((instanceId) => createConformanceServer({ cluster: { bus, instanceId } }));
    try {
      const on = async (s: McpServer, method: string, params: Record<string, unknown> = {}) => (await s.handle({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: envelope() } })) as Record<string, any>;
      const names = async (s: McpServer, method: string, key: string) => ((await on(s, method)).result[key] as { name: string }[]).map((x) => x.name);
      expect((await on(a!, 'tools/call', { name: 'test_trigger_tool_change', arguments: {} })).result).toEqual(complete('test_dynamic_tool added'));
      expect(await names(b!, 'tools/list', 'tools')).toContain('test_dynamic_tool');
      expect((await on(b!, 'tools/call', { name: 'test_trigger_tool_change', arguments: {} })).result).toEqual(complete('test_dynamic_tool removed'));
      expect(await names(a!, 'tools/list', 'tools')).not.toContain('test_dynamic_tool');
      expect((await on(b!, 'tools/call', { name: 'test_trigger_prompt_change', arguments: {} })).result).toEqual(complete('test_dynamic_prompt added'));
      expect(await names(a!, 'prompts/list', 'prompts')).toContain('test_dynamic_prompt');
    } finally {
      await Promise.all([a!.close(), b!.close()]);
    }
  });

  it('tools/list shows test_x_mcp_header with its x-mcp-header annotation, verbatim', async () => {
    const list = await request('tools/list', {});
    const tool = (list.result.tools as { name: string; inputSchema: unknown }[]).find((t) => t.name === 'test_x_mcp_header');
    expect(tool?.inputSchema).toEqual({
      type: 'object',
      properties: {
        region: { type: 'string', description: 'The region to query; mirrored into the Mcp-Param-Region header', 'x-mcp-header': 'Region' },
        query: { type: 'string', description: 'Free text, not mirrored' },
      },
      required: ['region'],
    });
    expect((await call('test_x_mcp_header', { arguments: { region: 'eu-west' } })).result).toEqual(complete('Region: eu-west'));
  });
});

describe('conformance server over stdio, a session and stateless requests in one process', () => {
  let child: ChildProcess | undefined;
  afterAll(() => stopByPid(child));

  it('answers a 2026-07-28 input_required round trip after an initialize on the same stdio', async () => {
    child = spawn(process.execPath, [CONFORMANCE_MAIN, '--stdio'], { stdio: ['pipe', 'pipe', 'ignore'] });
    const lines: Record<string, any>[] = [];
    let buffer = '';
    const waiters = new Set<() => void>();
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      let at: number;
      while ((at = buffer.indexOf('\n')) >= 0) {
        lines.push(JSON.parse(buffer.slice(0, at)) as Record<string, any>);
        buffer = buffer.slice(at + 1);
      }
      for (const w of [...waiters]) w();
    });
    const send = (message: unknown) => child?.stdin?.write(`${JSON.stringify(message)}\n`);
    const response = (id: number) =>
      new Promise<Record<string, any>>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no response ${id} within 10 s`)), 10_000);
        const check = () => {
          const found = lines.find((l) => l.id === id && ('result' in l || 'error' in l));
          if (found === undefined) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        waiters.add(check);
        check();
      });

    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    expect((await response(1)).result.protocolVersion).toBe('2025-11-25');
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });

    const params = { name: 'test_input_required_result_elicitation', arguments: {} };
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { ...params, _meta: envelope() } });
    const first = await response(2);
    expect(first.result.resultType).toBe('input_required');
    send({
      jsonrpc: '2.0', id: 3, method: 'tools/call',
      params: { ...params, inputResponses: { user_name: accept({ name: 'Bob' }) }, requestState: first.result.requestState, _meta: envelope() },
    });
    expect(await response(3)).toEqual({ jsonrpc: '2.0', id: 3, result: complete('Hello, Bob!') });
    // The session is still there for legacy messages.
    send({ jsonrpc: '2.0', id: 4, method: 'ping' });
    expect(await response(4)).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
    expect(lines.some((l) => typeof l.method === 'string' && 'id' in l)).toBe(false);
    expect(await endStdin(child)).toBe(0);
  });
});
