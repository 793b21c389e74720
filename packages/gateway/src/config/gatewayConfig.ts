/**
 * A gateway configuration file: its shape (the JSON Schema in `configSchema.ts`, published as
 * `schema/gateway-config.schema.json`), its validation with an error naming the field, and the
 * {@link GatewayOptions} it stands for. Reading the file and resolving paths are the caller's (the CLI's).
 */
import { Validator, type OutputUnit } from '@cfworker/json-schema';
import type { GatewayMiddlewareOptions, GatewayOptions, GatewaySearchOptions, GatewayUpstreamOptions } from '../gateway.js';
import type { BackoffOptions } from '../fanout/backoff.js';
import type { ToolPolicy } from '../fanout/toolPolicy.js';
import type { UpstreamEndpoint } from './connector.js';
import { GATEWAY_CONFIG_SCHEMA } from './configSchema.js';

/**
 * One upstream of a configuration file: a `command` (stdio) or a `url` (HTTP) as {@link UpstreamEndpoint} has them
 * (a file cannot hold a `connector`; its `cwd` is relative to the configuration file), and how it is served.
 */
export interface UpstreamConfig extends Omit<UpstreamEndpoint, 'connector'> {
  readonly prefix?: string;
  readonly era?: 'auto' | 'legacy' | 'modern';
  readonly connectTimeoutMs?: number;
  readonly tools?: ToolPolicy;
  readonly sessionPerCaller?: boolean | { readonly maxSessions?: number; readonly idleTimeoutMs?: number };
}

/** A gateway configuration file (see `schema/gateway-config.schema.json` for every field). */
export interface GatewayConfig {
  readonly upstreams: Readonly<Record<string, UpstreamConfig>>;
  readonly search?: GatewaySearchOptions;
  readonly middleware?: GatewayMiddlewareOptions;
  readonly connectTimeoutMs?: number;
  readonly healthCheckIntervalMs?: number;
  readonly maxCatalogTools?: number;
  readonly maxItemsPerList?: number;
  readonly backoff?: BackoffOptions;
  /** OAuth on the gateway's own endpoint (served by `switchboard gateway`; see {@link GatewayAuthConfig}). */
  readonly auth?: GatewayAuthConfig;
}

/**
 * OAuth on the gateway's front, as the configuration file gives it: `switchboard gateway` makes of it the HTTP
 * handler's `auth` option with a `jwtVerifier` (MCP 2025-11-25 basic/authorization; RFC 8707, RFC 9728).
 */
export interface GatewayAuthConfig {
  /** The gateway endpoint's canonical URL: the audience its tokens must name. */
  readonly resource: string;
  /** The issuers a client may get a token from. */
  readonly authorizationServers: readonly string[];
  /** The issuer a token's `iss` must equal. @default the first of `authorizationServers` */
  readonly issuer?: string;
  /** The issuer's key set URL. @default its metadata's `jwks_uri` */
  readonly jwksUrl?: string;
  /** Other audiences accepted (such tokens must be `typ: at+jwt`). @default none */
  readonly allowedAudiences?: readonly string[];
  /** Scopes every request needs. @default none */
  readonly requiredScopes?: readonly string[];
  /** Scopes the protected-resource metadata lists. @default none */
  readonly scopesSupported?: readonly string[];
}

/** A configuration that is not JSON or breaks the schema; `field` is the JSON Pointer of the offending value. */
export class GatewayConfigError extends Error {
  /** The JSON Pointer of the field at fault (`''` for the whole document). */
  readonly field: string;
  constructor(message: string, field: string) {
    super(message);
    this.name = 'GatewayConfigError';
    this.field = field;
  }
}

let validator: Validator | undefined;

/** Keywords whose error only says that a sub-schema failed: the sub-schema's own error says what. */
const WRAPPERS = new Set(['properties', 'additionalProperties', '$ref', 'items', 'allOf', 'propertyNames']);

/** The most telling error: the deepest value at fault, its own keyword rather than a wrapper's. */
function pick(errors: readonly OutputUnit[]): OutputUnit | undefined {
  const depth = (unit: OutputUnit) => unit.instanceLocation.split('/').length;
  const own = errors.filter((unit) => !WRAPPERS.has(unit.keyword));
  const pool = own.length > 0 ? own : errors;
  return [...pool].sort((a, b) => depth(b) - depth(a))[0];
}

/** `#/upstreams/a%20b` → `/upstreams/a b`. */
function pointer(instanceLocation: string): string {
  return decodeURIComponent(instanceLocation.replace(/^#/, ''));
}

/** The schema node at an error's `keywordLocation` (through `$ref`s to `#/$defs/…`). */
function schemaAt(keywordLocation: string): unknown {
  let node: unknown = GATEWAY_CONFIG_SCHEMA;
  for (const part of keywordLocation.replace(/^#\/?/, '').split('/')) {
    if (typeof node !== 'object' || node === null) return undefined;
    const record = node as Record<string, unknown>;
    node = part === '$ref' && typeof record.$ref === 'string' ? schemaAt(record.$ref) : record[part];
  }
  return node;
}

/** What is wrong, in a few words (sentence case, no trailing period). */
function explain(unit: OutputUnit): string {
  const where = pointer(unit.instanceLocation);
  switch (unit.keyword) {
    case 'oneOf':
      return /^\/upstreams\/[^/]+$/.test(where) ? 'expected exactly one of "command" or "url"' : 'matches none or several of the allowed forms';
    case 'false':
      return 'unknown field';
    case 'required':
      return unit.error.replace(/^Instance does not have required property (.*)\.$/, 'missing the required field $1');
    case 'type':
      return unit.error.replace(/^Instance type "(.*)" is invalid\. Expected "(.*)"\.$/, 'expected $2, got $1');
    case 'pattern': {
      const pattern = schemaAt(unit.keywordLocation);
      const expected = typeof pattern === 'string' ? pattern : "the field's pattern";
      // A `propertyNames` rule judges the key itself, not a value under it.
      return unit.keywordLocation.includes('/propertyNames/') ? `the name is not allowed: expected a name matching ${expected}` : `expected a string matching ${expected}`;
    }
    default:
      return unit.error.replace(/^Instance /, '').replace(/\.$/, '');
  }
}

/**
 * Checks a parsed configuration against the schema.
 * @throws GatewayConfigError naming the field at fault (`Invalid gateway config at /upstreams/files/url: …`)
 */
export function validateGatewayConfig(value: unknown): GatewayConfig {
  validator ??= new Validator(GATEWAY_CONFIG_SCHEMA as never, '2020-12', false);
  const result = validator.validate(value);
  if (result.valid) return distinctPrefixes(value as GatewayConfig);
  const unit = pick(result.errors);
  const field = unit === undefined ? '' : pointer(unit.instanceLocation);
  throw new GatewayConfigError(`Invalid gateway config at ${field === '' ? '/' : field}: ${unit === undefined ? 'does not match the schema' : explain(unit)}`, field);
}

/**
 * Two upstreams under one prefix (an upstream's prefix is its name unless set) would serve colliding names: the
 * second could never be mounted, so the file is refused here rather than reported "ready" and left unserved.
 * @throws GatewayConfigError naming the second upstream's `prefix`
 */
function distinctPrefixes(config: GatewayConfig): GatewayConfig {
  const owners = new Map<string, string>();
  for (const [name, upstream] of Object.entries(config.upstreams)) {
    const prefix = upstream.prefix ?? name;
    const owner = owners.get(prefix);
    if (owner !== undefined) throw new GatewayConfigError(`Invalid gateway config at /upstreams/${name}/prefix: "${prefix}" is already the prefix of upstream "${owner}"`, `/upstreams/${name}/prefix`);
    owners.set(prefix, name);
  }
  return config;
}

/**
 * Parses and checks the text of a configuration file.
 * @throws GatewayConfigError when it is not JSON (with the parser's message) or breaks the schema
 */
export function parseGatewayConfig(text: string): GatewayConfig {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new GatewayConfigError(`Invalid gateway config: not JSON: ${(error as Error).message}`, '');
  }
  return validateGatewayConfig(value);
}

/** Options of {@link gatewayOptionsFromConfig}. */
export interface GatewayConfigContext {
  /** Resolves a path of the file (an upstream's `cwd`) against the file's folder. @default paths as written */
  readonly resolvePath?: (path: string) => string;
}

/** The upstreams of a configuration as gateway options. */
export function upstreamOptionsFromConfig(config: GatewayConfig, context: GatewayConfigContext = {}): Record<string, GatewayUpstreamOptions> {
  const resolve = context.resolvePath ?? ((path: string) => path);
  return Object.fromEntries(
    Object.entries(config.upstreams).map(([name, upstream]) => {
      const { era, cwd, ...rest } = upstream;
      const options: GatewayUpstreamOptions = { ...rest, ...(cwd === undefined ? {} : { cwd: resolve(cwd) }), ...(era === undefined ? {} : { client: { era } }) };
      return [name, options];
    }),
  );
}

/** The {@link GatewayOptions} a configuration stands for (the caller adds its logger, listeners and front options). */
export function gatewayOptionsFromConfig(config: GatewayConfig, context: GatewayConfigContext = {}): GatewayOptions {
  return {
    upstreams: upstreamOptionsFromConfig(config, context),
    ...(config.search === undefined ? {} : { search: config.search }),
    ...(config.middleware === undefined ? {} : { middleware: config.middleware }),
    ...(config.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: config.connectTimeoutMs }),
    ...(config.healthCheckIntervalMs === undefined ? {} : { healthCheckIntervalMs: config.healthCheckIntervalMs }),
    ...(config.maxCatalogTools === undefined ? {} : { maxCatalogTools: config.maxCatalogTools }),
    ...(config.maxItemsPerList === undefined ? {} : { maxItemsPerList: config.maxItemsPerList }),
    ...(config.backoff === undefined ? {} : { backoff: config.backoff }),
  };
}
