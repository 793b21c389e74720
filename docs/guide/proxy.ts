// #region proxy
import { serveHttp } from '@switchboard/mcp/node';
import { createServer } from './server.js';

const { url } = await serveHttp({
  server: createServer(),
  port: Number(process.env.PORT ?? 3000),
  host: '127.0.0.1', // only the proxy on this machine can connect
  allowedHosts: ['weather.example.com'], // the Host header the proxy forwards
  trustProxy: ['127.0.0.1'], // the proxy's address: its X-Forwarded-For names the client, X-Forwarded-Proto the scheme
  allowedOrigins: ['https://app.example.com'], // other browser pages allowed to call the server
});
console.error(`weather: serving MCP at ${url}, public at https://weather.example.com/mcp`);
// #endregion
