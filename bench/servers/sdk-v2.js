// @modelcontextprotocol/server 2.4.0 + @modelcontextprotocol/node 2.1.2 (the official TypeScript SDK, v2)
// serving the same `echo` tool.
//   --stdio                          serveStdio(factory) (v2's era-aware stdio entry)
//   --port N [--mode stateful]       one McpServer + NodeStreamableHTTPServerTransport per session (hand-wired
//                                    session map, as v2 documents for sessionful 2025-era HTTP), on node:http
//   --port N --mode handler          createMcpHandler(factory) + toNodeHandler (a fresh McpServer per request;
//                                    2025-era traffic served by its stateless legacy fallback)
//   --response json|sse              stateful: enableJsonResponse true|false (SDK default: sse);
//                                    handler: responseMode 'json'|'sse' (SDK default: auto ≈ json here)
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { parseArgs, installHeapProbe, installShutdown, announceReady, fillerToolNames, readBody, sleep } from './_common.js';

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

const sendError = (res, status, code, message) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
};

if (opts.stdio) {
  const handle = serveStdio(() => buildServer());
  installShutdown(() => handle.close(), { stdio: true });
} else if (opts.mode === 'handler') {
  const handler = createMcpHandler(() => buildServer(), opts.response ? { responseMode: opts.response } : {});
  const nodeHandler = toNodeHandler(handler);
  const httpServer = http.createServer((req, res) => {
    if (req.url !== '/mcp') return sendError(res, 404, -32000, 'Not found');
    nodeHandler(req, res).catch(() => {
      if (!res.headersSent) sendError(res, 500, -32603, 'Internal server error');
      else res.end();
    });
  });
  httpServer.keepAliveTimeout = 60_000;
  httpServer.listen(opts.port, opts.host, () => announceReady(`http://${opts.host}:${httpServer.address().port}/mcp`));
  installShutdown(() => new Promise((r) => { handler.close(); httpServer.closeAllConnections(); httpServer.close(() => r()); }));
} else {
  const enableJsonResponse = opts.response === 'json';
  const transports = new Map();
  const isInitialize = (body) => body && !Array.isArray(body) && body.method === 'initialize';
  const httpServer = http.createServer(async (req, res) => {
    try {
      if (req.url !== '/mcp') return sendError(res, 404, -32000, 'Not found');
      const sid = req.headers['mcp-session-id'];
      if (req.method === 'POST') {
        const body = JSON.parse(await readBody(req));
        let transport = sid ? transports.get(sid) : undefined;
        if (!transport) {
          if (sid || !isInitialize(body)) return sendError(res, sid ? 404 : 400, -32000, 'Bad Request: No valid session ID provided');
          transport = new NodeStreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            enableJsonResponse,
            onsessioninitialized: (id) => transports.set(id, transport),
          });
          transport.onclose = () => {
            if (transport.sessionId) transports.delete(transport.sessionId);
          };
          await buildServer().connect(transport);
        }
        await transport.handleRequest(req, res, body);
        return;
      }
      const transport = sid ? transports.get(sid) : undefined;
      if (!transport) return sendError(res, 400, -32000, 'Invalid or missing session ID');
      await transport.handleRequest(req, res);
    } catch {
      if (!res.headersSent) sendError(res, 500, -32603, 'Internal server error');
      else res.end();
    }
  });
  httpServer.keepAliveTimeout = 60_000;
  httpServer.listen(opts.port, opts.host, () => announceReady(`http://${opts.host}:${httpServer.address().port}/mcp`));
  installShutdown(() => new Promise((r) => { httpServer.closeAllConnections(); httpServer.close(() => r()); }));
}
