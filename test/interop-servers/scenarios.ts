/**
 * The one test body the client interop tests run against every server of this folder (SDK v1, SDK v2, tmcp and our
 * own): connect and check the negotiated era and revision, list everything page by page, call tools, read
 * resources, get a prompt, receive progress and log notifications, answer sampling and elicitation through the
 * client's callbacks, cancel a long call, time out a slow one, and survive a restart (HTTP) or a killed process
 * (stdio). What differs between servers is data (`InteropTarget.expect`), so a difference is visible in one table.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ClientConnector, McpClientOptions } from '@switchboard/mcp/client';
import { ConnectionClosedError, InMemoryEraVerdictStore, McpClient, RequestAbortedError, RequestTimeoutError, streamableHttp } from '@switchboard/mcp/client';
import { spawnStdio } from '@switchboard/mcp/stdio';
import { isAlive } from '../helpers/process.js';
import {
  SERVERS_DIR, capturingLogger, headerRecordingFetch, recordingConnector, scratch, sentNotifications, sentRequests, startHttpServer, wireLog, type EventRecord,
  type HttpServerProcess, type LoggedLine, type SentHttpRequest, type WireLog,
} from './harness.js';

/** What the servers register (mirrors common.mjs). */
const TOOLS = ['echo', 'region', 'progress', 'sample', 'elicit', 'slow', ...Array.from({ length: 9 }, (_, i) => `filler_0${i + 1}`)];
const RESOURCES = Array.from({ length: 7 }, (_, i) => `interop://static/${i + 1}`);
const PROMPTS = ['greet', ...Array.from({ length: 6 }, (_, i) => `prompt_0${i + 1}`)];
const PAGE_SIZE = 4;
const TEMPLATE = 'interop://item/{id}';

/** One server on one transport, and what the client should find there. */
export interface InteropTarget {
  /** e.g. `SDK v1 1.32.2 over stdio`. */
  readonly title: string;
  /** The server file in test/interop-servers/. */
  readonly script: string;
  /** Extra server arguments (our server's `--revisions`). */
  readonly args?: readonly string[];
  readonly transport: 'stdio' | 'http';
  /** The client's `era` option. @default 'auto' */
  readonly clientEra?: McpClientOptions['era'];
  readonly expect: {
    readonly era: 'legacy' | 'modern';
    readonly revision: string;
    readonly serverName: string;
    /** The server splits its lists into pages of 4 (false: everything in one page). */
    readonly pages: boolean;
    /** Sampling and elicitation reach the client (false: the server cannot ask on this transport and says so). */
    readonly inputs: boolean;
    /** The slow tool's handler is told when the client cancels it. */
    readonly cancelSeen: boolean;
    /**
     * HTTP: what the first call after a server restart on the same port does. `reinitializes`: the new server
     * refuses the old session id (404, or the SDK example's 400 -32000 about the session), the client opens a new
     * session and the call succeeds; `continues`: the call succeeds with no new `initialize` (no session to lose, or a
     * server that takes any session id).
     */
    readonly restart?: 'reinitializes' | 'continues';
  };
}

const ANSWER_MODEL = 'interop-model';


/** A connected client and what it saw, for one describe block. */
interface Session {
  client: McpClient;
  readonly wire: WireLog;
  readonly logger: ReturnType<typeof capturingLogger>;
  readonly record: EventRecord;
  readonly logs: Array<{ level: string; data: unknown }>;
  readonly questions: Array<{ method: string; era: string; params: any }>;
  /** HTTP: every request the client's `fetch` sent. */
  readonly http: SentHttpRequest[];
  /** The era verdicts this session's clients share. */
  readonly verdicts: InMemoryEraVerdictStore;
  server?: HttpServerProcess;
}

function connector(target: InteropTarget, session: Omit<Session, 'client'>): ClientConnector {
  const script = path.join(SERVERS_DIR, target.script);
  const { record, server } = session;
  if (target.transport === 'http') return streamableHttp({ url: server!.url, fetch: headerRecordingFetch(session.http) });
  return spawnStdio({ command: process.execPath, args: [script, '--stdio', ...(target.args ?? [])], env: { INTEROP_RECORD: record.file } });
}

async function startServer(target: InteropTarget, record: EventRecord, port = 0): Promise<HttpServerProcess> {
  return startHttpServer({ args: [path.join(SERVERS_DIR, target.script), '--port', String(port), ...(target.args ?? [])], env: { INTEROP_RECORD: record.file } });
}

async function open(target: InteropTarget, session: Omit<Session, 'client'>, options: Partial<McpClientOptions> = {}): Promise<McpClient> {
  return McpClient.connect({
    connector: recordingConnector(connector(target, session), session.wire),
    clientInfo: { name: 'switchboard-interop', version: '1.0.0' },
    verdictStore: session.verdicts,
    logger: session.logger,
    timeoutMs: 15_000,
    ...(target.clientEra === undefined ? {} : { era: target.clientEra }),
    onSampling: (params, ctx) => {
      session.questions.push({ method: ctx.method, era: ctx.era, params });
      const first = params.messages[0]?.content as { text?: string } | undefined;
      return Promise.resolve({ role: 'assistant', model: ANSWER_MODEL, content: { type: 'text', text: `sampled: ${first?.text ?? ''}` } });
    },
    onElicitation: (params, ctx) => {
      session.questions.push({ method: ctx.method, era: ctx.era, params });
      return Promise.resolve({ action: 'accept', content: { name: 'Ada' } });
    },
    notifications: { message: (params) => session.logs.push({ level: params.level, data: params.data }) },
    ...options,
  });
}

const warnings = (lines: readonly LoggedLine[]) => lines.filter((l) => l.level === 'warn' || l.level === 'error');
const text = (result: { content?: readonly unknown[] }) => (result.content?.[0] as { text?: string } | undefined)?.text;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Registers the interop tests of one target. */
export function describeInterop(target: InteropTarget): void {
  const { expect: want } = target;

  describe(target.title, () => {
    const dir = scratch();
    const s = { wire: wireLog(), logger: capturingLogger(), record: dir.record('server'), logs: [], questions: [], http: [], verdicts: new InMemoryEraVerdictStore() } as unknown as Session;

    beforeAll(async () => {
      if (target.transport === 'http') s.server = await startServer(target, s.record);
      s.client = await open(target, s);
    });

    afterAll(async () => {
      await s.client?.close();
      await s.server?.stop();
      dir.remove();
    });

    it(`negotiates the ${want.era} era at ${want.revision}`, () => {
      expect({ era: s.client.era, revision: s.client.protocolVersion, server: s.client.serverInfo?.name }).toEqual({
        era: want.era,
        revision: want.revision,
        server: want.serverName,
      });
      const initialize = sentRequests(s.wire, 'initialize');
      if (want.era === 'legacy') {
        expect(initialize).toHaveLength(1);
        expect(sentNotifications(s.wire, 'notifications/initialized')).toHaveLength(1);
      } else {
        expect(initialize).toEqual([]);
        expect(sentRequests(s.wire, 'server/discover').length).toBeGreaterThanOrEqual(1);
      }
    });

    it(`a second client with the same verdict store ${want.era === 'legacy' ? 'sends initialize with no probe' : 'confirms the revision with server/discover'}`, async () => {
      const wire = wireLog();
      const again = await open(target, { ...s, wire });
      try {
        expect({ era: again.era, revision: again.protocolVersion }).toEqual({ era: want.era, revision: want.revision });
        expect([sentRequests(wire, 'server/discover').length, sentRequests(wire, 'initialize').length]).toEqual(want.era === 'legacy' ? [0, 1] : [1, 0]);
      } finally {
        await again.close();
      }
    });

    it(`lists every tool, resource, template and prompt (${want.pages ? `pages of ${PAGE_SIZE}` : 'one page each'})`, async () => {
      const before = sentRequests(s.wire, 'tools/list').length;
      expect((await s.client.listAllTools()).map((t) => t.name).sort()).toEqual([...TOOLS].sort());
      const toolPages = sentRequests(s.wire, 'tools/list').slice(before);
      expect(toolPages).toHaveLength(want.pages ? Math.ceil(TOOLS.length / PAGE_SIZE) : 1);
      expect(toolPages[0]!.params?.cursor).toBeUndefined();
      for (const page of toolPages.slice(1)) expect(typeof page.params?.cursor).toBe('string');
      expect((await s.client.listAllResources()).map((r) => r.uri).sort()).toEqual([...RESOURCES].sort());
      expect((await s.client.listAllResourceTemplates()).map((t) => t.uriTemplate)).toEqual([TEMPLATE]);
      expect((await s.client.listAllPrompts()).map((p) => p.name).sort()).toEqual([...PROMPTS].sort());
      if (want.pages) {
        const first = await s.client.listTools();
        expect(first.tools).toHaveLength(PAGE_SIZE);
        expect(typeof first.nextCursor).toBe('string');
      }
    });

    it('calls a tool, reads a resource and a templated one, gets a prompt', async () => {
      expect(await s.client.callTool({ name: 'echo', arguments: { text: 'hi there' } })).toMatchObject({ content: [{ type: 'text', text: 'hi there' }] });
      expect((await s.client.readResource({ uri: 'interop://static/3' })).contents).toEqual([
        { uri: 'interop://static/3', mimeType: 'text/plain', text: 'text of interop://static/3' },
      ]);
      expect((await s.client.readResource({ uri: 'interop://item/42' })).contents).toEqual([{ uri: 'interop://item/42', mimeType: 'text/plain', text: 'item 42' }]);
      expect((await s.client.getPrompt({ name: 'greet', arguments: { name: 'Bo' } })).messages).toEqual([
        { role: 'user', content: { type: 'text', text: 'Please greet Bo' } },
      ]);
    });

    const headers = target.transport === 'http' && want.era === 'modern';
    it(`passes an x-mcp-header argument${headers ? ' in Mcp-Param-Region too (the server checks it)' : ''}`, async () => {
      const sent = s.http.length;
      expect(text(await s.client.callTool({ name: 'region', arguments: { region: 'eu-west-1' } }))).toBe('region eu-west-1');
      expect(text(await s.client.callTool({ name: 'region', arguments: { region: 'Zürich' } }))).toBe('region Zürich');
      if (target.transport !== 'http') return;
      const calls = s.http.slice(sent).filter((r) => r.body?.method === 'tools/call');
      // MCP 2026-07-28 basic/transports/streamable-http.mdx "Request Metadata Headers": a non-ASCII value is sent
      // base64-encoded between `=?base64?` and `?=`.
      expect(calls.map((r) => r.headers['mcp-param-region'])).toEqual(
        want.era === 'modern' ? ['eu-west-1', `=?base64?${Buffer.from('Zürich').toString('base64')}?=`] : [undefined, undefined],
      );
    });

    it('receives the progress and log notifications of a call', async () => {
      await s.client.setLoggingLevel('info');
      const progress: unknown[] = [];
      s.logs.length = 0;
      const result = await s.client.callTool({ name: 'progress', arguments: { steps: 3 } }, { onprogress: (p) => progress.push(p) });
      expect(text(result)).toBe('done 3');
      expect(progress).toEqual([1, 2, 3].map((i) => expect.objectContaining({ progress: i, total: 3, message: `step ${i}` })));
      // A server may send its log lines on the GET stream (no related request), which races the result on the
      // POST stream: wait for them (bounded), then check all three, in order.
      await vi.waitFor(() => expect(s.logs.length).toBeGreaterThanOrEqual(3), { timeout: 2000, interval: 10 });
      expect(s.logs).toEqual([1, 2, 3].map((i) => ({ level: 'info', data: `step ${i} of 3` })));
    });

    it('any progress resets the timeout, with no onprogress callback given', async () => {
      const started = Date.now();
      const result = await s.client.callTool({ name: 'progress', arguments: { steps: 6, delayMs: 200 } }, { timeoutMs: 700 });
      expect(text(result)).toBe('done 6');
      expect(Date.now() - started).toBeGreaterThan(700);
    });

    const inputs = want.inputs ? 'answers sampling and elicitation through its callbacks' : 'gets a tool error for sampling and elicitation, which the server cannot send here';
    it(`${inputs}${want.era === 'modern' ? ' (input requests, answered and retried)' : ''}`, async () => {
      s.questions.length = 0;
      const sampled = await s.client.callTool({ name: 'sample', arguments: { prompt: 'hi' } });
      const elicited = await s.client.callTool({ name: 'elicit', arguments: { question: 'Who are you?' } });
      if (!want.inputs) {
        expect([sampled.isError, elicited.isError]).toEqual([true, true]);
        expect(s.questions).toEqual([]);
        return;
      }
      expect([text(sampled), text(elicited)]).toEqual([`model ${ANSWER_MODEL} said: sampled: hi`, 'hello Ada']);
      expect(s.questions).toEqual([
        { method: 'sampling/createMessage', era: want.era, params: expect.objectContaining({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] }) },
        { method: 'elicitation/create', era: want.era, params: expect.objectContaining({ message: 'Who are you?' }) },
      ]);
      if (want.era === 'modern') {
        // Each call went out twice: once answered input_required, once retried with inputResponses.
        const calls = sentRequests(s.wire, 'tools/call').filter((r) => r.params?.name === 'sample' || r.params?.name === 'elicit');
        expect(calls.map((r) => [r.params?.name, r.params?.inputResponses === undefined ? 'first' : 'retry'])).toEqual([
          ['sample', 'first'],
          ['sample', 'retry'],
          ['elicit', 'first'],
          ['elicit', 'retry'],
        ]);
      }
    });

    it(`cancels a long call${want.cancelSeen ? ' (the server sees it)' : ' (the server does not stop its handler)'}`, async () => {
      const began = s.record.events().filter((e) => e.event === 'began').length;
      const abort = new AbortController();
      // A handler that is not told runs to its end: keep it short, as a server that handles one session request at
      // a time (tmcp over stdio) serves nothing else meanwhile.
      const call = s.client.callTool({ name: 'slow', arguments: { ms: want.cancelSeen ? 20_000 : 1500 } }, { signal: abort.signal });
      await s.record.waitFor(() => s.record.events().filter((e) => e.event === 'began').length > began);
      abort.abort('the user pressed stop');
      await expect(call).rejects.toBeInstanceOf(RequestAbortedError);
      const id = sentRequests(s.wire, 'tools/call').at(-1)!.id;
      const cancelled = sentNotifications(s.wire, 'notifications/cancelled').filter((n) => n.params?.requestId === id);
      // 2026-07-28 over HTTP the cancellation is closing the request's response stream; elsewhere a notification.
      expect(cancelled).toHaveLength(want.era === 'modern' && target.transport === 'http' ? 0 : 1);
      if (want.cancelSeen) await s.record.waitFor((e) => e.event === 'cancelled');
      else {
        await sleep(500);
        expect(s.record.events().filter((e) => e.event === 'cancelled')).toEqual([]);
      }
    });

    it('times out a slow call with RequestTimeoutError and ignores its late answer', async () => {
      const ends = () => s.record.events().filter((e) => e.event === 'cancelled' || e.event === 'finished').length;
      const began = () => s.record.events().filter((e) => e.event === 'began').length;
      const beganBefore = began();
      const warned = warnings(s.logger.lines).length;
      const call = s.client.callTool({ name: 'slow', arguments: { ms: 1000 } }, { timeoutMs: 300 });
      const error = await call.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RequestTimeoutError);
      expect(error).toMatchObject({ method: 'tools/call', timeoutMs: 300 });
      const id = sentRequests(s.wire, 'tools/call').at(-1)!.id;
      // Wait for our handler to begin (a server that serves a session's requests one at a time starts it only once
      // an earlier one it was not told to cancel has ended) and for every slow handler to end.
      await s.record.waitFor(() => began() > beganBefore && ends() === began(), 5000);
      const end = s.record.events().filter((e) => e.event === 'cancelled' || e.event === 'finished').at(-1)!;
      const late = () => s.wire.received.filter((m: any) => m.kind === 'response' && m.message?.id === id);
      if (end.event === 'finished' && !want.cancelSeen) {
        // It ran to its end and answered after the timeout: that answer reaches the client, which drops it.
        for (let i = 0; i < 100 && late().length === 0; i++) await sleep(30);
        expect(late()).toHaveLength(1);
      } else {
        await sleep(300);
        expect(late()).toEqual([]);
      }
      expect(text(await s.client.callTool({ name: 'echo', arguments: { text: 'after' } }))).toBe('after');
      expect(warnings(s.logger.lines).slice(warned)).toEqual([]);
    });

    it.runIf(target.transport === 'stdio')('close() ends the server process', async () => {
      // The first process is this client's (the second client's has been closed already).
      const pids = s.record.startedPids().slice(0, 1);
      expect(pids.filter(isAlive)).toEqual(pids);
      await s.client.close();
      const deadline = Date.now() + 5000;
      while (pids.some(isAlive) && Date.now() < deadline) await sleep(50);
      expect(pids.filter(isAlive)).toEqual([]);
    });
  });

  describe(`${target.title}: recovery`, () => {
    const dir = scratch();
    const s = { wire: wireLog(), logger: capturingLogger(), record: dir.record('server'), logs: [], questions: [], http: [], verdicts: new InMemoryEraVerdictStore() } as unknown as Session;

    afterAll(async () => {
      await s.client?.close();
      await s.server?.stop();
      dir.remove();
    });

    if (target.transport === 'http') {
      const restart = want.restart ?? (want.era === 'legacy' ? 'reinitializes' : 'continues');
      it(`a server restart on the same port: the next call succeeds (${restart})`, async () => {
        s.server = await startServer(target, s.record);
        s.client = await open(target, s);
        expect(text(await s.client.callTool({ name: 'echo', arguments: { text: 'one' } }))).toBe('one');
        const initialized = sentRequests(s.wire, 'initialize').length;
        const port = s.server.port;
        await s.server.stop();
        s.server = await startServer(target, s.record, port);
        expect(s.record.startedPids()).toHaveLength(2);
        const next = s.client.callTool({ name: 'echo', arguments: { text: 'two' } });
        expect(text(await next)).toBe('two');
        expect(sentRequests(s.wire, 'initialize').length - initialized).toBe(restart === 'reinitializes' ? 1 : 0);
      });
    } else {
      it('a killed process: the call in flight fails with ConnectionClosedError naming the signal', async () => {
        s.client = await open(target, s);
        const [first] = s.record.startedPids();
        const call = s.client.callTool({ name: 'slow', arguments: { ms: 20_000 } });
        await s.record.waitFor((e) => e.event === 'began');
        process.kill(first!, 'SIGKILL');
        const error = await call.catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ConnectionClosedError);
        expect(error).toMatchObject({ code: 'connection_closed', signal: 'SIGKILL', exitCode: null });
      });

      it('the next call respawns the process', async () => {
        const [first] = s.record.startedPids();
        expect(text(await s.client.callTool({ name: 'echo', arguments: { text: 'back' } }))).toBe('back');
        const pids = s.record.startedPids();
        expect(pids).toHaveLength(2);
        expect(pids[1]).not.toBe(first);
        expect(s.wire.opened).toBe(2);
      });
    }
  });
}
