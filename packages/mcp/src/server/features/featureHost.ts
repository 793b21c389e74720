/**
 * What the era-neutral operations need from their server: the registry, the logger, and whether handler
 * results are checked. Nothing about sessions.
 */
import type { Logger } from '@switchboard/jsonrpc';
import type { ServerRequestContext } from '../context.js';
import { isRecord } from '../params.js';
import type { Registry } from '../registry.js';
import type { Visibility } from '../options.js';

/** The server facts an operation reads. */
export interface FeatureHost {
  readonly registry: Registry;
  readonly logger: Logger;
  /** See `McpServerOptions.checkResults`. */
  readonly checkResults: boolean;
  /** See `McpServerOptions.pageSize`. */
  readonly pageSize: number;
  /** See `McpServerOptions.visibility`. */
  readonly visibility: Visibility | undefined;
}

const OBJECT_PROTOTYPE: object = Object.prototype;

/**
 * The handler's context is the dispatcher's (see `createContext`); this records the request's own `_meta` on it
 * (one inherited from a polluted `Object.prototype` is not the request's: asked `Object.hasOwn` only then).
 */
export function withMeta(ctx: unknown, p: Record<string, unknown>): ServerRequestContext {
  const call = ctx as ServerRequestContext;
  const meta = p._meta;
  if (isRecord(meta) && (!('_meta' in OBJECT_PROTOTYPE) || Object.hasOwn(p, '_meta'))) call.requestMeta = meta;
  return call;
}
