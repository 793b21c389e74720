/**
 * The doctor's vocabulary: what it is given (a target, an injected environment), what a check sees (the check
 * context), and what it returns (a report of findings). Runtime-neutral: every effect — spawning a process,
 * fetching, the clock — comes through {@link DoctorEnv}, so tests run the doctor in-process and the CLI is a thin
 * shell over {@link runDoctor}.
 */
import type { HttpClientAuth, McpClient } from '@switchboard/mcp/client';
import type { FailOn, GateOptions, SdkDefault } from './gateTypes.js';

/** How bad a finding is. `error`: the server breaks a rule a client relies on; `warning`: it works here but fails
 * some hosts or wastes them; `info`: worth knowing, nothing to fix. */
export type Severity = 'error' | 'warning' | 'info';

/** The transport a target is reached on. */
export type DoctorTransport = 'stdio' | 'http';

/** The area a requirement and its check belong to (also the first word of their ids). */
export type DoctorArea = 'startup' | 'stdio' | 'http' | 'eras' | 'protocol' | 'primitives';

/** Where a rule is written: an MCP revision, the page of the spec and its section title. */
export interface SpecRef {
  /** e.g. `2025-11-25`. */
  readonly revision: string;
  /** The spec page, e.g. `basic/transports.mdx`. */
  readonly page: string;
  /** The section title on that page, e.g. `stdio`. */
  readonly section: string;
}

/**
 * One rule, written once: the doctor's checks report against it, and the test suite runs it against our own server
 * and the broken-servers gallery.
 */
export interface Requirement {
  /** Stable id, `<area>.<kebab-name>`, e.g. `stdio.stdout-not-protocol`. It is the id of the findings it yields. */
  readonly id: string;
  /** The area it belongs to: the first word of its id. */
  readonly area: DoctorArea;
  /**
   * What a finding of this requirement says was found, e.g. `Stdout carries lines that are not MCP messages`: it
   * reads right in a list of problems (never the rule itself, which is {@link rule}).
   */
  readonly title: string;
  /** The rule, e.g. `Only MCP messages on stdout`. */
  readonly rule: string;
  /** What a conforming server does, in one or two sentences. */
  readonly behaviour: string;
  /** The spec section; `null` for a rule of practice (then {@link source} says where it comes from). */
  readonly spec: SpecRef | null;
  /** For a rule of practice: where it comes from, public (an RFC section, host documentation, an issue URL). */
  readonly source?: string;
  /** The revisions it applies to. */
  readonly revisions: readonly string[] | 'all';
  /** The transports it applies to. */
  readonly transports: readonly DoctorTransport[];
  /** The severity of a violation (a check may lower it for one observation). */
  readonly severity: Severity;
  /** The likely causes of a violation, most likely first. */
  readonly causes: readonly string[];
  /** How to fix it. */
  readonly fix: string;
  /**
   * The server of `test/fixtures/broken-servers/` that plants this fault and nothing else: `file` without `.mjs`; a
   * stdio fixture is the target `node <file>.mjs`, an HTTP one is started the same way and prints one line
   * `{"url":"http://127.0.0.1:<port>/mcp"}` on stdout. `era`/`call`: the doctor options the fault needs.
   */
  readonly fixture?: {
    readonly file: string;
    readonly transport: DoctorTransport;
    readonly era?: 'legacy' | 'modern' | 'auto';
    readonly call?: { readonly name: string; readonly args: Readonly<Record<string, unknown>> };
    /**
     * stdio only: the command line to start instead of `node <file>.mjs`, as is (the command-not-found fixture names a
     * program that exists on no PATH; no `<file>.mjs` exists for it then).
     */
    readonly command?: readonly string[];
    /** The doctor's `requestTimeoutMs` for this fixture (a fault that shows only past the test suite's default wait). */
    readonly requestTimeoutMs?: number;
  };
}

/** One thing the doctor found. */
export interface Finding {
  /** The {@link Requirement} id. */
  readonly id: string;
  /** The requirement's severity, or the lower one the check gave this observation. */
  readonly severity: Severity;
  /** What was found (the requirement's title). */
  readonly title: string;
  /** The rule it breaks (the requirement's rule). */
  readonly rule: string;
  /** What was seen, one sentence. */
  readonly message: string;
  /** The exact messages, lines or bytes seen (each cut to 500 characters). */
  readonly evidence: readonly string[];
  /** The spec section of the rule (at the revision observed, when the check knows it); `null` for a rule of practice (then `source`). */
  readonly spec: SpecRef | null;
  /** Where a rule of practice comes from, public: an RFC section, host documentation, an issue URL. */
  readonly source?: string;
  /** The protocol revision the exchange that showed it was in, when one was negotiated. */
  readonly revision?: string;
  /** The likely causes, most likely first. */
  readonly causes: readonly string[];
  /** How to fix it. */
  readonly fix: string;
  /**
   * A stable fingerprint: the id and a digest of the evidence with what changes from run to run (ports, session
   * ids, durations) blanked (`fingerprint.ts`). A baseline mutes a finding by id and fingerprint, so a finding whose
   * evidence changed is not muted.
   */
  readonly fingerprint: string;
  /** Set when the behaviour is a known SDK's default, not the server's own code (`sdkDefaults.ts`). */
  readonly sdk?: SdkDefault;
  /** Set when the finding is muted (`--ignore` or `--baseline`): shown and counted as muted, never fails the run. */
  readonly muted?: 'ignore' | 'baseline';
}


/** How a check ended. */
export type CheckStatus = 'passed' | 'failed' | 'skipped' | 'timed-out' | 'crashed';

/** One check's line in the report. */
export interface CheckOutcome {
  /** The check id (`<area>.<name>`), or `connect` for the connect step. */
  readonly id: string;
  /** The progress display's line. */
  readonly title: string;
  /** How it ended. */
  readonly status: CheckStatus;
  /** Wall time of the check, milliseconds. */
  readonly durationMs: number;
  /** Why it was skipped, or what crashed (the doctor's own failure, never the server's). */
  readonly reason?: string;
}

/** What the doctor reached. */
export type DoctorTarget =
  | {
      readonly transport: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      /** Variables set over the doctor's environment. */
      readonly env?: Readonly<Record<string, string>>;
      /** `false`: the server gets `env` only, none of the doctor's environment. @default true */
      readonly inheritEnv?: boolean;
      readonly cwd?: string;
    }
  | {
      readonly transport: 'http';
      readonly url: string;
      /** Headers sent with every request (e.g. authorization). */
      readonly headers?: Readonly<Record<string, string>>;
      /** The authorization of the doctor's client connection (the user's stored OAuth credentials). @default none */
      readonly auth?: HttpClientAuth;
    };

/** The report: what `--json` prints (it validates against the package's `doctor-report.schema.json`). */
export interface DoctorReport {
  /** The version of this report's shape. */
  readonly schemaVersion: 1;
  /** What made the report, and its version. */
  readonly doctor: { readonly name: 'switchboard'; readonly version: string };
  /** The target, without its environment values (they may hold secrets). */
  readonly target: { readonly transport: DoctorTransport; readonly url?: string; readonly command?: string; readonly args?: readonly string[] };
  /** ISO 8601. */
  readonly startedAt: string;
  /** Wall time of the whole run, milliseconds. */
  readonly durationMs: number;
  /** Whether an MCP connection was made in any era. */
  readonly connected: boolean;
  /** What the server says it is (`serverInfo`), when a connection was made. */
  readonly server?: { readonly name: string; readonly version: string; readonly title?: string };
  /** What the server speaks: the revisions `initialize` settled on (legacy) and those `server/discover` lists (modern). */
  readonly eras: { readonly legacy: readonly string[]; readonly modern: readonly string[]; readonly dualEra: boolean };
  /** Measurements, e.g. `tools/list` tokens and latencies (`latencyMs.ping`). */
  readonly measurements: Readonly<Record<string, number>>;
  /** What was found, sorted: severity, then area in run order, then id. */
  readonly findings: readonly Finding[];
  /** Each check's outcome, in run order (the connect step included). */
  readonly checks: readonly CheckOutcome[];
  /**
   * The counts per severity of the findings not muted, the muted ones, the `--fail-on` level, and the exit code: 0
   * no unmuted finding at or above `failOn` and every check finished; 1 such a finding, or a check that crashed or
   * timed out; 2 could not connect.
   */
  readonly summary: { readonly errors: number; readonly warnings: number; readonly infos: number; readonly muted: number; readonly failOn: FailOn; readonly exitCode: 0 | 1 | 2 };
}

/** A process the doctor started, as {@link DoctorEnv.spawn} hands it over. */
export interface ProbeProcess {
  /** The process id (`undefined` when it could not start). */
  readonly pid: number | undefined;
  /** The raw bytes of stdout and stderr, as they come. */
  readonly stdout: AsyncIterable<Uint8Array>;
  /** The raw bytes of stderr, as they come. */
  readonly stderr: AsyncIterable<Uint8Array>;
  /** Writes raw bytes to stdin; rejects once stdin is closed. */
  write(bytes: Uint8Array): Promise<void>;
  /** Ends stdin. */
  endInput(): void;
  /** Settles when the process has ended, or could not start (`error`: `ENOENT`, `EACCES`, …). */
  readonly exited: Promise<{ readonly code: number | null; readonly signal: string | null; readonly error?: { readonly code: string; readonly message: string } }>;
  /**
   * Ends the process and its group: SIGTERM, then SIGKILL after `graceMs` (default 1000). Settles once it is gone.
   * `kill(0)` is SIGKILL at once, also while a gentler kill is under way (the doctor's last resort at its deadline).
   */
  kill(graceMs?: number): Promise<void>;
}

/** Everything the doctor does to the world, injected. */
export interface DoctorEnv {
  /** Starts a process (its own process group) with exactly this environment. */
  spawn(options: { readonly command: string; readonly args: readonly string[]; readonly env: Readonly<Record<string, string>>; readonly cwd?: string }): ProbeProcess;
  /** The `fetch` every HTTP probe and client uses (it must send a `Host` header as given, for the DNS-rebinding check). */
  readonly fetch: typeof globalThis.fetch;
  /** A monotonic clock, milliseconds. */
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** The doctor's own environment (`PATH`, `HOME`, …): a stdio server gets it with the target's `env` over it. */
  readonly environment: Readonly<Record<string, string | undefined>>;
  /** `process.platform`. */
  readonly platform: string;
  /** Whether a file exists and may be executed (for `PATH` resolution). */
  isExecutable(file: string): Promise<boolean>;
}

/** A line of a stdio server's stdout, as read. */
export interface StdioLine {
  /** The line without its `\n` (a `\r` or BOM it carried is kept). */
  readonly raw: string;
  /** The parsed JSON value, when `raw` (without a trailing `\r` and leading BOM) parses. */
  readonly json?: unknown;
  /** When it was read, {@link DoctorEnv.now} milliseconds. */
  readonly atMs: number;
  /**
   * Set when the line was longer than 64 MiB (`raw` is its start, and this is its whole length in bytes), or when its
   * text was dropped to keep what the wire holds under 128 MiB (then `raw` is `''`).
   */
  readonly truncatedBytes?: number;
}

/** A stdio server spoken to line by line, raw (one per {@link CheckContext.spawn}). */
export interface StdioWire {
  /** The process id (`undefined` when it could not start). */
  readonly pid: number | undefined;
  /** When it was started, {@link DoctorEnv.now} milliseconds. */
  readonly startedAtMs: number;
  /** Every stdout line so far, in order. */
  readonly lines: readonly StdioLine[];
  /** The last stderr lines (bounded). */
  readonly stderrTail: readonly string[];
  /** Set once the process has ended. */
  readonly exit: { readonly code: number | null; readonly signal: string | null; readonly error?: { readonly code: string; readonly message: string } } | undefined;
  /** Writes raw text (the caller adds the `\n`). */
  write(text: string): Promise<void>;
  /** Writes `JSON.stringify(message) + '\n'`. */
  send(message: unknown): Promise<void>;
  /**
   * Waits for the first line (already read ones included, from `fromIndex`, default 0) that `match` accepts.
   * @returns the line, or `undefined` once `timeoutMs` passed or the process ended
   */
  waitFor(match: (line: StdioLine) => boolean, options: { readonly timeoutMs: number; readonly fromIndex?: number }): Promise<StdioLine | undefined>;
  /**
   * Sends a request and waits for the line whose JSON `id` equals `id` (same type), or the line cut at the 64 MiB limit
   * whose top-level id is this one (`truncatedBytes` set, no `json`); `undefined` on timeout or exit.
   */
  request(message: { readonly id: string | number; readonly method: string; readonly params?: unknown }, timeoutMs: number): Promise<StdioLine | undefined>;
  /** Ends the process (stdin end, SIGTERM, SIGKILL). Idempotent. */
  close(): Promise<void>;
}

/** A raw HTTP request of a check (the target's URL and headers unless given). */
export interface HttpProbeRequest {
  /** The HTTP method. */
  readonly method: 'GET' | 'POST' | 'DELETE' | 'OPTIONS' | 'PUT';
  /** The URL. @default the target's URL */
  readonly url?: string;
  /** Sent over the target's headers; a `null` value removes one. No default `Accept` or `Content-Type` is added. */
  readonly headers?: Readonly<Record<string, string | null>>;
  /** A string as is, anything else as JSON. */
  readonly body?: unknown;
  /** Budget of this exchange, milliseconds. @default the context's request budget */
  readonly timeoutMs?: number;
  /** For an SSE answer: stop reading after the first JSON-RPC response (default), or read until the stream ends or the timeout. */
  readonly readSse?: 'first-response' | 'until-end';
}

/** What came back. */
export interface HttpProbeResponse {
  /** 0 when no answer came (network error, timeout). */
  readonly status: number;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body as text, cut to 1 MiB. */
  readonly text: string;
  /** The JSON-RPC messages of the body: the JSON body (an array spread), or each SSE `data` event parsed. */
  readonly messages: readonly unknown[];
  /** The SSE events' `id` fields, in order (for resumption checks). */
  readonly eventIds: readonly string[];
  /** Why no answer came, when `status` is 0. */
  readonly error?: string;
}

/** What the checks learn and share (earlier checks fill it; later ones read it). */
export interface DoctorFacts {
  /** Whether the connect step made an MCP connection. */
  connected: boolean;
  /** Milliseconds from spawn to the first answer (stdio). */
  startupMs?: number;
  /** What the server says it is (`serverInfo`). */
  serverInfo?: { readonly name: string; readonly version: string; readonly title?: string };
  /** The revisions an `initialize` settled on, when offered each legacy revision. */
  legacyRevisions: string[];
  /** The revisions `server/discover` lists. */
  modernRevisions: string[];
  /** The era the default client settled on. */
  era?: 'legacy' | 'modern';
  /** The tools `tools/list` gave (every page), as sent. */
  tools?: readonly Record<string, unknown>[];
  /** The resources `resources/list` gave, as sent. */
  resources?: readonly Record<string, unknown>[];
  /** The resource templates `resources/templates/list` gave, as sent. */
  resourceTemplates?: readonly Record<string, unknown>[];
  /** The prompts `prompts/list` gave, as sent. */
  prompts?: readonly Record<string, unknown>[];
  /** Numbers for the report's `measurements` (e.g. `tools/list.tokens`, `latencyMs.ping`). */
  measurements: Record<string, number>;
  /** The first stdout line that is not a JSON-RPC message, seen by any process the doctor started (stdio only). */
  stdoutNoise?: StdoutNoise;
  /** Set when the server answered a request without credentials 401 (HTTP): the authorization servers its metadata names (empty when none was found). */
  auth?: { readonly authorizationServers: readonly string[] };
}

/** A stdout line that is not a JSON-RPC message, and where it was seen (see {@link DoctorFacts.stdoutNoise}). */
export interface StdoutNoise {
  /** The line as read, without its `\n`. */
  readonly line: string;
  /** Its number on that process's stdout, from 1. */
  readonly lineNumber: number;
  /** From the start of that process to the line, milliseconds. */
  readonly afterMs: number;
  /** The id of the check that was running when it was read (`connect` for the connect step). */
  readonly by: string;
  /** Set once a check has reported it as `stdio.stdout-not-protocol` (then no later check reports it again). */
  readonly reported?: boolean;
}

/** What a check may say of one observation. */
export interface Observation {
  /** What was seen, one sentence (no trailing period). */
  readonly message: string;
  /** The exact messages or lines seen. */
  readonly evidence?: readonly string[];
  /** Overrides the requirement's severity for this observation. */
  readonly severity?: Severity;
  /** The protocol revision of the exchange observed (the finding cites it). */
  readonly revision?: string;
  /** The spec section at that revision, when it is not the requirement's (a rule whose section moved or changed). */
  readonly spec?: SpecRef;
}

/** What a check sees. */
export interface CheckContext {
  /** The server the doctor reaches. */
  readonly target: DoctorTarget;
  /** Everything the doctor does to the world (spawn, fetch, clock). */
  readonly env: DoctorEnv;
  /** Aborted when the doctor's budget is spent: stop and return. */
  readonly signal: AbortSignal;
  /** The budget of one request or wait, milliseconds (never past the doctor's deadline). */
  readonly requestTimeoutMs: number;
  /** `--era`. */
  readonly era: 'legacy' | 'modern' | 'auto';
  /** `--call NAME --args JSON`: the one tool the doctor may call. */
  readonly call?: { readonly name: string; readonly args: Readonly<Record<string, unknown>> };
  /** `--foreign-token`: a token issued for another resource, which the server must refuse. */
  readonly foreignToken?: string;
  /** What earlier checks learned (this check may add to it). */
  readonly facts: DoctorFacts;
  /** Reports a violation of a requirement (its id must be in the check's `requirements`). */
  report(requirementId: string, observation: Observation): void;
  /**
   * An `McpClient` on the target, connected in `era` (default: the `--era` choice), cached per era and revision
   * and closed by the doctor at the end.
   * @throws the client's typed errors when it cannot connect
   */
  client(options?: { readonly era?: 'legacy' | 'modern' | 'auto'; readonly revision?: string }): Promise<McpClient>;
  /** A fresh stdio process of the target, raw (stdio targets only; closed by the doctor at the end). */
  spawn(): Promise<StdioWire>;
  /** One raw HTTP exchange with the target (HTTP targets only). Never throws: a failure is `status: 0`. */
  http(request: HttpProbeRequest): Promise<HttpProbeResponse>;
  /** A line for the progress display ("offering 2024-11-05"). */
  progress(text: string): void;
  /**
   * Ends the check as `skipped` with this reason (`no --call given`): call it, then return. A warning or error it
   * reported still makes it `failed`.
   */
  skip(reason: string): void;
}

/** One check: probes the server and reports what breaks its requirements. */
export interface Check {
  /** Stable id, `<area>.<name>`. */
  readonly id: string;
  /** The progress display's line, e.g. `stdio hygiene`. */
  readonly title: string;
  /** The area it belongs to: the first word of its id. */
  readonly area: DoctorArea;
  /** The transports it runs on (it is skipped on the others). */
  readonly transports: readonly DoctorTransport[];
  /** The requirement ids it may report. */
  readonly requirements: readonly string[];
  /** Skipped unless an MCP connection was made (`facts.connected`). @default true */
  readonly needsConnection?: boolean;
  /** Probes the server and reports each violation through `ctx.report`; never throws for server behaviour (a throw is the doctor's own bug: `crashed`). */
  run(ctx: CheckContext): Promise<void>;
}

/** What the progress display is told. */
export type DoctorProgress =
  | { readonly type: 'check-start'; readonly id: string; readonly title: string }
  | { readonly type: 'check-note'; readonly id: string; readonly text: string }
  | {
      readonly type: 'check-end';
      readonly id: string;
      readonly title: string;
      readonly status: CheckStatus;
      readonly findings: number;
      readonly durationMs: number;
      /** The worst severity among its findings (the display's mark: ✖ error, ⚠ warning, ℹ info). */
      readonly worst?: Severity;
      /** Why it was skipped, or what crashed (as in its {@link CheckOutcome}). */
      readonly reason?: string;
    };

/** What {@link runDoctor} is given. */
export interface DoctorOptions {
  /** The server to diagnose. */
  readonly target: DoctorTarget;
  /** Everything the doctor does to the world (spawn, fetch, clock); `nodeDoctorEnv()` on Node. */
  readonly env: DoctorEnv;
  /** The whole run's budget, milliseconds: the doctor returns a report by then. @default 60_000 */
  readonly timeoutMs?: number;
  /** The budget of one request or wait, milliseconds. @default 10_000 (capped by what is left of `timeoutMs`) */
  readonly requestTimeoutMs?: number;
  /** `--era`: the era the checks connect in (legacy = session-based, modern = 2026-07-28, auto = probe then fall back). @default 'auto' */
  readonly era?: 'legacy' | 'modern' | 'auto';
  /** `--call NAME --args JSON`: the one tool the doctor may call (absent: it calls no tool). */
  readonly call?: { readonly name: string; readonly args: Readonly<Record<string, unknown>> };
  /**
   * `--foreign-token`: an access token issued for another resource (another audience), sent once to an HTTP server
   * that asks for credentials; it must be refused (RFC 8707). Absent: that check is skipped.
   */
  readonly foreignToken?: string;
  /** Told each check's start, notes and end (the progress display). */
  readonly onProgress?: (event: DoctorProgress) => void;
  /** Aborted when the user stops the run (Ctrl-C): the doctor then ends like at its deadline (checks still running are `timed-out`), closes and kills what it started, and returns the report. */
  readonly signal?: AbortSignal;
  /** The checks to run, in order (a subset for tests or a focused run). @default CHECKS (every check, in order) */
  readonly checks?: readonly Check[];
  /** What fails the run and what is muted (`--fail-on`, `--ignore`, `--baseline`). @default fail on warnings, nothing muted */
  readonly gate?: GateOptions;
}

/** The doctor's entry point, implemented in `doctor.ts`. */
export type RunDoctor = (options: DoctorOptions) => Promise<DoctorReport>;
