// @modelcontextprotocol/sdk 1.32.2 (the official TypeScript SDK, v1) serving the same `echo` tool.
//   --stdio                          McpServer + StdioServerTransport
//   --port N [--mode stateful]       one McpServer + StreamableHTTPServerTransport per session (the SDK's
//                                    documented session-map pattern), on bare node:http
//   --port N --mode stateless        a fresh McpServer + transport per request (sessionIdGenerator: undefined)
//   --response json|sse              enableJsonResponse true|false (SDK default: sse)
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { parseArgs, installHeapProbe, installShutdown, fillerToolNames, readBody, sleep, sendError, sessionMapHandler, listenMcp } from './_common.js';

const opts = parseArgs();
installHeapProbe();
const fillers = fillerToolNames(opts.tools);

function buildServer() {
  const server = new McpServer({ name: 'bench-sdk-v1', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes its text argument', inputSchema: { text: z.string(), delayMs: z.number().int().min(0).max(60000).optional() } },
    async ({ text, delayMs }) => {
      if (delayMs) await sleep(delayMs);
      return { content: [{ type: 'text', text }] };
    },
  );
  for (const name of fillers) {
    server.registerTool(name, { description: `Filler ${name}`, inputSchema: { value: z.string(), count: z.number().int().optional() } }, async ({ value }) => ({
      content: [{ type: 'text', text: value }],
    }));
  }
  return server;
}

if (opts.stdio) {
  const server = buildServer();
  await server.connect(new StdioServerTransport());
  installShutdown(() => server.close(), { stdio: true });
} else {
  const enableJsonResponse = opts.response === 'json';
  if (opts.mode === 'stateless') {
    // One server + transport per request (the SDK's stateless pattern).
    listenMcp(async (req, res) => {
      if (req.method !== 'POST') return sendError(res, 405, -32000, 'Method not allowed.');
      const body = JSON.parse(await readBody(req));
      const server = buildServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse });
      res.on('close', () => {
        transport.close();
        server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    }, opts);
  } else {
    listenMcp(sessionMapHandler({
      createTransport: (onsessioninitialized) =>
        new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), enableJsonResponse, onsessioninitialized }),
      connect: (transport) => buildServer().connect(transport),
      isInitialize: isInitializeRequest,
    }), opts);
  }
}
