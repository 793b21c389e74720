/**
 * A scripted stdio MCP server for client tests: the test spawns `fakeStdioChild.mjs` (through the client under test,
 * with {@link FakeStdioServer.command} and {@link FakeStdioServer.args}), and that child relays over a loopback socket.
 * The test reads every message the client wrote to the child's stdin, in order and byte for byte, and decides what
 * the child writes to stdout: whole messages, raw chunks with pauses between them (chunk boundaries are the test's),
 * banners, a process exit. Nothing here knows MCP beyond the handshake helper.
 */
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import process from 'node:process';

/** One JSON-RPC message as these tests read and write it. */
export type Message = Record<string, unknown>;

const CHILD = fileURLToPath(new URL('./fakeStdioChild.mjs', import.meta.url));
const WAIT_MS = 10_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Options of {@link FakeStdioServer.handshake}. */
export interface HandshakeOptions {
  /** The revision the fake answers `initialize` with. @default the one the client asked for */
  readonly revision?: string;
  /** The server's capabilities in the `initialize` result. @default `{ tools: {} }` */
  readonly capabilities?: Message;
  /** The server's `serverInfo`. @default `{ name: 'fake-stdio', version: '0' }` */
  readonly serverInfo?: Message;
}

/** The test's end of the fake server: what the child read, and what it should write. */
export class FakeStdioServer {
  /** Every complete line the client wrote to the child's stdin, as text (no LF), in order. */
  readonly lines: string[] = [];
  /** {@link lines} parsed (a line that is not JSON is kept as `{ unparsed: text }`). */
  readonly received: Message[] = [];
  /** How many child processes connected so far (a respawn is the second). */
  spawned = 0;
  /** Whether the current child saw its stdin close. */
  stdinEnded = false;

  readonly #server: Server;
  readonly #port: number;
  readonly #sockets = new Set<Socket>();
  #child: Socket | undefined;
  #pending = Buffer.alloc(0);
  #taken = 0;
  readonly #waiters = new Map<() => void, ReturnType<typeof setTimeout>>();
  readonly #auto = new Map<string, { answer: (request: Message, index: number) => Message; count: number }>();

  private constructor(server: Server, port: number) {
    this.#server = server;
    this.#port = port;
    server.on('connection', (socket) => this.#attach(socket));
  }

  /** Listens on 127.0.0.1, port 0. */
  static async start(): Promise<FakeStdioServer> {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('fake stdio server: no port');
    return new FakeStdioServer(server, address.port);
  }

  /** The command that starts the child: this Node. */
  get command(): string {
    return process.execPath;
  }

  /** The child's arguments: the program and the port it reports to. */
  get args(): string[] {
    return [CHILD, String(this.#port)];
  }

  #attach(socket: Socket): void {
    this.#sockets.add(socket);
    this.#child = socket;
    this.spawned += 1;
    this.stdinEnded = false;
    this.#pending = Buffer.alloc(0);
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      buffer += text;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const frame = JSON.parse(buffer.slice(0, nl)) as { stdin?: string; stdinEnd?: boolean };
        buffer = buffer.slice(nl + 1);
        if (frame.stdin !== undefined) this.#read(Buffer.from(frame.stdin, 'base64'));
        if (frame.stdinEnd === true) this.stdinEnded = true;
      }
      this.#wake();
    });
    socket.on('close', () => {
      this.#sockets.delete(socket);
      if (this.#child === socket) this.#child = undefined;
      this.#wake();
    });
    socket.on('error', () => { /* the child went away; 'close' follows */ });
    this.#wake();
  }

  #read(bytes: Buffer): void {
    this.#pending = Buffer.concat([this.#pending, bytes]);
    for (let nl = this.#pending.indexOf(0x0a); nl >= 0; nl = this.#pending.indexOf(0x0a)) {
      const line = this.#pending.subarray(0, nl).toString('utf8');
      this.#pending = this.#pending.subarray(nl + 1);
      this.lines.push(line);
      let message: Message;
      try {
        message = JSON.parse(line) as Message;
      } catch {
        message = { unparsed: line };
      }
      this.received.push(message);
      const auto = typeof message.method === 'string' && 'id' in message ? this.#auto.get(message.method) : undefined;
      if (auto !== undefined) {
        this.#frame({ stdout: Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: auto.answer(message, auto.count++) })}\n`).toString('base64') });
      }
    }
  }

  #wake(): void {
    for (const wake of [...this.#waiters.keys()]) wake();
  }

  /** Resolves when `check` returns a value other than `undefined`; rejects after 10 s naming `what`. */
  until<T>(check: () => T | undefined, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(probe);
        reject(new Error(`fake stdio server: no ${what} within ${WAIT_MS} ms; received ${JSON.stringify(this.received)}`));
      }, WAIT_MS);
      const probe = (): void => {
        const value = check();
        if (value === undefined) return;
        clearTimeout(timer);
        this.#waiters.delete(probe);
        resolve(value);
      };
      this.#waiters.set(probe, timer);
      probe();
    });
  }

  /** The next message (after those already taken) that `match` accepts; the messages before it are passed over. */
  take(match: (m: Message) => boolean, what: string): Promise<Message> {
    return this.until(() => {
      for (let i = this.#taken; i < this.received.length; i++) {
        if (match(this.received[i]!)) {
          this.#taken = i + 1;
          return this.received[i];
        }
      }
      return undefined;
    }, what);
  }

  /** The next request for `method`. */
  request(method: string): Promise<Message> {
    return this.take((m) => m.method === method && 'id' in m, `"${method}" request`);
  }

  /** The next notification `method`. */
  notification(method: string): Promise<Message> {
    return this.take((m) => m.method === method && !('id' in m), `"${method}" notification`);
  }

  /** Waits until the child process has connected (the client spawned it). */
  connected(): Promise<true> {
    return this.until(() => (this.#child === undefined ? undefined : true), 'child process');
  }

  #frame(frame: Message): void {
    if (this.#child === undefined) throw new Error('fake stdio server: no child process to write to');
    this.#child.write(`${JSON.stringify(frame)}\n`);
  }

  /**
   * Has the child write each chunk to stdout in a write of its own, `pauseMs` apart (so the client reads them as
   * separate chunks). A string is written as UTF-8.
   */
  async write(chunks: readonly (string | Uint8Array)[], options: { readonly pauseMs?: number } = {}): Promise<void> {
    const pauseMs = options.pauseMs ?? 40;
    for (const [i, chunk] of chunks.entries()) {
      if (i > 0) await sleep(pauseMs);
      this.#frame({ stdout: Buffer.from(chunk).toString('base64') });
    }
  }

  /** Writes the messages as NDJSON, all in one write. */
  async send(...messages: Message[]): Promise<void> {
    await this.write([messages.map((m) => `${JSON.stringify(m)}\n`).join('')]);
  }

  /** Writes the success response to `request`. */
  async answer(request: Message, result: Message): Promise<void> {
    await this.send({ jsonrpc: '2.0', id: request.id, result });
  }

  /**
   * From now on, answers every request for `method` at once with `answer(request, index)` (`index` counts from 0).
   * They stay in {@link received}; do not also {@link take} them.
   */
  serve(method: string, answer: (request: Message, index: number) => Message): void {
    this.#auto.set(method, { answer, count: 0 });
  }

  /** Has the child write `text` to stderr. */
  stderr(text: string): void {
    this.#frame({ stderr: Buffer.from(text).toString('base64') });
  }

  /** Has the child exit with `code` (a crash, as the client sees it). */
  exit(code: number): void {
    this.#frame({ exit: code });
  }

  /**
   * The legacy handshake from the server's side: refuses a `server/discover` probe with -32601 (a server of a
   * session-based revision does not know the method), answers `initialize`, and waits for
   * `notifications/initialized`. Resolves with the `initialize` request as received.
   */
  async handshake(options: HandshakeOptions = {}): Promise<Message> {
    for (;;) {
      const request = await this.take((m) => 'id' in m && (m.method === 'initialize' || m.method === 'server/discover'), 'initialize request');
      if (request.method === 'server/discover') {
        await this.send({ jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'Method not found' } });
        continue;
      }
      const asked = (request.params as Message | undefined)?.protocolVersion;
      await this.answer(request, {
        protocolVersion: options.revision ?? asked,
        capabilities: options.capabilities ?? { tools: {} },
        serverInfo: options.serverInfo ?? { name: 'fake-stdio', version: '0' },
      });
      await this.notification('notifications/initialized');
      return request;
    }
  }

  /** Ends the child (its socket closes, so it exits) and stops listening; waits still open are dropped. */
  async close(): Promise<void> {
    for (const timer of this.#waiters.values()) clearTimeout(timer);
    this.#waiters.clear();
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
