// #region http
import { serveHttp } from '@switchboard/mcp/node';
import { createServer } from './server.js';

const { url, close } = await serveHttp({ server: createServer(), port: Number(process.env.PORT ?? 3000) });
console.error(`weather: serving MCP at ${url}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void close().then(() => process.exit(0)));
}
// #endregion
