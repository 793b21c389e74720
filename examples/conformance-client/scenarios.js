// @ts-check
/**
 * What the conformance client does per scenario: the calls an application would make, nothing the suite checks
 * is special-cased here (the headers, `_meta`, retries and reconnections are the client library's job).
 *
 * Each entry is `{ options?(context, session), run(client, context) }`: `options` adds to `McpClient.connect`'s
 * options (the callbacks that answer the server's questions; `session.client` is the connected client, for a
 * callback that makes calls of its own), `run` makes the scenario's calls on the connected client.
 */

import { idJagAssertion, oauth } from '@switchboard/mcp/client';

/** @typedef {import('@switchboard/mcp/client').McpClient} McpClient */
/** @typedef {import('@switchboard/mcp/client').McpClientOptions} McpClientOptions */
/** @typedef {import('@switchboard/mcp/client').StreamableHttpClientOptions} StreamableHttpClientOptions */
/** @typedef {Record<string, unknown>} Context */
/** @typedef {{ client?: McpClient }} Session */
/**
 * @typedef {object} Scenario
 * @property {(context: Context, session: Session) => Partial<McpClientOptions>} [options]
 * @property {(context: Context) => Partial<StreamableHttpClientOptions>} [transport] adds to `streamableHttp`'s options
 * @property {(client: McpClient, context: Context) => Promise<void>} run
 */

/**
 * One line on stderr, stamped with the ms since the process started (the suite keeps stderr per scenario: the
 * stamps show where a loaded machine spent the time).
 * @param {string} message
 */
export function log(message) {
  console.error(`conformance-client +${Math.round(process.uptime() * 1000)} ms: ${message}`);
}

/**
 * A tool result as one line: its text content, or its content types.
 * @param {{ content?: readonly { type: string, text?: string }[], isError?: boolean }} result
 */
function summary(result) {
  const parts = (result.content ?? []).map((c) => (c.type === 'text' ? JSON.stringify(c.text) : `[${c.type}]`));
  return `${result.isError ? 'error result ' : ''}${parts.join(' ') || '(no content)'}`;
}

/**
 * Calls a tool and logs its result; an `isError` result is returned by the client, not thrown: fail on it here.
 * @param {McpClient} client
 * @param {string} name
 * @param {Record<string, unknown>} [args]
 */
async function call(client, name, args) {
  const result = await client.callTool(args === undefined ? { name } : { name, arguments: args });
  log(`${name} -> ${summary(result)}`);
  if (result.isError) throw new Error(`tool '${name}' returned an error result: ${summary(result)}`);
  return result;
}

/** @param {McpClient} client */
async function listTools(client) {
  const tools = await client.listAllTools();
  log(`tools: ${tools.map((t) => t.name).join(', ') || '(none)'}`);
  return tools;
}

/**
 * The form an application shows for an elicitation, submitted untouched: every field at its schema default.
 * @param {{ requestedSchema?: { properties?: Record<string, { default?: unknown }> } }} params
 */
function formDefaults(params) {
  /** @type {Record<string, string | number | boolean | string[]>} */
  const content = {};
  for (const [key, field] of Object.entries(params.requestedSchema?.properties ?? {})) {
    const value = field.default;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || Array.isArray(value)) content[key] = value;
  }
  return content;
}

/**
 * Arguments that satisfy a tool's required properties (strings, integers, booleans), for tools called blindly.
 * @param {{ inputSchema?: { properties?: Record<string, { type?: unknown }>, required?: readonly string[] } }} tool
 */
function sampleArguments(tool) {
  /** @type {Record<string, unknown>} */
  const args = {};
  for (const key of tool.inputSchema?.required ?? []) {
    const type = tool.inputSchema?.properties?.[key]?.type;
    args[key] = type === 'integer' || type === 'number' ? 1 : type === 'boolean' ? true : 'us-west1';
  }
  return args;
}

/**
 * The user-agent step of a sign-in, done the way a browser would with an authorization server that needs no user
 * interaction (the suite's): follow the authorization URL to its redirect, and hand back where it points.
 * @param {{ authorizationUrl: URL }} request
 */
async function followAuthorization({ authorizationUrl }) {
  const response = await fetch(authorizationUrl, { redirect: 'manual', signal: AbortSignal.timeout(10_000) });
  await response.body?.cancel();
  const location = response.headers.get('location');
  if (location === null) throw new Error(`the authorization endpoint answered HTTP ${response.status} without a redirect`);
  log(`authorization redirect -> ${location}`);
  return new URL(location, authorizationUrl);
}

/** The CIMD URL the suite expects when the authorization server supports Client ID Metadata Documents (never fetched). */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/**
 * The OAuth options an application would give for each `auth/*` scenario: a user sign-in (authorization code with
 * PKCE) by default, with the pre-registered client of the context when there is one; the machine-to-machine grants
 * for the client-credentials and workload-identity scenarios.
 * @param {string} name
 * @param {Context} context
 * @returns {import('@switchboard/mcp/client').OAuthOptions}
 */
export function oauthOptionsFor(name, context) {
  const clientId = typeof context.client_id === 'string' ? context.client_id : undefined;
  const clientSecret = typeof context.client_secret === 'string' ? context.client_secret : undefined;
  if (name === 'auth/client-credentials-jwt' && clientId) {
    return { grant: 'client_credentials', client: { clientId, privateKeyPem: String(context.private_key_pem), signingAlgorithm: String(context.signing_algorithm ?? 'ES256') } };
  }
  if (name === 'auth/client-credentials-basic' && clientId) return { grant: 'client_credentials', client: { clientId, ...(clientSecret ? { clientSecret } : {}) } };
  if (name === 'auth/wif-jwt-bearer' && clientId) return { grant: 'jwt_bearer', client: { clientId }, assertion: () => String(context.valid_jwt) };
  if (name === 'auth/enterprise-managed-authorization' && clientId) {
    return {
      grant: 'jwt_bearer',
      client: { clientId, ...(clientSecret ? { clientSecret } : {}) },
      assertion: idJagAssertion({ tokenEndpoint: String(context.idp_token_endpoint), idToken: String(context.idp_id_token), clientId: String(context.idp_client_id) }),
    };
  }
  return {
    redirectUri: 'http://localhost:3000/callback',
    authorize: followAuthorization,
    clientMetadataUrl: CLIENT_METADATA_URL,
    ...(clientId ? { client: { clientId, ...(clientSecret ? { clientSecret } : {}) } } : {}),
  };
}

/** @type {Scenario} */
export const defaultScenario = {
  async run(client) {
    await listTools(client);
  },
};

/** @type {Record<string, Scenario>} */
export const SCENARIOS = {
  initialize: defaultScenario,

  tools_call: {
    async run(client) {
      await listTools(client);
      await call(client, 'add_numbers', { a: 5, b: 3 });
    },
  },

  'elicitation-sep1034-client-defaults': {
    options: () => ({
      capabilities: { elicitation: { form: { applyDefaults: true } } },
      onElicitation: async (params) => ({ action: 'accept', content: formDefaults(/** @type {any} */ (params)) }),
    }),
    async run(client) {
      await listTools(client);
      await call(client, 'test_client_elicitation_defaults', {});
    },
  },

  'sse-retry': {
    async run(client) {
      await listTools(client);
      await call(client, 'test_reconnection', {});
    },
  },

  'request-metadata': {
    async run(client) {
      await listTools(client);
      await client.ping();
    },
  },

  'sep-2322-client-request-state': {
    options: (_context, session) => {
      let unrelatedCalled = false;
      return {
        // While the first tool waits for this answer, another tool is called once: its request must carry none of
        // the first one's input responses or state.
        onElicitation: async () => {
          if (!unrelatedCalled && session.client) {
            unrelatedCalled = true;
            await call(session.client, 'test_mrtr_unrelated', {});
          }
          return { action: 'accept', content: { confirmed: true } };
        },
      };
    },
    async run(client) {
      await listTools(client);
      await call(client, 'test_mrtr_echo_state', {});
      await call(client, 'test_mrtr_no_state', {});
      await call(client, 'test_mrtr_no_result_type', {});
    },
  },

  'http-standard-headers': {
    async run(client) {
      const [tool] = await listTools(client);
      if (tool) await call(client, tool.name, {});
      const resources = await client.listAllResources();
      log(`resources: ${resources.map((r) => r.uri).join(', ')}`);
      if (resources[0]) await client.readResource({ uri: resources[0].uri });
      const prompts = await client.listAllPrompts();
      log(`prompts: ${prompts.map((p) => p.name).join(', ')}`);
      if (prompts[0]) await client.getPrompt({ name: prompts[0].name });
    },
  },

  'http-custom-headers': {
    async run(client, context) {
      await listTools(client);
      const calls = Array.isArray(context.toolCalls) ? context.toolCalls : [];
      for (const c of calls) await call(client, c.name, c.arguments);
    },
  },

  'http-invalid-tool-headers': {
    async run(client) {
      // The client keeps only the tools whose x-mcp-header annotations are valid: call every one it kept.
      for (const tool of await listTools(client)) await call(client, tool.name, sampleArguments(/** @type {any} */ (tool)));
    },
  },

  'json-schema-ref-no-deref': defaultScenario,

  // Every auth/* scenario (see `scenarioFor`): sign in when the server asks, list the tools, call one.
  auth: {
    async run(client) {
      const tools = await listTools(client);
      if (tools.some((t) => t.name === 'test-tool')) await call(client, 'test-tool', {});
    },
  },

  'json-schema-2020-12-preservation': {
    async run(client) {
      const tools = await listTools(client);
      const focal = tools.find((t) => t.name === 'json_schema_2020_12_tool');
      if (!focal) throw new Error("the server did not list 'json_schema_2020_12_tool'");
      await call(client, 'json_schema_echo', { schema: focal.inputSchema });
    },
  },
};

/**
 * The scenario to run for a name: its entry, the `auth` entry (with OAuth on the transport) for `auth/*`, else the
 * default.
 * @param {string} name
 * @returns {Scenario}
 */
export function scenarioFor(name) {
  const known = SCENARIOS[name];
  if (known) return known;
  const auth = SCENARIOS.auth;
  if (name.startsWith('auth/') && auth) return { ...auth, transport: (context) => ({ auth: oauth(oauthOptionsFor(name, context)) }) };
  return defaultScenario;
}
