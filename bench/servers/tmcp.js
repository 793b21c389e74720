// tmcp 1.20.0 (a small TypeScript MCP server library) serving the same `echo` tool, with its own transports:
//   --stdio      StdioTransport (@tmcp/transport-stdio 0.5.0): a connection that opens with initialize is a
//                legacy session; a request carrying the 2026-07-28 `_meta` envelope is served per request
//   --port N     HttpTransport (@tmcp/transport-http 0.9.0) at /mcp: legacy sessions (Mcp-Session-Id minted at
//                initialize) and 2026-07-28 requests (no session) from one endpoint. It answers every request
//                with a text/event-stream body (it has no JSON response mode), so its rows are SSE rows.
// The schema is zod through @tmcp/adapter-zod 0.1.7 (tmcp validates arguments through Standard Schema and
// needs the adapter for the JSON Schema of tools/list). tmcp answers Web `Request`s; on node:http it is
// mounted with the same Web-to-Node adapter the SDK v2 rows use (`toNodeHandler` of @modelcontextprotocol/node),
// so the two per-request libraries pay the same adapter cost.
import { McpServer } from 'tmcp';
import { ZodJsonSchemaAdapter } from '@tmcp/adapter-zod';
import { StdioTransport } from '@tmcp/transport-stdio';
import { HttpTransport } from '@tmcp/transport-http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { z } from 'zod';
import { parseArgs, installHeapProbe, installShutdown, fillerToolNames, sleep, listenMcp } from './_common.js';

const opts = parseArgs();
if (opts.response === 'json') {
  process.stderr.write('tmcp.js: @tmcp/transport-http answers SSE only (no --response json)\n');
  process.exit(2);
}
installHeapProbe();

const server = new McpServer(
  { name: 'bench-tmcp', version: '1.0.0', description: 'Switchboard benchmark server' },
  { adapter: new ZodJsonSchemaAdapter(), capabilities: { tools: {} } },
);
server.tool(
  { name: 'echo', description: 'Echoes its text argument', schema: z.object({ text: z.string(), delayMs: z.number().int().min(0).max(60000).optional() }) },
  async ({ text, delayMs }) => {
    if (delayMs) await sleep(delayMs);
    return { content: [{ type: 'text', text }] };
  },
);
for (const name of fillerToolNames(opts.tools)) {
  server.tool({ name, description: `Filler ${name}`, schema: z.object({ value: z.string(), count: z.number().int().optional() }) }, async ({ value }) => ({
    content: [{ type: 'text', text: value }],
  }));
}

if (opts.stdio) {
  const transport = new StdioTransport(server);
  transport.listen();
  installShutdown(() => {}, { stdio: true });
} else {
  const transport = new HttpTransport(server, { path: '/mcp' });
  const handler = { fetch: async (request) => (await transport.respond(request)) ?? new Response(null, { status: 404 }) };
  listenMcp(toNodeHandler(handler), opts, () => void transport.close());
}
