/**
 * MCP protocol revisions and eras.
 *
 * @see MCP 2025-11-25 basic/lifecycle.mdx "Version Negotiation"; MCP 2026-07-28 basic/versioning.mdx
 */

/** Every revision this package knows, oldest first. */
export const PROTOCOL_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;

/** One of {@link PROTOCOL_REVISIONS}. */
export type ProtocolRevision = (typeof PROTOCOL_REVISIONS)[number];

/** The session-based revisions, negotiated by `initialize` (the legacy era). */
export const LEGACY_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;

/** A revision of the legacy (session, `initialize`) era. */
export type LegacyRevision = (typeof LEGACY_REVISIONS)[number];

/** The newest legacy revision: what a server counter-offers when the client asks for one it does not know. */
export const LATEST_LEGACY_REVISION: LegacyRevision = '2025-11-25';

/** Whether `value` is a legacy-era revision string. */
export function isLegacyRevision(value: unknown): value is LegacyRevision {
  return typeof value === 'string' && (LEGACY_REVISIONS as readonly string[]).includes(value);
}

/**
 * Revision-dependent behaviour, as a table rather than scattered comparisons.
 * - `batches`: JSON-RPC batches may be received (only 2025-03-26: MCP 2025-03-26 basic/index.mdx "Batching";
 *   removed in 2025-06-18: MCP 2025-06-18 changelog.mdx).
 * - `protocolVersionHeader`: clients send `MCP-Protocol-Version` over HTTP (from 2025-06-18).
 * - `structuredContent`: tools may declare `outputSchema` and return `structuredContent` (from 2025-06-18).
 * - `elicitation`: `elicitation/create` exists (from 2025-06-18).
 * - `audioContent`, `toolAnnotations`, `completionsCapability`, `progressMessage`: from 2025-03-26.
 * - `ssePriming`: Streamable HTTP sends a priming event with an id and empty data first (2025-11-25).
 */
export const REVISION_FEATURES = {
  '2024-11-05': { batches: false, protocolVersionHeader: false, structuredContent: false, elicitation: false, audioContent: false, toolAnnotations: false, completionsCapability: false, progressMessage: false, ssePriming: false },
  '2025-03-26': { batches: true, protocolVersionHeader: false, structuredContent: false, elicitation: false, audioContent: true, toolAnnotations: true, completionsCapability: true, progressMessage: true, ssePriming: false },
  '2025-06-18': { batches: false, protocolVersionHeader: true, structuredContent: true, elicitation: true, audioContent: true, toolAnnotations: true, completionsCapability: true, progressMessage: true, ssePriming: false },
  '2025-11-25': { batches: false, protocolVersionHeader: true, structuredContent: true, elicitation: true, audioContent: true, toolAnnotations: true, completionsCapability: true, progressMessage: true, ssePriming: true },
} as const satisfies Record<LegacyRevision, Record<string, boolean>>;
