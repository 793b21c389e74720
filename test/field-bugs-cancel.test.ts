/**
 * Field bugs of cancellation and notifications, per era (docs/field-bugs.md): B23 (a 2026-07-28 notification over
 * stdio gets no answer), B36 (a cancel racing the end of the handler), B37 (a cancelled request is not answered and
 * its handler sees the abort): a session-based revision cancels with `notifications/cancelled`; 2026-07-28 over
 * stdio with `notifications/cancelled` (with or without the version claim) and over Streamable HTTP by closing the
 * response stream (MCP 2026-07-28 basic/patterns/cancellation.mdx). A stdio child process and `serveHttp` on
 * 127.0.0.1; whole wire messages.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp, type ServeHttpHandle } from '@switchboard/mcp/node';
import { endStdin, stopByPid } from './helpers/process.js';
import {
  ACCEPT_BOTH, complete, eventually, legacy, makeServer, modern, modernHeaders, post, sleep, StdioClient, type Message,
} from './helpers/fieldBugsWire.js';

let child: StdioClient | undefined;
afterEach(async () => {
  if (child === undefined) return;
  try {
    await endStdin(child.proc);
  } finally {
    stopByPid(child.proc);
    child = undefined;
  }
});

let dual: { http: ServeHttpHandle; aborted: () => number };
beforeAll(async () => {
  const made = makeServer();
  dual = { http: await serveHttp({ server: made.server, host: '127.0.0.1', port: 0, responseMode: 'json' }), aborted: made.aborted };
});
afterAll(async () => {
  await dual.http.close();
});

describe('B23: a notification at 2026-07-28 gets no answer', () => {
  it('B23 over stdio: a modern notification (notifications/cancelled naming an unknown request) is not answered', async () => {
    child = new StdioClient();
    child.send(modern(undefined, 'notifications/cancelled', { requestId: 'r-1' }), modern(undefined, 'notifications/initialized'));
    expect(await child.ask(legacy(1, 'ping'))).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(child.lines).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
  });
});
describe('B36 and B37: cancellation, per era', () => {
  const call = (era: 'legacy' | 'modern', id: number, name: string): Message =>
    era === 'legacy' ? legacy(id, 'tools/call', { name, arguments: {} }) : modern(id, 'tools/call', { name, arguments: {} });
  const cancelled = (requestId: number, claim: boolean): Message =>
    claim ? modern(undefined, 'notifications/cancelled', { requestId, reason: 'stop' }) : legacy(undefined, 'notifications/cancelled', { requestId, reason: 'stop' });
  const cases = [
    { name: 'legacy (a 2025-11-25 session)', era: 'legacy', claim: false },
    { name: '2026-07-28, the cancel with the claim', era: 'modern', claim: true },
    { name: '2026-07-28, the cancel without the claim', era: 'modern', claim: false },
  ] as const;

  it.each(cases)('B36 over stdio, $name: a cancel racing the end of the handler yields at most one response and no crash; ping answered', async ({ era, claim }) => {
    child = new StdioClient();
    if (era === 'legacy') await child.initialize();
    const ids = [11, 12, 13, 14, 15, 16];
    // `fast` returns after about 20 ms: cancels sent around that moment, and one after its response.
    const offsets = [0, 15, 18, 20, 22, 25];
    const started = ids.map(async (id, i) => {
      child!.send(call(era, id, 'fast'));
      await sleep(offsets[i]!);
      child!.send(cancelled(id, claim));
    });
    await Promise.all(started);
    await child.ask(call(era, 17, 'fast'));
    child.send(cancelled(17, claim));
    expect(await child.ask(legacy(18, 'ping'))).toEqual({ jsonrpc: '2.0', id: 18, result: {} });
    await sleep(50);
    const fastResult = era === 'legacy' ? { content: [{ type: 'text', text: 'fast' }] } : complete({ content: [{ type: 'text', text: 'fast' }] });
    for (const id of [...ids, 17]) {
      const answers = child.withId(id);
      expect(answers.length).toBeLessThanOrEqual(1);
      for (const answer of answers) expect(answer).toEqual({ jsonrpc: '2.0', id, result: fastResult });
    }
    expect(child.withId(17)).toHaveLength(1);
    expect(child.proc.exitCode).toBeNull();
  });

  it.each(cases)('B37 over stdio, $name: a cancelled request gets no response and its handler sees the abort', async ({ era, claim }) => {
    child = new StdioClient();
    if (era === 'legacy') await child.initialize();
    child.send(call(era, 21, 'slow'));
    await sleep(50);
    child.send(cancelled(21, claim));
    // The handler resolves once it sees the abort; `aborted` says it did, and the answer to 21 is never written.
    const seen = await child.ask(call(era, 22, 'aborted'));
    expect(seen).toEqual({ jsonrpc: '2.0', id: 22, result: era === 'legacy' ? { content: [{ type: 'text', text: '1' }] } : complete({ content: [{ type: 'text', text: '1' }] }) });
    await sleep(200);
    expect(child.withId(21)).toEqual([]);
  });

  it('B37 at 2026-07-28 over HTTP: closing the response stream cancels (the handler sees the abort); the endpoint serves on', async () => {
    const before = dual.aborted();
    const slow = modern(31, 'tools/call', { name: 'slow', arguments: {} });
    const controller = new AbortController();
    const pending = fetch(dual.http.url, {
      method: 'POST', signal: controller.signal,
      headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...modernHeaders(slow) }, body: JSON.stringify(slow),
    });
    await sleep(100);
    controller.abort();
    await expect(pending).rejects.toThrow();
    await eventually(() => dual.aborted() === before + 1, 'the handler saw its signal abort');
    const next = modern(32, 'tools/call', { name: 'none', arguments: {} });
    expect((await post(dual.http.url, next, modernHeaders(next))).body).toEqual({ jsonrpc: '2.0', id: 32, result: complete({ content: [] }) });
  });
});
