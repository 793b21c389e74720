/**
 * The eras requirements (see `Requirement`): which revisions a server speaks and how it negotiates them, and the
 * modern era's refusals (-32020 / -32021 / -32022) with their HTTP statuses. One entry per rule.
 */
import type { Requirement } from '../types.js';

const LEGACY = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
const MODERN = ['2026-07-28'] as const;
const BOTH = ['stdio', 'http'] as const;

const NEGOTIATION = { revision: '2025-11-25', page: 'basic/lifecycle.mdx', section: 'Version Negotiation' } as const;
const BACKWARD = { revision: '2026-07-28', page: 'basic/versioning.mdx', section: 'Backward Compatibility with Initialization-Based Versions' } as const;

export const ERAS_REQUIREMENTS: readonly Requirement[] = [
  {
    id: 'eras.discover-result',
    area: 'eras',
    title: 'server/discover did not answer a DiscoverResult',
    rule: 'server/discover answers a DiscoverResult',
    behaviour:
      'A modern server implements server/discover: its result lists the revisions it supports in supportedVersions (an array of strings) and its capabilities in an object.',
    spec: { revision: '2026-07-28', page: 'server/discover.mdx', section: 'Response' },
    revisions: MODERN,
    transports: BOTH,
    severity: 'error',
    causes: [
      'The result is built by hand and misses supportedVersions or capabilities, or names them differently',
      'The server answers server/discover with the initialize result of the legacy era',
    ],
    fix: 'Answer server/discover with { supportedVersions: [...], capabilities: {...} } (plus the result fields every modern result carries); an SDK that serves 2026-07-28 builds it for you.',
    fixture: { file: 'eras-discover-malformed', transport: 'stdio' },
  },
  {
    id: 'eras.version-negotiation',
    area: 'eras',
    title: 'initialize settled on a revision the client does not speak',
    rule: 'initialize settles on a revision both sides speak',
    behaviour:
      'Offered a revision it supports, the server answers that same revision; offered one it does not support, it answers another revision it supports (its latest), not an error and not a revision it does not serve.',
    spec: NEGOTIATION,
    revisions: LEGACY,
    transports: BOTH,
    severity: 'error',
    causes: [
      'The server compares the offered revision against one hard-coded value and refuses every other',
      'The server always answers its own latest revision, even when it lists the offered one',
      'The server answers a revision that it then does not serve when offered it directly',
    ],
    fix: 'In initialize, answer the offered protocolVersion when you support it; otherwise answer the newest revision you support and let the client decide whether to disconnect.',
    fixture: { file: 'eras-negotiation-refuses', transport: 'stdio' },
  },
  {
    id: 'eras.unknown-revision',
    area: 'eras',
    title: 'An unknown revision did not get a supported one back',
    rule: 'An unknown revision gets a supported one back',
    behaviour:
      'Offered a revision it does not know (the doctor offers 1999-01-01), a session-based server answers initialize with a revision it supports, never the unknown one and never an error.',
    spec: NEGOTIATION,
    revisions: LEGACY,
    transports: BOTH,
    severity: 'error',
    causes: [
      'The server echoes the client\'s protocolVersion without checking it against the revisions it serves',
      'The server refuses unknown revisions with an error instead of counter-offering',
    ],
    fix: 'When the offered protocolVersion is not one you serve, answer your latest supported revision in the initialize result.',
    fixture: { file: 'eras-echo-revision', transport: 'stdio' },
  },
  {
    id: 'eras.initialize-refusal-versions',
    area: 'eras',
    title: 'A modern-only server refused initialize without naming its revisions',
    rule: 'A modern-only server names its revisions when it refuses initialize',
    behaviour:
      'A server that serves only modern revisions answers initialize with an error that names the revisions it supports (a -32022 with data.supported does), since a legacy client can only show that message to its user.',
    spec: BACKWARD,
    revisions: MODERN,
    transports: BOTH,
    severity: 'warning',
    causes: ['initialize falls through to the generic unknown-method error', 'The error message or data does not list the supported revisions'],
    fix: 'Refuse initialize with -32022 and data: { supported: [...], requested } (or at least name the supported revisions in the message).',
    fixture: { file: 'eras-initialize-refusal-bare', transport: 'stdio' },
  },
  {
    id: 'eras.legacy-only',
    area: 'eras',
    title: 'The server speaks session-based revisions only',
    rule: 'Session-based revisions only',
    behaviour:
      'The server speaks only the session-based revisions (initialize); 2026-07-28 clients find that out from server/discover and fall back to initialize, which costs them one round trip per start.',
    spec: BACKWARD,
    revisions: 'all',
    transports: BOTH,
    severity: 'info',
    causes: ['The server (or its SDK) predates 2026-07-28'],
    fix: 'Nothing to fix today; to serve 2026-07-28 clients directly, upgrade to an SDK that serves both eras (a dual-era server).',
    fixture: { file: 'eras-legacy-only', transport: 'stdio' },
  },
  {
    id: 'eras.modern-only',
    area: 'eras',
    title: 'The server speaks 2026-07-28 only',
    rule: '2026-07-28 only',
    behaviour: 'The server speaks only the modern era (per-request _meta, server/discover) and refuses initialize.',
    spec: BACKWARD,
    revisions: 'all',
    transports: BOTH,
    severity: 'info',
    causes: ['The server was configured to serve modern revisions only'],
    fix: 'Nothing to fix if every client you support speaks 2026-07-28; see eras.legacy-clients-refused.',
  },
  {
    id: 'eras.legacy-clients-refused',
    area: 'eras',
    title: 'Clients of 2025 and earlier cannot connect',
    rule: 'Clients of 2025 and earlier can connect',
    behaviour:
      'A modern-only server refuses initialize, so a client that speaks only session-based revisions (most hosts released before 2026-07-28) cannot use it: legacy clients have no way forward.',
    spec: BACKWARD,
    revisions: 'all',
    transports: BOTH,
    severity: 'warning',
    causes: ['The server serves 2026-07-28 only', 'A dual-era SDK was configured with modern revisions only'],
    fix: 'Serve the session-based revisions too (a dual-era server answers initialize and per-request _meta on the same endpoint), unless every host you target speaks 2026-07-28.',
    fixture: { file: 'eras-modern-only', transport: 'stdio' },
  },
  {
    id: 'eras.dual-era',
    area: 'eras',
    title: 'The server speaks both eras on one endpoint',
    rule: 'Both eras on one endpoint',
    behaviour: 'The server answers server/discover and initialize on the same endpoint or process: legacy and 2026-07-28 clients both connect.',
    spec: BACKWARD,
    revisions: 'all',
    transports: BOTH,
    severity: 'info',
    causes: ['A dual-era server'],
    fix: 'Nothing to fix.',
  },
  {
    id: 'eras.header-mismatch',
    area: 'eras',
    title: 'Request headers that disagree with the body were served',
    rule: 'Request headers that disagree with the body are refused',
    behaviour:
      'A modern POST whose Mcp-Method, Mcp-Name or MCP-Protocol-Version is missing or differs from the body is refused with HTTP 400 and a -32020 HeaderMismatch error, so no proxy can route on a header the server then ignores.',
    spec: { revision: '2026-07-28', page: 'basic/transports/streamable-http.mdx', section: 'Server Validation' },
    revisions: MODERN,
    transports: ['http'],
    severity: 'error',
    causes: [
      'The server reads only the body and never compares the standard request headers with it',
      'A gateway in front of the server rewrites or drops the headers',
      'The refusal uses another code (-32600, -32602) or status (200)',
    ],
    fix: 'Compare Mcp-Method with method, Mcp-Name with params.name / params.uri and MCP-Protocol-Version with the _meta claim before dispatching; refuse a missing or different value with 400 and code -32020.',
    fixture: { file: 'eras-headers-ignored', transport: 'http' },
  },
  {
    id: 'eras.missing-client-capability',
    area: 'eras',
    title: 'A request needing an undeclared client capability did not get -32021',
    rule: 'A request needing an undeclared client capability gets -32021',
    behaviour:
      'A modern request that needs a client capability the request did not declare in _meta is refused with -32021 MissingRequiredClientCapability, data.requiredCapabilities naming the capabilities (an object), HTTP 400.',
    spec: { revision: '2026-07-28', page: 'basic/index.mdx', section: 'Error Codes' },
    revisions: MODERN,
    transports: BOTH,
    severity: 'error',
    causes: ['The server checks the capability but answers another code (-32601, -32602, -32603)', 'data.requiredCapabilities is missing or an array'],
    fix: 'Answer -32021 with data: { requiredCapabilities: { <capability>: {} } } (HTTP 400) when a request needs a capability the client did not declare.',
    fixture: { file: 'eras-capability-no-data', transport: 'stdio' },
  },
  {
    id: 'eras.unsupported-version',
    area: 'eras',
    title: 'An unsupported revision claim did not get -32022 with the supported list',
    rule: 'An unsupported revision claim gets -32022 with the supported list',
    behaviour:
      'A modern request claiming a revision the server does not serve is refused with -32022 UnsupportedProtocolVersion, data.supported listing the revisions it serves and data.requested the one claimed; over HTTP with status 400. The client retries with a listed revision.',
    spec: { revision: '2026-07-28', page: 'basic/versioning.mdx', section: 'Protocol Version Negotiation' },
    revisions: MODERN,
    transports: BOTH,
    severity: 'error',
    causes: ['The refusal is built by hand without data', 'The server answers the request at its own revision instead of refusing it', 'Another code or HTTP status'],
    fix: 'Refuse an unsupported claim with { code: -32022, data: { supported: [...], requested } } (HTTP 400).',
    fixture: { file: 'eras-unsupported-no-list', transport: 'stdio' },
  },
];
