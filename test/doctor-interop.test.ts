// The doctor against servers no one here wrote: see test/helpers/doctorInterop.ts.
import { EVERYTHING_PEER, SDK_V1, SDK_V2, TMCP, TMCP_COMMON, V1_HTTP, V1_STDIO, describeRow, type Row } from './helpers/doctorInterop.js';

const ROWS: readonly Row[] = [
  // server-everything 2026.8.31 and the SDK v1 server share SDK v1's transports and McpServer; see the module comment.
  { peer: EVERYTHING_PEER, transport: 'stdio', expect: [...V1_STDIO] },
  { peer: EVERYTHING_PEER, transport: 'http', expect: [...V1_HTTP] },
  { peer: SDK_V1, transport: 'stdio', expect: [...V1_STDIO] },
  { peer: SDK_V1, transport: 'http', expect: [...V1_HTTP, 'info http.no-cors'] },
  { peer: SDK_V2, transport: 'stdio', expect: ['warning stdio.parse-error-reply', 'warning protocol.unknown-resource-code', 'info eras.dual-era'] },
  {
    peer: SDK_V2,
    transport: 'http',
    expect: ['error http.host-not-validated', 'error http.origin-not-validated', 'warning http.bad-accept-not-406', 'warning protocol.unknown-resource-code', 'info eras.dual-era', 'info http.no-cors'],
  },
  { peer: TMCP, transport: 'stdio', expect: [...TMCP_COMMON, 'warning stdio.parse-error-reply'] },
  {
    peer: TMCP,
    transport: 'http',
    expect: [...TMCP_COMMON, 'error http.ended-session-not-404', 'error http.host-not-validated', 'error http.origin-not-validated', 'error http.protocol-version-not-validated', 'warning http.bad-accept-not-406', 'info http.no-cors'],
  },
];

for (const row of ROWS) describeRow(row);
