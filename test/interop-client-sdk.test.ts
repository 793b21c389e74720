/**
 * Our client (`@switchboard/mcp/client`) against servers no one here wrote, each written the way its project's docs
 * show (test/interop-servers/): the official TypeScript SDK v1 (1.32.2, legacy only), v2 (2.4.0, both eras) and
 * tmcp (1.20.0, both eras), over stdio and Streamable HTTP on 127.0.0.1. In `auto` mode the client speaks the
 * newest era a server offers; the dual-era servers are also reached with `era: 'legacy'`, so their session side is
 * checked too. The table's `expect` says where a server differs (pagination, whether it can ask for input, whether
 * its handler learns of a cancellation).
 */
import { describe, it } from 'vitest';
import { missingPackage } from './interop-servers/harness.js';
import { describeInterop, type InteropTarget } from './interop-servers/scenarios.js';

const V1 = { script: 'sdkV1.mjs', serverName: 'interop-sdk-v1', packages: ['@modelcontextprotocol/sdk'] };
const V2 = { script: 'sdkV2.mjs', serverName: 'interop-sdk-v2', packages: ['@modelcontextprotocol/server', '@modelcontextprotocol/node'] };
const TMCP = { script: 'tmcp.mjs', serverName: 'interop-tmcp', packages: ['tmcp', '@tmcp/adapter-zod', '@tmcp/transport-stdio', '@tmcp/transport-http', '@modelcontextprotocol/node'] };

type Row = Omit<InteropTarget, 'expect' | 'script'> & { readonly server: { readonly script: string; readonly serverName: string; readonly packages: readonly string[] }; readonly expect: Omit<InteropTarget['expect'], 'serverName'> };

const ROWS: readonly Row[] = [
  // SDK v1: legacy only; its McpServer answers each list in one page.
  { title: 'SDK v1 1.32.2 over stdio', server: V1, transport: 'stdio', expect: { era: 'legacy', revision: '2025-11-25', pages: false, inputs: true, cancelSeen: true } },
  // Its documented session map answers a session id it does not hold 400 -32000 "No valid session ID provided" (the
  // spec says 404); the client takes that answer as the session's end too and re-initializes.
  { title: 'SDK v1 1.32.2 over Streamable HTTP', server: V1, transport: 'http', expect: { era: 'legacy', revision: '2025-11-25', pages: false, inputs: true, cancelSeen: true, restart: 'reinitializes' } },
  // SDK v2: both eras; no pagination either.
  { title: 'SDK v2 2.4.0 over stdio', server: V2, transport: 'stdio', expect: { era: 'modern', revision: '2026-07-28', pages: false, inputs: true, cancelSeen: true } },
  { title: 'SDK v2 2.4.0 over Streamable HTTP', server: V2, transport: 'http', expect: { era: 'modern', revision: '2026-07-28', pages: false, inputs: true, cancelSeen: true } },
  { title: 'SDK v2 2.4.0 over stdio, client era legacy', server: V2, transport: 'stdio', clientEra: 'legacy', expect: { era: 'legacy', revision: '2025-11-25', pages: false, inputs: true, cancelSeen: true } },
  // createMcpHandler serves legacy requests statelessly: no session, so no server → client request can be sent
  // (and nothing to lose in a restart); the handler learns of a cancellation when the client closes the stream.
  { title: 'SDK v2 2.4.0 over Streamable HTTP, client era legacy', server: V2, transport: 'http', clientEra: 'legacy', expect: { era: 'legacy', revision: '2025-11-25', pages: false, inputs: false, cancelSeen: true, restart: 'continues' } },
  // tmcp: both eras, paginates; notifications/cancelled never reaches a tool handler (only the HTTP stream closing
  // does); its newest session revision is 2025-06-18; over stdio it handles a session's requests one at a time (so
  // a cancelled call it keeps running holds up the next ones); its HTTP transport takes any session id (no 404).
  { title: 'tmcp 1.20.0 over stdio', server: TMCP, transport: 'stdio', expect: { era: 'modern', revision: '2026-07-28', pages: true, inputs: true, cancelSeen: false } },
  { title: 'tmcp 1.20.0 over Streamable HTTP', server: TMCP, transport: 'http', expect: { era: 'modern', revision: '2026-07-28', pages: true, inputs: true, cancelSeen: true } },
  { title: 'tmcp 1.20.0 over stdio, client era legacy', server: TMCP, transport: 'stdio', clientEra: 'legacy', expect: { era: 'legacy', revision: '2025-06-18', pages: true, inputs: true, cancelSeen: false } },
  { title: 'tmcp 1.20.0 over Streamable HTTP, client era legacy', server: TMCP, transport: 'http', clientEra: 'legacy', expect: { era: 'legacy', revision: '2025-06-18', pages: true, inputs: true, cancelSeen: true, restart: 'continues' } },
];

for (const { server, expect, ...row } of ROWS) {
  const missing = missingPackage(...server.packages);
  if (missing !== undefined) {
    describe(row.title, () => {
      it.skip(`skipped: ${missing} is not installed (npm ci installs it)`, () => {});
    });
    continue;
  }
  describeInterop({ ...row, script: server.script, expect: { ...expect, serverName: server.serverName } });
}
