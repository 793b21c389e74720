/**
 * On Node, the client transports' default `fetch` is {@link nodeFetch} (a `fetch` on `node:http`, a fraction of
 * `globalThis.fetch`'s CPU per request): the package's Node entries (`./node`, `./stdio`, and `./client` when
 * loaded by Node) install it when they are imported, so a Node user gets it without naming it; `./stdio` through
 * this module, loaded at the first request. The runtime-neutral
 * code only reads the injection point (`defaultClientFetch` in `transports/http/clientHttp.ts`); a transport given
 * its own `fetch` calls that one. Same contract as the neutral default: called with `redirect: 'manual'`, and
 * `nodeFetch` never follows a redirect (the transports do, by hand: `clientRedirects.ts`).
 *
 * The entry passes the `import()` of `nodeFetch.js` itself: this module holds none, so it can live in the chunk the
 * runtime-neutral entries share (scripts/bundle.mjs `SHARED_CHUNK`) without leading a bundler to `node:http`.
 */
import { DIRECT_REQUEST, installDefaultClientFetch, type DirectRequest, type FetchLike } from '../http/client/clientHttp.js';
import type * as nodeFetchExports from './nodeFetch.js';

type NodeFetchModule = typeof nodeFetchExports;

/**
 * {@link nodeFetch}, loaded with `importNodeFetch` at the first request: a stdio server that never makes an HTTP
 * request does not load `node:http` at start. A failed load is not kept: the next request tries again (the requests
 * waiting on it fail with its error). That helps when the file could not be read; a module that failed to evaluate
 * stays failed, as Node's loader keeps it.
 */
function lazyNodeFetch(importNodeFetch: () => Promise<NodeFetchModule>): FetchLike & { readonly [DIRECT_REQUEST]: DirectRequest } {
  let loading: Promise<NodeFetchModule> | undefined;
  const load = (): Promise<NodeFetchModule> =>
    (loading ??= importNodeFetch().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
  /** `nodeFetch`'s `DirectRequest`, once loaded (called without another promise in between). */
  let loadedDirect: DirectRequest | undefined;
  return Object.assign(
    async (input: string | URL, init?: RequestInit): Promise<Response> => {
      const { nodeFetch } = await load();
      return nodeFetch(input, init);
    },
    {
      /** `nodeFetch`'s request without a `Response` (see `DirectRequest`), loaded the same way. */
      [DIRECT_REQUEST]: (url: URL, init: Parameters<DirectRequest>[1]): ReturnType<DirectRequest> => {
        if (loadedDirect !== undefined) return loadedDirect(url, init);
        return load().then((module) => (loadedDirect = module.nodeFetch[DIRECT_REQUEST])(url, init));
      },
    },
  );
}

/**
 * Makes {@link nodeFetch} the default `fetch` of the HTTP client transports (see the module comment), loaded with
 * `importNodeFetch` (the calling entry's `import()` of `nodeFetch.js`) at the first request.
 */
export function installNodeFetch(importNodeFetch: () => Promise<NodeFetchModule>): void {
  installDefaultClientFetch(lazyNodeFetch(importNodeFetch));
}
