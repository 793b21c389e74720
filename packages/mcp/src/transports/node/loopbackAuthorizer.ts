/**
 * The user-agent step of an OAuth sign-in for programs on Node (CLIs, desktop hosts): a one-shot HTTP listener on
 * 127.0.0.1 at a port the OS picks, which receives the one redirect of the authorization response (RFC 8252 §7.3,
 * loopback interface redirection), bounded in time; the authorization URL is opened by a callback (a browser) or
 * printed.
 *
 * @see RFC 8252 §7.3 "Loopback Interface Redirection"; §8.3 (loopback IP literal rather than `localhost`)
 */
import { checkMsOption } from '@switchboard/jsonrpc/internal';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthAuthorizer, OAuthAuthorizeRequest } from '../http/client/auth/oauthOptions.js';

/** Default of {@link LoopbackAuthorizerOptions.timeoutMs}: 5 minutes for a person to sign in. */
export const DEFAULT_LOOPBACK_TIMEOUT_MS = 5 * 60_000;

/** Options of {@link startLoopbackRedirect}. */
export interface LoopbackAuthorizerOptions {
  /**
   * Opens the authorization URL for the user (a browser, or printing it). Called once the listener is up.
   * @default none: the caller shows `authorizationUrl` itself
   */
  readonly open?: (authorizationUrl: URL) => void | Promise<void>;
  /** How long (ms) the listener waits for the redirect before the sign-in fails. @default 300_000 */
  readonly timeoutMs?: number;
  /** The path of the redirect URI. @default '/callback' */
  readonly path?: string;
  /** The port to listen on; 0 lets the OS pick one. @default 0 */
  readonly port?: number;
  /** The HTML page shown in the browser after the redirect arrived. @default a short "you can close this tab" page */
  readonly successPage?: string;
}

/** A listener waiting for one redirect, and the authorizer that uses it. */
export interface LoopbackRedirect {
  /** The redirect URI to register and send: `http://127.0.0.1:<port><path>`. */
  readonly redirectUri: string;
  /** The `authorize` callback of `oauth()`: opens the URL (per `open`) and resolves with the redirect it receives. */
  readonly authorize: OAuthAuthorizer;
  /** Stops listening (idempotent); a pending `authorize` fails. */
  close(): Promise<void>;
}

const DEFAULT_SUCCESS_PAGE = '<!doctype html><meta charset="utf-8"><title>Signed in</title><p>Signed in. You can close this tab.</p>';

/**
 * Starts a loopback listener for one OAuth redirect: on 127.0.0.1, at an OS-chosen port unless `port` is given. Each
 * `authorize` call waits for a request to the redirect path whose `state` is the one it sent (other requests get 404
 * and are ignored), answers it with `successPage`, and resolves the full redirect URL; it fails after `timeoutMs`.
 * The listener stays up for further sign-ins until {@link LoopbackRedirect.close}.
 *
 * @param options - See {@link LoopbackAuthorizerOptions}.
 * @returns The redirect URI and the `authorize` callback, to give to `oauth({ redirectUri, authorize })`.
 * @throws TypeError or RangeError when `timeoutMs` is not a number of ms above 0 and at most 2^31 − 1
 * @throws what `listen` throws (the port is taken)
 * @example
 * const loopback = await startLoopbackRedirect({ open: (url) => showToUser(`Sign in at ${url}`) });
 * const auth = oauth({ redirectUri: loopback.redirectUri, authorize: loopback.authorize });
 */
export async function startLoopbackRedirect(options: LoopbackAuthorizerOptions = {}): Promise<LoopbackRedirect> {
  const path = options.path ?? '/callback';
  const timeoutMs = checkMsOption('timeoutMs', options.timeoutMs ?? DEFAULT_LOOPBACK_TIMEOUT_MS, { above: 0 });
  const waiting = new Map<string, (url: URL) => void>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const resolve = url.pathname === path ? waiting.get(url.searchParams.get('state') ?? '') : undefined;
    if (req.method !== 'GET' || resolve === undefined) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not an expected sign-in redirect');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }).end(options.successPage ?? DEFAULT_SUCCESS_PAGE);
    resolve(new URL(`${redirectUri}${url.search}`));
  });
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const redirectUri = `http://127.0.0.1:${port}${path}`;
  let closed = false;
  const failures = new Set<(outcome: URL | Error) => void>();

  const authorize: OAuthAuthorizer = async (request: OAuthAuthorizeRequest) => {
    if (closed) throw new Error('the loopback redirect listener is closed');
    let finishThis: ((outcome: URL | Error) => void) | undefined;
    const answer = new Promise<URL>((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error(`no sign-in redirect arrived within ${timeoutMs} ms`)), timeoutMs);
      const finish = (outcome: URL | Error): void => {
        clearTimeout(timer);
        waiting.delete(request.state);
        failures.delete(finish);
        if (outcome instanceof URL) resolve(outcome);
        else reject(outcome);
      };
      waiting.set(request.state, finish);
      failures.add(finish);
      finishThis = finish;
    });
    try {
      await options.open?.(request.authorizationUrl);
    } catch (error) {
      finishThis?.(error instanceof Error ? error : new Error(String(error)));
    }
    return answer;
  };

  return {
    redirectUri,
    authorize,
    close: async () => {
      if (closed) return;
      closed = true;
      for (const fail of [...failures]) fail(new Error('the loopback redirect listener was closed'));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
