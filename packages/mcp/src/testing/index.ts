/**
 * Test helpers: a raw JSON-RPC client wired to an {@link McpServer} in memory, for tests that need to see the
 * exact wire messages (ids, error codes, what is NOT sent).
 */
import {
  createMemoryTransportPair,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcResponse,
  type Transport,
} from '@switchboard/jsonrpc';
import type { McpServer } from '../server/mcpServer.js';
import type { ConnectOptions, ServerSession } from '../server/types.js';

/** A scripted client speaking raw JSON-RPC to a server. */
export interface RawClient {
  /** The server side of the connection. */
  readonly session: ServerSession;
  /** The client side transport. */
  readonly transport: Transport;
  /** Every message received so far, in order. */
  readonly received: readonly JsonRpcMessage[];
  /** Sends any value as one message (it may be invalid on purpose). */
  send(message: unknown): Promise<void>;
  /**
   * Waits for the first received message (already received ones included) that `match` accepts.
   * @throws Error after `timeoutMs` (default 2000)
   */
  waitFor(match: (message: JsonRpcMessage) => boolean, timeoutMs?: number): Promise<JsonRpcMessage>;
  /** Sends a request with `id` and waits for the response carrying that id (compared with `===`). */
  request(id: JsonRpcId, method: string, params?: unknown): Promise<JsonRpcResponse>;
  /** Runs the legacy handshake: `initialize` (revision default 2025-11-25), then `notifications/initialized`. */
  initialize(options?: { protocolVersion?: string; capabilities?: Record<string, unknown> }): Promise<JsonRpcResponse>;
  close(): Promise<void>;
}

/** Connects a {@link RawClient} to `server` over an in-memory transport pair. */
export async function connectRawClient(server: McpServer, options?: ConnectOptions): Promise<RawClient> {
  const [clientSide, serverSide] = createMemoryTransportPair();
  const received: JsonRpcMessage[] = [];
  const waiters = new Set<() => void>();
  clientSide.onmessage = (inbound) => {
    if (inbound.kind === 'batch') {
      for (const item of inbound.items) if (item.kind !== 'invalid') received.push(item.message);
    } else if (inbound.kind === 'invalid') {
      received.push(inbound.reply);
    } else {
      received.push(inbound.message);
    }
    for (const w of [...waiters]) w();
  };
  const session = await server.connect(serverSide, options);
  await clientSide.start();
  const waitFor = (match: (m: JsonRpcMessage) => boolean, timeoutMs = 2000): Promise<JsonRpcMessage> =>
    new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = received.find(match);
        if (found === undefined) return false;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`No matching message within ${timeoutMs} ms; received: ${JSON.stringify(received)}`));
      }, timeoutMs);
      if (!check()) waiters.add(check);
    });
  const client: RawClient = {
    session,
    transport: clientSide,
    received,
    send: (message) => clientSide.send(message as JsonRpcMessage),
    waitFor,
    async request(id, method, params) {
      await clientSide.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) } as JsonRpcMessage);
      return (await waitFor((m) => 'id' in m && m.id === id && !('method' in m))) as JsonRpcResponse;
    },
    async initialize(opts = {}) {
      const response = await client.request('init', 'initialize', {
        protocolVersion: opts.protocolVersion ?? '2025-11-25',
        capabilities: opts.capabilities ?? {},
        clientInfo: { name: 'raw-client', version: '0' },
      });
      await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      return response;
    },
    close: () => clientSide.close(),
  };
  return client;
}
