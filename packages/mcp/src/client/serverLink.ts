/**
 * The client's link to its server across connections: the current {@link ClientConnection} and what negotiation
 * found, and reconnection. A connection that ended (the process died, the stream closed) is replaced on the next
 * call: the connector opens a fresh channel and the era is negotiated again (a cached verdict makes that one
 * `initialize` or `server/discover`). A request answered with {@link SessionExpiredError} (Streamable HTTP: 404 for
 * the session) re-initializes once and is sent once more; a second expiry is thrown, never looped on (MCP 2025-11-25
 * basic/transports.mdx "Session Management": start a new session with a new `initialize`).
 */
import type { JsonRpcNotification, Logger } from '@switchboard/jsonrpc';
import { ConnectionClosedError, SessionExpiredError, SpawnError } from '../protocol/clientErrors.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../protocol/types.js';
import { ClientConnection } from './connection.js';
import type { CoreSendOptions, InputQuestion } from './clientCore.js';
import { NegotiationError } from './errors.js';
import { negotiate, type Negotiated } from './negotiation.js';
import { DEFAULT_CLIENT_TIMEOUT_MS, DEFAULT_PROBE_TIMEOUT_MS, defaultMaxTotalTimeoutMs, DEFAULT_RECONNECT_ATTEMPTS, type InputContext, type McpClientOptions } from './options.js';
import { processVerdictStore } from './verdicts.js';

/** What a {@link ServerLink} is made with. */
export interface LinkSetup {
  readonly options: McpClientOptions;
  readonly logger: Logger;
  readonly clientInfo: Implementation;
  readonly capabilities: ClientCapabilities;
  readonly answer: (question: InputQuestion, ctx: InputContext) => Promise<unknown>;
  /** See `ConnectionSetup.onNotification`. */
  readonly onNotification: (notification: JsonRpcNotification, requestTag: unknown) => void;
}

type Params = Record<string, unknown>;

/**
 * Failures after which trying again cannot help: the process could not be started or exited before answering
 * (spawning it again would fail the same way), or no revision in common.
 */
function final(error: unknown): boolean {
  return error instanceof SpawnError || error instanceof NegotiationError;
}

/** See the module comment. */
export class ServerLink {
  readonly #setup: LinkSetup;
  readonly #maxAttempts: number;
  #connection!: ClientConnection;
  #negotiated!: Negotiated;
  #reconnecting: Promise<ClientConnection> | undefined = undefined;
  #closed = false;
  #logLevel: LoggingLevel | undefined = undefined;

  private constructor(setup: LinkSetup) {
    this.#setup = setup;
    const reconnect = setup.options.reconnect;
    this.#maxAttempts = reconnect === false ? 0 : (reconnect?.maxAttempts ?? DEFAULT_RECONNECT_ATTEMPTS);
  }

  /**
   * Opens the first connection and negotiates.
   * @throws what {@link negotiate} throws; RangeError when `reconnect.maxAttempts` is not a non-negative integer
   */
  static async open(setup: LinkSetup): Promise<ServerLink> {
    const link = new ServerLink(setup);
    if (!Number.isSafeInteger(link.#maxAttempts) || link.#maxAttempts < 0) {
      throw new RangeError(`Invalid reconnect.maxAttempts: expected a non-negative integer, got ${String(link.#maxAttempts)}`);
    }
    await link.#negotiate();
    return link;
  }

  /** What the current connection's negotiation found. */
  get negotiated(): Negotiated {
    return this.#negotiated;
  }

  /** The current connection (it may have ended; the next call replaces it). */
  get connection(): ClientConnection {
    return this.#connection;
  }

  /** Modern era: the `logLevel` every request carries from now on, on this connection and the next ones. */
  set logLevel(level: LoggingLevel) {
    this.#logLevel = level;
    this.#connection.logLevel = level;
  }

  /**
   * One request on the current connection, replacing it first when it ended (unless `reconnect: false`).
   * @throws the typed errors of {@link ClientConnection.request}; ConnectionClosedError after `close()`
   */
  send<T>(method: string, params: Params | undefined, options: CoreSendOptions): Promise<T> {
    if (this.#closed) return Promise.reject(this.#closedError());
    const connection = this.#connection;
    if (connection.closed) return this.#replace(connection).then((next) => this.#sendOn<T>(next, { method, params, options, retry: true }));
    return this.#sendOn<T>(connection, { method, params, options, retry: true });
  }

  /** One notification on the current connection (replaced first when it ended). @throws ConnectionClosedError */
  async notify(method: string, params?: Params): Promise<void> {
    if (this.#closed) throw this.#closedError();
    const connection = this.#connection.closed ? await this.#replace(this.#connection) : this.#connection;
    await connection.notify(method, params);
  }

  /** Closes the current connection; later calls fail with ConnectionClosedError. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#reconnecting?.catch(() => undefined);
    await this.#connection.close();
  }

  #sendOn<T>(connection: ClientConnection, call: { readonly method: string; readonly params: Params | undefined; readonly options: CoreSendOptions; readonly retry: boolean }): Promise<T> {
    const { method, params, options } = call;
    const client = this.#setup.options;
    const timeoutMs = options.timeoutMs ?? client.timeoutMs ?? DEFAULT_CLIENT_TIMEOUT_MS;
    // MCP 2025-11-25 basic/lifecycle.mdx "Timeouts": progress may reset the timeout, but implementations SHOULD
    // always enforce a maximum timeout regardless of progress. On by default: 10 × the idle budget.
    const maxTotalTimeoutMs = options.maxTotalTimeoutMs ?? client.maxTotalTimeoutMs ?? defaultMaxTotalTimeoutMs(timeoutMs);
    const sent = connection.request<T>({ method, params, timeoutMs, maxTotalTimeoutMs }, options);
    // Only a Streamable HTTP session expires; other requests skip the extra promise.
    if (!call.retry || this.#maxAttempts === 0 || connection.transport.kind !== 'streamable-http') return sent;
    return sent.catch((error: unknown) => {
      if (!(error instanceof SessionExpiredError) || this.#closed) throw error;
      this.#setup.logger.info('Session expired: initializing a new session and sending the request once more', { method, sessionId: error.sessionId });
      return this.#replace(connection).then((next) => this.#sendOn<T>(next, { ...call, retry: false }));
    });
  }

  /** The connection that replaces `stale` (one reconnection at a time; callers waiting on the same one share it). */
  #replace(stale: ClientConnection): Promise<ClientConnection> {
    if (this.#connection !== stale && !this.#connection.closed) return Promise.resolve(this.#connection);
    if (this.#maxAttempts === 0) return Promise.reject(new ConnectionClosedError({ ...stale.transport.endFacts, what: 'reconnect is off' }));
    this.#reconnecting ??= this.#reconnect(stale).finally(() => {
      this.#reconnecting = undefined;
    });
    return this.#reconnecting;
  }

  async #reconnect(stale: ClientConnection): Promise<ClientConnection> {
    await stale.close();
    let failure: unknown;
    for (let attempt = 1; attempt <= this.#maxAttempts; attempt++) {
      if (this.#closed) throw this.#closedError();
      try {
        this.#setup.logger.info('Reconnecting to the MCP server', { attempt, of: this.#maxAttempts, ...stale.transport.endFacts });
        await this.#negotiate();
        return this.#connection;
      } catch (error) {
        failure = error;
        if (final(error)) break;
      }
    }
    throw failure;
  }

  async #negotiate(): Promise<void> {
    const { options, logger } = this.#setup;
    const { connection, negotiated } = await negotiate({
      connector: options.connector,
      open: (how) => this.#open(how.httpSse),
      era: options.era ?? 'auto',
      pin: options.pin,
      verdictStore: options.verdictStore ?? processVerdictStore,
      probeTimeoutMs: options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS,
      timeoutMs: options.timeoutMs ?? DEFAULT_CLIENT_TIMEOUT_MS,
      capabilities: this.#setup.capabilities,
      clientInfo: this.#setup.clientInfo,
      logger,
    });
    if (this.#closed) {
      await connection.close();
      throw this.#closedError();
    }
    if (this.#logLevel !== undefined) connection.logLevel = this.#logLevel;
    this.#connection = connection;
    this.#negotiated = negotiated;
  }

  /** Opens and starts a fresh connection. */
  async #open(httpSse: boolean): Promise<ClientConnection> {
    const setup = this.#setup;
    const connector = setup.options.connector;
    const transport = httpSse && connector.openHttpSse !== undefined ? await connector.openHttpSse({ logger: setup.logger }) : await connector.open({ logger: setup.logger });
    const connection = new ClientConnection({
      transport,
      logger: setup.logger,
      clientInfo: setup.clientInfo,
      capabilities: setup.capabilities,
      answer: setup.answer,
      onNotification: setup.onNotification,
      instrumentation: setup.options.instrumentation,
    });
    try {
      await connection.start();
    } catch (error) {
      await connection.close();
      throw error;
    }
    return connection;
  }

  #closedError(): ConnectionClosedError {
    return new ConnectionClosedError({ what: 'the client was closed' });
  }
}
