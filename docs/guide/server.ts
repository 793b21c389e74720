/**
 * The weather server the guide (docs/guide.md) builds step by step. Each `#region` is one code block of the
 * guide; test/guide.test.ts checks that the blocks and these regions are identical, and drives this server
 * over stdio, Streamable HTTP and the Web `fetch` handler.
 */
// #region imports
import { z } from 'zod';
import { McpServer, ToolError } from '@switchboard/mcp/server';
import { ResourceNotFoundError } from '@switchboard/mcp';
// #endregion

// #region data
/** Made-up observations: a real server would call a weather API here. */
const CITIES: Record<string, { tempC: number; sky: string }> = {
  Lisbon: { tempC: 17, sky: 'sunny' },
  London: { tempC: 9, sky: 'rain' },
  Oslo: { tempC: -3, sky: 'snow' },
};
const CITY_NAMES = Object.keys(CITIES);

function observe(city: string): { tempC: number; sky: string } {
  const today = CITIES[city];
  if (today === undefined) throw new ToolError(`Unknown city "${city}": try one of ${CITY_NAMES.join(', ')}`);
  return today;
}
// #endregion

export function createServer(): McpServer {
  // #region server
  const server = new McpServer({ name: 'weather', version: '1.0.0' });
  // #endregion

  // #region tool-zod
  server.tool(
    'forecast',
    {
      description: 'Weather forecast for a city',
      inputSchema: z.object({
        city: z.string().describe('City name, e.g. "Oslo"'),
        days: z.number().int().min(1).max(7).default(1),
      }),
    },
    ({ city, days }) => {
      const { tempC, sky } = observe(city);
      return { content: [{ type: 'text', text: `${city}, next ${days} day(s): ${sky}, ${tempC} °C` }] };
    },
  );
  // #endregion

  // #region tool-json-schema
  server.tool(
    'to_fahrenheit',
    {
      description: 'Converts a temperature from °C to °F',
      inputSchema: {
        type: 'object',
        properties: { celsius: { type: 'number' } },
        required: ['celsius'],
        additionalProperties: false,
      } as const,
    },
    ({ celsius }) => ({ content: [{ type: 'text', text: `${celsius * 1.8 + 32} °F` }] }),
  );
  // #endregion

  // #region tool-output-schema
  server.tool(
    'current',
    {
      description: 'Current conditions, as data',
      inputSchema: z.object({ city: z.string() }),
      outputSchema: z.object({ city: z.string(), tempC: z.number(), sky: z.string() }),
    },
    ({ city }) => {
      const conditions = { city, ...observe(city) };
      return {
        content: [{ type: 'text', text: JSON.stringify(conditions) }],
        structuredContent: conditions,
      };
    },
  );
  // #endregion

  // #region resource
  server.resource(
    'weather://cities',
    { name: 'cities', title: 'Known cities', mimeType: 'application/json' },
    (uri) => ({ contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(CITY_NAMES) }] }),
  );
  // #endregion

  // #region resource-template
  server.resourceTemplate(
    'weather://forecast/{city}',
    {
      name: 'forecast',
      title: 'Forecast for one city',
      mimeType: 'text/plain',
      complete: { city: (value) => CITY_NAMES.filter((name) => name.startsWith(value)) },
    },
    (uri, { city }) => {
      const today = CITIES[city];
      if (today === undefined) throw new ResourceNotFoundError(uri);
      return { contents: [{ uri, mimeType: 'text/plain', text: `${today.sky}, ${today.tempC} °C` }] };
    },
  );
  // #endregion

  // #region prompt
  server.prompt(
    'packing_list',
    {
      description: 'Asks the model what to pack for a trip',
      arguments: [
        { name: 'city', description: 'Where you are going', required: true },
        { name: 'nights', description: 'How long you stay' },
      ],
      complete: { city: (value) => CITY_NAMES.filter((name) => name.startsWith(value)) },
    },
    ({ city, nights }) => ({
      messages: [{
        role: 'user',
        content: { type: 'text', text: `I am going to ${city} for ${nights ?? 'a few'} nights. What should I pack?` },
      }],
    }),
  );
  // #endregion

  // #region long-running
  server.tool(
    'week',
    { description: 'Seven-day outlook (slow: one step per day)', inputSchema: z.object({ city: z.string() }) },
    async ({ city }, ctx) => {
      const { sky } = observe(city);
      const days: string[] = [];
      for (let day = 1; day <= 7; day++) {
        await new Promise((resolve) => setTimeout(resolve, 50)); // stands for a slow upstream call
        ctx.signal.throwIfAborted(); // the client cancelled: stop working, no answer is sent
        days.push(`day ${day}: ${sky}`);
        await ctx.progress(day, 7, `${city}: day ${day} of 7`);
        await ctx.log('debug', { city, day });
      }
      return { content: [{ type: 'text', text: days.join('\n') }] };
    },
  );
  // #endregion

  // #region elicitation
  server.tool(
    'set_home',
    { description: 'Asks the user for their home city' },
    async (_args, ctx) => {
      if (ctx.clientCapabilities.elicitation === undefined) {
        throw new ToolError('This client cannot ask the user; call "forecast" with a city instead');
      }
      const answer = await ctx.elicit({
        message: 'Which city do you live in?',
        requestedSchema: {
          type: 'object',
          properties: { city: { type: 'string', enum: CITY_NAMES } },
          required: ['city'],
        },
      });
      if (answer.action !== 'accept') return { content: [{ type: 'text', text: `No home city set (${answer.action})` }] };
      return { content: [{ type: 'text', text: `Home city set to ${String(answer.content?.city)}` }] };
    },
  );
  // #endregion

  // #region sampling
  server.tool(
    'advice',
    { description: 'What to wear today', inputSchema: z.object({ city: z.string() }) },
    async ({ city }, ctx) => {
      const { tempC, sky } = observe(city);
      const facts = `${city}: ${sky}, ${tempC} °C`;
      if (ctx.clientCapabilities.sampling === undefined) {
        return { content: [{ type: 'text', text: `${facts}. Dress for it.` }] };
      }
      const reply = await ctx.sample({
        messages: [{ role: 'user', content: { type: 'text', text: `${facts}. In one sentence, what should I wear?` } }],
        maxTokens: 60,
      });
      const answer = reply.content.type === 'text' ? reply.content.text : undefined;
      return { content: [{ type: 'text', text: typeof answer === 'string' ? answer : facts }] };
    },
  );
  // #endregion

  // #region errors
  server.tool(
    'station',
    { description: 'Raw reading of a weather station', inputSchema: z.object({ id: z.string() }) },
    async ({ id }) => {
      if (!/^[A-Z]{4}$/.test(id)) throw new ToolError(`Station ids are four capital letters, got "${id}"`);
      const reading = await readStation(id);
      return { content: [{ type: 'text', text: reading }] };
    },
  );
  // #endregion

  return server;
}

// #region read-station
/** Stands for a database or network call that fails. */
function readStation(id: string): Promise<string> {
  return Promise.reject(new Error(`connect ECONNREFUSED 10.0.0.7:5432 (station ${id})`));
}
// #endregion

// #region default-export
/** What `switchboard serve`, `dev` and `install` load: a module's default export, a server or a function making one. */
export default createServer;
// #endregion
