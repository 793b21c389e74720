/**
 * The vocabulary of the doctor as a CI gate (see `gate.ts`) and of findings an SDK's default causes (see
 * `sdkDefaults.ts`): what `--fail-on`, `--ignore` and a baseline file are, and what a finding says of its SDK.
 * Imports nothing, so that `types.ts` can use it.
 */
/** A finding that a known SDK's default behaviour causes: which package, and what can change it. */
export interface SdkDefault {
  /** The npm package, e.g. `@modelcontextprotocol/sdk`. */
  readonly package: string;
  /** The versions it applies to, and the one it was measured on, e.g. `1.x (measured on 1.32.2)`. */
  readonly versions: string;
  /** What the SDK does by default, one sentence. */
  readonly behaviour: string;
  /** What can change it: an upgrade, an option, or muting it (the server's own handlers cannot). */
  readonly remedy: string;
}

/** Which findings fail the run: `error` only errors, `warning` warnings and errors. */
export type FailOn = 'error' | 'warning';

/** What fails a run and what is muted: see `gate.ts`. */
export interface GateOptions {
  /** The lowest severity that fails the run (exit code 1). @default 'warning' */
  readonly failOn?: FailOn;
  /** Finding ids muted wherever they occur (`--ignore`, repeatable). @default [] */
  readonly ignore?: readonly string[];
  /** Known findings muted by id and fingerprint (`--baseline FILE`). */
  readonly baseline?: Baseline;
}

/** A baseline file (`--write-baseline FILE` writes one, `--baseline FILE` reads it). */
export interface Baseline {
  /** The version of the file's shape. */
  readonly baselineVersion: 1;
  /** The findings it mutes; `title` and `severity` are for the reader, only `id` and `fingerprint` match. */
  readonly findings: readonly { readonly id: string; readonly fingerprint: string; readonly title?: string; readonly severity?: string }[];
}
