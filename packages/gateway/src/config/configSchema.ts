/**
 * The JSON Schema (draft 2020-12) of a gateway configuration file (`switchboard gateway --config gateway.json`),
 * the one source: the package publishes it as `schema/gateway-config.schema.json` (a test keeps the file equal to
 * this object).
 */

const name = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } as const;
const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const;
/** A duration a timer holds: whole milliseconds up to 2^31 - 1. */
const ms = { type: 'integer', minimum: 0, maximum: 2_147_483_647 } as const;
const patterns = { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 1000 } as const;

/** The schema's `$id`. */
export const GATEWAY_CONFIG_SCHEMA_ID = 'https://switchboard-mcp.dev/schema/gateway-config.schema.json';

/** The JSON Schema of a gateway configuration (see the module comment). */
export const GATEWAY_CONFIG_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: GATEWAY_CONFIG_SCHEMA_ID,
  title: 'Switchboard gateway configuration',
  description: 'Many MCP servers (stdio commands or HTTP URLs) behind one Switchboard endpoint: switchboard gateway --config FILE',
  type: 'object',
  required: ['upstreams'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    upstreams: {
      description: 'The upstream servers by name; the name is the default prefix of their tools and prompts (name_tool)',
      type: 'object',
      maxProperties: 100,
      propertyNames: name,
      additionalProperties: { $ref: '#/$defs/upstream' },
    },
    search: {
      description: 'List search_tools + call_tool (and the pinned tools) instead of every upstream tool\'s schema',
      type: 'object',
      additionalProperties: false,
      properties: {
        enabled: { type: 'boolean', default: false },
        pinned: { description: 'Front tool names (<prefix>_<name>) that stay listed in search mode', type: 'array', items: { type: 'string' }, maxItems: 1000 },
      },
    },
    middleware: {
      type: 'object',
      additionalProperties: false,
      properties: {
        toolTimeoutsMs: { description: 'A deadline per call in ms, by front tool name (<prefix>_<name>); "*" for every other tool', type: 'object', additionalProperties: { type: 'integer', minimum: 1 } },
        rateLimit: {
          description: 'A token bucket per caller (the authenticated client, else the remote address)',
          type: 'object',
          additionalProperties: false,
          properties: {
            requestsPerSecond: { description: 'Sustained requests per second (default 10)', type: 'number', exclusiveMinimum: 0 },
            burst: { description: 'Requests at once after being idle (default 20)', type: 'integer', minimum: 1 },
          },
        },
      },
    },
    connectTimeoutMs: { ...ms, description: 'Deadline of one attempt to connect and list an upstream, in ms (default 10000)' },
    healthCheckIntervalMs: { ...ms, description: 'How often a ready upstream is pinged, in ms; 0 disables (default 15000)' },
    maxCatalogTools: { type: 'integer', minimum: 1, description: 'The most tools of the merged catalog (default 10000)' },
    maxItemsPerList: { type: 'integer', minimum: 1, description: 'The most tools, resources or prompts served of one upstream (default 1000)' },
    auth: {
      description:
        "OAuth on the gateway's own endpoint, independent of the upstreams (which never see a caller's token): bearer JWTs checked against the issuer's key set (needs the package jose), RFC 9728 metadata served (MCP 2025-11-25 basic/authorization)",
      type: 'object',
      additionalProperties: false,
      required: ['resource', 'authorizationServers'],
      properties: {
        resource: { description: "The gateway endpoint's canonical URL, the audience its tokens must name (RFC 8707)", type: 'string', pattern: '^https?://' },
        authorizationServers: { description: 'The issuers a client may get a token from (RFC 9728 authorization_servers)', type: 'array', minItems: 1, maxItems: 16, items: { type: 'string', pattern: '^https?://' } },
        issuer: { description: "The issuer a token's iss must equal (default: the first authorization server)", type: 'string', pattern: '^https?://' },
        jwksUrl: { description: "The issuer's key set URL (default: its metadata's jwks_uri)", type: 'string', pattern: '^https?://' },
        allowedAudiences: { description: 'Other audiences accepted (such tokens must be typ at+jwt)', type: 'array', maxItems: 64, items: { type: 'string' } },
        requiredScopes: { description: 'Scopes every request needs (403 insufficient_scope without)', type: 'array', maxItems: 64, items: { type: 'string' } },
        scopesSupported: { description: 'Scopes the metadata lists (RFC 9728 scopes_supported)', type: 'array', maxItems: 256, items: { type: 'string' } },
      },
    },
    backoff: {
      description: 'When a failed or dead upstream is tried again: initial × multiplier^(n-1), capped, the jitter share random',
      type: 'object',
      additionalProperties: false,
      properties: {
        initialDelayMs: { type: 'number', exclusiveMinimum: 0 },
        maxDelayMs: { type: 'number', exclusiveMinimum: 0, maximum: 3_600_000 },
        multiplier: { type: 'number', minimum: 1 },
        jitter: { type: 'number', minimum: 0, maximum: 1 },
      },
    },
  },
  $defs: {
    upstream: {
      type: 'object',
      additionalProperties: false,
      oneOf: [
        { required: ['command'], not: { required: ['url'] } },
        { required: ['url'], not: { required: ['command'] } },
      ],
      properties: {
        command: { description: 'A stdio server: the program (looked up on PATH, or a path against cwd)', type: 'string', minLength: 1 },
        args: { type: 'array', items: { type: 'string' } },
        env: { ...stringMap, description: 'Variables set for the stdio server, over the gateway\'s environment (unless inheritEnv is false)' },
        inheritEnv: { description: 'false: the stdio server gets env only, none of the gateway\'s own environment (which may hold its secrets) (default true)', type: 'boolean' },
        cwd: { description: 'The stdio server\'s working directory (relative to the configuration file)', type: 'string' },
        url: { description: 'An HTTP server: its MCP endpoint', type: 'string', pattern: '^https?://' },
        transport: { description: 'streamable-http (falls back to HTTP+SSE for a 2024-11-05 server) or http-sse', enum: ['streamable-http', 'http-sse'] },
        headers: { ...stringMap, description: 'Headers sent on every HTTP request' },
        prefix: { description: 'Put before its tool and prompt names with _ ("" for none; default the upstream name)', type: 'string', pattern: '^[A-Za-z0-9_.-]{0,64}$' },
        era: { description: 'Which era to speak to it: auto probes and falls back (default), legacy, modern', enum: ['auto', 'legacy', 'modern'] },
        connectTimeoutMs: ms,
        sessionPerCaller: {
          description: 'An upstream session per front caller (the authenticated client, else the front session), for an upstream that keeps state per session; mounted upstreams only (default false: one shared session)',
          oneOf: [
            { type: 'boolean' },
            {
              type: 'object',
              additionalProperties: false,
              properties: {
                maxSessions: { description: 'The most caller sessions at once; past it the least recently used idle one is closed (default 100)', type: 'integer', minimum: 1 },
                idleTimeoutMs: { description: 'A caller session with no request in flight for this long is closed, in ms (default 300000)', type: 'integer', minimum: 1 },
              },
            },
          ],
        },
        tools: {
          type: 'object',
          additionalProperties: false,
          properties: {
            allow: { ...patterns, description: 'Only these tools (upstream names; * matches any run of characters)' },
            deny: { ...patterns, description: 'Never these tools (upstream names or * patterns), whatever allow says' },
            rename: { description: 'New names by upstream name (the prefix is added after)', type: 'object', additionalProperties: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' } },
            fixedArguments: {
              description: 'Hidden arguments by upstream tool name: removed from the listed schema, set on every call',
              type: 'object',
              additionalProperties: { type: 'object' },
            },
          },
        },
      },
    },
  },
} as const;
