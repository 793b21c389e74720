/**
 * Reconnection: a connection that ended is replaced on the next call (a fresh channel, negotiated again from the
 * cached verdict), and a request answered with SessionExpiredError re-initializes once and is sent once more.
 */
import { describe, expect, it } from 'vitest';
import { parseMessage, type JsonRpcMessage, type Logger } from '@switchboard/jsonrpc';
import { ConnectionClosedError, SessionExpiredError, SpawnError } from '../protocol/clientErrors.js';
import type { ClientConnector, ClientTransport } from '../protocol/transport.js';
import { McpServer } from '../server/mcpServer.js';
import { inMemoryConnector } from '../testing/index.js';
import { McpClient } from './mcpClient.js';
import { InMemoryEraVerdictStore } from './verdicts.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

function makeServer(): McpServer {
  const server = new McpServer({ name: 'restartable', version: '1' }, { logger: silent });
  server.tool('echo', {}, (args: Record<string, unknown>) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }));
  return server;
}

describe.each(['legacy', 'modern'] as const)('a connection that ended (%s era)', (era) => {
  it('is replaced on the next call: a new channel, negotiated from the cached verdict, the same log level', async () => {
    const server = makeServer();
    const sent: string[] = [];
    const connector = inMemoryConnector(server, { tap: (dir, m) => void (dir === 'toServer' && !Array.isArray(m) && 'method' in m && sent.push(m.method)) });
    const client = await McpClient.connect({ connector, era, logger: silent, verdictStore: new InMemoryEraVerdictStore() });
    if (era === 'modern') await client.setLoggingLevel('error');
    await connector.drop({ reason: 'the process exited', exitCode: 137 });
    sent.length = 0;
    await expect(client.callTool({ name: 'echo', arguments: { n: 1 } })).resolves.toMatchObject({ content: [{ type: 'text', text: '{"n":1}' }] });
    expect(connector.sessions).toHaveLength(2);
    expect(sent).toEqual(era === 'legacy' ? ['initialize', 'notifications/initialized', 'tools/call'] : ['server/discover', 'tools/call']);
    expect(client.era).toBe(era);
    await client.close();
  });

  it('reconnect: false fails the next call with ConnectionClosedError carrying the end facts', async () => {
    const connector = inMemoryConnector(makeServer());
    const client = await McpClient.connect({ connector, era, logger: silent, verdictStore: new InMemoryEraVerdictStore(), reconnect: false });
    await connector.drop({ reason: 'the process exited', exitCode: 3, stderrTail: ['fatal: out of memory'] });
    const error = await client.callTool({ name: 'echo' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error).toMatchObject({ exitCode: 3, stderrTail: ['fatal: out of memory'] });
    expect(connector.sessions).toHaveLength(1);
    await client.close();
  });
});

describe('reconnection limits', () => {
  it('gives up after maxAttempts failed opens, and a process that cannot start is not tried again', async () => {
    const server = makeServer();
    const base = inMemoryConnector(server);
    let opens = 0;
    let failWith: Error | undefined;
    const connector: ClientConnector = {
      kind: 'stdio',
      verdictKey: base.verdictKey,
      open(o) {
        opens++;
        return failWith === undefined ? base.open(o) : Promise.reject(failWith);
      },
    };
    const client = await McpClient.connect({ connector, era: 'legacy', logger: silent, verdictStore: new InMemoryEraVerdictStore(), reconnect: { maxAttempts: 2 } });
    await base.drop();
    failWith = new ConnectionClosedError({ reason: 'the server is restarting' });
    opens = 0;
    await expect(client.listTools()).rejects.toBe(failWith);
    expect(opens).toBe(2);
    failWith = new SpawnError({ command: 'srv', failure: 'exited', exitCode: 1 });
    opens = 0;
    await expect(client.listTools()).rejects.toBe(failWith);
    expect(opens).toBe(1);
    failWith = undefined;
    await expect(client.listTools()).resolves.toMatchObject({ tools: [{ name: 'echo' }] });
    await client.close();
  });
});

describe('an expired Streamable HTTP session', () => {
  /** A legacy HTTP server in miniature: every `initialize` opens session `s<n>`; `expire()` forgets the current one. */
  function httpLike() {
    let session = 0;
    let live = true;
    const sent: JsonRpcMessage[] = [];
    const connector: ClientConnector = {
      kind: 'streamable-http',
      verdictKey: `http:${Math.random()}`,
      open() {
        let mine: number | undefined;
        const transport: ClientTransport = {
          kind: 'streamable-http',
          start: () => Promise.resolve(),
          send(message) {
            const m = JSON.parse(JSON.stringify(message)) as JsonRpcMessage;
            sent.push(m);
            if (!('method' in m)) return Promise.resolve();
            if (m.method === 'initialize') {
              mine = ++session;
              live = true;
            } else if (!live) {
              return Promise.reject(new SessionExpiredError(`s${mine}`));
            }
            if ('id' in m) {
              const result = m.method === 'initialize' ? { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'h', version: '1' } } : { content: [{ type: 'text', text: `s${mine}` }] };
              queueMicrotask(() => transport.onmessage?.(parseMessage(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }))));
            }
            return Promise.resolve();
          },
          close() {
            transport.onclose?.();
            return Promise.resolve();
          },
          setProtocol() {},
        };
        return Promise.resolve(transport);
      },
    };
    return { connector, sent, expire: () => void (live = false) };
  }

  it('re-initializes once and sends the request once more on the new session', async () => {
    const http = httpLike();
    const client = await McpClient.connect({ connector: http.connector, era: 'legacy', logger: silent, verdictStore: new InMemoryEraVerdictStore() });
    http.expire();
    await expect(client.callTool({ name: 'x' })).resolves.toMatchObject({ content: [{ type: 'text', text: 's2' }] });
    expect(http.sent.map((m) => ('method' in m ? m.method : 'response'))).toEqual(['initialize', 'notifications/initialized', 'tools/call', 'initialize', 'notifications/initialized', 'tools/call']);
    await client.close();
  });

  it('a second expiry of the retried request is thrown, not looped on', async () => {
    const http = httpLike();
    const client = await McpClient.connect({ connector: http.connector, era: 'legacy', logger: silent, verdictStore: new InMemoryEraVerdictStore() });
    // Every session expires at once: the fresh initialize succeeds, the retry fails again.
    const original = http.connector.open.bind(http.connector);
    http.connector.open = async (o) => {
      const transport = await original(o);
      const send = transport.send.bind(transport);
      transport.send = (message, options) => {
        const method = (message as { method?: string }).method;
        return method === 'tools/call' ? Promise.reject(new SessionExpiredError('again')) : send(message, options);
      };
      return transport;
    };
    http.expire();
    await expect(client.callTool({ name: 'x' })).rejects.toMatchObject({ constructor: SessionExpiredError, sessionId: 'again' });
    expect(http.sent.filter((m) => 'method' in m && m.method === 'initialize')).toHaveLength(2);
    await client.close();
  });
});
