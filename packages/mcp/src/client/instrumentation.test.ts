import { describe, expect, it } from 'vitest';
import type { JsonRpcMessage, Logger } from '@switchboard/jsonrpc';
import { McpError } from '../protocol/errors.js';
import { McpServer } from '../server/mcpServer.js';
import { inMemoryConnector } from '../testing/index.js';
import type { ClientInstrumentation, ClientRequestInfo, ClientRequestOutcome } from './instrumentation.js';
import { McpClient } from './mcpClient.js';
import { InMemoryEraVerdictStore } from './verdicts.js';

function server(): McpServer {
  const s = new McpServer({ name: 's', version: '1' }, { logger: { debug() {}, info() {}, warn() {}, error() {} } });
  s.tool('ok', {}, () => ({ content: [{ type: 'text', text: 'fine' }] }));
  s.tool('no', {}, () => {
    throw new McpError(-32001, 'refused');
  });
  return s;
}

describe.each(['legacy', 'modern'] as const)('McpClientOptions.instrumentation (%s era)', (era) => {
  it('sees each wire request begin and end once, and its meta reaches params._meta beside the envelope', async () => {
    const seen: { info: ClientRequestInfo; outcomes: ClientRequestOutcome[] }[] = [];
    const instrumentation: ClientInstrumentation = {
      onRequest(info) {
        const entry = { info, outcomes: [] as ClientRequestOutcome[] };
        seen.push(entry);
        return { meta: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }, end: (outcome) => entry.outcomes.push(outcome) };
      },
    };
    const wire: JsonRpcMessage[] = [];
    const tap = (direction: string, message: JsonRpcMessage | readonly JsonRpcMessage[]): void => {
      if (direction === 'toServer' && !Array.isArray(message)) wire.push(message as JsonRpcMessage);
    };
    const client = await McpClient.connect({ connector: inMemoryConnector(server(), { tap }), era, instrumentation, verdictStore: new InMemoryEraVerdictStore() });
    try {
      await client.callTool({ name: 'ok', arguments: {} });
      await expect(client.callTool({ name: 'no', arguments: {} })).rejects.toThrow('refused');
    } finally {
      await client.close();
    }
    const calls = seen.filter((e) => e.info.method === 'tools/call');
    expect(calls.map((e) => [e.info.params?.name, e.info.era, e.info.protocolVersion, e.info.transport.kind])).toEqual([
      ['ok', era, era === 'modern' ? '2026-07-28' : '2025-11-25', 'stdio'],
      ['no', era, era === 'modern' ? '2026-07-28' : '2025-11-25', 'stdio'],
    ]);
    expect(calls[0]?.outcomes).toEqual([{ kind: 'result', result: expect.objectContaining({ content: [{ type: 'text', text: 'fine' }] }) }]);
    expect(calls[1]?.outcomes).toHaveLength(1);
    expect(calls[1]?.outcomes[0]).toMatchObject({ kind: 'error', error: { code: -32001 } });
    // The caller's params are not modified; the wire request carries the meta and the era's own members.
    expect(calls[0]?.info.params).toEqual({ name: 'ok', arguments: {} });
    const sent = wire.find((m) => 'method' in m && m.method === 'tools/call') as unknown as { params: { _meta: Record<string, unknown> } };
    expect(sent.params._meta.traceparent).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    if (era === 'modern') expect(sent.params._meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
    // Negotiation requests are seen too, before an era is fixed.
    expect(seen[0]?.info.era).toBeUndefined();
  });

  it('a hook that throws is logged and the request goes on unobserved', async () => {
    const errors: string[] = [];
    const logger: Logger = { debug() {}, info() {}, warn() {}, error: (message) => errors.push(message) };
    const instrumentation: ClientInstrumentation = {
      onRequest() {
        throw new Error('broken hook');
      },
    };
    const client = await McpClient.connect({ connector: inMemoryConnector(server()), era, logger, instrumentation, verdictStore: new InMemoryEraVerdictStore() });
    try {
      await expect(client.callTool({ name: 'ok', arguments: {} })).resolves.toMatchObject({ content: [{ text: 'fine' }] });
    } finally {
      await client.close();
    }
    expect(errors).toContain('Instrumentation failed: request begin');
  });
});

describe('ClientInstrumentation.onConnection and McpServer.onSessionClosed', () => {
  it('the client hears its connection start and end once, with the negotiated revision; the server hears the session close once', async () => {
    const s = server();
    const closedSessions: (string | undefined)[] = [];
    s.onSessionClosed((session) => closedSessions.push(session.protocolVersion));
    const events: string[] = [];
    const instrumentation: ClientInstrumentation = {
      onRequest: () => undefined,
      onConnection: (transport) => {
        events.push(`start ${transport.kind}`);
        return (end) => events.push(`end ${end.era} ${end.protocolVersion}`);
      },
    };
    const client = await McpClient.connect({ connector: inMemoryConnector(s), era: 'legacy', logger: s.logger, instrumentation });
    expect(events).toHaveLength(1);
    expect(closedSessions).toEqual([]);
    await client.close();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(events.slice(1)).toEqual(['end legacy 2025-11-25']);
    expect(closedSessions).toEqual(['2025-11-25']);
  });

  it('a throwing onSessionClosed listener is ignored, a disposed one is not called', async () => {
    const s = server();
    const calls: string[] = [];
    s.onSessionClosed(() => {
      throw new Error('boom');
    });
    const dispose = s.onSessionClosed(() => calls.push('disposed'));
    s.onSessionClosed(() => calls.push('kept'));
    dispose();
    const client = await McpClient.connect({ connector: inMemoryConnector(s), era: 'legacy', logger: s.logger });
    await client.close();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(calls).toEqual(['kept']);
    expect(() => s.onSessionClosed(42 as never)).toThrow(TypeError);
  });
});
