// A test server on the official TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0 + @modelcontextprotocol/node
// 2.1.2), written the way its docs show (docs/serving/stdio.md, docs/serving/http.md, docs/servers/*.md). v2
// serves both eras from one factory:
//   --stdio      serveStdio(factory): a connection that opens with `initialize` is a legacy session, one that
//                opens with a 2026-07-28 request (`server/discover` or a `_meta` envelope) is modern
//   --port N     createMcpHandler(factory) + toNodeHandler on node:http: 2026-07-28 requests on its modern path,
//                legacy ones on its stateless legacy fallback (no Mcp-Session-Id, GET/DELETE 405)
// The v2 McpServer answers every list in one page (no pagination). Sampling and elicitation are written once as
// `inputRequired(...)` returns: on 2026-07-28 the client answers them in the multi round-trip loop, on a legacy
// session the SDK's shim pushes them as live server→client requests.
import { z } from 'zod';
import { McpServer, ResourceTemplate, acceptedContent, createMcpHandler, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  ITEM_TEMPLATE, NAME_FORM, REGION_HEADER, fillerPromptNames, fillerToolNames, itemText, listenMcp, parseArgs, resourceText, resourceUris, sleep, slowWork,
  stdioStarted,
} from './common.mjs';

const SERVER = 'sdk-v2';
const opts = parseArgs();

function buildServer() {
  const server = new McpServer({ name: 'interop-sdk-v2', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool('echo', { description: 'Echoes its text', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool(
    'region',
    { description: 'Names its region (an argument mirrored in a header)', inputSchema: z.object({ region: z.string().meta({ 'x-mcp-header': REGION_HEADER }) }) },
    async ({ region }) => ({ content: [{ type: 'text', text: `region ${region}` }] }),
  );
  server.registerTool(
    'progress',
    { description: 'Reports progress and logs each step', inputSchema: z.object({ steps: z.number().int().min(1).max(20), delayMs: z.number().int().min(0).max(5000).optional() }) },
    async ({ steps, delayMs = 5 }, ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      for (let i = 1; i <= steps; i++) {
        if (progressToken !== undefined) {
          await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: i, total: steps, message: `step ${i}` } });
        }
        await ctx.mcpReq.log('info', `step ${i} of ${steps}`);
        await sleep(delayMs);
      }
      return { content: [{ type: 'text', text: `done ${steps}` }] };
    },
  );
  server.registerTool('sample', { description: 'Asks the client to sample', inputSchema: z.object({ prompt: z.string() }) }, async ({ prompt }, ctx) => {
    const view = inputResponse(ctx.mcpReq.inputResponses, 'sample');
    if (view.kind !== 'sampling') {
      return inputRequired({
        inputRequests: { sample: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 50 }) },
      });
    }
    const content = Array.isArray(view.result.content) ? view.result.content[0] : view.result.content;
    return { content: [{ type: 'text', text: `model ${view.result.model} said: ${content?.type === 'text' ? content.text : content?.type}` }] };
  });
  server.registerTool('elicit', { description: 'Asks the user for a name', inputSchema: z.object({ question: z.string() }) }, async ({ question }, ctx) => {
    const view = inputResponse(ctx.mcpReq.inputResponses, 'name');
    if (view.kind === 'elicit' && view.action !== 'accept') return { content: [{ type: 'text', text: `action ${view.action}` }] };
    const answer = acceptedContent(ctx.mcpReq.inputResponses, 'name', z.object({ name: z.string() }));
    if (answer === undefined) {
      return inputRequired({ inputRequests: { name: inputRequired.elicit({ message: question, requestedSchema: NAME_FORM }) } });
    }
    return { content: [{ type: 'text', text: `hello ${answer.name}` }] };
  });
  server.registerTool('slow', { description: 'Sleeps unless cancelled', inputSchema: z.object({ ms: z.number().int().min(0) }) }, async ({ ms }, ctx) => ({
    content: [{ type: 'text', text: await slowWork({ ms, signal: ctx.mcpReq.signal, server: SERVER }) }],
  }));
  for (const name of fillerToolNames()) {
    server.registerTool(name, { description: `Filler ${name}`, inputSchema: z.object({ value: z.string() }) }, async ({ value }) => ({ content: [{ type: 'text', text: value }] }));
  }
  for (const [i, uri] of resourceUris().entries()) {
    server.registerResource(`static-${i + 1}`, uri, { mimeType: 'text/plain' }, async (u) => ({ contents: [{ uri: u.href, mimeType: 'text/plain', text: resourceText(u.href) }] }));
  }
  server.registerResource('item', new ResourceTemplate(ITEM_TEMPLATE, { list: undefined }), { mimeType: 'text/plain' }, async (u, { id }) => ({
    contents: [{ uri: u.href, mimeType: 'text/plain', text: itemText(String(id)) }],
  }));
  server.registerPrompt('greet', { description: 'Greets someone', argsSchema: z.object({ name: z.string() }) }, ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Please greet ${name}` } }],
  }));
  for (const name of fillerPromptNames()) {
    server.registerPrompt(name, { description: `Filler ${name}` }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: name } }] }));
  }
  return server;
}

if (opts.stdio) {
  const handle = serveStdio(() => buildServer());
  stdioStarted(() => handle.close());
} else {
  const handler = createMcpHandler(() => buildServer());
  listenMcp(toNodeHandler(handler), opts, () => handler.close());
}
