/**
 * Findings that a known SDK's default behaviour causes, not the server's own code. The SDK is recognised by what it
 * says on the wire (its own words for an unknown tool, resource or session, which no server author writes), or by
 * its `serverInfo` for a published server known to be built on it; then each finding whose evidence shows that
 * SDK's default is marked with the package, the versions, what the SDK does, and what can change it (an upgrade, an
 * option, or muting it with `--ignore` or a baseline). What each SDK does was measured on the versions named, with
 * the servers of test/interop-servers/ (see test/doctor-interop.test.ts).
 */
import type { SdkDefault } from './gateTypes.js';
import type { DoctorFacts, Finding } from './types.js';

/** One SDK: its package, the versions measured, and how to recognise it from a run. */
interface KnownSdk {
  readonly package: string;
  readonly versions: string;
  /** Whether the run's evidence (all findings' evidence joined) or `serverInfo` shows this SDK. */
  recognise(evidence: string, serverInfo: DoctorFacts['serverInfo']): boolean;
}

const SDK_V1: KnownSdk = {
  package: '@modelcontextprotocol/sdk',
  versions: '1.x (measured on 1.32.2)',
  // McpServer's words for an unknown tool (as a tool result), and the Streamable HTTP transport's for an unknown session.
  recognise: (evidence, info) =>
    /"text":"MCP error -32602: Tool [^"]* not found"/.test(evidence) || evidence.includes('Bad Request: No valid session ID provided') || info?.name === 'mcp-servers/everything',
};

const SDK_V2: KnownSdk = {
  package: '@modelcontextprotocol/server',
  versions: '2.x (measured on 2.4.0)',
  recognise: (evidence) => /"message":"Resource not found: [^"]*","data":\{"uri":/.test(evidence),
};

const TMCP: KnownSdk = {
  package: 'tmcp',
  versions: '1.x (measured on 1.20.0, with @tmcp/adapter-zod 0.1.7)',
  recognise: (evidence) => /"isError":true,"content":\[\{"type":"text","text":"Tool [^"]* not found"\}\]/.test(evidence),
};

const MUTE = (id: string): string => `or mute it: --ignore ${id}, or a baseline (--write-baseline FILE once, then --baseline FILE)`;

/** One default of one SDK: the finding it causes, how its evidence looks, what the SDK does and what can change it. */
interface KnownDefault {
  readonly sdk: KnownSdk;
  readonly id: string;
  /** Whether this finding's evidence shows the default (not some other fault of the same id). */
  matches(finding: Finding): boolean;
  readonly behaviour: string;
  readonly remedy: string;
}

const has = (text: string) => (finding: Finding): boolean => finding.evidence.some((e) => e.includes(text));
const DRAFT_07 = has('json-schema.org/draft-07/schema');
const NO_ANSWER = has('(no answer)');
const CODE_32602 = (finding: Finding): boolean => finding.evidence.some((e) => e.includes('"code":-32602'));
const IS_ERROR_RESULT = has('"isError":true');

const DEFAULTS: readonly KnownDefault[] = [
  {
    sdk: SDK_V1,
    id: 'stdio.parse-error-reply',
    matches: NO_ANSWER,
    behaviour: 'StdioServerTransport hands a line that is not JSON to onerror and sends no -32700 answer',
    remedy: `no option changes it (2.4.0 does the same); ${MUTE('stdio.parse-error-reply')}`,
  },
  {
    sdk: SDK_V1,
    id: 'protocol.unknown-tool-code',
    matches: IS_ERROR_RESULT,
    behaviour: 'McpServer answers tools/call of an unknown tool with an isError tool result instead of a -32602 error',
    remedy: `upgrading to @modelcontextprotocol/server 2.x (2.4.0 answers -32602), ${MUTE('protocol.unknown-tool-code')}`,
  },
  {
    sdk: SDK_V1,
    id: 'protocol.unknown-resource-code',
    matches: CODE_32602,
    behaviour: 'McpServer answers resources/read of an unknown URI with -32602 at every revision, where 2025-11-25 and earlier say -32002',
    remedy: `no option changes it (2.4.0 does the same); ${MUTE('protocol.unknown-resource-code')}`,
  },
  {
    sdk: SDK_V1,
    id: 'primitives.schema-dialect',
    matches: DRAFT_07,
    behaviour: 'McpServer turns zod input schemas into JSON Schema draft-07 and declares it with "$schema"',
    remedy: `upgrading to @modelcontextprotocol/server 2.x (2.4.0 emits 2020-12), ${MUTE('primitives.schema-dialect')}`,
  },
  {
    sdk: SDK_V1,
    id: 'http.ended-session-not-404',
    matches: has('No valid session ID provided'),
    behaviour: 'StreamableHTTPServerTransport answers a request with an unknown or ended session id with HTTP 400 "No valid session ID provided", not 404',
    remedy: `answering 404 yourself before the transport for a session id you do not hold, ${MUTE('http.ended-session-not-404')}`,
  },
  {
    sdk: SDK_V1,
    id: 'http.host-not-validated',
    matches: () => true,
    behaviour: 'StreamableHTTPServerTransport checks no Host header unless asked to',
    remedy: `an option: createMcpExpressApp() (Host validation for a loopback host) or the hostHeaderValidation middleware, or the transport's enableDnsRebindingProtection with allowedHosts; ${MUTE('http.host-not-validated')}`,
  },
  {
    sdk: SDK_V1,
    id: 'http.origin-not-validated',
    matches: () => true,
    behaviour: 'StreamableHTTPServerTransport checks no Origin header unless asked to',
    remedy: `an option: the transport's enableDnsRebindingProtection with allowedOrigins; ${MUTE('http.origin-not-validated')}`,
  },
  {
    sdk: SDK_V2,
    id: 'stdio.parse-error-reply',
    matches: NO_ANSWER,
    behaviour: 'the stdio transport hands a line that is not JSON to onerror and sends no -32700 answer',
    remedy: `no option changes it; ${MUTE('stdio.parse-error-reply')}`,
  },
  {
    sdk: SDK_V2,
    id: 'protocol.unknown-resource-code',
    matches: CODE_32602,
    behaviour: 'McpServer answers resources/read of an unknown URI with -32602 at every revision, where 2025-11-25 and earlier say -32002',
    remedy: `no option changes it; ${MUTE('protocol.unknown-resource-code')}`,
  },
  {
    sdk: SDK_V2,
    id: 'http.bad-accept-not-406',
    matches: () => true,
    behaviour: 'the Streamable HTTP transport serves a 2026-07-28 POST whose Accept allows neither JSON nor SSE',
    remedy: `no option changes it; ${MUTE('http.bad-accept-not-406')}`,
  },
  {
    sdk: TMCP,
    id: 'stdio.parse-error-reply',
    matches: NO_ANSWER,
    behaviour: '@tmcp/transport-stdio drops a line that is not JSON without a -32700 answer',
    remedy: `no option changes it; ${MUTE('stdio.parse-error-reply')}`,
  },
  {
    sdk: TMCP,
    id: 'protocol.unknown-tool-code',
    matches: IS_ERROR_RESULT,
    behaviour: 'McpServer answers tools/call of an unknown tool with an isError tool result instead of a -32602 error',
    remedy: `no option changes it; ${MUTE('protocol.unknown-tool-code')}`,
  },
  {
    sdk: TMCP,
    id: 'protocol.unknown-resource-code',
    matches: CODE_32602,
    behaviour: 'McpServer answers resources/read of an unknown URI with -32602 at every revision, where 2025-11-25 and earlier say -32002',
    remedy: `no option changes it; ${MUTE('protocol.unknown-resource-code')}`,
  },
  {
    sdk: TMCP,
    id: 'primitives.schema-dialect',
    matches: DRAFT_07,
    behaviour: '@tmcp/adapter-zod turns zod input schemas into JSON Schema draft-07 and declares it with "$schema"',
    remedy: `another schema adapter that emits 2020-12, ${MUTE('primitives.schema-dialect')}`,
  },
];

/** The SDKs a run shows (see the module comment). */
export function recogniseSdks(findings: readonly Finding[], serverInfo: DoctorFacts['serverInfo']): readonly KnownSdk[] {
  const evidence = findings.flatMap((f) => f.evidence).join('\n');
  return [SDK_V1, SDK_V2, TMCP].filter((sdk) => sdk.recognise(evidence, serverInfo));
}

/** The findings of a run, those an SDK recognised in it causes by default marked with {@link SdkDefault}. */
export function markSdkDefaults(findings: readonly Finding[], serverInfo: DoctorFacts['serverInfo']): Finding[] {
  const sdks = recogniseSdks(findings, serverInfo);
  if (sdks.length === 0) return [...findings];
  return findings.map((finding) => {
    const known = DEFAULTS.find((d) => sdks.includes(d.sdk) && d.id === finding.id && d.matches(finding));
    if (known === undefined) return finding;
    const sdk: SdkDefault = { package: known.sdk.package, versions: known.sdk.versions, behaviour: known.behaviour, remedy: known.remedy };
    return { ...finding, sdk };
  });
}
