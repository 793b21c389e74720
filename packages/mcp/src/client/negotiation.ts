/**
 * Era negotiation: which era and revision to speak with a server, per MCP 2026-07-28 basic/versioning.mdx
 * "Backward Compatibility" and basic/transports/stdio.mdx / streamable-http.mdx "Backward Compatibility".
 *
 * 1. `pin`: that revision only. Else a cached verdict for the connector's key is tried first; if it then fails the
 *    way a wrong verdict fails (an error answer, an HTTP refusal, no answer), it is forgotten and the server is
 *    negotiated once more.
 * 2. The probe: `server/discover` with the modern envelope. A `DiscoverResult` → modern at the newest revision both
 *    list; `-32022` with `data.supported` → retry at a listed modern revision we speak, or legacy at the newest
 *    listed legacy one; `-32020` / `-32021` → modern. Anything else (another code, an HTTP status without a modern
 *    error, no answer within `probeTimeoutMs`, the process closing) → legacy. Never keyed to one error code.
 * 3. Legacy: `initialize` at our newest legacy revision (or the pin); the server's counter-offer is accepted when we
 *    speak it; then `notifications/initialized`. On HTTP, a 400/404/405 that is not a modern error → the 2024-11-05
 *    HTTP+SSE transport (`connector.openHttpSse`). A modern-only server answering `initialize` with `-32022` → modern.
 * 4. The verdict `{ era, revision, transport, at }` is stored (not for a pin).
 */
import type { Logger } from '@switchboard/jsonrpc';
import { AuthorizationError, ConnectionClosedError, ConnectionRefusedError, HttpStatusError, RequestTimeoutError, SpawnError } from '../protocol/clientErrors.js';
import { SERVER_INFO_META_KEY } from '../protocol/envelope.js';
import { McpError, McpErrorCode, UnsupportedProtocolVersionError } from '../protocol/errors.js';
import {
  LATEST_LEGACY_REVISION,
  LEGACY_REVISIONS,
  MODERN_REVISIONS,
  isLegacyRevision,
  isModernRevision,
  isProtocolRevision,
  type Era,
  type LegacyRevision,
  type ModernRevision,
  type ProtocolRevision,
} from '../protocol/revisions.js';
import type { ClientConnector } from '../protocol/transport.js';
import type { ClientCapabilities, Implementation, InitializeResult, ServerCapabilities } from '../protocol/types.js';
import type { ClientConnection } from './connection.js';
import { NegotiationError } from './errors.js';
import type { EraVerdict, EraVerdictStore } from './verdicts.js';

/** What negotiation found: the era and revision, and what the server said about itself. */
export interface Negotiated {
  readonly era: Era;
  readonly revision: ProtocolRevision;
  /** From the `initialize` result, or the discover result's `_meta` (modern). */
  readonly serverInfo: Implementation | undefined;
  readonly serverCapabilities: ServerCapabilities;
  readonly instructions: string | undefined;
}

/** What negotiation is given. */
export interface NegotiationSetup {
  readonly connector: ClientConnector;
  /** Opens and starts a fresh connection, over the 2024-11-05 HTTP+SSE transport when `httpSse`. */
  readonly open: (options: { readonly httpSse: boolean }) => Promise<ClientConnection>;
  readonly era: 'auto' | 'modern' | 'legacy';
  readonly pin: ProtocolRevision | undefined;
  readonly verdictStore: EraVerdictStore;
  readonly probeTimeoutMs: number;
  /** The budget of `initialize`, in ms. */
  readonly timeoutMs: number;
  readonly capabilities: ClientCapabilities;
  readonly clientInfo: Implementation;
  readonly logger: Logger;
}

/** The negotiated connection. */
export interface NegotiationResult {
  readonly connection: ClientConnection;
  readonly negotiated: Negotiated;
}

type Params = Record<string, unknown>;

function isRecord(value: unknown): value is Params {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Newest first, our modern revisions in `listed`. */
function modernIn(listed: readonly string[]): ModernRevision | undefined {
  return [...MODERN_REVISIONS].reverse().find((r) => listed.includes(r));
}

/** Newest first, our legacy revisions in `listed`. */
function legacyIn(listed: readonly string[]): LegacyRevision | undefined {
  return [...LEGACY_REVISIONS].reverse().find((r) => listed.includes(r));
}

/** A JSON-RPC error the modern era defines (MCP 2026-07-28 basic/index.mdx "Error Codes"): the server is modern. */
function modernErrorOf(error: unknown): McpError | undefined {
  const wire = error instanceof HttpStatusError ? error.error : error;
  if (!(wire instanceof McpError)) return undefined;
  const code = wire.code;
  return code === McpErrorCode.UnsupportedProtocolVersion || code === McpErrorCode.HeaderMismatch || code === McpErrorCode.MissingRequiredClientCapability ? wire : undefined;
}

/** The outcome of one `server/discover`. */
type Probe =
  | { readonly kind: 'modern'; readonly negotiated: Negotiated }
  | { readonly kind: 'retry'; readonly revision: ModernRevision }
  | { readonly kind: 'legacy'; readonly revision: LegacyRevision; readonly closed: boolean; readonly httpRefusal: boolean }
  | { readonly kind: 'none'; readonly supported: readonly string[] };

/** Negotiates; see the module comment. @throws NegotiationError, SpawnError, ConnectionClosedError, a typed error of `initialize` */
export async function negotiate(setup: NegotiationSetup): Promise<NegotiationResult> {
  if (setup.pin !== undefined) return pinned(setup, setup.pin);
  const key = setup.connector.verdictKey;
  const verdict = await readVerdict(setup, key);
  if (verdict !== undefined && (setup.era === 'auto' || setup.era === verdict.era)) {
    const connection = await setup.open({ httpSse: verdict.transport === 'http-sse' });
    try {
      const negotiated = verdict.era === 'modern' ? await modernAt(connection, setup, verdict.revision as ModernRevision) : await initialize(connection, setup, { revision: verdict.revision as LegacyRevision });
      return await stored(setup, connection, negotiated);
    } catch (error) {
      await connection.close();
      if (!wrongVerdict(error)) throw error;
      setup.logger.info('Cached era verdict no longer holds: negotiating again', { key, era: verdict.era, revision: verdict.revision });
      await forgetVerdict(setup, key);
    }
  }
  let connection = await setup.open({ httpSse: false });
  try {
    // The 2024-11-05 HTTP+SSE transport carries sessions only: there is nothing to probe.
    if (setup.era !== 'legacy' && setup.connector.kind !== 'http-sse') {
      let probe = await discover(connection, setup, { revision: MODERN_REVISIONS[MODERN_REVISIONS.length - 1]! });
      if (probe.kind === 'retry') probe = await discover(connection, setup, { revision: probe.revision, retried: true });
      if (probe.kind === 'modern') return await stored(setup, connection, probe.negotiated);
      if (probe.kind === 'none' || probe.kind === 'retry') throw new NegotiationError({ reason: 'no revision in common', supported: probe.kind === 'none' ? probe.supported : undefined });
      if (setup.era === 'modern') throw new NegotiationError({ reason: 'the server does not answer "server/discover": it is not a modern-era server' });
      if (probe.closed) {
        await connection.close();
        connection = await setup.open({ httpSse: false });
      }
      const legacy = await legacyOrHttpSse(connection, setup, probe.revision);
      return await stored(setup, legacy.connection, legacy.negotiated);
    }
    const legacy = await legacyOrHttpSse(connection, setup, LATEST_LEGACY_REVISION);
    return await stored(setup, legacy.connection, legacy.negotiated);
  } catch (error) {
    await connection.close();
    throw error;
  }
}

/** A pinned revision: no probe, no fallback, no verdict. */
async function pinned(setup: NegotiationSetup, pin: ProtocolRevision): Promise<NegotiationResult> {
  const connection = await setup.open({ httpSse: false });
  try {
    const negotiated = isModernRevision(pin) ? await modernAt(connection, setup, pin) : await initialize(connection, setup, { revision: pin });
    if (negotiated.era === 'modern') connection.setProtocol({ era: 'modern', revision: negotiated.revision });
    return { connection, negotiated };
  } catch (error) {
    await connection.close();
    if (error instanceof UnsupportedProtocolVersionError) throw new NegotiationError({ reason: `the server refused the pinned revision "${pin}"`, supported: error.supported, cause: error });
    throw error;
  }
}

/** `server/discover` at `revision` where the server must be modern (a pin or a cached verdict). */
async function modernAt(connection: ClientConnection, setup: NegotiationSetup, revision: ModernRevision): Promise<Negotiated> {
  let probe = await discover(connection, setup, { revision, strict: true });
  if (probe.kind === 'retry' && probe.revision === revision) probe = await discover(connection, setup, { revision, strict: true, retried: true });
  if (probe.kind === 'modern' && probe.negotiated.revision === revision) return probe.negotiated;
  throw new NegotiationError({ reason: `the server does not serve revision "${revision}"`, supported: probe.kind === 'none' ? probe.supported : undefined });
}

/**
 * One `server/discover` claiming `revision`. With `strict`, a failure that says nothing about the era (an error
 * code, a timeout) is thrown as is instead of meaning "legacy".
 */
async function discover(connection: ClientConnection, setup: NegotiationSetup, at: { readonly revision: ModernRevision; readonly strict?: boolean; readonly retried?: boolean }): Promise<Probe> {
  const { revision, strict = false, retried = false } = at;
  let result: unknown;
  try {
    result = await connection.request({ method: 'server/discover', params: {}, timeoutMs: setup.probeTimeoutMs }, { claim: revision, cancellable: false });
  } catch (error) {
    const modern = modernErrorOf(error);
    if (modern instanceof UnsupportedProtocolVersionError) {
      // A refusal listing the revision just sent (a server that wants it in a header it did not get, say) is retried
      // once all the same (MCP 2026-07-28 basic/versioning.mdx: pick a listed revision and retry); a second is final.
      const next = modernIn(modern.supported);
      if (next !== undefined && !retried) return { kind: 'retry', revision: next };
      const legacy = legacyIn(modern.supported);
      return legacy === undefined || strict ? { kind: 'none', supported: modern.supported } : { kind: 'legacy', revision: legacy, closed: false, httpRefusal: false };
    }
    if (modern !== undefined) return { kind: 'modern', negotiated: { era: 'modern', revision, serverInfo: undefined, serverCapabilities: {}, instructions: undefined } };
    // A process that exited before answering anything would exit again, and an address where nothing listens
    // would refuse `initialize` too: neither is a verdict on the era. Nor is a sign-in that failed (it would run again).
    if (strict || error instanceof SpawnError || error instanceof ConnectionRefusedError || error instanceof AuthorizationError) throw error;
    setup.logger.debug('The server did not answer "server/discover" as a modern server: trying "initialize"', { error });
    return { kind: 'legacy', revision: LATEST_LEGACY_REVISION, closed: error instanceof ConnectionClosedError || connection.closed, httpRefusal: error instanceof HttpStatusError };
  }
  const supported = isRecord(result) && Array.isArray(result.supportedVersions) ? result.supportedVersions.filter((v): v is string => typeof v === 'string') : undefined;
  if (!isRecord(result) || supported === undefined) {
    if (strict) throw new NegotiationError({ reason: 'the "server/discover" result has no "supportedVersions"' });
    return { kind: 'legacy', revision: LATEST_LEGACY_REVISION, closed: false, httpRefusal: false };
  }
  const modern = modernIn(supported);
  if (modern === undefined) {
    const legacy = legacyIn(supported);
    return legacy === undefined || strict ? { kind: 'none', supported } : { kind: 'legacy', revision: legacy, closed: false, httpRefusal: false };
  }
  if (modern !== revision) return { kind: 'retry', revision: modern };
  const meta = isRecord(result._meta) ? result._meta : undefined;
  // Identity belongs in `_meta` (MCP 2026-07-28 server/discover.mdx); a top-level `serverInfo` is read as a fallback.
  const info = meta?.[SERVER_INFO_META_KEY] ?? result.serverInfo;
  return {
    kind: 'modern',
    negotiated: {
      era: 'modern',
      revision,
      serverInfo: isRecord(info) && typeof info.name === 'string' ? (info as unknown as Implementation) : undefined,
      serverCapabilities: isRecord(result.capabilities) ? result.capabilities : {},
      instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
    },
  };
}

/**
 * `initialize` at `revision`; on HTTP, when Streamable HTTP is refused with 400/404/405 and no modern error, the
 * 2024-11-05 HTTP+SSE transport (MCP 2025-11-25 basic/transports.mdx "Backwards Compatibility").
 */
async function legacyOrHttpSse(connection: ClientConnection, setup: NegotiationSetup, revision: LegacyRevision): Promise<NegotiationResult> {
  try {
    return { connection, negotiated: await initialize(connection, setup, { revision }) };
  } catch (error) {
    const refused = error instanceof HttpStatusError && [400, 404, 405].includes(error.status) && modernErrorOf(error) === undefined;
    if (!refused || setup.connector.openHttpSse === undefined) throw error;
    setup.logger.info('Streamable HTTP refused "initialize": trying the 2024-11-05 HTTP+SSE transport', { status: error.status });
    await connection.close();
    const next = await setup.open({ httpSse: true });
    try {
      return { connection: next, negotiated: await initialize(next, setup, { revision }) };
    } catch (failure) {
      await next.close();
      throw failure;
    }
  }
}

/** The legacy handshake at `revision` (MCP 2025-11-25 basic/lifecycle.mdx "Initialization"). */
async function initialize(connection: ClientConnection, setup: NegotiationSetup, at: { readonly revision: LegacyRevision; readonly retried?: boolean }): Promise<Negotiated> {
  const { revision, retried = false } = at;
  let result: unknown;
  try {
    // MCP 2025-11-25 basic/utilities/cancellation.mdx: the client MUST NOT cancel `initialize`.
    const params = { protocolVersion: revision, capabilities: setup.capabilities, clientInfo: setup.clientInfo };
    result = await connection.request({ method: 'initialize', params, timeoutMs: setup.timeoutMs }, { cancellable: false, noProgress: true });
  } catch (error) {
    const modern = modernErrorOf(error);
    if (modern instanceof UnsupportedProtocolVersionError && setup.pin === undefined) {
      // A modern-only server naming its revisions in its answer to `initialize` (MCP 2026-07-28 basic/versioning.mdx).
      const next = modernIn(modern.supported);
      if (next !== undefined && setup.era !== 'legacy') return modernAt(connection, setup, next);
      const legacy = legacyIn(modern.supported);
      if (legacy !== undefined && legacy !== revision && !retried) return initialize(connection, setup, { revision: legacy, retried: true });
      throw new NegotiationError({ reason: 'the server refused "initialize"', supported: modern.supported, cause: modern });
    }
    throw error;
  }
  if (!isRecord(result) || typeof result.protocolVersion !== 'string') {
    throw new NegotiationError({ reason: 'the "initialize" result has no "protocolVersion"' });
  }
  const offered = result.protocolVersion;
  // MCP 2025-11-25 basic/lifecycle.mdx "Version Negotiation": a revision the client does not support → disconnect.
  if (!isLegacyRevision(offered) || (setup.pin !== undefined && offered !== setup.pin)) {
    throw new NegotiationError({ reason: `the server answered "initialize" with revision "${offered}", which ${setup.pin === undefined ? 'this client does not speak' : 'is not the pinned one'}`, supported: [offered] });
  }
  const init = result as unknown as InitializeResult;
  connection.setProtocol({ era: 'legacy', revision: offered });
  await connection.notify('notifications/initialized');
  return {
    era: 'legacy',
    revision: offered,
    serverInfo: isRecord(init.serverInfo) ? init.serverInfo : undefined,
    serverCapabilities: isRecord(init.capabilities) ? init.capabilities : {},
    instructions: typeof init.instructions === 'string' ? init.instructions : undefined,
  };
}

/**
 * Fixes the protocol on the connection and stores the verdict. Only a client that let the server choose (`era:
 * 'auto'`) stores one: a client held to an era learns what the server does in that era, not what it does best, and
 * its verdict would steer every other client of the same server (same key: a stdio command line, a URL) to that era.
 */
async function stored(setup: NegotiationSetup, connection: ClientConnection, negotiated: Negotiated): Promise<NegotiationResult> {
  if (negotiated.era === 'modern') connection.setProtocol({ era: 'modern', revision: negotiated.revision });
  if (setup.era !== 'auto') return { connection, negotiated };
  const verdict: EraVerdict = { era: negotiated.era, revision: negotiated.revision, transport: connection.transport.kind, at: Date.now() };
  try {
    await setup.verdictStore.set(setup.connector.verdictKey, verdict);
  } catch (error) {
    setup.logger.warn('Era verdict store failed: verdict not kept', { key: setup.connector.verdictKey, error });
  }
  return { connection, negotiated };
}

async function readVerdict(setup: NegotiationSetup, key: string): Promise<EraVerdict | undefined> {
  try {
    const verdict = await setup.verdictStore.get(key);
    return verdict !== undefined && isProtocolRevision(verdict.revision) ? verdict : undefined;
  } catch (error) {
    setup.logger.warn('Era verdict store failed: negotiating without it', { key, error });
    return undefined;
  }
}

async function forgetVerdict(setup: NegotiationSetup, key: string): Promise<void> {
  try {
    await setup.verdictStore.delete(key);
  } catch (error) {
    setup.logger.warn('Era verdict store failed: stale verdict not deleted', { key, error });
  }
}

/** Whether a failure with a cached verdict says the verdict is wrong (rather than the server being unreachable). */
function wrongVerdict(error: unknown): boolean {
  return error instanceof McpError || error instanceof HttpStatusError || error instanceof RequestTimeoutError || error instanceof NegotiationError;
}
