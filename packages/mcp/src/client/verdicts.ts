/**
 * The era verdict: what negotiation learned about a server (its era and revision, over which transport), kept per
 * {@link ClientConnector.verdictKey} so the next connection to the same command line or origin skips the probe.
 * MCP 2026-07-28 basic/versioning.mdx "Backward Compatibility": the era is a property of the server; clients
 * SHOULD cache the verdict per process (stdio) or origin (HTTP).
 */
import { checkCountOption } from '@switchboard/jsonrpc/internal';
import type { ClientTransportKind } from '../protocol/transport.js';
import type { Era, ProtocolRevision } from '../protocol/revisions.js';

/** What negotiation found out about one server. Plain JSON, so a host may persist it. */
export interface EraVerdict {
  readonly era: Era;
  readonly revision: ProtocolRevision;
  /** The transport that worked (`'http-sse'` when Streamable HTTP fell back to the 2024-11-05 transport). */
  readonly transport: ClientTransportKind;
  /** When the verdict was reached, in ms since the epoch. */
  readonly at: number;
}

/**
 * Where verdicts are kept. Each method may answer synchronously or with a promise, so a host can back it by a file
 * or a database; a failing store is logged and treated as empty, never a failed connection.
 */
export interface EraVerdictStore {
  /** The verdict for `key`, or `undefined`. */
  get(key: string): EraVerdict | undefined | Promise<EraVerdict | undefined>;
  set(key: string, verdict: EraVerdict): void | Promise<void>;
  /** Forgets `key` (a verdict that turned out wrong). */
  delete(key: string): void | Promise<void>;
}

/** Default for {@link InMemoryEraVerdictStore}'s `maxEntries`. */
export const DEFAULT_MAX_VERDICTS = 1_000;

/** The in-memory {@link EraVerdictStore}: at most `maxEntries` keys, the least recently set forgotten first. */
export class InMemoryEraVerdictStore implements EraVerdictStore {
  readonly #verdicts = new Map<string, EraVerdict>();
  readonly #max: number;

  /**
   * @param options `maxEntries`: keys kept (@default 1_000)
   * @throws RangeError when `maxEntries` is not a positive integer (TypeError when not a number)
   */
  constructor(options: { readonly maxEntries?: number } = {}) {
    this.#max = checkCountOption('maxEntries', options.maxEntries ?? DEFAULT_MAX_VERDICTS);
  }

  /** Keys held. */
  get size(): number {
    return this.#verdicts.size;
  }

  get(key: string): EraVerdict | undefined {
    return this.#verdicts.get(key);
  }

  set(key: string, verdict: EraVerdict): void {
    this.#verdicts.delete(key);
    this.#verdicts.set(key, verdict);
    if (this.#verdicts.size > this.#max) this.#verdicts.delete(this.#verdicts.keys().next().value as string);
  }

  delete(key: string): void {
    this.#verdicts.delete(key);
  }
}

/** The store every client shares unless given one: verdicts last as long as the process. */
export const processVerdictStore: EraVerdictStore = new InMemoryEraVerdictStore();
