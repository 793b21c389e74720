// @modelcontextprotocol/sdk 1.32.2 (the official TypeScript SDK, v1) serving the same `echo` tool.
//   --stdio                          McpServer + StdioServerTransport
//   --port N [--mode stateful]       one McpServer + StreamableHTTPServerTransport per session (the SDK's
//                                    documented session-map pattern), on bare node:http
//   --port N --mode stateless        a fresh McpServer + transport per request (sessionIdGenerator: undefined)
//   --response json|sse              enableJsonResponse true|false (SDK default: sse)
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { parseArgs, installHeapProbe, installShutdown, announceReady, fillerToolNames, readBody, sleep } from './_common.js';

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
  const stateless = opts.mode === 'stateless';
  const transports = new Map();

  const sendError = (res, status, code, message) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
  };

  const httpServer = http.createServer(async (req, res) => {
    try {
      if (req.url !== '/mcp') return sendError(res, 404, -32000, 'Not found');
      if (stateless) {
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
        return;
      }
      const sid = req.headers['mcp-session-id'];
      if (req.method === 'POST') {
        const body = JSON.parse(await readBody(req));
        let transport = sid ? transports.get(sid) : undefined;
        if (!transport) {
          if (sid || !isInitializeRequest(body)) return sendError(res, sid ? 404 : 400, -32000, 'Bad Request: No valid session ID provided');
          transport = new StreamableHTTPServerTransport({
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
