/**
 * Redirects, followed by hand on every request of the HTTP client transports. A `fetch` that follows redirects
 * itself (the default `redirect: 'follow'`) re-sends a 307/308's body — a `tools/call` and its arguments — and the
 * caller's headers (an API key in a custom header survives a cross-origin redirect; only `Authorization` is dropped
 * by the Fetch standard) to wherever the server points. Here every request goes out with `redirect: 'manual'`; a
 * 307 or 308 to the same origin (scheme, host and port) is followed, at most {@link MAX_SAME_ORIGIN_REDIRECTS} in a
 * row, with the same method, body and headers (RFC 9110 §15.4.8, §15.4.9: the method and content are kept); any
 * other redirect fails with {@link RedirectRefusedError} naming its target.
 *
 * MCP 2025-11-25 basic/transports.mdx "Streamable HTTP" defines one MCP endpoint; it says nothing of redirects, and
 * basic/security_best_practices.mdx warns against sending a client's credentials to a server they were not for.
 */
import { RedirectRefusedError } from '../../../protocol/clientErrors.js';
import type { FetchLike } from './clientHttp.js';

/** Same-origin 307/308 redirects followed in a row before {@link RedirectRefusedError}. */
export const MAX_SAME_ORIGIN_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * `fetch(url, init)` with redirects handled as the module says: `init.redirect` is always `'manual'`. `init.first`,
 * when given, is the answer to `url` already received (it is not fetched again).
 * @throws RedirectRefusedError for a redirect to another origin, a 301/302/303, a redirect the runtime hid
 *   (`opaqueredirect`), or more than {@link MAX_SAME_ORIGIN_REDIRECTS} in a row; what `fetch` throws
 */
export async function fetchWithoutLeaks(fetch: FetchLike, url: string | URL, init: RequestInit & { readonly first?: Response }): Promise<Response> {
  const { first, ...rest } = init;
  let target = new URL(url);
  const manual: RequestInit = { ...rest, redirect: 'manual' };
  for (let followed = 0; ; followed++) {
    // `first`: the answer to `url` was already had (a `DirectRequest`'s); only what it redirects to is fetched.
    const response = followed === 0 && first !== undefined ? first : await fetch(target, manual);
    if (response.type === 'opaqueredirect') {
      // A browser's fetch hides the status and the target of a manual redirect.
      throw new RedirectRefusedError({ status: 0, location: '', reason: 'the runtime hides the redirect target, so it is not followed' });
    }
    if (!REDIRECT_STATUSES.has(response.status)) return response;
    response.body?.cancel().catch(() => undefined);
    const header = response.headers.get('location');
    let next: URL | undefined;
    try {
      next = header === null ? undefined : new URL(header, target);
    } catch {
      next = undefined;
    }
    const location = next?.href ?? header ?? '';
    if (next === undefined) throw new RedirectRefusedError({ status: response.status, location, reason: 'no valid Location header' });
    if (next.origin !== target.origin) {
      throw new RedirectRefusedError({ status: response.status, location, reason: `another origin than "${target.origin}" (the request, its body and headers are not sent there)` });
    }
    if (response.status !== 307 && response.status !== 308) {
      throw new RedirectRefusedError({ status: response.status, location, reason: 'only 307 and 308 keep the method and body of an MCP request' });
    }
    if (followed === MAX_SAME_ORIGIN_REDIRECTS) {
      throw new RedirectRefusedError({ status: response.status, location, reason: `more than ${MAX_SAME_ORIGIN_REDIRECTS} redirects in a row` });
    }
    target = next;
  }
}
