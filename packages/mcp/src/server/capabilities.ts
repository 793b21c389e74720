/**
 * Server capabilities: derived from what is registered, merged with the configured ones, and the
 * `initialize` result per legacy revision (cached until the registry changes). Which capability each request
 * needs is the method table's (`protocol/methods.ts`).
 *
 * @see MCP 2025-11-25 basic/lifecycle.mdx "Capability Negotiation", schema.ts ServerCapabilities
 */
import { REVISION_FEATURES, type LegacyRevision } from '../protocol/revisions.js';
import type { Implementation, InitializeResult, ServerCapabilities } from '../protocol/types.js';
import { compact } from './params.js';
import type { Registry } from './registry.js';
import { CORE_TASKS_CAPABILITY, CORE_TASKS_REVISION } from './tasks/wire.js';

/** The capabilities and `initialize` results of one server, recomputed lazily after each registry change. */
export class CapabilityCache {
  readonly #registry: Registry;
  readonly #info: Implementation;
  readonly #configured: ServerCapabilities | undefined;
  readonly #instructions: string | undefined;
  readonly #initializeResults = new Map<LegacyRevision, InitializeResult>();
  #capabilities: ServerCapabilities | undefined;

  /** @param options the registry, `serverInfo`, configured capabilities and `instructions` */
  constructor(options: { readonly registry: Registry; readonly info: Implementation; readonly capabilities?: ServerCapabilities; readonly instructions?: string }) {
    this.#registry = options.registry;
    this.#info = options.info;
    this.#configured = options.capabilities;
    this.#instructions = options.instructions;
  }

  /** What the next `initialize` advertises (see `McpServer.capabilities`). */
  get capabilities(): ServerCapabilities {
    return (this.#capabilities ??= this.#derive());
  }

  /** The server's `instructions`, if configured. */
  get instructions(): string | undefined {
    return this.#instructions;
  }

  /** Forgets the derived values: the registry changed. */
  invalidate(): void {
    this.#capabilities = undefined;
    this.#initializeResults.clear();
  }

  /** The `initialize` result for `version`, one object per revision until the registry changes. */
  initializeResult(version: LegacyRevision): InitializeResult {
    let result = this.#initializeResults.get(version);
    if (result === undefined) {
      let capabilities = this.capabilities;
      // The `completions` capability exists from 2025-03-26 (changelog); 2024-11-05 has completion/complete without it.
      if (!REVISION_FEATURES[version].completionsCapability && capabilities.completions !== undefined) {
        const { completions: _absent, ...rest } = capabilities;
        capabilities = rest;
      }
      // 2025-11-25 core tasks: `tasks` when a tool is task-capable (the 2026-07-28 extension is in `extensions`).
      if (version === CORE_TASKS_REVISION && this.#registry.hasTaskTools && capabilities.tasks === undefined) {
        capabilities = { ...capabilities, tasks: CORE_TASKS_CAPABILITY };
      }
      result = compact({ protocolVersion: version, capabilities, serverInfo: this.#info, instructions: this.#instructions });
      this.#initializeResults.set(version, result);
    }
    return result;
  }

  #derive(): ServerCapabilities {
    const r = this.#registry;
    const derived: Record<string, unknown> = { logging: {} };
    if (r.tools.size > 0) derived.tools = { listChanged: true };
    if (r.resources.size > 0 || r.templates.size > 0) derived.resources = { subscribe: true, listChanged: true };
    if (r.prompts.size > 0) derived.prompts = { listChanged: true };
    if (r.prompts.size > 0 || r.templates.size > 0) derived.completions = {};
    // A mounted server's primitives are served here (mount.ts): the union of what each advertises, configured
    // capabilities included (its tools may come later), and nothing of what only its own endpoint serves.
    for (const mounted of r.mountedCapabilities) mergePrimitives(derived, mounted());
    return { ...derived, ...this.#configured };
  }
}

/** The capabilities a mounted server's primitives bring, ORed into `into`: `tools`, `resources`, `prompts`, `completions`. */
function mergePrimitives(into: Record<string, unknown>, from: ServerCapabilities): void {
  for (const key of ['tools', 'resources', 'prompts', 'completions'] as const) {
    const theirs = from[key];
    if (theirs === undefined) continue;
    const ours = into[key] as Record<string, unknown> | undefined;
    const merged: Record<string, unknown> = { ...ours };
    for (const [flag, value] of Object.entries(theirs)) if (value === true || merged[flag] === undefined) merged[flag] = value;
    into[key] = merged;
  }
}
