/**
 * Multi round-trip requests under hostile clients (MCP 2026-07-28 basic/patterns/mrtr.mdx), against a real server
 * process (`fixtures/input-rounds-server.mjs`) over Streamable HTTP on 127.0.0.1 (port 0) and over stdio:
 * - every kind of malformed answer in `inputResponses` (elicitation `action` outside its enum, `content` with
 *   `decline`, `content` against the `requestedSchema` sent, a sampling result without its members, roots that are
 *   no array or no `file://` URIs) is -32602 naming the answer, and the handler never runs (its run count stays);
 * - a well-formed answer is served;
 * - a `requestState` continues one retry: a replay is -32602 and the handler does not run again;
 * - over HTTP, a state minted for one authenticated principal is refused for another (another user of the same
 *   client app, another app, no authentication);
 * - the record of used states stays within its bound under a stream of distinct states, and a state it forgot is
 *   refused, never replayable;
 * - the legacy era (a stdio session): a malformed result of the server's `roots/list` request reaches the handler
 *   as InvalidInputResponseError, never as the object;
 * - our own client, given a callback that answers badly, settles with the server's -32602 after one retry.
 * Sizes: smoke by default; `STRESS=1` runs more rounds through the bounded record and prints `reliability ` lines.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../../packages/mcp/src/client/index.js';
import { McpError } from '../../packages/mcp/src/protocol/errors.js';
import { streamableHttp } from '../../packages/mcp/src/client/index.js';
import { endStdin, stopByPid } from '../helpers/process.js';
import { StdioLines, type Message } from '../helpers/stdioLines.js';
import { open } from './http-wire.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/input-rounds-server.mjs', import.meta.url));
const STRESS = process.env.STRESS === '1';
const MODERN = '2026-07-28';
const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const INFO = 'io.modelcontextprotocol/clientInfo';
const EVERY_CAPABILITY = { elicitation: { form: {} }, sampling: {}, roots: {} };
/** The used-state record's bound the HTTP server is started with. */
const MAX_USED = 16;

const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'a' }, model: 'm' };
const ROOTS = { roots: [{ uri: 'file:///w', name: 'w' }] };

/** Each kind of malformed answer: the tool that asks, its key, the answer, the problem the server names. */
const MALFORMED = [
  ['ask', 'elicitation-0', 'elicitation/create', { action: 'maybe' }, '"action" must be "accept", "decline" or "cancel"'],
  ['ask', 'elicitation-0', 'elicitation/create', { action: 'decline', content: { name: 'x' } }, '"content" is sent only with "accept", not with "decline"'],
  ['ask', 'elicitation-0', 'elicitation/create', { action: 'accept', content: { name: 42 } }, '"content.name" must be a string'],
  ['ask', 'elicitation-0', 'elicitation/create', { action: 'accept', content: { name: 'x'.repeat(21) } }, '"content.name" must have at most 20 characters'],
  ['ask', 'elicitation-0', 'elicitation/create', { action: 'accept', content: {} }, '"content.name" is required'],
  ['ask', 'elicitation-0', 'elicitation/create', { action: 'accept', content: { name: 'x', isAdmin: { granted: true } } }, '"content.isAdmin" must be a string, number, boolean or array of strings'],
  ['sample', 'sampling-0', 'sampling/createMessage', { role: 'assistant', model: 'm' }, '"content" must be a content block (an object)'],
  ['sample', 'sampling-0', 'sampling/createMessage', { role: 'assistant', content: { type: 'text', text: 'a' } }, '"model" must be a string'],
  ['roots', 'roots-0', 'roots/list', { roots: 5 }, '"roots" must be an array'],
  ['roots', 'roots-0', 'roots/list', { roots: [{ name: 'no uri' }] }, '"roots[0].uri" must be a file URI'],
  ['roots', 'roots-0', 'roots/list', { roots: [{ uri: 'https://example.com/' }] }, '"roots[0].uri" must be a file URI'],
] as const;
const GOOD: Readonly<Record<string, Record<string, unknown>>> = { ask: { 'elicitation-0': { action: 'accept', content: { name: 'Ada' } } }, sample: { 'sampling-0': SAMPLED }, roots: { 'roots-0': ROOTS } };
const GOOD_TEXT: Readonly<Record<string, string>> = { ask: 'accept:Ada', sample: 'assistant:m', roots: 'FILE:///W' };
const USED = { code: -32602, message: 'Invalid params: "requestState" was already used: a request state continues one retry only' };
const INVALID_STATE = { code: -32602, message: 'Invalid params: "requestState" is not valid for this request (tampered with, expired, or issued for another request)' };

/** A 2026-07-28 `tools/call`. */
const call = (id: number | string, name: string, extra: Message = {}, meta: Message = {}): Message => ({
  jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, ...extra, _meta: { [PV]: MODERN, [CAPS]: EVERY_CAPABILITY, [INFO]: { name: 'rounds-test', version: '1' }, ...meta } },
});

/** How one transport sends a modern request and reads its one answer. */
interface Wire {
  ask(message: Message, user?: string): Promise<Message>;
}

/** The run counts of each handler, read from the server itself. */
async function runsOf(wire: Wire): Promise<Record<string, number>> {
  const reply = await wire.ask(call(`runs-${Math.random()}`, 'runs'));
  return JSON.parse(((reply.result as { content: { text: string }[] }).content[0] as { text: string }).text) as Record<string, number>;
}

const textOf = (reply: Message): string => ((reply.result as { content: { text: string }[] } | undefined)?.content[0])?.text ?? '';
const stateOf = (reply: Message): string => (reply.result as { requestState: string }).requestState;

/** The checks every transport passes. */
function sharedChecks(wire: () => Wire): void {
  it.each(MALFORMED)('%s: answer %s (%s) %j is -32602 (%s) and the handler does not run', async (tool, key, method, answer, problem) => {
    const first = await wire().ask(call(1, tool));
    expect(first.result).toMatchObject({ resultType: 'input_required', inputRequests: { [key]: { method } } });
    const before = (await runsOf(wire()))[tool];
    const reply = await wire().ask(call(2, tool, { inputResponses: { [key]: answer }, requestState: stateOf(first) }));
    expect(reply).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32602, message: `Invalid params: input response "${key}" (${method}): ${problem}` } });
    expect((await runsOf(wire()))[tool]).toBe(before);
    // The bad answer did not use the state up: the corrected retry is served, once.
    const good = await wire().ask(call(3, tool, { inputResponses: GOOD[tool], requestState: stateOf(first) }));
    expect(good).toMatchObject({ id: 3, result: { resultType: 'complete' } });
    expect(textOf(good)).toBe(GOOD_TEXT[tool]);
    expect(await wire().ask(call(4, tool, { inputResponses: GOOD[tool], requestState: stateOf(first) }))).toEqual({ jsonrpc: '2.0', id: 4, error: USED });
  });

  it('a replayed requestState is refused and the handler does not run again; a new round is served', async () => {
    const first = await wire().ask(call(1, 'ask'));
    const retry = call(2, 'ask', { inputResponses: GOOD.ask, requestState: stateOf(first) });
    expect(textOf(await wire().ask(retry))).toBe('accept:Ada');
    const runs = (await runsOf(wire())).ask;
    for (let i = 0; i < 3; i++) expect(await wire().ask({ ...retry, id: 10 + i })).toEqual({ jsonrpc: '2.0', id: 10 + i, error: USED });
    expect((await runsOf(wire())).ask).toBe(runs);
    const again = await wire().ask(call(20, 'ask'));
    expect(textOf(await wire().ask(call(21, 'ask', { inputResponses: GOOD.ask, requestState: stateOf(again) })))).toBe('accept:Ada');
  });
}

describe('Streamable HTTP (a real server process)', () => {
  let proc: ChildProcessWithoutNullStreams | undefined;
  let url = '';

  beforeAll(async () => {
    proc = spawn(process.execPath, [FIXTURE, '--http', '--max-used-states', String(MAX_USED)], { stdio: ['pipe', 'pipe', 'pipe'] });
    proc.stderr.resume();
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error('the fixture did not start within 20 s')), 20_000);
      proc!.stdout.setEncoding('utf8');
      proc!.stdout.on('data', (chunk: string) => {
        out += chunk;
        const match = /listening (\S+)/.exec(out);
        if (match !== null) {
          clearTimeout(timer);
          resolve(match[1] as string);
        }
      });
    });
  });

  afterAll(() => stopByPid(proc));

  const wire: Wire = {
    async ask(message, user) {
      const params = message.params as Message;
      const exchange = await open(url, {
        body: message,
        headers: { 'mcp-protocol-version': MODERN, 'mcp-method': String(message.method), 'mcp-name': String(params.name), ...(user === undefined ? {} : { 'x-test-user': user }) },
      });
      const body = await exchange.done;
      const text = String(exchange.headers['content-type']).startsWith('text/event-stream') ? (exchange.events.at(-1)?.data ?? '') : body;
      return JSON.parse(text) as Message;
    },
  };

  sharedChecks(() => wire);

  it('a state minted for one authenticated principal is refused for another, and served for the same one with a new token', async () => {
    const first = await wire.ask(call(1, 'ask'), 'app/alice');
    const retry = call(2, 'ask', { inputResponses: GOOD.ask, requestState: stateOf(first) });
    for (const other of ['app/bob', 'other-app/alice', undefined]) expect({ other, reply: await wire.ask(retry, other) }).toEqual({ other, reply: { jsonrpc: '2.0', id: 2, error: INVALID_STATE } });
    // An unauthenticated client naming itself after the principal is not it.
    expect(await wire.ask(call(2, 'ask', { inputResponses: GOOD.ask, requestState: stateOf(first) }, { [INFO]: { name: 'app', version: '1' } }))).toEqual({ jsonrpc: '2.0', id: 2, error: INVALID_STATE });
    expect(textOf(await wire.ask(retry, 'app/alice'))).toBe('accept:Ada');
  });

  it('the used-state record stays within its bound; states it forgot are refused, never replayable', async () => {
    const rounds = STRESS ? 2_000 : 4 * MAX_USED;
    const started = Date.now();
    const states: string[] = [];
    for (let i = 0; i < rounds; i++) {
      const first = await wire.ask(call(`f${i}`, 'ask'));
      states.push(stateOf(first));
      expect(textOf(await wire.ask(call(`r${i}`, 'ask', { inputResponses: GOOD.ask, requestState: stateOf(first) })))).toBe('accept:Ada');
    }
    const used = JSON.parse(textOf(await wire.ask(call('used', 'used')))) as { size: number; bytes: number };
    expect(used.size).toBeLessThanOrEqual(MAX_USED);
    expect(used.size).toBeGreaterThan(0);
    // Every state, the forgotten ones included, is refused on replay (the newest ones are remembered, the others
    // expire no later than a forgotten one).
    for (const [i, state] of [[0, states[0]], [rounds - MAX_USED - 1, states[rounds - MAX_USED - 1]], [rounds - 1, states[rounds - 1]]] as const) {
      expect({ i, reply: await wire.ask(call(`x${i}`, 'ask', { inputResponses: GOOD.ask, requestState: state })) }).toEqual({ i, reply: { jsonrpc: '2.0', id: `x${i}`, error: USED } });
    }
    if (STRESS) console.log(`reliability input-rounds: ${rounds} rounds over HTTP in ${Date.now() - started} ms; used-state record ${used.size} entries (bound ${MAX_USED}), ~${used.bytes} bytes`);
  });

  it('our own client, whose callback answers badly, settles with the server\'s -32602 after one retry (no loop)', async () => {
    const client = await McpClient.connect({
      connector: streamableHttp({ url }),
      era: 'modern',
      onListRoots: () => Promise.resolve({ roots: [{ uri: 'https://example.com/not-a-file' }] }),
    });
    try {
      const before = (await runsOf(wire)).roots;
      const failure = client.callTool({ name: 'roots', arguments: {} });
      await expect(failure).rejects.toBeInstanceOf(McpError);
      await expect(failure).rejects.toMatchObject({ code: -32602, message: 'Invalid params: input response "roots-0" (roots/list): "roots[0].uri" must be a file URI' });
      // The handler ran for the first round only.
      expect((await runsOf(wire)).roots).toBe((before ?? 0) + 1);
    } finally {
      await client.close();
    }
  });
});

describe('stdio (a real server process, both eras)', () => {
  let lines: StdioLines | undefined;

  beforeAll(() => {
    // Without --http the fixture serves stdio.
    lines = new StdioLines(FIXTURE);
  });

  afterAll(async () => {
    if (lines === undefined) return;
    try {
      await endStdin(lines.proc);
    } finally {
      stopByPid(lines.proc);
    }
  });

  // StdioLines matches an answer by id over the whole output: each request goes with an id of its own, and the
  // answer comes back under the id the test gave.
  let sequence = 0;
  const wire: Wire = {
    async ask(message) {
      const reply = await lines!.ask({ ...message, id: `stdio-${sequence++}` });
      return { ...reply, id: message.id };
    },
  };

  sharedChecks(() => wire);

  it('legacy session: a malformed roots/list result reaches the handler as InvalidInputResponseError; escaping, the call is -32602', async () => {
    const session = lines!;
    const init = await session.ask({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { roots: {} }, clientInfo: { name: 'legacy', version: '1' } } });
    expect(init).toMatchObject({ result: { protocolVersion: '2025-11-25' } });
    session.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const answerRootsWith = async (result: unknown): Promise<void> => {
      const request = await session.waitFor((m) => m.method === 'roots/list' && 'id' in m && !answered.has(m.id), 'a roots/list request');
      answered.add(request.id);
      session.send({ jsonrpc: '2.0', id: request.id, result });
    };
    const answered = new Set<unknown>();
    session.send({ jsonrpc: '2.0', id: 'L1', method: 'tools/call', params: { name: 'roots', arguments: {} } });
    await answerRootsWith({ roots: [{ name: 'no uri' }] });
    expect(await session.answer('L1')).toEqual({ jsonrpc: '2.0', id: 'L1', error: { code: -32602, message: 'Invalid params: the client\'s answer to roots/list: "roots[0].uri" must be a file URI' } });
    session.send({ jsonrpc: '2.0', id: 'L2', method: 'tools/call', params: { name: 'catching', arguments: {} } });
    await answerRootsWith({ roots: 'none' });
    expect(JSON.parse(textOf(await session.answer('L2')))).toEqual({ caught: 'InvalidInputResponseError', code: -32602, message: 'Invalid params: the client\'s answer to roots/list: "roots" must be an array' });
    session.send({ jsonrpc: '2.0', id: 'L3', method: 'tools/call', params: { name: 'roots', arguments: {} } });
    await answerRootsWith(ROOTS);
    expect(textOf(await session.answer('L3'))).toBe('FILE:///W');
  });
});
