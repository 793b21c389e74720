// #region stdio
import { serveStdio } from '@switchboard/mcp/stdio';
import { createServer } from './server.js';

await serveStdio(createServer());
console.error('weather: serving MCP on stdio'); // stderr: stdout carries only MCP messages
// #endregion
