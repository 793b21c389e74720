/**
 * MCP protocol revisions, their eras, and what each revision changes, as tables rather than scattered
 * comparisons.
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

/** The revisions of the modern era: no handshake, the revision is claimed in every request's `_meta`. */
export const MODERN_REVISIONS = ['2026-07-28'] as const;

/** A revision of the modern (per-request `_meta`) era. */
export type ModernRevision = (typeof MODERN_REVISIONS)[number];

/**
 * The era of a revision (MCP 2026-07-28 basic/versioning.mdx): `legacy` for the revisions negotiated by the
 * `initialize` handshake, `modern` for those that carry the revision in every request's `_meta`. A server that
 * serves both is dual-era.
 */
export type Era = 'legacy' | 'modern';

/** The newest legacy revision: what a server counter-offers when the client asks for one it does not know. */
export const LATEST_LEGACY_REVISION: LegacyRevision = '2025-11-25';

/**
 * The revisions a server answers by default: every one (a dual-era server, MCP 2026-07-28 basic/versioning.mdx
 * "Backward Compatibility"). `McpServerOptions.revisions` narrows it.
 */
export const SERVED_REVISIONS: readonly ProtocolRevision[] = PROTOCOL_REVISIONS;

/** Whether `value` is a legacy-era revision string. */
export function isLegacyRevision(value: unknown): value is LegacyRevision {
  return typeof value === 'string' && (LEGACY_REVISIONS as readonly string[]).includes(value);
}

/** Whether `value` is a modern-era revision string. */
export function isModernRevision(value: unknown): value is ModernRevision {
  return typeof value === 'string' && (MODERN_REVISIONS as readonly string[]).includes(value);
}

/** Whether `value` is one of {@link PROTOCOL_REVISIONS}. */
export function isProtocolRevision(value: unknown): value is ProtocolRevision {
  return typeof value === 'string' && (PROTOCOL_REVISIONS as readonly string[]).includes(value);
}

/** The shape of one row of {@link REVISION_FEATURES}. */
export interface RevisionFeatures {
  /** The era the revision belongs to. */
  readonly era: Era;
  /** Whether the connection begins with the `initialize` handshake (legacy era only). */
  readonly initializeHandshake: boolean;
  /** Whether JSON-RPC batches may be received. */
  readonly batches: boolean;
  /** Whether HTTP clients send `MCP-Protocol-Version`. */
  readonly protocolVersionHeader: boolean;
  /** Whether tools may declare `outputSchema` and return `structuredContent`. */
  readonly structuredContent: boolean;
  /** Whether `elicitation/create` exists (as a request, or in the modern era as an input request). */
  readonly elicitation: boolean;
  /** Whether audio content blocks exist. */
  readonly audioContent: boolean;
  /** Whether tools carry `annotations`. */
  readonly toolAnnotations: boolean;
  /** Whether servers advertise the `completions` capability. */
  readonly completionsCapability: boolean;
  /** Whether `notifications/progress` has a `message`. */
  readonly progressMessage: boolean;
  /** Whether Streamable HTTP sends a priming event (an id and empty data) first on each SSE stream. */
  readonly ssePriming: boolean;
  /** Whether every result carries `resultType` (`"complete"`, `"input_required"`, …). */
  readonly resultType: boolean;
  /** Whether `server/discover` exists (the modern era's replacement for the handshake's answer). */
  readonly serverDiscover: boolean;
  /** Whether change notifications are delivered only on a `subscriptions/listen` stream. */
  readonly subscriptionsListen: boolean;
  /** The JSON-RPC error code of "resource not found" on `resources/read`. */
  readonly resourceNotFoundCode: number;
}

/**
 * Revision-dependent behaviour, one row per revision of {@link PROTOCOL_REVISIONS}:
 * - `era`, `initializeHandshake`: MCP 2026-07-28 basic/versioning.mdx (the modern era has no handshake).
 * - `batches`: only 2025-03-26 (MCP 2025-03-26 basic/index.mdx "Batching"; removed in MCP 2025-06-18
 *   changelog.mdx; absent from MCP 2026-07-28 basic/index.mdx).
 * - `protocolVersionHeader`: from 2025-06-18 (MCP 2025-06-18 basic/transports.mdx "Protocol Version Header").
 * - `structuredContent`: from 2025-06-18 (MCP 2025-06-18 server/tools.mdx "Structured Content").
 * - `elicitation`: from 2025-06-18 (MCP 2025-06-18 client/elicitation.mdx).
 * - `audioContent`, `toolAnnotations`, `completionsCapability`, `progressMessage`: from 2025-03-26 (MCP
 *   2025-03-26 changelog.mdx).
 * - `ssePriming`: 2025-11-25 only (MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server"); the
 *   2026-07-28 transport has no resumable streams.
 * - `resultType`, `serverDiscover`, `subscriptionsListen`: 2026-07-28 (MCP 2026-07-28 basic/index.mdx
 *   "ResultType", server/discover.mdx, basic/patterns/subscriptions.mdx).
 * - `resourceNotFoundCode` (literal numbers, so this module imports nothing and `errors.ts` may build on it):
 *   -32002 up to 2025-11-25 (MCP 2025-11-25 server/resources.mdx "Error Handling"),
 *   -32602 from 2026-07-28 (MCP 2026-07-28 server/resources.mdx "Error Handling").
 */
export const REVISION_FEATURES = {
  '2024-11-05': {
    era: 'legacy', initializeHandshake: true, batches: false, protocolVersionHeader: false, structuredContent: false, elicitation: false,
    audioContent: false, toolAnnotations: false, completionsCapability: false, progressMessage: false, ssePriming: false,
    resultType: false, serverDiscover: false, subscriptionsListen: false, resourceNotFoundCode: -32002,
  },
  '2025-03-26': {
    era: 'legacy', initializeHandshake: true, batches: true, protocolVersionHeader: false, structuredContent: false, elicitation: false,
    audioContent: true, toolAnnotations: true, completionsCapability: true, progressMessage: true, ssePriming: false,
    resultType: false, serverDiscover: false, subscriptionsListen: false, resourceNotFoundCode: -32002,
  },
  '2025-06-18': {
    era: 'legacy', initializeHandshake: true, batches: false, protocolVersionHeader: true, structuredContent: true, elicitation: true,
    audioContent: true, toolAnnotations: true, completionsCapability: true, progressMessage: true, ssePriming: false,
    resultType: false, serverDiscover: false, subscriptionsListen: false, resourceNotFoundCode: -32002,
  },
  '2025-11-25': {
    era: 'legacy', initializeHandshake: true, batches: false, protocolVersionHeader: true, structuredContent: true, elicitation: true,
    audioContent: true, toolAnnotations: true, completionsCapability: true, progressMessage: true, ssePriming: true,
    resultType: false, serverDiscover: false, subscriptionsListen: false, resourceNotFoundCode: -32002,
  },
  '2026-07-28': {
    era: 'modern', initializeHandshake: false, batches: false, protocolVersionHeader: true, structuredContent: true, elicitation: true,
    audioContent: true, toolAnnotations: true, completionsCapability: true, progressMessage: true, ssePriming: false,
    resultType: true, serverDiscover: true, subscriptionsListen: true, resourceNotFoundCode: -32602,
  },
} as const satisfies Record<ProtocolRevision, RevisionFeatures>;

/**
 * The era of `revision`.
 * @example revisionEra('2025-11-25') // 'legacy'
 */
export function revisionEra(revision: ProtocolRevision): Era {
  return REVISION_FEATURES[revision].era;
}
