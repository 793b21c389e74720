// The doctor against servers no one here wrote: see test/helpers/doctorInterop.ts.
import { EVERYTHING_PEER, SDK_V1, SDK_V2, TMCP, TMCP_COMMON, V1_HTTP, V1_STDIO, describeRow, failingIds, type Row } from './helpers/doctorInterop.js';

// The findings each SDK's defaults cause (see packages/cli/src/doctor/sdkDefaults.ts): they must name the package.
const V1 = (ids: readonly string[]): Row['sdk'] => ({ package: '@modelcontextprotocol/sdk', ids: failingIds(ids) });
const V2 = { package: '@modelcontextprotocol/server', ids: ['stdio.parse-error-reply', 'protocol.unknown-resource-code', 'http.bad-accept-not-406'] };
const TMCP_SDK = { package: 'tmcp', ids: ['stdio.parse-error-reply', ...failingIds(TMCP_COMMON)] };

const ROWS: readonly Row[] = [
  // server-everything 2026.8.31 and the SDK v1 server share SDK v1's transports and McpServer; see the module comment.
  { peer: EVERYTHING_PEER, transport: 'stdio', expect: [...V1_STDIO], sdk: V1(V1_STDIO) },
  { peer: EVERYTHING_PEER, transport: 'http', expect: [...V1_HTTP], sdk: V1(V1_HTTP) },
  { peer: SDK_V1, transport: 'stdio', expect: [...V1_STDIO], sdk: V1(V1_STDIO) },
  { peer: SDK_V1, transport: 'http', expect: [...V1_HTTP, 'info http.no-cors'], sdk: V1(V1_HTTP) },
  { peer: SDK_V2, transport: 'stdio', expect: ['warning stdio.parse-error-reply', 'warning protocol.unknown-resource-code', 'info eras.dual-era'], sdk: V2 },
  {
    peer: SDK_V2,
    transport: 'http',
    expect: ['error http.host-not-validated', 'error http.origin-not-validated', 'warning http.bad-accept-not-406', 'warning protocol.unknown-resource-code', 'info eras.dual-era', 'info http.no-cors'],
    sdk: V2,
  },
  { peer: TMCP, transport: 'stdio', expect: [...TMCP_COMMON, 'warning stdio.parse-error-reply'], sdk: TMCP_SDK },
  {
    peer: TMCP,
    transport: 'http',
    expect: [...TMCP_COMMON, 'error http.ended-session-not-404', 'error http.host-not-validated', 'error http.origin-not-validated', 'error http.protocol-version-not-validated', 'warning http.bad-accept-not-406', 'info http.no-cors'],
    sdk: TMCP_SDK,
  },
];

for (const row of ROWS) describeRow(row);
