/**
 * Finds the explanations of what the user typed: an error code (`-32601`), an HTTP status (`404`) or an error
 * message (`"MCP error -32000: Connection closed"`, which also brings the entry of the code it names).
 */
import { CODE_EXPLANATIONS } from './codeEntries.js';
import type { Explanation } from './entry.js';
import { MESSAGE_EXPLANATIONS } from './messageEntries.js';
import { STATUS_EXPLANATIONS } from './statuses.js';

/** Every entry: codes, statuses, messages. */
export const EXPLANATIONS: readonly Explanation[] = [...CODE_EXPLANATIONS, ...STATUS_EXPLANATIONS, ...MESSAGE_EXPLANATIONS];

const RESERVED = CODE_EXPLANATIONS.find((entry) => entry.id === 'code:reserved')!;

/**
 * The entry of one JSON-RPC error code: its own, else the "not defined" entry for a code of -32000…-32099,
 * else `undefined` (the -32768…-32100 remainder is reserved by JSON-RPC; other codes are the application's).
 */
export function explainCode(code: number): Explanation | undefined {
  const own = CODE_EXPLANATIONS.find((entry) => entry.codes?.includes(code) === true);
  if (own !== undefined) return own;
  return code <= -32000 && code >= -32099 ? RESERVED : undefined;
}

/** The entry of one HTTP status, or `undefined`. */
export function explainStatus(status: number): Explanation | undefined {
  return STATUS_EXPLANATIONS.find((entry) => entry.status === status);
}

/** The entries a message matches: the codes and statuses it names first, then the message patterns. */
export function explainMessage(message: string): Explanation[] {
  const found: Explanation[] = [];
  const add = (entry: Explanation | undefined): void => {
    if (entry !== undefined && !found.includes(entry)) found.push(entry);
  };
  for (const match of message.matchAll(/(?<![\d.])-3\d{4}(?!\d)/g)) add(explainCode(Number(match[0])));
  for (const match of message.matchAll(/\b(?:HTTP|status(?: code)?)[ :(]*([1-5]\d\d)\b/gi)) add(explainStatus(Number(match[1])));
  for (const entry of MESSAGE_EXPLANATIONS) if (entry.pattern!.test(message)) add(entry);
  return found;
}

/** What `explain <query>` found: entries, or none (and what was understood). */
export interface ExplainAnswer {
  /** How the query was read. */
  readonly read: 'code' | 'status' | 'message';
  readonly entries: readonly Explanation[];
}

/** Reads a query as a code (a negative integer), a status (100…599) or a message, and finds its entries. */
export function explain(query: string): ExplainAnswer {
  const text = query.trim();
  if (/^-\d+$/.test(text)) {
    const entry = explainCode(Number(text));
    return { read: 'code', entries: entry === undefined ? [] : [entry] };
  }
  if (/^[1-5]\d\d$/.test(text)) {
    const entry = explainStatus(Number(text));
    return { read: 'status', entries: entry === undefined ? [] : [entry] };
  }
  return { read: 'message', entries: explainMessage(text) };
}
