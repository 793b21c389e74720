// A test server on tmcp 1.20.0 (@tmcp/adapter-zod 0.1.7, @tmcp/transport-stdio 0.5.0, @tmcp/transport-http 0.9.0),
// written the way its README shows. tmcp serves both eras from one server:
//   --stdio      StdioTransport: a connection that opens with `initialize` is a legacy session; a request
//                carrying the 2026-07-28 `_meta` envelope is served per request
//   --port N     HttpTransport at /mcp (a Web `Request` handler, mounted on node:http with the same Web-to-Node
//                adapter as the v2 server): legacy sessions (Mcp-Session-Id minted at initialize) and 2026-07-28
//                requests from one endpoint; every answer is a text/event-stream body
// tmcp paginates when told a page size (`pagination`), so every list here takes several pages. Sampling and
// elicitation (`server.message`, `server.elicitation`) are live requests on a session and input requests on
// 2026-07-28, where tmcp runs the handler again from the top on the retry and so refuses (-32603) unless the tool
// is marked `replayable: true` (a tmcp option its README does not mention; these two tools are safe to replay).
// Cancellation reaches the handler as `server.ctx.signal`.
import { McpServer } from 'tmcp';
import { ZodJsonSchemaAdapter } from '@tmcp/adapter-zod';
import { StdioTransport } from '@tmcp/transport-stdio';
import { HttpTransport } from '@tmcp/transport-http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { z } from 'zod';
import {
  FIXTURE, ITEM_TEMPLATE, REGION_HEADER, fillerPromptNames, fillerToolNames, itemText, listenMcp, parseArgs, resourceText, resourceUris, sleep, slowWork,
  stdioStarted,
} from './common.mjs';

const SERVER = 'tmcp';
const opts = parseArgs();
const page = { size: FIXTURE.pageSize };

const server = new McpServer(
  { name: 'interop-tmcp', version: '1.0.0', description: 'Switchboard interop test server' },
  {
    adapter: new ZodJsonSchemaAdapter(),
    capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true }, logging: {} },
    pagination: { tools: page, resources: page, prompts: page },
  },
);

server.tool({ name: 'echo', description: 'Echoes its text', schema: z.object({ text: z.string() }) }, async ({ text }) => ({
  content: [{ type: 'text', text }],
}));
server.tool(
  { name: 'region', description: 'Names its region (an argument mirrored in a header)', schema: z.object({ region: z.string().meta({ 'x-mcp-header': REGION_HEADER }) }) },
  async ({ region }) => ({ content: [{ type: 'text', text: `region ${region}` }] }),
);
server.tool(
  { name: 'progress', description: 'Reports progress and logs each step', schema: z.object({ steps: z.number().int().min(1).max(20), delayMs: z.number().int().min(0).max(5000).optional() }) },
  async ({ steps, delayMs = 5 }) => {
    for (let i = 1; i <= steps; i++) {
      server.progress(i, steps, `step ${i}`);
      server.log('info', `step ${i} of ${steps}`, SERVER);
      await sleep(delayMs);
    }
    return { content: [{ type: 'text', text: `done ${steps}` }] };
  },
);
server.tool({ name: 'sample', description: 'Asks the client to sample', schema: z.object({ prompt: z.string() }), replayable: true }, async ({ prompt }) => {
  const answer = await server.message({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 50 });
  const content = Array.isArray(answer.content) ? answer.content[0] : answer.content;
  return { content: [{ type: 'text', text: `model ${answer.model} said: ${content?.type === 'text' ? content.text : content?.type}` }] };
});
server.tool({ name: 'elicit', description: 'Asks the user for a name', schema: z.object({ question: z.string() }), replayable: true }, async ({ question }) => {
  const answer = await server.elicitation(question, z.object({ name: z.string().describe('Your name') }), { key: 'name' });
  return { content: [{ type: 'text', text: answer.action === 'accept' ? `hello ${String(answer.content?.name)}` : `action ${answer.action}` }] };
});
server.tool({ name: 'slow', description: 'Sleeps unless cancelled', schema: z.object({ ms: z.number().int().min(0) }) }, async ({ ms }) => ({
  content: [{ type: 'text', text: await slowWork({ ms, signal: server.ctx.signal, server: SERVER }) }],
}));
for (const name of fillerToolNames()) {
  server.tool({ name, description: `Filler ${name}`, schema: z.object({ value: z.string() }) }, async ({ value }) => ({ content: [{ type: 'text', text: value }] }));
}
for (const [i, uri] of resourceUris().entries()) {
  server.resource({ name: `static-${i + 1}`, description: `Static resource ${i + 1}`, uri, mimeType: 'text/plain' }, async (u) => ({
    contents: [{ uri: u, mimeType: 'text/plain', text: resourceText(u) }],
  }));
}
server.template({ name: 'item', description: 'One item', uri: ITEM_TEMPLATE, mimeType: 'text/plain' }, async (u, params) => ({
  contents: [{ uri: u, mimeType: 'text/plain', text: itemText(String(params.id)) }],
}));
server.prompt({ name: 'greet', description: 'Greets someone', schema: z.object({ name: z.string() }) }, async ({ name }) => ({
  messages: [{ role: 'user', content: { type: 'text', text: `Please greet ${name}` } }],
}));
for (const name of fillerPromptNames()) {
  server.prompt({ name, description: `Filler ${name}` }, async () => ({ messages: [{ role: 'user', content: { type: 'text', text: name } }] }));
}

if (opts.stdio) {
  new StdioTransport(server).listen();
  stdioStarted();
} else {
  const transport = new HttpTransport(server, { path: '/mcp' });
  const handler = { fetch: async (request) => (await transport.respond(request)) ?? new Response(null, { status: 404 }) };
  listenMcp(toNodeHandler(handler), opts, () => transport.close());
}
