/**
 * The {@link CheckContext} each check runs with: its signal (the run's deadline and the check's own abort), the
 * budget of one wait, the shared facts, `report()` checked against the check's requirements and the manifest, and
 * the ways to reach the target (`client()`, `spawn()`, `http()`). Everything opened is kept in the run's
 * {@link RunResources}, which the runner closes at the end whatever the checks did.
 */
import { InMemoryEraVerdictStore, McpClient, streamableHttp } from '@switchboard/mcp/client';
import type { ClientConnector, McpClientOptions } from '@switchboard/mcp/client';
import { VERSION } from '../version.js';
import type { Budget } from './budget.js';
import { anySignal } from './budget.js';
import { isProtocolLine } from './checks/stdio/probeMessages.js';
import { httpProbe } from './httpProbe.js';
import { pacedResponse } from '../pacedBody.js';
import { findingOf } from './report.js';
import { requirement } from './requirements/index.js';
import { doctorStdioConnector } from './stdioConnector.js';
import { openStdioWire } from './stdioWire.js';
import { PROTOCOL_VERSION_META_KEY } from '@switchboard/mcp';
import type { Check, CheckContext, DoctorEnv, DoctorFacts, DoctorProgress, DoctorTarget, Finding, HttpProbeRequest, Observation, ProbeProcess, StdioWire, StdoutNoise } from './types.js';

/** The client era each `--era` choice asks for. */
export const CLIENT_ERA = { legacy: 'legacy', modern: 'modern', auto: 'auto' } as const;
/** The grace between SIGTERM and SIGKILL when the doctor ends a process, ms. */
export const KILL_GRACE_MS = 500;
/** The longest `server/discover` probe of a doctor client, ms. */
const MAX_PROBE_MS = 5_000;

const silent = (): void => {};
/** The doctor's clients say nothing: what they survive is the checks' to report. */
const SILENT_LOGGER = { debug: silent, info: silent, warn: silent, error: silent };

/** Everything a run opened, closed by {@link RunResources.closeAll}. */
export class RunResources {
  readonly #clients = new Map<string, Promise<McpClient>>();
  readonly #processes = new Set<ProbeProcess>();
  readonly #wires = new Set<StdioWire>();
  /** Aborts every fetch of the run's clients once the run is over. */
  readonly #fetches = new AbortController();
  #closed = false;
  /** The id of the check running now (checks run one at a time): who saw a stdout line read in the background. */
  running = '';

  /** Whether the run is over: what a check that ignored its signal opens now is refused or killed at once. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The signal every client fetch carries. */
  get fetchSignal(): AbortSignal {
    return this.#fetches.signal;
  }

  client(key: string, connect: () => Promise<McpClient>): Promise<McpClient> {
    if (this.#closed) return Promise.reject(new Error('The doctor has finished: no new connection'));
    let client = this.#clients.get(key);
    if (client === undefined) {
      client = connect();
      client.catch(() => {});
      this.#clients.set(key, client);
    }
    return client;
  }

  addProcess(proc: ProbeProcess): void {
    this.#processes.add(proc);
    if (this.#closed) proc.kill(KILL_GRACE_MS).catch(() => {});
  }

  addWire(wire: StdioWire): void {
    this.#wires.add(wire);
  }

  /**
   * Closes every client (a client still connecting is closed once it connects) and every wire, and ends every
   * process by its group, gently for the first half of `waitMs`; then every process still there is killed at once
   * (`kill(0)`: SIGKILL to its group) and waited for, so none outlives the run.
   */
  async closeAll(options: { readonly env: DoctorEnv; readonly waitMs: number }): Promise<void> {
    this.#closed = true;
    const closes: Promise<unknown>[] = [];
    for (const client of this.#clients.values()) closes.push(client.then((c) => c.close()).catch(() => {}));
    for (const wire of this.#wires) closes.push(wire.close().catch(() => {}));
    for (const proc of this.#processes) closes.push(proc.kill(KILL_GRACE_MS).catch(() => {}));
    const timer = new AbortController();
    const gentle = await Promise.race([Promise.all(closes).then(() => true), options.env.sleep(options.waitMs / 2, timer.signal).then(() => false, () => false)]);
    timer.abort();
    this.#fetches.abort(new Error('The doctor has finished'));
    if (!gentle) await Promise.all([...this.#processes].map((proc) => proc.kill(0).catch(() => {})));
  }
}

/** What {@link createCheckContext} is given. */
export interface CheckContextOptions {
  readonly check: Pick<Check, 'id' | 'requirements'>;
  readonly target: DoctorTarget;
  readonly env: DoctorEnv;
  readonly budget: Budget;
  /** The check's own abort (the runner aborts it when the check is over). */
  readonly abort: AbortSignal;
  readonly era: CheckContext['era'];
  readonly call?: CheckContext['call'];
  readonly foreignToken?: string;
  readonly facts: DoctorFacts;
  readonly resources: RunResources;
  readonly onFinding: (finding: Finding) => void;
  readonly onProgress?: (event: DoctorProgress) => void;
}

/** A check context and what the runner learns of it afterwards. */
export interface CheckContextHandle {
  readonly ctx: CheckContext;
  /** The doctor's own bug the check hit through its context (an id it may not report), if any. */
  misuse(): Error | undefined;
  /** Why the check skipped itself (`ctx.skip`), if it did. */
  skipped(): string | undefined;
  /** Ends the context: later reports and progress are ignored. */
  retire(): void;
}

/** The finding of an observation, from its requirement in the manifest. @throws TypeError for an id not in it */
function findingFor(id: string, observation: Observation): Finding {
  const rule = requirement(id);
  if (rule === undefined) throw new TypeError(`Unknown requirement id: "${id}"`);
  return findingOf(rule, observation);
}

/** Keeps the first stdout line that is not a JSON-RPC message seen in the run (see `DoctorFacts.stdoutNoise`). */
function noteNoise(facts: DoctorFacts, noise: StdoutNoise): void {
  facts.stdoutNoise ??= noise;
}

/** The first line of a wire that is not a JSON-RPC message (a line cut at 64 MiB is not judged). */
function noiseOf(wire: StdioWire, by: string): StdoutNoise | undefined {
  const index = wire.lines.findIndex((line) => line.truncatedBytes === undefined && !isProtocolLine(line));
  if (index === -1) return undefined;
  const line = wire.lines[index]!;
  return { line: line.raw, lineNumber: index + 1, afterMs: line.atMs - wire.startedAtMs, by };
}

/** The environment of a stdio server: the doctor's, with the target's over it (the target's only: `inheritEnv: false`). */
export function serverEnvironment(env: DoctorEnv, target: Extract<DoctorTarget, { transport: 'stdio' }>): Record<string, string> {
  if (target.inheritEnv === false) return { ...target.env };
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env.environment)) if (value !== undefined) out[name] = value;
  return { ...out, ...target.env };
}

function connectorOf(options: CheckContextOptions): ClientConnector {
  const { target, env, resources } = options;
  if (target.transport === 'stdio') {
    return doctorStdioConnector({
      env,
      command: target.command,
      args: target.args,
      environment: serverEnvironment(env, target),
      ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
      onSpawn: (proc) => resources.addProcess(proc),
      killGraceMs: KILL_GRACE_MS,
      // The connect step's client lives for the whole run: a line it reads is told as seen by the check running then.
      onNotProtocol: (seen) => noteNoise(options.facts, { ...seen, by: resources.running }),
    });
  }
  // Bodies paced (pacedBody.ts): an endless answer read faster than it is decoded cannot hold the run past its deadline.
  const paced = { now: () => env.now(), expired: () => options.budget.left() === 0 || resources.fetchSignal.aborted, reason: () => new Error("The doctor's time budget is spent") };
  const fetch: typeof globalThis.fetch = async (input, init) =>
    pacedResponse(await env.fetch(input, { ...init, signal: init?.signal == null ? resources.fetchSignal : anySignal([init.signal, resources.fetchSignal]) }), paced);
  return streamableHttp({ url: target.url, ...(target.headers === undefined ? {} : { headers: target.headers }), ...(target.auth === undefined ? {} : { auth: target.auth }), fetch });
}

/**
 * Makes the context of one check.
 */
export function createCheckContext(options: CheckContextOptions): CheckContextHandle {
  const { check, target, env, budget, resources, facts } = options;
  const signal = anySignal([budget.signal, options.abort]);
  let misuse: Error | undefined;
  let skipped: string | undefined;
  let retired = false;
  resources.running = check.id;
  const wires: StdioWire[] = [];
  const requestTimeoutMs = (): number => budget.requestTimeoutMs();
  /** The protocol revision of the last raw HTTP request this check sent, when it named one. */
  let lastRevision: string | undefined;
  const ctx: CheckContext = {
    target,
    env,
    signal,
    get requestTimeoutMs() {
      return requestTimeoutMs();
    },
    era: options.era,
    ...(options.call === undefined ? {} : { call: options.call }),
    ...(options.foreignToken === undefined ? {} : { foreignToken: options.foreignToken }),
    facts,
    report(id, observation) {
      if (retired) return;
      if (!check.requirements.includes(id)) {
        misuse = new TypeError(`Check "${check.id}" reported "${id}", which is not in its requirements`);
        throw misuse;
      }
      let finding: Finding;
      try {
        // A finding cites the revision it was observed at: the check's own word, else the revision of the last raw
        // HTTP request the check sent (what an HTTP check observes is the answer to that request).
        finding = findingFor(id, observation.revision === undefined && lastRevision !== undefined ? { ...observation, revision: lastRevision } : observation);
      } catch (error) {
        misuse = error as Error;
        throw error;
      }
      options.onFinding(finding);
    },
    client(asked = {}) {
      const era = asked.era ?? CLIENT_ERA[options.era];
      const key = `${era}|${asked.revision ?? ''}`;
      return resources.client(key, () => {
        const timeoutMs = Math.max(1, requestTimeoutMs());
        return McpClient.connect({
          connector: connectorOf(options),
          clientInfo: { name: 'switchboard-doctor', version: VERSION },
          era,
          ...(asked.revision === undefined ? {} : { pin: asked.revision as NonNullable<McpClientOptions['pin']> }),
          reconnect: false,
          cache: false,
          verdictStore: new InMemoryEraVerdictStore(),
          logger: SILENT_LOGGER,
          timeoutMs,
          probeTimeoutMs: Math.min(timeoutMs, MAX_PROBE_MS),
        });
      });
    },
    spawn() {
      if (retired) return Promise.reject(new Error(`The check "${check.id}" is over: no new process`));
      if (target.transport !== 'stdio') return Promise.reject(new TypeError(`Check "${check.id}" asked for a stdio process of an HTTP target`));
      const proc = env.spawn({ command: target.command, args: target.args, env: serverEnvironment(env, target), ...(target.cwd === undefined ? {} : { cwd: target.cwd }) });
      resources.addProcess(proc);
      const wire = openStdioWire({ env, process: proc, signal, killGraceMs: KILL_GRACE_MS });
      resources.addWire(wire);
      wires.push(wire);
      return Promise.resolve(wire);
    },
    http(request) {
      if (target.transport !== 'http') return Promise.resolve({ status: 0, headers: {}, text: '', messages: [], eventIds: [], error: 'The target is not an HTTP server' });
      lastRevision = revisionOfRequest(request) ?? lastRevision;
      return httpProbe({ env, target, request, timeoutMs: requestTimeoutMs(), signal });
    },
    progress(text) {
      if (!retired) options.onProgress?.({ type: 'check-note', id: check.id, text });
    },
    skip(reason) {
      if (!retired) skipped = reason;
    },
  };
  return {
    ctx,
    misuse: () => misuse,
    skipped: () => skipped,
    retire: () => {
      retired = true;
      // What the check's own processes wrote on stdout so far counts too, whether the check looked at it or not.
      for (const wire of wires) {
        const noise = noiseOf(wire, check.id);
        if (noise !== undefined) noteNoise(facts, noise);
      }
    },
  };
}

/**
 * The protocol revision a raw HTTP request speaks: an `initialize`'s offered `protocolVersion`, else its
 * `MCP-Protocol-Version` header, else the 2026-07-28 envelope's `_meta` protocol version; `undefined` when it names
 * none.
 */
export function revisionOfRequest(request: HttpProbeRequest): string | undefined {
  const body = request.body as { method?: unknown; params?: { protocolVersion?: unknown; _meta?: Record<string, unknown> } } | null | undefined;
  if (typeof body === 'object' && body !== null) {
    if (body.method === 'initialize' && typeof body.params?.protocolVersion === 'string') return body.params.protocolVersion;
  }
  const header = Object.entries(request.headers ?? {}).find(([name]) => name.toLowerCase() === 'mcp-protocol-version')?.[1];
  if (typeof header === 'string' && header !== '') return header;
  const meta = typeof body === 'object' && body !== null ? body.params?._meta?.[PROTOCOL_VERSION_META_KEY] : undefined;
  return typeof meta === 'string' ? meta : undefined;
}
