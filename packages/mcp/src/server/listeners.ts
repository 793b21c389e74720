/**
 * A set of listeners of one kind of server event (`McpServer.onRefused`, `McpServer.onSessionClosed`): added with
 * a disposer, told in order, a throwing listener logged and ignored so one listener never stops the others or the
 * server. `size` lets a hot path skip building an event nobody listens to.
 */
import type { Logger } from '@switchboard/jsonrpc';

export class Listeners<E> {
  readonly #listeners = new Set<(event: E) => void>();
  readonly #what: string;

  /** @param what the listeners' name in the `TypeError` and the log line (e.g. `refusal`) */
  constructor(what: string) {
    this.#what = what;
  }

  get size(): number {
    return this.#listeners.size;
  }

  /**
   * @returns a disposer that removes `listener`
   * @throws TypeError when `listener` is not a function
   */
  add(listener: (event: E) => void): () => void {
    if (typeof listener !== 'function') throw new TypeError(`Invalid ${this.#what} listener: expected a function`);
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Tells every listener of `event`; a throw is logged with `facts` and ignored. */
  emit(event: E, log: { readonly logger: Logger; readonly facts: Record<string, unknown> }): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        log.logger.error(`${this.#what[0]!.toUpperCase()}${this.#what.slice(1)} listener failed`, { ...log.facts, error });
      }
    }
  }
}
