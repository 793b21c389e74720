/**
 * The seam between an HTTP client transport and authorization: {@link HttpClientAuth} adds credentials to each request
 * and is told of each 401/403, and {@link authorizedFetch} wraps the transport's `fetch` with it, so the transports
 * stay as they are (the auth is injected like `fetch`). A request the auth says to resend is sent again with fresh
 * credentials, a bounded number of times.
 *
 * @see MCP 2025-11-25 basic/authorization.mdx "Access Token Usage"
 */
import { AuthorizationError } from '../../../../protocol/clientErrors.js';
import type { FetchLike } from '../clientHttp.js';

/** One request as the auth sees it. */
export interface AuthRequestFacts {
  /** The request URL (the MCP endpoint, or where a same-origin redirect pointed). */
  readonly url: URL;
  /** The HTTP method (`POST`, `GET`, `DELETE`). */
  readonly method: string;
  /** The `Authorization` field the request carried (what the auth's `headers` gave), if any. */
  readonly authorization?: string;
  /** How many times this request was already sent again after a challenge. */
  readonly resent: number;
  /**
   * How many of this request's earlier answers were 403 (each one a step-up, or one joined): what bounds its step-ups.
   * When absent, `resent` stands in for it.
   */
  readonly forbidden?: number;
  /** How many of this request's earlier answers were 401. @default 0 */
  readonly unauthorized?: number;
  /** The `Authorization` field the first sending of this request carried, if any (absent on the first itself). */
  readonly firstAuthorization?: string;
}

/**
 * What an HTTP client transport calls to authorize its requests: `headers` before each one, `answered` with every
 * answer, `challenged` when one was answered 401 or 403. `oauth()` makes one; a host may write its own (an API key
 * that is rotated, say).
 */
export interface HttpClientAuth {
  /**
   * The header fields that authorize this request (`Authorization`, and `DPoP` for a DPoP-bound token); `{}` when
   * the client holds no credentials yet (the server's 401 then starts the flow). May refresh an expired token first.
   */
  headers(request: AuthRequestFacts): Promise<Readonly<Record<string, string>>>;
  /**
   * Called with every answer, before `challenged` for a 401 or 403 (its body unread, and not to be read here): for
   * what a server hands out on any answer, such as the next DPoP nonce (RFC 9449 §8.2). What it throws (or, if it
   * returns a promise, what that rejects with) is ignored.
   */
  answered?(request: AuthRequestFacts, response: Response): void;
  /**
   * Called with a 401 or 403 answer (its body unread). Resolves `true` when credentials changed and the request
   * should be sent again, `false` to hand the answer to the transport as it is.
   * @throws AuthorizationError when the flow started and failed (the request fails with it)
   */
  challenged(request: AuthRequestFacts, response: Response): Promise<boolean>;
}

/**
 * How many times one request is sent again after a challenge: room for a 401's sign-in, a DPoP nonce retry and the
 * default two step-ups (403), with one to spare, so that the auth's own limits (`maxStepUps`) answer first with their
 * own error; past it the last 401 or 403 is the request's answer.
 */
export const MAX_AUTH_RESENDS = 5;

const ignore = (): void => {};

/**
 * `fetch` with {@link HttpClientAuth}: each request carries the auth's headers (over the caller's); every answer is
 * shown to `answered`, a 401 or 403 to `challenged`, and when it says so the request is sent again (same method, body and other headers) with
 * fresh credentials, at most {@link MAX_AUTH_RESENDS} times. The body must be replayable (a string: what the
 * transports send).
 */
export function authorizedFetch(fetch: FetchLike, auth: HttpClientAuth): FetchLike {
  return async (input, init = {}) => {
    const url = new URL(input);
    const method = (init.method ?? 'GET').toUpperCase();
    let forbidden = 0;
    let unauthorized = 0;
    let first: string | undefined;
    for (let resent = 0; ; resent++) {
      const headers = new Headers(init.headers);
      const own = await auth.headers({ url, method, resent, forbidden, unauthorized });
      for (const [name, value] of Object.entries(own)) headers.set(name, value);
      const facts: AuthRequestFacts = {
        url,
        method,
        resent,
        forbidden,
        unauthorized,
        ...(own.Authorization === undefined ? {} : { authorization: own.Authorization }),
        ...(first === undefined ? {} : { firstAuthorization: first }),
      };
      if (resent === 0) first = own.Authorization;
      const response = await fetch(input, { ...init, headers });
      try {
        // A host's hook failing is no reason to lose the answer, nor, written async, to end the process.
        const pending = auth.answered?.(facts, response) as unknown;
        if (pending instanceof Promise) pending.catch(ignore);
      } catch {
        // As above.
      }
      if (response.status === 403) forbidden++;
      else if (response.status === 401) unauthorized++;
      if ((response.status !== 401 && response.status !== 403) || resent === MAX_AUTH_RESENDS) return response;
      let again: boolean;
      try {
        again = await auth.challenged(facts, response);
      } catch (error) {
        response.body?.cancel().catch(() => undefined);
        throw error instanceof AuthorizationError ? error : new AuthorizationError({ reason: 'authorization', message: error instanceof Error ? error.message : String(error), cause: error });
      }
      if (!again) return response;
      response.body?.cancel().catch(() => undefined);
      init.signal?.throwIfAborted();
    }
  };
}
