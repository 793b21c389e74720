// @modelcontextprotocol/server 2.4.0 + @modelcontextprotocol/node 2.1.2 (the official TypeScript SDK, v2)
// serving the same `echo` tool.
//   --stdio                          serveStdio(factory) (v2's era-aware stdio entry): a connection that opens
//                                    with initialize is pinned to a legacy instance, one that opens with a
//                                    2026-07-28 request (the `_meta` envelope) to a modern instance
//   --port N [--mode stateful]       one McpServer + NodeStreamableHTTPServerTransport per session (hand-wired
//                                    session map, as v2 documents for sessionful legacy HTTP), on node:http
//   --port N --mode handler          createMcpHandler(factory) + toNodeHandler (a fresh McpServer per request):
//                                    2026-07-28 requests on its modern path, legacy ones on its stateless
//                                    legacy fallback
//   --response json|sse              stateful: enableJsonResponse true|false (SDK default: sse);
//                                    handler: responseMode 'json'|'sse' of the 2026-07-28 exchanges (SDK
//                                    default: auto ≈ json here; its legacy fallback always answers SSE)
// Both serving entries add 2026-07-28 to the instances they make themselves (2.4.0 needs no option for it).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { parseArgs, installHeapProbe, installShutdown, fillerToolNames, sleep, sessionMapHandler, listenMcp } from './_common.js';

const opts = parseArgs();
installHeapProbe();
const fillers = fillerToolNames(opts.tools);

function buildServer() {
  const server = new McpServer({ name: 'bench-sdk-v2', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes its text argument', inputSchema: z.object({ text: z.string(), delayMs: z.number().int().min(0).max(60000).optional() }) },
    async ({ text, delayMs }) => {
      if (delayMs) await sleep(delayMs);
      return { content: [{ type: 'text', text }] };
    },
  );
  for (const name of fillers) {
    server.registerTool(name, { description: `Filler ${name}`, inputSchema: z.object({ value: z.string(), count: z.number().int().optional() }) }, async ({ value }) => ({
      content: [{ type: 'text', text: value }],
    }));
  }
  return server;
}

if (opts.stdio) {
  const handle = serveStdio(() => buildServer());
  installShutdown(() => handle.close(), { stdio: true });
} else if (opts.mode === 'handler') {
  const handler = createMcpHandler(() => buildServer(), opts.response ? { responseMode: opts.response } : {});
  listenMcp(toNodeHandler(handler), opts, () => handler.close());
} else {
  const enableJsonResponse = opts.response === 'json';
  listenMcp(sessionMapHandler({
    createTransport: (onsessioninitialized) =>
      new NodeStreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), enableJsonResponse, onsessioninitialized }),
    connect: (transport) => buildServer().connect(transport),
    isInitialize: (body) => body && !Array.isArray(body) && body.method === 'initialize',
  }), opts);
}
