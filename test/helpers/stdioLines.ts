/**
 * A raw stdio client for tests: spawns a server script as a child process, writes JSON-RPC lines to its stdin and
 * keeps every line it writes to stdout, parsed, in order. Stop it by its own PID (`proc.pid`).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import process from 'node:process';

/** One JSON-RPC message as these tests read and write it. */
export type Message = Record<string, unknown>;

/** The child process and what it wrote to stdout, one parsed message per line. */
export class StdioLines {
  readonly lines: Message[] = [];
  readonly proc: ChildProcessWithoutNullStreams;
  readonly #waiters = new Set<() => void>();

  /** @param script the server script, run with this Node */
  constructor(script: string) {
    this.proc = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'pipe'] });
    let buffer = '';
    this.proc.stdout.setEncoding('utf8');
    this.proc.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        this.lines.push(JSON.parse(buffer.slice(0, nl)) as Message);
        buffer = buffer.slice(nl + 1);
      }
      for (const wake of [...this.#waiters]) wake();
    });
    this.proc.stderr.resume();
  }

  /** Writes each message as one line. */
  send(...messages: Message[]): void {
    this.proc.stdin.write(messages.map((m) => `${JSON.stringify(m)}\n`).join(''));
  }

  /** The first line (already received or not) that `match` accepts; rejects after 10 s naming `what`. */
  waitFor(match: (m: Message) => boolean, what: string): Promise<Message> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`stdio: no ${what} within 10 s; got ${JSON.stringify(this.lines)}`));
      }, 10_000);
      const check = (): void => {
        const found = this.lines.find(match);
        if (found === undefined) return;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve(found);
      };
      this.#waiters.add(check);
      check();
    });
  }

  /** The response to request `id`. */
  answer(id: unknown): Promise<Message> {
    return this.waitFor((m) => m.id === id && !('method' in m), `answer to ${JSON.stringify(id)}`);
  }

  /** Sends `message` and resolves with its answer. */
  async ask(message: Message): Promise<Message> {
    this.send(message);
    return this.answer(message.id);
  }
}
