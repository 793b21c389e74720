/**
 * The MCP method table: for every request and notification of every revision, who sends it, whether it is a
 * request or a notification, the capability it needs, and the revisions it exists in. Taken from each
 * revision's `schema.ts` (`ClientRequest`, `ClientNotification`, `ServerRequest`, `ServerNotification`).
 *
 * @see MCP 2024-11-05 … 2026-07-28 schema.ts; MCP 2026-07-28 changelog.mdx (methods removed from the modern era)
 */
import { LEGACY_REVISIONS, PROTOCOL_REVISIONS, type Era, type ProtocolRevision, REVISION_FEATURES } from './revisions.js';

/** Who sends a message: the client to the server, or the server to the client. */
export type MethodDirection = 'clientToServer' | 'serverToClient';

/** Whether a method is a request (answered) or a notification (never answered). */
export type MethodKind = 'request' | 'notification';

/**
 * A capability a method needs. `holder` is whose capability it is: `server` (e.g. `tools` for `tools/call`),
 * `client` (e.g. `sampling` for `sampling/createMessage`) or `receiver` (whichever side receives the message, for
 * methods either side may send, e.g. `tasks/get`). With `flag`, the capability object must hold `flag: true`
 * (e.g. `resources.subscribe`).
 */
export interface CapabilityNeed {
  readonly holder: 'server' | 'client' | 'receiver';
  readonly capability: string;
  readonly flag?: string;
}

/** One row of {@link MCP_METHODS}. */
export interface McpMethod {
  /** The JSON-RPC method name. */
  readonly method: string;
  readonly kind: MethodKind;
  /** The revisions in which the client sends it (empty when it never does). */
  readonly clientToServer: readonly ProtocolRevision[];
  /** The revisions in which the server sends it (empty when it never does). */
  readonly serverToClient: readonly ProtocolRevision[];
  /** Every revision it exists in, in either direction, oldest first. */
  readonly revisions: readonly ProtocolRevision[];
  /** The eras of {@link revisions}. */
  readonly eras: readonly Era[];
  /** The capability it needs; absent when none (e.g. `ping`). */
  readonly capability?: CapabilityNeed;
  /** The spec page that defines it, as `MCP <revision> <page>`. */
  readonly spec: string;
}

const ALL = PROTOCOL_REVISIONS;
const LEGACY = LEGACY_REVISIONS;
const NONE: readonly ProtocolRevision[] = [];
const FROM_2025_06_18: readonly ProtocolRevision[] = ['2025-06-18', '2025-11-25'];
const ONLY_2025_11_25: readonly ProtocolRevision[] = ['2025-11-25'];
const ONLY_2026_07_28: readonly ProtocolRevision[] = ['2026-07-28'];
const TASKS_2025_AND_EXTENSION: readonly ProtocolRevision[] = ['2025-11-25', '2026-07-28'];

type RowInput = readonly [
  method: string,
  kind: MethodKind,
  clientToServer: readonly ProtocolRevision[],
  serverToClient: readonly ProtocolRevision[],
  spec: string,
  capability?: CapabilityNeed,
];

const server = (capability: string, flag?: string): CapabilityNeed => (flag === undefined ? { holder: 'server', capability } : { holder: 'server', capability, flag });
const client = (capability: string, flag?: string): CapabilityNeed => (flag === undefined ? { holder: 'client', capability } : { holder: 'client', capability, flag });
const receiver = (capability: string): CapabilityNeed => ({ holder: 'receiver', capability });

// Requests need the receiver's capability, notifications the sender's (a list-changed notification is sent only
// when the sender advertised `listChanged`), except `notifications/elicitation/complete`, which follows the
// client's `elicitation` capability.
const ROWS: readonly RowInput[] = [
  // Lifecycle (legacy era only; MCP 2026-07-28 changelog.mdx removes the handshake).
  ['initialize', 'request', LEGACY, NONE, 'MCP 2025-11-25 basic/lifecycle.mdx'],
  ['notifications/initialized', 'notification', LEGACY, NONE, 'MCP 2025-11-25 basic/lifecycle.mdx'],
  ['ping', 'request', LEGACY, LEGACY, 'MCP 2025-11-25 basic/utilities/ping.mdx'],
  ['server/discover', 'request', ONLY_2026_07_28, NONE, 'MCP 2026-07-28 server/discover.mdx'],
  // Utilities.
  ['notifications/cancelled', 'notification', ALL, ALL, 'MCP 2025-11-25 basic/utilities/cancellation.mdx'],
  ['notifications/progress', 'notification', LEGACY, ALL, 'MCP 2025-11-25 basic/utilities/progress.mdx'],
  ['logging/setLevel', 'request', LEGACY, NONE, 'MCP 2025-11-25 server/utilities/logging.mdx', server('logging')],
  ['notifications/message', 'notification', NONE, ALL, 'MCP 2025-11-25 server/utilities/logging.mdx', server('logging')],
  ['completion/complete', 'request', ALL, NONE, 'MCP 2025-11-25 server/utilities/completion.mdx', server('completions')],
  // Tools, resources, prompts.
  ['tools/list', 'request', ALL, NONE, 'MCP 2025-11-25 server/tools.mdx', server('tools')],
  ['tools/call', 'request', ALL, NONE, 'MCP 2025-11-25 server/tools.mdx', server('tools')],
  ['notifications/tools/list_changed', 'notification', NONE, ALL, 'MCP 2025-11-25 server/tools.mdx', server('tools', 'listChanged')],
  ['resources/list', 'request', ALL, NONE, 'MCP 2025-11-25 server/resources.mdx', server('resources')],
  ['resources/templates/list', 'request', ALL, NONE, 'MCP 2025-11-25 server/resources.mdx', server('resources')],
  ['resources/read', 'request', ALL, NONE, 'MCP 2025-11-25 server/resources.mdx', server('resources')],
  ['resources/subscribe', 'request', LEGACY, NONE, 'MCP 2025-11-25 server/resources.mdx', server('resources', 'subscribe')],
  ['resources/unsubscribe', 'request', LEGACY, NONE, 'MCP 2025-11-25 server/resources.mdx', server('resources', 'subscribe')],
  ['notifications/resources/updated', 'notification', NONE, ALL, 'MCP 2025-11-25 server/resources.mdx', server('resources', 'subscribe')],
  ['notifications/resources/list_changed', 'notification', NONE, ALL, 'MCP 2025-11-25 server/resources.mdx', server('resources', 'listChanged')],
  ['prompts/list', 'request', ALL, NONE, 'MCP 2025-11-25 server/prompts.mdx', server('prompts')],
  ['prompts/get', 'request', ALL, NONE, 'MCP 2025-11-25 server/prompts.mdx', server('prompts')],
  ['notifications/prompts/list_changed', 'notification', NONE, ALL, 'MCP 2025-11-25 server/prompts.mdx', server('prompts', 'listChanged')],
  // Modern-era subscriptions.
  ['subscriptions/listen', 'request', ONLY_2026_07_28, NONE, 'MCP 2026-07-28 basic/patterns/subscriptions.mdx'],
  ['notifications/subscriptions/acknowledged', 'notification', NONE, ONLY_2026_07_28, 'MCP 2026-07-28 basic/patterns/subscriptions.mdx'],
  // Client features: server→client requests exist in the legacy era only (the modern era embeds them as input
  // requests inside a result, MCP 2026-07-28 basic/patterns/mrtr.mdx).
  ['sampling/createMessage', 'request', NONE, LEGACY, 'MCP 2025-11-25 client/sampling.mdx', client('sampling')],
  ['roots/list', 'request', NONE, LEGACY, 'MCP 2025-11-25 client/roots.mdx', client('roots')],
  ['notifications/roots/list_changed', 'notification', LEGACY, NONE, 'MCP 2025-11-25 client/roots.mdx', client('roots', 'listChanged')],
  ['elicitation/create', 'request', NONE, FROM_2025_06_18, 'MCP 2025-11-25 client/elicitation.mdx', client('elicitation')],
  ['notifications/elicitation/complete', 'notification', NONE, ONLY_2025_11_25, 'MCP 2025-11-25 client/elicitation.mdx', client('elicitation')],
  // Tasks: core in 2025-11-25 only (an extension from 2026-07-28), sent by either side.
  // From 2026-07-28 the tasks extension (io.modelcontextprotocol/tasks) defines tasks/get, tasks/update, tasks/cancel
  // and notifications/tasks; the client capability they need is checked by the inbound step.
  ['tasks/get', 'request', TASKS_2025_AND_EXTENSION, ONLY_2025_11_25, 'MCP 2025-11-25 basic/utilities/tasks.mdx', receiver('tasks')],
  ['tasks/update', 'request', ONLY_2026_07_28, NONE, 'io.modelcontextprotocol/tasks "Input Required"'],
  ['notifications/tasks', 'notification', NONE, ONLY_2026_07_28, 'io.modelcontextprotocol/tasks "Task Notifications"'],
  ['tasks/result', 'request', ONLY_2025_11_25, ONLY_2025_11_25, 'MCP 2025-11-25 basic/utilities/tasks.mdx', receiver('tasks')],
  ['tasks/list', 'request', ONLY_2025_11_25, ONLY_2025_11_25, 'MCP 2025-11-25 basic/utilities/tasks.mdx', receiver('tasks')],
  ['tasks/cancel', 'request', TASKS_2025_AND_EXTENSION, ONLY_2025_11_25, 'MCP 2025-11-25 basic/utilities/tasks.mdx', receiver('tasks')],
  ['notifications/tasks/status', 'notification', ONLY_2025_11_25, ONLY_2025_11_25, 'MCP 2025-11-25 basic/utilities/tasks.mdx'],
];

function toRow([method, kind, clientToServer, serverToClient, spec, capability]: RowInput): McpMethod {
  const revisions = PROTOCOL_REVISIONS.filter((r) => clientToServer.includes(r) || serverToClient.includes(r));
  const eras = (['legacy', 'modern'] as const).filter((era) => revisions.some((r) => REVISION_FEATURES[r].era === era));
  const row: McpMethod = capability === undefined
    ? { method, kind, clientToServer, serverToClient, revisions, eras, spec }
    : { method, kind, clientToServer, serverToClient, revisions, eras, capability, spec };
  return Object.freeze(row);
}

/** Every MCP method of every revision, keyed by method name (O(1) lookup). */
export const MCP_METHODS: ReadonlyMap<string, McpMethod> = new Map(ROWS.map((input) => [input[0], toRow(input)]));

/**
 * The row of `method`, or `undefined` when no revision defines it.
 * @example methodRow('tools/call')?.capability // { holder: 'server', capability: 'tools' }
 */
export function methodRow(method: string): McpMethod | undefined {
  return MCP_METHODS.get(method);
}

/**
 * Whether `row` is sent in `direction` at `revision`.
 * @example methodExists(methodRow('ping')!, '2026-07-28', 'clientToServer') // false
 */
export function methodExists(row: McpMethod, revision: ProtocolRevision, direction: MethodDirection): boolean {
  return (direction === 'clientToServer' ? row.clientToServer : row.serverToClient).includes(revision);
}

/** The methods whose complete results are cacheable (MCP 2026-07-28 server/utilities/caching.mdx). */
export const CACHEABLE_METHODS = ['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read'] as const;

/** One of {@link CACHEABLE_METHODS}. */
export type CacheableMethod = (typeof CACHEABLE_METHODS)[number];
