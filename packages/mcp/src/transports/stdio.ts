/**
 * The stdio transport, server side (the `./stdio` entry): the transport itself (`stdioTransport.ts`) and
 * {@link serveStdio}, which serves a server on this process's stdin/stdout (`stdioServe.ts`).
 *
 * @see MCP 2025-11-25 basic/transports.mdx "stdio": messages are newline-delimited and MUST NOT contain
 *   embedded newlines; the server MUST NOT write anything to stdout that is not a valid MCP message; it MAY
 *   log to stderr.
 */
export { StdioServerTransport, type StdioServerTransportOptions } from './stdioTransport.js';
export {
  DEFAULT_STDIO_DRAIN_TIMEOUT_MS,
  DEFAULT_STDIO_SHUTDOWN_GRACE_MS,
  serveStdio,
  type ServeStdioOptions,
  type StdioServer,
  type StdioSession,
} from './stdioServe.js';
