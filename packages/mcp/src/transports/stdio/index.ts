/**
 * The stdio transport (the `./stdio` entry). Server side: the transport itself (`stdioTransport.ts`) and
 * {@link serveStdio}, which serves a server on this process's stdin/stdout (`stdioServe.ts`). Client side:
 * {@link spawnStdio}, the connector that spawns a server, and its {@link StdioClientTransport} (`stdioClient.ts`).
 *
 * @see MCP 2025-11-25 basic/transports.mdx "stdio": messages are newline-delimited and MUST NOT contain
 *   embedded newlines; the server MUST NOT write anything to stdout that is not a valid MCP message; it MAY
 *   log to stderr.
 */
import { installNodeFetch } from '../node/installFetch.js';

// A Node entry: the HTTP client transports' default `fetch` becomes `nodeFetch` (see installFetch.ts).
installNodeFetch(() => import('../node/nodeFetch.js'));

export { StdioServerTransport, type StdioServerTransportOptions } from './stdioServerTransport.js';
export {
  DEFAULT_STDIO_DRAIN_TIMEOUT_MS,
  DEFAULT_STDIO_SHUTDOWN_GRACE_MS,
  serveStdio,
  type ServeStdioOptions,
  type StdioServer,
  type StdioSession,
} from './serveStdio.js';
export { spawnStdio, StdioClientTransport } from './stdioClientTransport.js';
export { DEFAULT_SPAWN_MAX_LINE_BYTES, DEFAULT_SPAWN_SHUTDOWN_GRACE_MS, type SpawnStdioOptions } from './spawnOptions.js';
export { DEFAULT_MAX_STDERR_LINES } from './stderrTail.js';
export { groupGone, groupRunning, guardGroup, signalGroup, spawnGroup, type GroupLeader, type GroupSpawn } from './processGroup.js';
