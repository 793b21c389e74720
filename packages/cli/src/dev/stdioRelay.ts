/**
 * `switchboard dev` on stdio: the host that spawned us holds one connection (our stdin and stdout) for its whole
 * life and cannot be made to reconnect, so the parent relays lines between it and the current generation and, on a
 * reload, hands the session over: it replays the host's `initialize` request (answered to the parent, not to the
 * host) and `notifications/initialized` to the new generation, then routes the host's next messages there, and
 * tells the host that its lists may have changed (`notifications/tools/list_changed`, and those of prompts and
 * resources) where the server declared `listChanged` in its first `initialize` result. A modern (2026-07-28) host
 * has no session: its next request simply goes to the new generation.
 *
 * A request the host sent to the old generation is answered by it while it drains (its stdin is closed: MCP
 * 2025-11-25 basic/lifecycle.mdx "Shutdown"); one it never answered gets an error from the parent once it exited,
 * so the host does not wait for its timeout. A request of the old generation to the host (sampling, elicitation,
 * roots) cannot be answered any more: the host's answer is dropped.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Generation } from './generation.js';

/** How long a replayed `initialize` may take, in ms. */
export const REPLAY_TIMEOUT_MS = 10_000;

/** The id prefix of the parent's own requests (never forwarded to the host). */
const OWN_ID = 'switchboard-dev:';

type Id = string | number;

interface Message {
  readonly id?: Id | null;
  readonly method?: string;
  readonly params?: { readonly requestId?: Id };
  readonly result?: { readonly capabilities?: Record<string, { readonly listChanged?: boolean } | undefined> };
  readonly error?: unknown;
}

function parse(line: string): Message | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

const key = (id: Id): string => JSON.stringify(id);

/** A generation as the relay sees it. */
interface Link {
  readonly generation: Generation;
  /** Host requests it was given and has not answered: key → id. */
  readonly fromHost: Map<string, Id>;
  /** Its requests to the host not answered yet (keys). */
  readonly toHost: Set<string>;
  /** Waiters for answers to the parent's own requests. */
  readonly own: Map<string, (message: Message) => void>;
  retired: boolean;
}

/** Relays one host connection across generations; see the module comment. */
export class StdioRelay {
  readonly #write: (line: string) => void;
  #current: Link | undefined;
  readonly #links = new Set<Link>();
  #initialize: Message | undefined;
  #initializeId: string | undefined;
  #initialized: string | undefined;
  #capabilities: Record<string, { readonly listChanged?: boolean } | undefined> | undefined;
  #ownCount = 0;
  #attached = 0;
  /** Resolves when the host's input ended. */
  readonly ended: Promise<void>;
  readonly #input: Readable;

  constructor(options: { readonly input: Readable; readonly write: (line: string) => void }) {
    this.#write = options.write;
    this.#input = options.input;
    const lines = createInterface({ input: options.input, crlfDelay: Infinity });
    lines.on('line', (line) => this.#fromHost(line));
    this.ended = new Promise((resolve) => lines.once('close', () => resolve()));
  }

  /** Stops reading the host (on a stop signal: an open stdin would keep the process alive). */
  close(): void {
    this.#input.destroy();
  }

  /** The generation the host's messages go to. */
  get current(): Generation | undefined {
    return this.#current?.generation;
  }

  /**
   * Makes `generation` the current one: replays the host's session to it first (if the host opened one), then
   * routes there and tells the host its lists may have changed. The previous generation is returned to be stopped.
   * @throws Error (as a rejection) when the replayed `initialize` fails; the previous generation stays current
   */
  async attach(generation: Generation): Promise<Generation | undefined> {
    const link: Link = { generation, fromHost: new Map(), toHost: new Set(), own: new Map(), retired: false };
    this.#links.add(link);
    const lines = createInterface({ input: generation.stdout, crlfDelay: Infinity });
    lines.on('line', (line) => this.#fromGeneration(link, line));
    // Once its last line was relayed (stdout closed) and it exited: what it never answered is answered here.
    lines.once('close', () => void generation.exited.then((how) => this.#ended(link, how)));
    const previous = this.#current;
    const first = this.#attached++ === 0;
    // A generation before this one (alive or not) holds the host's session: hand it over.
    if (this.#initialize !== undefined) {
      try {
        await this.#replay(link);
      } catch (error) {
        this.#links.delete(link);
        throw error;
      }
    }
    this.#current = link;
    if (previous !== undefined) previous.retired = true;
    if (!first && this.#capabilities !== undefined) {
      for (const list of ['tools', 'prompts', 'resources'] as const) {
        if (this.#capabilities[list]?.listChanged === true) this.#write(JSON.stringify({ jsonrpc: '2.0', method: `notifications/${list}/list_changed` }));
      }
    }
    return previous?.generation;
  }

  async #replay(link: Link): Promise<void> {
    const id = `${OWN_ID}${link.generation.number}:${++this.#ownCount}`;
    const answer = new Promise<Message>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Generation ${link.generation.number} did not answer the replayed initialize within ${REPLAY_TIMEOUT_MS} ms`)), REPLAY_TIMEOUT_MS);
      link.own.set(key(id), (message) => {
        clearTimeout(timer);
        resolve(message);
      });
      void link.generation.exited.then((how) => {
        clearTimeout(timer);
        reject(new Error(`Generation ${link.generation.number} ended (${how}) during the replayed initialize`));
      });
    });
    link.generation.stdin.write(`${JSON.stringify({ ...this.#initialize, id })}\n`);
    const message = await answer;
    if (message.error !== undefined) throw new Error(`Generation ${link.generation.number} refused the replayed initialize: ${JSON.stringify(message.error)}`);
    if (this.#initialized !== undefined) link.generation.stdin.write(`${this.#initialized}\n`);
  }

  #fromHost(line: string): void {
    const message = parse(line);
    let link = this.#current;
    if (message !== undefined) {
      const isResponse = message.method === undefined && message.id !== undefined && message.id !== null;
      if (isResponse) {
        // An answer to a generation's request: to the one that asked, dropped if that one is retired.
        const asked = [...this.#links].find((l) => l.toHost.has(key(message.id!)) && !l.retired) ?? [...this.#links].find((l) => l.toHost.has(key(message.id!)));
        if (asked !== undefined) {
          asked.toHost.delete(key(message.id));
          if (asked.retired) return;
          link = asked;
        }
      } else if (message.method === 'notifications/cancelled' && message.params?.requestId !== undefined) {
        const holder = [...this.#links].find((l) => l.fromHost.has(key(message.params!.requestId!)));
        if (holder?.retired === true) return;
      } else if (message.method === 'initialize') {
        this.#initialize = message;
        this.#initializeId = message.id === undefined || message.id === null ? undefined : key(message.id);
      } else if (message.method === 'notifications/initialized') {
        this.#initialized = line;
      }
      if (message.method !== undefined && message.id !== undefined && message.id !== null && link !== undefined) link.fromHost.set(key(message.id), message.id);
    }
    if (link === undefined || !link.generation.alive()) {
      if (message?.method !== undefined && message.id !== undefined && message.id !== null) this.#answerLost(message.id, 'the server is not running (it exited or failed to load): save a file to start it again');
      return;
    }
    link.generation.stdin.write(`${line}\n`);
  }

  #fromGeneration(link: Link, line: string): void {
    const message = parse(line);
    if (message !== undefined && message.id !== undefined && message.id !== null) {
      const id = key(message.id);
      if (message.method === undefined) {
        const own = link.own.get(id);
        if (own !== undefined) {
          link.own.delete(id);
          return own(message);
        }
        link.fromHost.delete(id);
        if (id === this.#initializeId && this.#capabilities === undefined && message.result !== undefined) this.#capabilities = message.result.capabilities ?? {};
      } else {
        link.toHost.add(id);
      }
    }
    this.#write(line);
  }

  #answerLost(id: Id, why: string): void {
    this.#write(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: `switchboard dev: ${why}` } }));
  }

  #ended(link: Link, how: string): void {
    for (const id of link.fromHost.values()) this.#answerLost(id, `generation ${link.generation.number} ended (${how}) before it answered; send the request again`);
    link.fromHost.clear();
    this.#links.delete(link);
    if (this.#current === link) this.#current = undefined;
  }
}
