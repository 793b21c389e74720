/**
 * On Node, the client transports' default `fetch` is {@link nodeFetch} (a `fetch` on `node:http`, a fraction of
 * `globalThis.fetch`'s CPU per request): the package's Node entries (`./node`, `./stdio`, and `./client` when
 * loaded by Node) install it when they are imported, so a Node user gets it without naming it. The runtime-neutral
 * code only reads the injection point (`defaultClientFetch` in `transports/http/clientHttp.ts`); a transport given
 * its own `fetch` calls that one. Same contract as the neutral default: called with `redirect: 'manual'`, and
 * `nodeFetch` never follows a redirect (the transports do, by hand: `clientRedirects.ts`).
 */
import { installDefaultClientFetch, type FetchLike } from '../http/client/clientHttp.js';

let loading: Promise<FetchLike> | undefined;

/**
 * {@link nodeFetch}, loaded at the first request: a stdio server that never makes an HTTP request does not load
 * `node:http` at start.
 */
const lazyNodeFetch: FetchLike = async (input, init) => {
  const fetch = await (loading ??= import('./nodeFetch.js').then((module) => module.nodeFetch));
  return fetch(input, init);
};

/** Makes {@link nodeFetch} the default `fetch` of the HTTP client transports (see the module comment). */
export function installNodeFetch(): void {
  installDefaultClientFetch(lazyNodeFetch);
}
