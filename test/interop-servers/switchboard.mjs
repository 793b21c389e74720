// Our own server (@switchboard/mcp) with the same fixture as the third-party ones, so the client's interop tests
// run one body against it too:
//   node test/interop-servers/switchboard.mjs --stdio | --port <N>   [--revisions all|legacy|modern]
// --revisions picks what the server serves: `all` (default: a dual-era server), `legacy` (only the
// session-based revisions, `LEGACY_REVISIONS`) or `modern` (only 2026-07-28, `MODERN_REVISIONS`). Lists are
// paginated (pageSize 4). ctx.sample / ctx.elicit are live requests on a session and input requests on 2026-07-28.
import process from 'node:process';
import { LEGACY_REVISIONS, MODERN_REVISIONS, createStderrLogger } from '@switchboard/mcp';
import { McpServer } from '@switchboard/mcp/server';
import { serveStdio } from '@switchboard/mcp/stdio';
import { serveHttp } from '@switchboard/mcp/node';
import {
  FIXTURE, ITEM_TEMPLATE, NAME_FORM, REGION_HEADER, fillerPromptNames, fillerToolNames, itemText, parseArgs, record, resourceText, resourceUris, sleep, slowWork,
} from './common.mjs';

const SERVER = 'switchboard';
const opts = parseArgs(process.argv.slice(2), { revisions: true });
const REVISIONS = { all: undefined, legacy: LEGACY_REVISIONS, modern: MODERN_REVISIONS };
const which = opts.revisions;
if (!(which in REVISIONS)) {
  process.stderr.write(`switchboard.mjs: --revisions is all, legacy or modern, not "${which}"\n`);
  process.exit(2);
}

const object = (properties, required = Object.keys(properties)) => ({ type: 'object', properties, required });
const server = new McpServer(
  { name: 'interop-switchboard', version: '1.0.0' },
  { pageSize: FIXTURE.pageSize, revisions: REVISIONS[which], logger: createStderrLogger({ level: 'warn' }), capabilities: { logging: {} } },
);
server.tool('echo', { description: 'Echoes its text', inputSchema: object({ text: { type: 'string' } }) }, ({ text }) => ({ content: [{ type: 'text', text }] }));
server.tool(
  'region',
  { description: 'Names its region (an argument mirrored in a header)', inputSchema: object({ region: { type: 'string', 'x-mcp-header': REGION_HEADER } }) },
  ({ region }) => ({ content: [{ type: 'text', text: `region ${region}` }] }),
);
server.tool(
  'progress',
  { description: 'Reports progress and logs each step', inputSchema: object({ steps: { type: 'integer', minimum: 1, maximum: 20 }, delayMs: { type: 'integer', minimum: 0 } }, ['steps']) },
  async ({ steps, delayMs = 5 }, ctx) => {
    for (let i = 1; i <= steps; i++) {
      await ctx.progress(i, steps, `step ${i}`);
      await ctx.log('info', `step ${i} of ${steps}`, SERVER);
      await sleep(delayMs);
    }
    return { content: [{ type: 'text', text: `done ${steps}` }] };
  },
);
server.tool('sample', { description: 'Asks the client to sample', inputSchema: object({ prompt: { type: 'string' } }) }, async ({ prompt }, ctx) => {
  const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 50 });
  const content = Array.isArray(answer.content) ? answer.content[0] : answer.content;
  return { content: [{ type: 'text', text: `model ${answer.model} said: ${content?.type === 'text' ? content.text : content?.type}` }] };
});
server.tool('elicit', { description: 'Asks the user for a name', inputSchema: object({ question: { type: 'string' } }) }, async ({ question }, ctx) => {
  const answer = await ctx.elicit({ message: question, requestedSchema: NAME_FORM });
  return { content: [{ type: 'text', text: answer.action === 'accept' ? `hello ${String(answer.content?.name)}` : `action ${answer.action}` }] };
});
server.tool('slow', { description: 'Sleeps unless cancelled', inputSchema: object({ ms: { type: 'integer', minimum: 0 } }) }, async ({ ms }, ctx) => ({
  content: [{ type: 'text', text: await slowWork({ ms, signal: ctx.signal, server: SERVER }) }],
}));
for (const name of fillerToolNames()) {
  server.tool(name, { description: `Filler ${name}`, inputSchema: object({ value: { type: 'string' } }) }, ({ value }) => ({ content: [{ type: 'text', text: value }] }));
}
for (const [i, uri] of resourceUris().entries()) {
  server.resource(uri, { name: `static-${i + 1}`, mimeType: 'text/plain' }, (u) => ({ contents: [{ uri: u, mimeType: 'text/plain', text: resourceText(u) }] }));
}
server.resourceTemplate(ITEM_TEMPLATE, { name: 'item', mimeType: 'text/plain' }, (u, { id }) => ({
  contents: [{ uri: u, mimeType: 'text/plain', text: itemText(String(id)) }],
}));
server.prompt('greet', { description: 'Greets someone', arguments: [{ name: 'name', required: true }] }, ({ name }) => ({
  messages: [{ role: 'user', content: { type: 'text', text: `Please greet ${name}` } }],
}));
for (const name of fillerPromptNames()) {
  server.prompt(name, { description: `Filler ${name}` }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: name } }] }));
}

if (opts.stdio) {
  record({ event: 'started', transport: 'stdio' });
  await serveStdio(server);
} else {
  const handle = await serveHttp({ server, port: opts.port });
  record({ event: 'started', transport: 'http' });
  process.stderr.write(`INTEROP_READY ${handle.url}\n`);
  const stop = () => {
    setTimeout(() => process.exit(0), 1000).unref();
    void handle.close().finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
