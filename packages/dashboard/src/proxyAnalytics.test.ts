/**
 * Failure analytics through the gateway's front (`createProxyAnalytics` on `createProxyServer`), in memory: every
 * upstream failure lands in its own class, though the front answers two of them in other words (an upstream that
 * stays silent: an `isError` "timed out" result; an upstream connection that closes mid-call: a generic `isError`
 * result). A plain `attachAnalytics` on the same front, side by side, counts those two as `tool_error`: what the
 * upstream instrumentation adds is what this test checks.
 */
import { describe, expect, it } from 'vitest';
import { McpError, McpErrorCode } from '@switchboard/mcp';
import { attachAnalytics, type AnalyticsRow } from '@switchboard/mcp/analytics';
import { McpServer } from '@switchboard/mcp/server';
import { connectRawClient, inMemoryConnector } from '@switchboard/mcp/testing';
import { createProxyServer } from '@switchboard/gateway';
import { createProxyAnalytics } from './proxyAnalytics.js';

const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const MODERN = '2026-07-28';
const row = (rows: readonly AnalyticsRow[], key: string): AnalyticsRow | undefined => rows.find((r) => r.key === key);

describe('createProxyAnalytics: any server, through the proxy', () => {
  it('ok, tool_error, protocol_error (its code), timeout and transport upstream; refusals on the front; both front eras', async () => {
    const upstream = new McpServer({ name: 'up', version: '7.0.0' }, { logger: silent, revisions: ['2025-11-25'] });
    const connector = inMemoryConnector(upstream);
    upstream.tool('ok', {}, () => ({ content: [{ type: 'text', text: 'fine' }] }));
    upstream.tool('flaky', {}, () => ({ content: [{ type: 'text', text: 'disk full' }], isError: true }));
    upstream.tool('picky', {}, () => {
      throw new McpError(McpErrorCode.InvalidParams, 'Invalid params: no such order');
    });
    upstream.tool('hang', {}, () => new Promise(() => {}));
    upstream.tool('die', {}, async () => {
      await connector.drop({ reason: 'the upstream process exited' });
      return new Promise(() => {});
    });

    const watch = createProxyAnalytics({ serverVersion: 'proxy-1' });
    const front = await createProxyServer({ upstream: connector, server: { logger: silent }, client: { timeoutMs: 300, instrumentation: watch.instrumentation } });
    watch.attach(front);
    const { analytics: plain } = attachAnalytics(front); // the answer's view alone, for contrast
    const client = await connectRawClient(front);
    try {
      await client.initialize();
      let id = 1;
      const callTool = (name: string) => client.request(id++, 'tools/call', { name, arguments: {} }) as Promise<any>;
      expect((await callTool('ok')).result).toMatchObject({ content: [{ text: 'fine' }] });
      expect((await callTool('flaky')).result).toMatchObject({ isError: true });
      expect((await callTool('picky')).error).toMatchObject({ code: -32602 });
      expect((await callTool('nope')).error).toMatchObject({ code: -32602 }); // unknown on the front
      expect((await callTool('hang')).result).toMatchObject({ isError: true, content: [{ text: 'The upstream server did not answer in time' }] });
      // A 2026-07-28 request to the front (no session): the same upstream timeout, through the modern path.
      const meta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'modern-host', version: '2' } };
      expect(await front.handle({ jsonrpc: '2.0', id: 900, method: 'tools/call', params: { name: 'hang', arguments: {}, _meta: meta } })).toMatchObject({ result: { isError: true } });
      const unsupported = { ...meta, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' };
      expect(await front.handle({ jsonrpc: '2.0', id: 901, method: 'tools/call', params: { name: 'ok', arguments: {}, _meta: unsupported } })).toMatchObject({ error: { code: -32022 } });
      expect((await callTool('die')).result).toMatchObject({ isError: true });
    } finally {
      await client.close();
      await front.close();
    }

    const snap = watch.analytics.snapshot();
    expect(row(snap.byTool, 'ok')?.classes.ok).toBe(1);
    expect(row(snap.byTool, 'flaky')).toMatchObject({ classes: { tool_error: 1 }, topMessages: [{ message: 'disk full', count: 1 }] });
    expect(row(snap.byTool, 'picky')).toMatchObject({ classes: { protocol_error: 1 }, codes: { '-32602': 1 }, topMessages: [{ message: 'Invalid params: no such order', count: 1 }] });
    expect(row(snap.byTool, 'nope')).toMatchObject({ classes: { protocol_error: 1 }, codes: { '-32602': 1 } });
    expect(row(snap.byTool, 'hang')).toMatchObject({ count: 2, classes: { timeout: 2 }, topMessages: [{ message: 'The upstream server did not answer in time', count: 2 }] });
    expect(row(snap.byTool, 'die')).toMatchObject({ count: 1, classes: { transport: 1 } });
    expect(row(snap.byClient, 'modern-host/2')).toMatchObject({ count: 2, classes: { timeout: 1, era_mismatch: 1 } });
    expect(snap.total.classes).toEqual({ ok: 2, tool_error: 1, protocol_error: 2, refused: 0, era_mismatch: 1, timeout: 2, cancelled: 0, transport: 1 });
    // Only the front's requests (initialize included), never the proxy's own upstream requests (initialize, lists).
    expect(snap.total.count).toBe(9);
    expect(row(snap.byServerVersion, 'proxy-1')?.count).toBe(9);
    // Only what went on the wire: the closed connection's own words (its reason) never reach the snapshot.
    expect(row(snap.byTool, 'die')?.topMessages).toEqual([{ message: 'The upstream server is unavailable: its connection ended', count: 1 }]);
    expect(JSON.stringify(snap)).not.toContain('exited');

    // The answer alone says tool_error for the upstream's timeout and its closed connection.
    const answered = plain.snapshot();
    expect(row(answered.byTool, 'hang')?.classes).toMatchObject({ tool_error: 2, timeout: 0 });
    expect(row(answered.byTool, 'die')?.classes).toMatchObject({ tool_error: 1, transport: 0 });
  });
});
