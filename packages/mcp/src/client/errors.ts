/**
 * The typed local errors only the client raises (the transports' own are in `protocol/clientErrors.ts`). Each
 * carries a stable `code` from {@link ClientErrorCode} and the facts a caller needs to act on it.
 */
import { ClientErrorCode, McpClientError } from '../protocol/clientErrors.js';
import { echo } from '@switchboard/jsonrpc';
import type { Era } from '../protocol/revisions.js';

/**
 * No protocol revision both sides speak, or the server refused the handshake: the server answered `initialize`
 * with a revision this client does not speak, a pinned revision was refused, or `era` asked for an era the server
 * does not serve. Code `negotiation_failed`.
 */
export class NegotiationError extends McpClientError {
  /** The revisions the server said it serves, when it said so (`-32022` `data.supported`, `supportedVersions`). */
  readonly supported: readonly string[] | undefined;

  constructor(facts: { readonly reason: string; readonly supported?: readonly string[]; readonly cause?: unknown }) {
    const listed = facts.supported === undefined ? '' : ` (the server serves ${facts.supported.map((v) => `"${echo(v)}"`).join(', ') || 'nothing'})`;
    super(ClientErrorCode.NegotiationFailed, `Protocol negotiation failed: ${facts.reason}${listed}`, 'cause' in facts ? { cause: facts.cause } : undefined);
    this.name = 'NegotiationError';
    this.supported = facts.supported;
  }
}

/**
 * The server's result breaks the spec: it is not an object, its `resultType` is unknown (MCP 2026-07-28
 * basic/index.mdx "ResultType": the client MUST treat it as invalid), or a tool's `structuredContent` is missing or
 * does not match the tool's `outputSchema`. The received result is attached. Code `invalid_result`.
 */
export class InvalidResultError extends McpClientError {
  /** The method whose result was refused. */
  readonly method: string;
  /** The result as received. */
  readonly result: unknown;

  constructor(facts: { readonly method: string; readonly reason: string; readonly result: unknown }) {
    super(ClientErrorCode.InvalidResult, `Invalid result of "${echo(facts.method)}": ${facts.reason}`);
    this.name = 'InvalidResultError';
    this.method = facts.method;
    this.result = facts.result;
  }
}

/**
 * Why a list helper stopped: the page budget ran out (`max_pages`), the byte budget ran out (`max_bytes`), or the
 * server repeated a page (`cursor_loop`, field bug B44).
 */
export type PaginationStop = 'max_pages' | 'max_bytes' | 'cursor_loop';

/** A list helper stopped before the last page; the items read so far are attached. Code `pagination_limit`. */
export class PaginationLimitError<T = unknown> extends McpClientError {
  /** The list method (`tools/list`, …). */
  readonly method: string;
  /** Why it stopped. */
  readonly stop: PaginationStop;
  /** Pages read. */
  readonly pages: number;
  /** Every item of the pages read, in order. */
  readonly items: readonly T[];
  /** Size of the pages read, as the length of their JSON text (UTF-16 code units: bytes for ASCII). */
  readonly bytes: number;

  constructor(facts: { readonly method: string; readonly stop: PaginationStop; readonly pages: number; readonly items: readonly T[]; readonly bytes?: number; readonly maxBytes?: number }) {
    const why =
      facts.stop === 'max_pages'
        ? `still a "nextCursor" after ${facts.pages} pages (maxPages)`
        : facts.stop === 'max_bytes'
          ? `${facts.bytes ?? 0} bytes gathered in ${facts.pages} pages, over the ${facts.maxBytes ?? 0} of maxListBytes`
          : `the server repeated a page after ${facts.pages} pages (a cursor loop)`;
    super(ClientErrorCode.PaginationLimit, `Pagination stopped on "${echo(facts.method)}": ${why}`);
    this.name = 'PaginationLimitError';
    this.method = facts.method;
    this.stop = facts.stop;
    this.pages = facts.pages;
    this.items = facts.items;
    this.bytes = facts.bytes ?? 0;
  }
}

/**
 * A 2026-07-28 multi round-trip request asked for input more times than `maxInputRounds` allows (MCP 2026-07-28
 * basic/patterns/mrtr.mdx). Code `input_rounds_exceeded`.
 */
export class InputRoundsExceededError extends McpClientError {
  readonly method: string;
  /** The rounds answered before giving up. */
  readonly rounds: number;

  constructor(facts: { readonly method: string; readonly rounds: number }) {
    super(ClientErrorCode.InputRoundsExceeded, `Too many input rounds: "${echo(facts.method)}" still asked for input after ${facts.rounds} rounds (maxInputRounds)`);
    this.name = 'InputRoundsExceededError';
    this.method = facts.method;
    this.rounds = facts.rounds;
  }
}

/**
 * The operation does not exist in the negotiated era or revision (`subscribeResource` on 2026-07-28, which has
 * `listen` instead), or needs a capability the server did not advertise. Code `not_supported`.
 */
export class NotSupportedError extends McpClientError {
  /** The client method or wire method refused. */
  readonly operation: string;
  readonly era: Era;
  readonly revision: string;

  constructor(facts: { readonly operation: string; readonly era: Era; readonly revision: string; readonly reason: string }) {
    super(ClientErrorCode.NotSupported, `Not supported: "${echo(facts.operation)}" ${facts.reason} (revision "${echo(facts.revision)}")`);
    this.name = 'NotSupportedError';
    this.operation = facts.operation;
    this.era = facts.era;
    this.revision = facts.revision;
  }
}
