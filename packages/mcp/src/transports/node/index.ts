/**
 * @switchboard/mcp/node — the Node.js `http` adapter of the Streamable HTTP handler: `serveHttp` listens on a
 * port (127.0.0.1 by default), `toNodeListener` plugs the handler into an existing `http.Server` or framework.
 * `@switchboard/mcp/http` stays free of `node:` imports, so it runs on any `fetch` runtime. For the client side,
 * `nodeFetch` / `createNodeFetch` are a `fetch` on `node:http`; importing this entry makes `nodeFetch` the client transports' default.
 *
 * @example
 * import { serveHttp } from '@switchboard/mcp/node';
 * const { url, close } = await serveHttp({ server, port: 3000 }); // http://127.0.0.1:3000/mcp
 * @packageDocumentation
 */
import { installDefaultClientFetch } from '../http/client/clientHttp.js';
import { nodeFetch as loadedNodeFetch } from './nodeFetch.js';

// A Node entry: the HTTP client transports' default `fetch` becomes `nodeFetch` (see installFetch.ts). This entry
// loads it anyway (it exports it), so it installs it as it is, not behind installFetch's lazy `import()`.
installDefaultClientFetch(loadedNodeFetch);

export { createNodeFetch, DEFAULT_NODE_FETCH_MAX_SOCKETS, nodeFetch } from './nodeFetch.js';
export type { NodeFetch, NodeFetchOptions } from './nodeFetch.js';
export { toNodeListener } from './listener.js';
export type { NodeListener, NodeListenerOptions } from './listener.js';
export { AddressInUseError, serveHttp } from './serveHttp.js';
export type { ServeHttpCloseOptions, ServeHttpHandle, ServeHttpOptions } from './serveHttp.js';
export { DEFAULT_LOOPBACK_TIMEOUT_MS, startLoopbackRedirect } from './loopbackAuthorizer.js';
export type { LoopbackAuthorizerOptions, LoopbackRedirect } from './loopbackAuthorizer.js';
