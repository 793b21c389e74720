/**
 * Test helpers: a raw JSON-RPC client wired to an {@link McpServer} in memory, for tests that need to see the
 * exact wire messages (ids, error codes, what is NOT sent), and {@link inMemoryConnector}, which gives an
 * `McpClient` the same server.
 */
import {
  createMemoryTransportPair,
  type Inbound,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcResponse,
  type Transport,
  type TransportMessageExtra,
  type TransportSendOptions,
} from '@switchboard/jsonrpc';
import type { ConnectionEndFacts } from '../protocol/clientErrors.js';
import type { ClientConnector, ClientConnectorOpenOptions, ClientProtocol, ClientTransport } from '../protocol/transport.js';
import type { McpServer } from '../server/mcpServer.js';
import type { ServerSession } from '../server/types.js';
import type { ConnectOptions } from '../server/options.js';

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

/** Options of {@link inMemoryConnector}. */
export interface InMemoryConnectorOptions {
  /** Passed to `server.connect` for every channel opened. @default none */
  readonly connect?: ConnectOptions;
  /**
   * Sees every message crossing the channel, as sent: `'toServer'` what the client sent, `'toClient'` what the
   * server sent. @default none
   */
  readonly tap?: (direction: 'toServer' | 'toClient', message: JsonRpcMessage | readonly JsonRpcMessage[]) => void;
  /** The key of the era verdict. @default a fresh `memory:<n>` per connector, so tests never share verdicts */
  readonly verdictKey?: string;
}

/** A {@link ClientConnector} over in-memory channels, with what a test wants to see. */
export interface InMemoryConnector extends ClientConnector {
  /** The server side of every channel opened so far, oldest first. */
  readonly sessions: readonly ServerSession[];
  /** The protocol the client fixed on each channel, in order (`setProtocol` calls). */
  readonly protocols: readonly ClientProtocol[];
  /**
   * Ends the newest channel as a dying server would (the client sees its transport close), with these end facts.
   */
  drop(facts?: ConnectionEndFacts): Promise<void>;
}

let memoryConnectors = 0;

/** The client side of one in-memory channel. */
class MemoryClientTransport implements ClientTransport {
  readonly kind = 'stdio' as const;
  onmessage?: ((message: Inbound, extra?: TransportMessageExtra) => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onclose?: (() => void) | undefined;
  endFacts: ConnectionEndFacts | undefined = undefined;
  readonly #inner: Transport;
  readonly #tap: InMemoryConnectorOptions['tap'];
  readonly #protocols: ClientProtocol[];

  constructor(inner: Transport, tap: InMemoryConnectorOptions['tap'], protocols: ClientProtocol[]) {
    this.#inner = inner;
    this.#tap = tap;
    this.#protocols = protocols;
    inner.onmessage = (message, extra) => {
      if (tap !== undefined) tap('toClient', message.kind === 'batch' ? message.items.map((i) => (i.kind === 'invalid' ? i.reply : i.message)) : message.kind === 'invalid' ? message.reply : message.message);
      this.onmessage?.(message, extra);
    };
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => {
      this.endFacts ??= { reason: 'the in-memory channel closed' };
      this.onclose?.();
    };
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  send(message: JsonRpcMessage | readonly JsonRpcMessage[], options?: TransportSendOptions): Promise<void> {
    this.#tap?.('toServer', message);
    return this.#inner.send(message, options);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  setProtocol(protocol: ClientProtocol): void {
    this.#protocols.push(protocol);
  }

  /** Ends the channel with `facts`, as a dying server would. */
  drop(facts: ConnectionEndFacts): Promise<void> {
    this.endFacts = facts;
    return this.#inner.close();
  }
}

/**
 * A {@link ClientConnector} whose every `open()` connects a fresh in-memory channel to `server` (kind `'stdio'`:
 * one ordered channel, like a process). For tests of `McpClient` against a real `McpServer`.
 * @example
 * const client = await McpClient.connect({ connector: inMemoryConnector(server) });
 */
export function inMemoryConnector(server: McpServer, options: InMemoryConnectorOptions = {}): InMemoryConnector {
  const sessions: ServerSession[] = [];
  const protocols: ClientProtocol[] = [];
  const transports: MemoryClientTransport[] = [];
  const verdictKey = options.verdictKey ?? `memory:${++memoryConnectors}`;
  return {
    kind: 'stdio',
    verdictKey,
    sessions,
    protocols,
    async open(_open: ClientConnectorOpenOptions): Promise<ClientTransport> {
      const [clientSide, serverSide] = createMemoryTransportPair();
      const transport = new MemoryClientTransport(clientSide, options.tap, protocols);
      sessions.push(await server.connect(serverSide, options.connect));
      transports.push(transport);
      return transport;
    },
    async drop(facts = { reason: 'the server went away' }) {
      await transports.at(-1)?.drop(facts);
    },
  };
}

export { describeStoreConformance, storeConformanceChecks, type ConformanceFramework } from './stores/storeConformance.js';
export {
  StoreConformanceError,
  type ConformanceEventStoreLimits,
  type ConformanceFactory,
  type ConformanceOpen,
  type ConformanceTaskStoreLimits,
  type StoreCheck,
  type StoreConformanceSubjects,
  type StoreKind,
} from './stores/conformanceKit.js';
