// A test server on the official TypeScript SDK v1 (@modelcontextprotocol/sdk 1.32.2), written the way its
// docs/server.md and src/examples/server/simpleStreamableHttp.ts show:
//   --stdio      McpServer + StdioServerTransport
//   --port N     one McpServer + StreamableHTTPServerTransport per session in a session map, on node:http. As in
//                the SDK's example, a request naming a session the map does not hold is answered 400 "Bad Request:
//                No valid session ID provided" (the spec says 404 for an unknown session).
// The v1 McpServer answers every list in one page (no pagination); logging is declared; sampling and
// elicitation go out as server→client requests on the session (server.server.createMessage / elicitInput).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import {
  ITEM_TEMPLATE, NAME_FORM, REGION_HEADER, fillerPromptNames, fillerToolNames, itemText, listenMcp, parseArgs, readBody, resourceText, resourceUris, sendError,
  sleep, slowWork, stdioStarted,
} from './common.mjs';

const SERVER = 'sdk-v1';
const opts = parseArgs();

function getServer() {
  const server = new McpServer({ name: 'interop-sdk-v1', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool('echo', { description: 'Echoes its text', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool(
    'region',
    { description: 'Names its region (an argument mirrored in a header)', inputSchema: { region: z.string().meta({ 'x-mcp-header': REGION_HEADER }) } },
    async ({ region }) => ({ content: [{ type: 'text', text: `region ${region}` }] }),
  );
  server.registerTool(
    'progress',
    { description: 'Reports progress and logs each step', inputSchema: { steps: z.number().int().min(1).max(20), delayMs: z.number().int().min(0).max(5000).optional() } },
    async ({ steps, delayMs = 5 }, extra) => {
      const progressToken = extra._meta?.progressToken;
      for (let i = 1; i <= steps; i++) {
        if (progressToken !== undefined) {
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: i, total: steps, message: `step ${i}` } });
        }
        await server.sendLoggingMessage({ level: 'info', logger: SERVER, data: `step ${i} of ${steps}` }, extra.sessionId);
        await sleep(delayMs);
      }
      return { content: [{ type: 'text', text: `done ${steps}` }] };
    },
  );
  server.registerTool('sample', { description: 'Asks the client to sample', inputSchema: { prompt: z.string() } }, async ({ prompt }) => {
    const answer = await server.server.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 50 });
    return { content: [{ type: 'text', text: `model ${answer.model} said: ${answer.content.type === 'text' ? answer.content.text : answer.content.type}` }] };
  });
  server.registerTool('elicit', { description: 'Asks the user for a name', inputSchema: { question: z.string() } }, async ({ question }) => {
    const answer = await server.server.elicitInput({ mode: 'form', message: question, requestedSchema: NAME_FORM });
    return { content: [{ type: 'text', text: answer.action === 'accept' ? `hello ${String(answer.content?.name)}` : `action ${answer.action}` }] };
  });
  server.registerTool('slow', { description: 'Sleeps unless cancelled', inputSchema: { ms: z.number().int().min(0) } }, async ({ ms }, extra) => ({
    content: [{ type: 'text', text: await slowWork({ ms, signal: extra.signal, server: SERVER }) }],
  }));
  for (const name of fillerToolNames()) {
    server.registerTool(name, { description: `Filler ${name}`, inputSchema: { value: z.string() } }, async ({ value }) => ({ content: [{ type: 'text', text: value }] }));
  }
  for (const [i, uri] of resourceUris().entries()) {
    server.registerResource(`static-${i + 1}`, uri, { mimeType: 'text/plain' }, async (u) => ({ contents: [{ uri: u.href, mimeType: 'text/plain', text: resourceText(u.href) }] }));
  }
  server.registerResource('item', new ResourceTemplate(ITEM_TEMPLATE, { list: undefined }), { mimeType: 'text/plain' }, async (u, { id }) => ({
    contents: [{ uri: u.href, mimeType: 'text/plain', text: itemText(String(id)) }],
  }));
  server.registerPrompt('greet', { description: 'Greets someone', argsSchema: { name: z.string() } }, ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Please greet ${name}` } }],
  }));
  for (const name of fillerPromptNames()) {
    server.registerPrompt(name, { description: `Filler ${name}` }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: name } }] }));
  }
  return server;
}

if (opts.stdio) {
  const server = getServer();
  await server.connect(new StdioServerTransport());
  stdioStarted(() => server.close());
} else {
  const transports = {};
  listenMcp(async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    if (req.method === 'POST') {
      const body = JSON.parse(await readBody(req));
      let transport;
      if (sessionId && transports[sessionId]) {
        transport = transports[sessionId];
      } else if (!sessionId && isInitializeRequest(body)) {
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid) => {
            transports[sid] = transport;
          },
        });
        transport.onclose = () => {
          if (transport.sessionId) delete transports[transport.sessionId];
        };
        await getServer().connect(transport);
      } else {
        return sendError(res, 400, -32000, 'Bad Request: No valid session ID provided');
      }
      await transport.handleRequest(req, res, body);
      return;
    }
    if (!sessionId || !transports[sessionId]) {
      res.writeHead(400).end('Invalid or missing session ID');
      return;
    }
    await transports[sessionId].handleRequest(req, res);
  }, opts, () => Promise.all(Object.values(transports).map((t) => t.close())));
}
