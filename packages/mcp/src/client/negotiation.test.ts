/**
 * Era negotiation against scripted servers (what our own server never does: refuse the revision it lists, answer
 * the probe with an unrelated error or result, counter-offer at `initialize`), whole wire messages.
 */
import { describe, expect, it } from 'vitest';
import { parseMessage, type JsonRpcMessage, type JsonRpcRequest, type Logger } from '@switchboard/jsonrpc';
import type { ClientConnector, ClientProtocol, ClientTransport } from '../protocol/transport.js';
import { NegotiationError } from './errors.js';
import { McpClient } from './mcpClient.js';
import type { McpClientOptions } from './options.js';
import { InMemoryEraVerdictStore } from './verdicts.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const PV = 'io.modelcontextprotocol/protocolVersion';

type Answer = { result: unknown } | { error: { code: number; message: string; data?: unknown } } | undefined;

/** A connector whose server is `answer`: called with every request, its return value is sent back (nothing when undefined). */
function scripted(answer: (request: JsonRpcRequest, index: number) => Answer) {
  const sent: JsonRpcMessage[] = [];
  const protocols: ClientProtocol[] = [];
  let requests = 0;
  const connector: ClientConnector = {
    kind: 'stdio',
    verdictKey: `scripted:${Math.random()}`,
    open() {
      const transport: ClientTransport = {
        kind: 'stdio',
        start: () => Promise.resolve(),
        send(message) {
          const m = JSON.parse(JSON.stringify(message)) as JsonRpcMessage;
          sent.push(m);
          if ('method' in m && 'id' in m) {
            const reply = answer(m, requests++);
            if (reply !== undefined) queueMicrotask(() => transport.onmessage?.(parseMessage(JSON.stringify({ jsonrpc: '2.0', id: m.id, ...reply }))));
          }
          return Promise.resolve();
        },
        close() {
          transport.onclose?.();
          return Promise.resolve();
        },
        setProtocol: (p) => void protocols.push(p),
      };
      return Promise.resolve(transport);
    },
  };
  return { connector, sent, protocols, methods: () => sent.map((m) => ('method' in m ? m.method : 'response')) };
}

const DISCOVERED = { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, serverInfo: { name: 'top-level', version: '1' } };
const INITIALIZED = (protocolVersion: string) => ({ result: { protocolVersion, capabilities: {}, serverInfo: { name: 'legacy', version: '1' } } });
const connect = (connector: ClientConnector, options: Partial<McpClientOptions> = {}) =>
  McpClient.connect({ connector, logger: silent, verdictStore: new InMemoryEraVerdictStore(), probeTimeoutMs: 50, ...options });

describe('the probe', () => {
  it('-32022 listing the very revision sent is retried once at it, then the client is modern (auto and pin)', async () => {
    for (const pin of [undefined, '2026-07-28'] as const) {
      const server = scripted((request, i) =>
        i === 0 ? { error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'], requested: '' } } } : request.method === 'server/discover' ? { result: DISCOVERED } : { result: { tools: [] } },
      );
      const client = await connect(server.connector, pin === undefined ? {} : { pin });
      expect([client.era, client.protocolVersion, client.serverInfo]).toEqual(['modern', '2026-07-28', { name: 'top-level', version: '1' }]);
      await client.listTools();
      expect(server.methods()).toEqual(['server/discover', 'server/discover', 'tools/list']);
      expect((server.sent[2] as unknown as { params: { _meta: Record<string, unknown> } }).params._meta[PV]).toBe('2026-07-28');
      await client.close();
    }
  });

  it('a second refusal is a NegotiationError naming what the server serves', async () => {
    const server = scripted(() => ({ error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'], requested: '2026-07-28' } } }));
    const error = await connect(server.connector).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NegotiationError);
    expect(error).toMatchObject({ code: 'negotiation_failed', supported: ['2026-07-28'] });
    expect(server.methods()).toEqual(['server/discover', 'server/discover']);
  });

  it.each([
    ['-32601', { error: { code: -32601, message: 'Method not found' } }],
    ['-32602', { error: { code: -32602, message: 'Invalid params' } }],
    ['-32000 before initialize', { error: { code: -32000, message: 'Not initialized' } }],
    ['an empty result', { result: {} }],
  ] as const)('a legacy server answering the probe with %s gets initialize (fallback not keyed to one code)', async (_name, probeAnswer) => {
    const server = scripted((request) => (request.method === 'server/discover' ? probeAnswer : request.method === 'initialize' ? INITIALIZED('2025-11-25') : { result: {} }));
    const client = await connect(server.connector);
    expect([client.era, client.protocolVersion]).toEqual(['legacy', '2025-11-25']);
    expect(server.methods()).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
    expect(server.protocols).toEqual([{ era: 'legacy', revision: '2025-11-25' }]);
    await client.close();
  });

  it('era: modern refuses a legacy server with a NegotiationError', async () => {
    const server = scripted(() => ({ error: { code: -32601, message: 'Method not found' } }));
    await expect(connect(server.connector, { era: 'modern' })).rejects.toBeInstanceOf(NegotiationError);
  });
});

describe('initialize', () => {
  it('a counter-offer the client speaks is accepted; one it does not is a NegotiationError', async () => {
    const older = scripted((request) => (request.method === 'initialize' ? INITIALIZED('2025-03-26') : { result: {} }));
    const client = await connect(older.connector, { era: 'legacy' });
    expect(client.protocolVersion).toBe('2025-03-26');
    await client.close();
    const alien = scripted((request) => (request.method === 'initialize' ? INITIALIZED('1999-01-01') : { result: {} }));
    const error = await connect(alien.connector, { era: 'legacy' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NegotiationError);
    expect((error as Error).message).toBe('Protocol negotiation failed: the server answered "initialize" with revision "1999-01-01", which this client does not speak (the server serves "1999-01-01")');
  });

  it('a pin refused by a counter-offer is a NegotiationError', async () => {
    const server = scripted((request) => (request.method === 'initialize' ? INITIALIZED('2025-11-25') : { result: {} }));
    await expect(connect(server.connector, { pin: '2025-06-18' })).rejects.toBeInstanceOf(NegotiationError);
  });

  it('only a client that let the server choose stores its verdict: one held to the legacy era does not steer the next', async () => {
    // A dual-era server: both eras answered.
    const server = scripted((request) =>
      request.method === 'server/discover' ? { result: DISCOVERED } : request.method === 'initialize' ? INITIALIZED('2025-11-25') : { result: {} },
    );
    const verdictStore = new InMemoryEraVerdictStore();
    const held = await connect(server.connector, { era: 'legacy', verdictStore });
    expect(held.era).toBe('legacy');
    await held.close();
    expect(verdictStore.get(server.connector.verdictKey)).toBeUndefined();
    const chooser = await connect(server.connector, { verdictStore });
    expect(chooser.era).toBe('modern');
    await chooser.close();
    expect(verdictStore.get(server.connector.verdictKey)).toMatchObject({ era: 'modern', revision: '2026-07-28' });
  });

  it('a modern-only server answering initialize with -32022 listing 2026-07-28 makes the client modern', async () => {
    const server = scripted((request) =>
      request.method === 'initialize' ? { error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'], requested: '2025-11-25' } } } : { result: DISCOVERED },
    );
    const client = await connect(server.connector, { era: 'auto', verdictStore: new InMemoryEraVerdictStore() , pin: undefined });
    expect(client.era).toBe('modern');
    await client.close();
    const viaInitialize = scripted((request) =>
      request.method === 'initialize' ? { error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'], requested: '2025-11-25' } } } : request.method === 'server/discover' ? { result: DISCOVERED } : { result: {} },
    );
    const store = new InMemoryEraVerdictStore();
    store.set(viaInitialize.connector.verdictKey, { era: 'legacy', revision: '2025-11-25', transport: 'stdio', at: 0 });
    const cached = await connect(viaInitialize.connector, { verdictStore: store });
    expect(cached.era).toBe('modern');
    expect(viaInitialize.methods()[0]).toBe('initialize');
    expect(store.get(viaInitialize.connector.verdictKey)).toMatchObject({ era: 'modern', revision: '2026-07-28' });
    await cached.close();
  });

  it('initialize is never cancelled: a timeout sends nothing more', async () => {
    const server = scripted(() => undefined);
    const error = await connect(server.connector, { era: 'legacy', timeoutMs: 30 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'request_timeout', method: 'initialize' });
    expect(server.methods()).toEqual(['initialize']);
  });
});

describe('the core seam', () => {
  it('send: onRequestId hears the id before the request is sent; meta is merged after the protocol fields; capabilities replace the client\'s for one request', async () => {
    const server = scripted((request) => (request.method === 'server/discover' ? { result: DISCOVERED } : { result: { ok: true } }));
    const client = await connect(server.connector);
    const ids: unknown[] = [];
    let sentBefore = -1;
    const result = await client.core.send('x/y', { a: 1 }, {
      onRequestId: (id) => {
        ids.push(id);
        sentBefore = server.sent.length;
      },
      meta: { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } }, extra: 1 },
    });
    expect(result).toEqual({ ok: true });
    expect(ids).toEqual([1]);
    expect(sentBefore).toBe(1);
    expect(server.sent[1]).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'x/y',
      params: {
        a: 1,
        _meta: {
          [PV]: '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
          'io.modelcontextprotocol/clientInfo': { name: 'switchboard-client', version: '0.1.0' },
          extra: 1,
          progressToken: 1,
        },
      },
    });
    await client.core.send('x/z', undefined, { capabilities: { elicitation: {} } });
    expect((server.sent[2] as unknown as { params: { _meta: Record<string, unknown> } }).params._meta['io.modelcontextprotocol/clientCapabilities']).toEqual({ elicitation: {} });
    await client.close();
  });
});
