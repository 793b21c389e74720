/**
 * The client against hostile servers: real HTTP servers on 127.0.0.1 (`hostile-servers/http.ts`) and real child
 * processes (`hostile-servers/stdio-*.mjs`). One block per class of abuse; each fails without its fix.
 *
 * Smoke sizes by default; `STRESS=1` runs the full sizes and prints `reliability …` lines.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_LIST_BYTES,
  httpSse,
  InMemoryEraVerdictStore,
  McpClient,
  PaginationLimitError,
  RedirectRefusedError,
  RequestTimeoutError,
  ResponseTooLargeError,
  streamableHttp,
  type McpClientOptions,
} from '../../packages/mcp/src/client/index.js';
import { logLines } from '../helpers/logLines.js';
import { createNodeFetch } from '../../packages/mcp/src/transports/node/index.js';
import { spawnStdio, StdioClientTransport } from '../../packages/mcp/src/transports/stdio/index.js';
import type { FetchLike } from '../../packages/mcp/src/client/index.js';
import { endlessPages, endlessProgress, recorder, redirecting, requestFlood, requestFlood2024, type FakeHttpServer } from './hostile-servers/http.js';

const STRESS = process.env['STRESS'] === '1';
const STDIO_HOSTILE = fileURLToPath(new URL('hostile-servers/stdio-hostile.mjs', import.meta.url));
const STDIO_ORPHAN = fileURLToPath(new URL('hostile-servers/stdio-orphan.mjs', import.meta.url));
const MiB = 1024 * 1024;

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connect(server: FakeHttpServer, options: Partial<McpClientOptions> = {}, fetch?: FetchLike): Promise<McpClient> {
  const client = await McpClient.connect({
    connector: streamableHttp({ url: server.url, reconnect: false, ...(fetch === undefined ? {} : { fetch }), headers: { 'X-Api-Key': 'secret-key' } }),
    era: 'legacy',
    verdictStore: new InMemoryEraVerdictStore(),
    logger: logLines(),
    ...options,
  });
  cleanups.push(() => client.close());
  return client;
}

/** Settles with the promise's outcome, or with `'pending'` after `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<{ value: T } | { error: unknown } | 'pending'> {
  return Promise.race([
    promise.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms).unref()),
  ]);
}

describe('pagination: large pages and a cursor that never ends', () => {
  it('stops at the byte budget with a typed error carrying what was gathered', async () => {
    // Smoke: 512 KiB pages against a 4 MiB budget; the server ends its cursor after 40 pages (20 MiB), so a client
    // without a byte budget finishes with everything instead of stopping.
    const pageBytes = STRESS ? 4 * MiB : 512 * 1024;
    const maxListBytes = STRESS ? undefined : 4 * MiB;
    const budget = maxListBytes ?? DEFAULT_MAX_LIST_BYTES;
    const { server, served } = await endlessPages({ pageBytes, toolsPerPage: 64, lastPage: STRESS ? 100 : 40 });
    cleanups.push(() => server.close());
    const client = await connect(server, { maxPages: 1000, ...(maxListBytes === undefined ? {} : { maxListBytes }) });
    const rssBefore = process.memoryUsage().rss;
    const error = await client.listAllTools().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PaginationLimitError);
    const limit = error as PaginationLimitError;
    expect(limit).toMatchObject({ code: 'pagination_limit', stop: 'max_bytes', method: 'tools/list' });
    expect(limit.bytes).toBeGreaterThan(budget);
    expect(limit.bytes).toBeLessThanOrEqual(budget + pageBytes + 64 * 1024);
    expect(limit.items).toHaveLength(limit.pages * 64);
    expect(served.pages).toBe(limit.pages);
    expect(limit.message).toMatch(/maxListBytes/);
    if (STRESS) {
      console.log(`reliability client pagination: stopped after ${limit.pages} pages of ${pageBytes / MiB} MiB, ${(limit.bytes / MiB).toFixed(1)} MiB gathered (budget ${budget / MiB} MiB), RSS +${((process.memoryUsage().rss - rssBefore) / MiB).toFixed(0)} MiB`);
    }
  });
});

describe('request timeout: progress cannot extend a request forever', () => {
  it('settles a call whose server sends progress forever at 10 × timeoutMs by default', async () => {
    const { server, progressSent } = await endlessProgress(50);
    cleanups.push(() => server.close());
    const timeoutMs = STRESS ? 1000 : 300;
    const client = await connect(server, { timeoutMs });
    const started = Date.now();
    const outcome = await within(client.callTool({ name: 'slow', arguments: {} }), 10 * timeoutMs + 8000);
    expect(outcome).not.toBe('pending');
    const error = (outcome as { error: unknown }).error;
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ code: 'request_timeout', timeoutMs: 10 * timeoutMs, message: expect.stringMatching(/in total/) as unknown });
    // Progress did reset the idle budget many times over before the cap.
    expect(progressSent()).toBeGreaterThan((10 * timeoutMs) / 50 / 2);
    if (STRESS) console.log(`reliability client total timeout: settled after ${Date.now() - started} ms (timeoutMs ${timeoutMs}, ${progressSent()} progress notifications)`);
  });

  it('lets maxTotalTimeoutMs change the cap, Infinity included', async () => {
    const { server } = await endlessProgress(50);
    cleanups.push(() => server.close());
    // Progress every 50 ms against an idle budget of 300 ms: a loaded machine's pauses stay inside it (at 150 ms
    // one CI run timed out between two progress notifications).
    const client = await connect(server, { timeoutMs: 300, maxTotalTimeoutMs: 600 });
    const outcome = await within(client.callTool({ name: 'slow', arguments: {} }), 8000);
    expect((outcome as { error: unknown }).error).toMatchObject({ code: 'request_timeout', timeoutMs: 600 });
    // Past both 600 ms and the default 10 × 300 ms.
    const unbounded = await within(client.callTool({ name: 'slow', arguments: {} }, { maxTotalTimeoutMs: Number.POSITIVE_INFINITY }), 3500);
    expect(unbounded).toBe('pending');
  });
});

describe('redirects: no body or credentials to another origin', () => {
  const nodeFetch = createNodeFetch();
  afterAll(() => nodeFetch.destroy());
  const fetches: readonly (readonly [string, FetchLike | undefined])[] = [
    ['globalThis.fetch', undefined],
    ['nodeFetch', nodeFetch],
  ];
  for (const [name, fetch] of fetches) {
    it(`refuses a cross-origin 307 on POST, GET and DELETE, naming the target (${name})`, async () => {
      const elsewhere = await recorder();
      cleanups.push(() => elsewhere.close());
      const server = await redirecting(() => ({ status: 307, location: `${elsewhere.url}?stolen` }));
      cleanups.push(() => server.close());
      const logger = logLines();
      const client = await connect(server, { logger }, fetch);
      const error = await client.callTool({ name: 'pay', arguments: { card: '4111' } }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(RedirectRefusedError);
      expect(error).toMatchObject({ code: 'redirect_refused', status: 307, location: `${elsewhere.url}?stolen` });
      await client.close();
      // The GET stream was redirected too (warned), and so was the DELETE of close().
      await server.waitFor((r) => r.method === 'DELETE', 'the DELETE');
      expect(server.filter((r) => r.method === 'GET')).not.toHaveLength(0);
      expect(logger.mentioning('redirect')).not.toHaveLength(0);
      expect(elsewhere.requests).toEqual([]);
    });

    it(`follows a same-origin 307 with its body and headers, at most 5 in a row (${name})`, async () => {
      let hops = 0;
      const server = await redirecting(() => ({ status: 307, location: `/mcp?hop=${++hops}` }));
      cleanups.push(() => server.close());
      const client = await connect(server, {}, fetch);
      const loop = await client.callTool({ name: 'pay', arguments: {} }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(loop).toMatchObject({ code: 'redirect_refused', message: expect.stringMatching(/more than 5 redirects/) as unknown });
      const calls = server.filter((r) => r.method === 'POST' && (r.json as { method?: string }).method === 'tools/call');
      expect(calls).toHaveLength(6);
      for (const call of calls) expect(call.headers['x-api-key']).toBe('secret-key');

      const moved = await redirecting(() => ({ status: 308, location: '/mcp?moved' }));
      cleanups.push(() => moved.close());
      const second = await connect(moved, {}, fetch);
      const result = await second.callTool({ name: 'pay', arguments: { card: '4111' } });
      expect(result.content).toEqual([{ type: 'text', text: 'moved /mcp?moved' }]);
      const [resent] = moved.filter((r) => r.url === '/mcp?moved' && r.method === 'POST');
      expect(resent?.json).toMatchObject({ method: 'tools/call', params: { name: 'pay', arguments: { card: '4111' } } });
    });
  }

  it('refuses a cross-origin redirect of the 2024-11-05 HTTP+SSE stream', async () => {
    const elsewhere = await recorder();
    cleanups.push(() => elsewhere.close());
    const server = await redirecting(() => ({ status: 302, location: elsewhere.url }));
    cleanups.push(() => server.close());
    const connecting = McpClient.connect({ connector: httpSse({ url: server.url, headers: { 'X-Api-Key': 'secret-key' } }), era: 'legacy', verdictStore: new InMemoryEraVerdictStore(), logger: logLines() });
    await expect(connecting).rejects.toMatchObject({ code: 'redirect_refused', status: 302, location: elsewhere.url });
    expect(elsewhere.requests).toEqual([]);
  });

  it('refuses a 303 (it would turn the POST into a GET and drop the request)', async () => {
    const server = await redirecting(() => ({ status: 303, location: '/mcp?moved' }));
    cleanups.push(() => server.close());
    const client = await connect(server);
    await expect(client.callTool({ name: 'pay', arguments: {} })).rejects.toMatchObject({ code: 'redirect_refused', status: 303 });
  });
});

describe('a burst of server requests on the GET stream', () => {
  it('is taken with backpressure: bounded in flight, no listener growth, close() prompt', async () => {
    const count = STRESS ? 20_000 : 3000;
    const padBytes = 16 * 1024;
    const { server, state } = await requestFlood({ count, padBytes, answerDelayMs: STRESS ? 50 : 100 });
    cleanups.push(() => server.close());
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    cleanups.push(() => void process.off('warning', onWarning));
    const logger = logLines();
    const client = await connect(server, { logger });
    // Let the flood run; the client answers each ping, and the server takes each answer slowly.
    const deadline = Date.now() + (STRESS ? 8000 : 2500);
    let most = 0;
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      most = Math.max(most, state.written - state.answers);
    }
    const heap = process.memoryUsage().heapUsed;
    const closing = Date.now();
    const closed = await within(client.close(), 10_000);
    const closeMs = Date.now() - closing;
    if (STRESS) console.log(`reliability client GET flood: ${state.written} requests written (${(state.bytes / MiB).toFixed(0)} MiB), ${state.answers} answered, at most ${most} unanswered, heap ${(heap / MiB).toFixed(0)} MiB, close ${closeMs} ms`);
    expect(closed).not.toBe('pending');
    expect(closeMs).toBeLessThan(5000);
    // The server had to wait for the client: its writes backed up, and what it wrote was not all taken at once.
    expect(state.backedUp).toBeGreaterThan(0);
    // What the loopback socket buffers hold (a few MB) plus 64 queued answers; without backpressure nearly all of them.
    expect(most).toBeLessThan(1500);
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('is taken with backpressure on the 2024-11-05 HTTP+SSE stream too', async () => {
    const count = STRESS ? 20_000 : 3000;
    const { server, state } = await requestFlood2024({ count, padBytes: 16 * 1024, answerDelayMs: STRESS ? 50 : 100 });
    cleanups.push(() => server.close());
    const client = await McpClient.connect({ connector: httpSse({ url: server.url }), era: 'legacy', verdictStore: new InMemoryEraVerdictStore(), logger: logLines() });
    cleanups.push(() => client.close());
    const deadline = Date.now() + (STRESS ? 8000 : 2500);
    let most = 0;
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      most = Math.max(most, state.written - state.answers);
    }
    const closing = Date.now();
    expect(await within(client.close(), 10_000)).not.toBe('pending');
    if (STRESS) console.log(`reliability client HTTP+SSE flood: ${state.written} requests written, ${state.answers} answered, at most ${most} unanswered and ${state.mostOpen} answer POSTs open at once, close ${Date.now() - closing} ms`);
    expect(state.backedUp).toBeGreaterThan(0);
    // At most 8 answer POSTs at once (MAX_MESSAGE_POSTS); each was its own POST in flight before.
    expect(state.mostOpen).toBeLessThanOrEqual(8);
    // What the loopback socket buffers hold (a few MB) plus 64 queued answers; without backpressure nearly all of them.
    expect(most).toBeLessThan(1500);
  });
});

describe('refused answers to server requests', () => {
  it('log one line per refusal class with a count, not one per request', async () => {
    const count = STRESS ? 2000 : 200;
    const { server, state } = await requestFlood({ count, padBytes: 16, answerDelayMs: 0, answerStatus: 403 });
    cleanups.push(() => server.close());
    const logger = logLines();
    const client = await connect(server, { logger });
    for (let i = 0; i < 400 && state.answers < 2 * count; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    await client.close();
    const loud = logger.loud();
    if (STRESS) console.log(`reliability client refused answers: ${state.answers} answer POSTs refused, ${loud.length} warn/error lines: ${loud.map((line) => line.message).join(' | ')}`);
    expect(state.answers).toBeGreaterThanOrEqual(count);
    expect(loud.length).toBeLessThanOrEqual(10);
    // The summary says how many there were.
    expect(loud.some((line) => /\d+/.test(JSON.stringify(line.fields ?? {})) && /refused|could not be sent/i.test(line.message))).toBe(true);
  });
});

describe('stdio: an answer line over maxLineBytes', () => {
  it('fails the request it answers at once, with the size, instead of at its timeout', async () => {
    const maxLineBytes = 64 * 1024;
    const logger = logLines();
    const client = await McpClient.connect({
      connector: spawnStdio({ command: process.execPath, args: [STDIO_HOSTILE, '--bytes', String(STRESS ? 64 * MiB : 256 * 1024)], maxLineBytes }),
      era: 'legacy',
      verdictStore: new InMemoryEraVerdictStore(),
      logger,
      timeoutMs: 60_000,
    });
    cleanups.push(() => client.close());
    const started = Date.now();
    const outcome = await within(client.callTool({ name: 'huge', arguments: {} }), 15_000);
    expect(outcome).not.toBe('pending');
    const error = (outcome as { error: unknown }).error;
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ code: 'response_too_large', maxBytes: maxLineBytes, message: expect.stringMatching(new RegExp(`over ${maxLineBytes} bytes`)) as unknown });
    if (STRESS) console.log(`reliability client stdio long answer: failed after ${Date.now() - started} ms (timeoutMs 60000)`);
    // The connection is still usable: the line's tail was skipped, not read as a message.
    await expect(client.listTools()).resolves.toMatchObject({ tools: [{ name: 'huge' }] });
    expect(logger.mentioning('longer than')).toHaveLength(1);
  });
});

describe('stdio: a process group that outlives its leader', () => {
  /** CPU time of this process (user + system), in ms. */
  const cpuMs = (): number => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };

  it('is waited for without spinning on /proc, then killed', async () => {
    if (process.platform !== 'linux') return;
    let grandchild = 0;
    const transport = await StdioClientTransport.spawn(
      { command: process.execPath, args: [STDIO_ORPHAN], shutdownGraceMs: STRESS ? 3000 : 1000, onstderr: (line) => (grandchild = Number(/grandchild (\d+)/.exec(line)?.[1] ?? grandchild)) },
      { logger: logLines() },
    );
    await transport.start();
    for (let i = 0; i < 200 && grandchild === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(grandchild).toBeGreaterThan(0);
    const wall = Date.now();
    const cpu = cpuMs();
    await transport.close();
    const wallMs = Date.now() - wall;
    const usedMs = cpuMs() - cpu;
    if (STRESS) console.log(`reliability client stdio orphan group: close took ${wallMs} ms, ${usedMs.toFixed(0)} ms of CPU`);
    // The leader exits at once and the grandchild ignores SIGTERM: close() waits two grace periods, then SIGKILLs.
    expect(wallMs).toBeGreaterThanOrEqual(1500);
    // Polling with backoff costs a few ms of CPU; looking at /proc again at once kept a core busy meanwhile (CPU ≈
    // wall). Half the wall time: the worker's own GC and compiler threads count in process.cpuUsage() too, and under
    // CI's load they once took over a quarter (a 2.2 s close).
    expect(usedMs).toBeLessThan(wallMs / 2);
    const state = (() => {
      try {
        return readFileSync(`/proc/${grandchild}/stat`, 'latin1').slice(readFileSync(`/proc/${grandchild}/stat`, 'latin1').lastIndexOf(')') + 2)[0];
      } catch {
        return 'gone';
      }
    })();
    expect(['gone', 'Z', 'X']).toContain(state);
  });
});
