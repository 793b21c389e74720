/**
 * The legacy-era sessions `switchboard dev --port` holds across reloads. A host opens a session once (MCP 2025-11-25
 * basic/lifecycle.mdx "Initialization") and many never open another one: the official SDK v1 client answers a 404
 * with `-32001 Session not found` for ever. So a session the host opened lives in this process, not in a
 * generation: the host keeps the session id it was given (the first generation's), and each generation gets its own
 * session for it, opened by replaying the host's `initialize` request and `notifications/initialized` to it the
 * first time the host's session reaches it (the same handover `dev` does on stdio). Every request of the host is
 * sent with that generation's session id and every answer comes back with the host's.
 *
 * The host's standalone stream (its `GET`, MCP 2025-11-25 basic/transports.mdx "Listening for Messages from the
 * Server") is held here too: it stays open across reloads, fed by a `GET` to the current generation, and after a
 * reload it carries `notifications/tools/list_changed` (and those of prompts and resources) for each list whose
 * capability the server declared with `listChanged` (basic/../server/tools.mdx "List Changed Notification"). A
 * modern (2026-07-28) `subscriptions/listen` stream that opted in to a list hears the same (MCP 2026-07-28
 * basic/patterns/subscriptions.mdx), then ends with its generation; its client listens again.
 */
import { request as httpRequest, type Agent, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { EventSplitter, sseMessage, type JsonRpcLike } from './sseEvents.js';

/** A generation as the forwarder sees it. */
export interface Upstream {
  readonly url: string;
  readonly number: number;
}

/** Most sessions held at once; past it the longest-held one is forgotten (its host then gets 404). */
export const MAX_HELD_SESSIONS = 1000;

/** The most of an answer read to learn a session id or capabilities, in bytes (an `initialize` result is small). */
export const MAX_CAPTURED_BYTES = 256 * 1024;

/**
 * The `initialize` requests of all held sessions together, at most, in bytes (each is kept to be replayed); past
 * it the longest-held sessions are forgotten. One larger than {@link MAX_CAPTURED_BYTES} is not held.
 */
export const MAX_HELD_BYTES = 16 * 1024 * 1024;

/** How long replaying a session to a new generation may take, in ms. */
export const SESSION_REPLAY_TIMEOUT_MS = 10_000;

/** The `_meta` key that tags a listen stream's notifications with its request id (MCP 2026-07-28 basic/patterns/subscriptions.mdx). */
const SUBSCRIPTION_ID_META_KEY = 'io.modelcontextprotocol/subscriptionId';

const LISTS = ['tools', 'prompts', 'resources'] as const;
type List = (typeof LISTS)[number];
const LISTEN_FLAG: Record<List, string> = { tools: 'toolsListChanged', prompts: 'promptsListChanged', resources: 'resourcesListChanged' };

/** One legacy session of a host. */
export interface HeldSession {
  /** The id the host uses (the first generation's). */
  readonly id: string;
  readonly initBody: Buffer;
  readonly initHeaders: OutgoingHttpHeaders;
  initialized: boolean;
  protocolVersion: string | undefined;
  /** The lists whose capability the server declared with `listChanged`. */
  lists: readonly List[];
  /** Generation number → its session id for this host session. */
  readonly children: Map<number, Promise<string>>;
  stream: HeldStream | undefined;
  /** `list_changed` events for a standalone stream not open at the reload: sent when it opens. */
  pending: string[];
}

interface HeldStream {
  readonly res: ServerResponse;
  readonly headers: OutgoingHttpHeaders;
  upstream: ClientRequest | undefined;
}

interface ListenStream {
  readonly res: ServerResponse;
  readonly id: string | number;
  lists: readonly List[];
  /** Cuts the request to the generation that serves it (after a reload: the stream then moves on). */
  cut: (() => void) | undefined;
}

/** What the forwarder does with a relayed `subscriptions/listen` stream. */
export interface ListenTap {
  /** Each message of the stream (the acknowledgement says which lists it hears of). */
  onMessage(message: JsonRpcLike): void;
  /** How to cut the stream's current request to its generation. */
  moveOn(cut: () => void): void;
}

/**
 * Reads an answer to its end, handing each chunk to `onChunk`; its text, or `undefined` when it is longer than
 * {@link MAX_CAPTURED_BYTES} (not kept) or was cut.
 */
export function readCapped(answer: IncomingMessage, onChunk?: (chunk: Buffer) => void): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    answer.on('data', (chunk: Buffer) => {
      onChunk?.(chunk);
      if (size + chunk.length <= MAX_CAPTURED_BYTES) chunks.push(chunk);
      size += chunk.length;
    });
    answer.once('end', () => resolve(size <= MAX_CAPTURED_BYTES ? Buffer.concat(chunks).toString('utf8') : undefined));
    answer.once('error', () => resolve(undefined));
  });
}

/** Sends one request to `target`; the answer or the error. */
export function sendTo(agent: Agent, target: Upstream, options: { readonly method: string; readonly path: string; readonly headers: OutgoingHttpHeaders; readonly body?: Buffer }): { readonly request: ClientRequest; readonly answer: Promise<IncomingMessage> } {
  const base = new URL(target.url);
  const request = httpRequest({ host: base.hostname, port: base.port, method: options.method, path: options.path, headers: options.headers, agent });
  const answer = new Promise<IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', reject);
  });
  // A request cut later (the host went, a listen stream moved on) ends its answer: that is handled there.
  request.on('error', () => undefined);
  request.end(options.body);
  return { request, answer };
}

/** The sessions held across generations; see the module comment. */
export class HeldSessions {
  readonly #sessions = new Map<string, HeldSession>();
  readonly #listens = new Set<ListenStream>();
  /** The bytes of the held sessions' `initialize` requests. */
  #heldBytes = 0;
  readonly #agent: Agent;
  readonly #upstream: () => Upstream | undefined;
  readonly #path: string;

  constructor(options: { readonly agent: Agent; readonly upstream: () => Upstream | undefined; readonly path: string }) {
    this.#agent = options.agent;
    this.#upstream = options.upstream;
    this.#path = options.path;
  }

  get(id: string): HeldSession | undefined {
    return this.#sessions.get(id);
  }

  /**
   * Holds a session `generation` just opened for the host with `id`, from the host's `initialize` (`body`, sent with
   * `headers`) and its `result` (the server's capabilities and the negotiated revision).
   */
  open(id: string, opened: { readonly generation: number; readonly body: Buffer; readonly headers: OutgoingHttpHeaders; readonly result: JsonRpcLike | undefined }): void {
    const { generation, body: initBody, headers: initHeaders, result } = opened;
    if (initBody.length > MAX_CAPTURED_BYTES) return;
    while (this.#sessions.size > 0 && (this.#sessions.size >= MAX_HELD_SESSIONS || this.#heldBytes + initBody.length > MAX_HELD_BYTES)) this.forget(this.#sessions.keys().next().value!);
    this.#heldBytes += initBody.length;
    const capabilities = (result?.result?.capabilities ?? {}) as Record<string, { listChanged?: unknown } | undefined>;
    const version = result?.result?.protocolVersion;
    this.#sessions.set(id, {
      id,
      initBody,
      initHeaders,
      initialized: false,
      protocolVersion: typeof version === 'string' ? version : undefined,
      lists: LISTS.filter((list) => capabilities[list]?.listChanged === true),
      children: new Map([[generation, Promise.resolve(id)]]),
      stream: undefined,
      pending: [],
    });
  }

  /** Forgets a session (the host deleted it, or its generation no longer knows it): its held stream ends. */
  forget(id: string): void {
    const session = this.#sessions.get(id);
    if (session === undefined) return;
    this.#sessions.delete(id);
    this.#heldBytes -= session.initBody.length;
    session.stream?.upstream?.destroy();
    session.stream?.res.end();
  }

  /**
   * The session id of `session` in `target`: replays the host's `initialize` (and `notifications/initialized`) there
   * the first time.
   * @throws Error (as a rejection) when the generation refuses the replay or does not answer in time
   */
  childId(session: HeldSession, target: Upstream): Promise<string> {
    let id = session.children.get(target.number);
    if (id === undefined) {
      id = this.#replay(session, target);
      session.children.set(target.number, id);
      id.catch(() => session.children.delete(target.number));
    }
    return id;
  }

  async #replay(session: HeldSession, target: Upstream): Promise<string> {
    const exchange = async (headers: OutgoingHttpHeaders, body: Buffer): Promise<IncomingMessage> => {
      const { request, answer } = sendTo(this.#agent, target, { method: 'POST', path: this.#path, headers: { ...headers, 'content-length': String(body.length) }, body });
      const timer = setTimeout(() => request.destroy(new Error(`no answer within ${SESSION_REPLAY_TIMEOUT_MS} ms`)), SESSION_REPLAY_TIMEOUT_MS);
      try {
        const response = await answer;
        await readCapped(response);
        return response;
      } finally {
        clearTimeout(timer);
      }
    };
    const opened = await exchange(session.initHeaders, session.initBody);
    const id = opened.headers['mcp-session-id'];
    if (opened.statusCode !== 200 || typeof id !== 'string') throw new Error(`generation ${target.number} refused the replayed initialize (HTTP ${opened.statusCode})`);
    if (session.initialized) {
      const headers: OutgoingHttpHeaders = { ...session.initHeaders, 'mcp-session-id': id, ...(session.protocolVersion === undefined ? {} : { 'mcp-protocol-version': session.protocolVersion }) };
      await exchange(headers, Buffer.from('{"jsonrpc":"2.0","method":"notifications/initialized"}'));
    }
    return id;
  }

  /**
   * Opens the host's standalone stream of `session`, held here: its first `GET` to the current generation decides
   * the answer (a refusal is relayed as it is); from then on it stays open until the host or the session goes.
   */
  async openStream(session: HeldSession, res: ServerResponse, headers: OutgoingHttpHeaders): Promise<void> {
    if (session.stream !== undefined) {
      // MCP 2025-11-25 basic/transports.mdx "Listening for Messages from the Server": one standalone stream.
      res.writeHead(409, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Conflict: this session already has a standalone stream open' } }));
      return;
    }
    const stream: HeldStream = { res, headers, upstream: undefined };
    session.stream = stream;
    res.once('close', () => {
      if (session.stream === stream) session.stream = undefined;
      stream.upstream?.destroy();
    });
    await this.#attach(session, stream, true);
  }

  /** Feeds `stream` from a `GET` to the current generation. */
  async #attach(session: HeldSession, stream: HeldStream, first: boolean): Promise<void> {
    const target = this.#upstream();
    let answer: IncomingMessage;
    let upstream: ClientRequest | undefined;
    try {
      if (target === undefined) throw new Error('no generation serves');
      const id = await this.childId(session, target);
      if (stream.res.destroyed || session.stream !== stream) return;
      const sent = sendTo(this.#agent, target, { method: 'GET', path: this.#path, headers: { ...stream.headers, 'mcp-session-id': id } });
      upstream = sent.request;
      stream.upstream = upstream;
      answer = await sent.answer;
    } catch {
      // The generation went away meanwhile: the next reload attaches the stream again.
      if (first) stream.res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '1' }).end('switchboard dev: the server is not running; save a file to start it again\n');
      return;
    }
    if (answer.statusCode !== 200) {
      answer.resume();
      if (first) stream.res.writeHead(answer.statusCode ?? 502, { 'content-type': answer.headers['content-type'] ?? 'text/plain' }).end();
      else stream.res.end();
      return;
    }
    if (first) {
      stream.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'mcp-session-id': session.id });
      stream.res.flushHeaders();
    }
    for (const event of session.pending.splice(0)) stream.res.write(event);
    const splitter = new EventSplitter();
    answer.setEncoding('utf8');
    answer.on('data', (chunk: string) => {
      for (const event of splitter.push(chunk, true)) stream.res.write(event.text);
      if (splitter.overflowed) stream.res.destroy();
    });
    answer.once('close', () => {
      // The generation ended the stream while it is still current: the session (or the server) is gone.
      if (stream.upstream === upstream && this.#upstream()?.number === target.number && session.stream === stream) stream.res.end();
    });
  }

  /**
   * A `subscriptions/listen` answer relayed from a generation: at each reload it hears of list changes, then its
   * request to the replaced generation is cut (which would otherwise hold that generation's drain open).
   */
  listen(res: ServerResponse, id: string | number): ListenTap {
    const listen: ListenStream = { res, id, lists: [], cut: undefined };
    this.#listens.add(listen);
    res.once('close', () => this.#listens.delete(listen));
    return {
      onMessage: (message) => {
        const honoured = message.params?.notifications as Record<string, unknown> | undefined;
        if (message.method === 'notifications/subscriptions/acknowledged' && honoured !== undefined) listen.lists = LISTS.filter((list) => honoured[LISTEN_FLAG[list]] === true);
      },
      moveOn: (cut) => {
        listen.cut = cut;
      },
    };
  }

  /** A new generation serves: held streams move to it and every host hears that its lists may have changed. */
  reloaded(): void {
    for (const session of this.#sessions.values()) {
      const events = session.lists.map((list) => sseMessage({ jsonrpc: '2.0', method: `notifications/${list}/list_changed` }));
      const stream = session.stream;
      if (stream === undefined) {
        session.pending = events;
        continue;
      }
      const old = stream.upstream;
      stream.upstream = undefined;
      old?.destroy();
      for (const event of events) stream.res.write(event);
      void this.#attach(session, stream, false);
    }
    for (const listen of this.#listens) {
      for (const list of listen.lists) listen.res.write(sseMessage({ jsonrpc: '2.0', method: `notifications/${list}/list_changed`, params: { _meta: { [SUBSCRIPTION_ID_META_KEY]: listen.id } } }));
      listen.cut?.();
    }
  }

  /** Ends every held stream. */
  close(): void {
    for (const id of [...this.#sessions.keys()]) this.forget(id);
  }
}
