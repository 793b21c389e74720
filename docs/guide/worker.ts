// #region worker
import { createMcpHttpHandler } from '@switchboard/mcp/http';
import { createServer } from './server.js';

const handler = createMcpHttpHandler({
  server: createServer(),
  allowedHosts: ['weather.example.com'], // the public host name clients use
});

export default { fetch: handler.fetch };
// #endregion
