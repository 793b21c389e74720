/**
 * The shape of one explanation: what an error code, an HTTP status or an error message means in MCP, per
 * revision, with its likely causes (most likely first), the fixes and the spec sections. The tables are data
 * (`codeEntries.ts`, `statuses.ts`, `messageEntries.ts`), so `switchboard explain` and the doctor read the same knowledge.
 */
import type { ProtocolRevision } from '@switchboard/mcp';

/** What one entry explains. */
export type ExplanationKind = 'code' | 'status' | 'message';

/** What the thing means over a range of revisions (revisions listed oldest first). */
export interface RevisionMeaning {
  /** The revisions this meaning holds for. */
  readonly revisions: readonly ProtocolRevision[];
  /** What it means there, in a sentence or two. */
  readonly meaning: string;
}

/** One explanation. */
export interface Explanation {
  /** Stable id: `code:-32601`, `status:404`, `message:connection-closed`, `code:reserved`. */
  readonly id: string;
  readonly kind: ExplanationKind;
  /** A short name (`Method not found`, `404 Not Found`). */
  readonly title: string;
  /** The JSON-RPC error codes this entry covers (kind `code`). */
  readonly codes?: readonly number[];
  /** The HTTP status (kind `status`). */
  readonly status?: number;
  /** What an error message must match (kind `message`); tested against the text as the user pasted it. */
  readonly pattern?: RegExp;
  /** What it means, per revision. */
  readonly meanings: readonly RevisionMeaning[];
  /** The likely causes, most likely first. */
  readonly causes: readonly string[];
  /** What to do, in the order of the causes. */
  readonly fixes: readonly string[];
  /** Where the spec says so: `MCP <revision> <page> "<section>"`, or `JSON-RPC 2.0 §5.1`. */
  readonly spec: readonly string[];
  /** Field bugs behind it (ids of docs/field-bugs.md), when any. */
  readonly fieldBugs?: readonly string[];
}

/** The session-based revisions (the legacy era). */
export const LEGACY: readonly ProtocolRevision[] = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
/** The modern-era revisions (2026-07-28 on). */
export const MODERN: readonly ProtocolRevision[] = ['2026-07-28'];
/** Every revision. */
export const ALL: readonly ProtocolRevision[] = [...LEGACY, ...MODERN];
