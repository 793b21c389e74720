/**
 * The seam between the client facade and the parts that drive 2026-07-28 features on top of single requests (the
 * multi round-trip loop, the response cache, listen streams, tasks). They see the client only through
 * {@link ClientCore}: one wire request at a time, the callbacks, the notifications.
 */
import type { JsonRpcId, JsonRpcNotification, Logger } from '@switchboard/jsonrpc';
import type { Era, ProtocolRevision } from '../protocol/revisions.js';
import type { ClientCapabilities } from '../protocol/types.js';
import type { InputContext, McpClientOptions, RequestOptions } from './options.js';

/** An input request as a modern server embeds it in `inputRequests`, or a live server → client request's method and params. */
export interface InputQuestion {
  /** `elicitation/create`, `sampling/createMessage` or `roots/list`. */
  readonly method: string;
  readonly params?: unknown;
}

/** The options of {@link ClientCore.send}: a call's {@link RequestOptions} and what the modern-era parts need besides. */
export interface CoreSendOptions extends RequestOptions {
  /**
   * Told the request's JSON-RPC id once it is picked, before the request is sent (a listen stream's notifications
   * carry it as `subscriptionId`). @default none
   */
  readonly onRequestId?: (id: JsonRpcId) => void;
  /**
   * Modern era: the capabilities this one request declares in `_meta` instead of the client's (the tasks extension
   * on `tools/call` and `tasks/*` only). `meta` may still replace them. @default the client's capabilities
   */
  readonly capabilities?: ClientCapabilities;
}

/** Listener of every server notification the connection receives, in arrival order. */
export type NotificationListener = (notification: JsonRpcNotification) => void;

/** What the client facade offers the modern-era parts (`inputRounds.ts`, `responseCache.ts`, `listen.ts`, `tasks.ts`). */
export interface ClientCore {
  /** The negotiated era. */
  readonly era: Era;
  /** The negotiated revision. */
  readonly revision: ProtocolRevision;
  readonly logger: Logger;
  /** The options the client was made with. */
  readonly options: McpClientOptions;
  /**
   * One wire request: the envelope applied (modern `_meta`, progress token), the timeouts and cancellation of
   * {@link RequestOptions} (`timeoutMs: Infinity`: no idle timeout), failures as typed errors. `options.meta` is merged
   * after the protocol fields of `_meta` (it may replace `clientCapabilities` for this request). No input loop, no cache, no `resultType` check: the result
   * is returned as received.
   * @throws RequestTimeoutError, RequestAbortedError, ConnectionClosedError, HttpStatusError, SessionExpiredError
   *   (local); McpError and its subclasses (the server's error response)
   */
  send<T>(method: string, params: Record<string, unknown> | undefined, options?: CoreSendOptions): Promise<T>;
  /**
   * Answers one question with the application's callback (`onElicitation`, `onSampling`, `onListRoots`), the same
   * one that answers live server → client requests on a session.
   * @throws McpError -32601 when no callback was given for the method; whatever the callback throws
   */
  answerInput(question: InputQuestion, ctx: InputContext): Promise<unknown>;
  /** Calls `listener` with every server notification from now on; returns the function that stops it. */
  onNotification(listener: NotificationListener): () => void;
}

/** The {@link ClientCore} of one client: its era and revision read live (they change when it reconnects). */
export class ClientCoreView implements ClientCore {
  readonly #facts: { readonly era: () => Era; readonly revision: () => ProtocolRevision };
  readonly logger: Logger;
  readonly options: McpClientOptions;
  readonly send: ClientCore['send'];
  readonly answerInput: ClientCore['answerInput'];
  readonly onNotification: ClientCore['onNotification'];

  constructor(parts: Pick<ClientCore, 'logger' | 'options' | 'send' | 'answerInput' | 'onNotification'> & { readonly era: () => Era; readonly revision: () => ProtocolRevision }) {
    this.#facts = parts;
    this.logger = parts.logger;
    this.options = parts.options;
    this.send = parts.send;
    this.answerInput = parts.answerInput;
    this.onNotification = parts.onNotification;
  }

  get era(): Era {
    return this.#facts.era();
  }

  get revision(): ProtocolRevision {
    return this.#facts.revision();
  }
}
