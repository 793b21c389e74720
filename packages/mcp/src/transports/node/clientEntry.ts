/**
 * The `./client` entry as Node loads it (the `node` condition of its "exports"): the runtime-neutral client entry,
 * with {@link nodeFetch} as the HTTP client transports' default `fetch` (see `installFetch.ts`), so a Node user of
 * `streamableHttp({ url })` gets the `node:http` path without knowing of it. Every other runtime loads
 * `client/index.ts` itself (`globalThis.fetch`). The names are the neutral entry's, from the same modules (one
 * `McpClient` class whichever condition loaded it).
 * @packageDocumentation
 */
import { installDefaultClientFetch } from '../http/client/clientHttp.js';
import { nodeFetch } from './nodeFetch.js';

installDefaultClientFetch(nodeFetch);

// eslint-disable-next-line no-restricted-imports -- the Node build of the client entry re-exports it (see above)
export * from '../../client/index.js';
