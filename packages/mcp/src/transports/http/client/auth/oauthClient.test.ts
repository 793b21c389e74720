/**
 * The OAuth client's refresh and sign-in rules under every ordering fast-check can find. Requests (some needing a
 * scope the first sign-in does not ask for), `forget()`, `signIn()`, revoked tokens, and refreshes that succeed, are
 * refused, fail or never arrive are started in sequence, while the scheduler decides in which order every answer of
 * the authorization server and the protected server, and every user's sign-in, comes back. The two servers are the
 * few rules of RFC 6749 and RFC 6750 they need, answered in this process (the sockets add nothing to what is tested
 * here; test/oauth-client.test.ts and test/oauth-oidc-provider.test.ts run the same client over HTTP against real ones).
 * A command may also wait for everything started to end, or then restart (another process on the same store).
 *
 * What must hold in every ordering:
 * - every request ends, and it fails only when the world gave a reason during its life (a sign-in declined, a refresh
 *   that never arrived, a `forget()`, revoked tokens);
 * - one sign-in prompt at a time, and a refresh token is never presented again once the server rotated or refused it;
 * - a sign-in asks for `admin` only for a request that was refused for want of it and is still running, or when it
 *   widens what was asked since the last `forget()`;
 * - after `forget()` has returned, a request started later never carries a token saved before it, nor one refreshed
 *   from such a token.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AuthorizationError } from '../../../../protocol/clientErrors.js';
import type { FetchLike } from '../clientHttp.js';
import { authorizedFetch } from './authorizedFetch.js';
import { oauth } from './oauthClient.js';
import { InMemoryOAuthStore, type OAuthTokens } from './oauthStore.js';

const RESOURCE = 'https://mcp.example/mcp';
const PRM = 'https://mcp.example/.well-known/oauth-protected-resource/mcp';
const ISSUER = 'https://as.example';
const REDIRECT = 'http://127.0.0.1:1/callback';

type RefreshOutcome = 'ok' | 'refused' | 'failed' | 'unreached';

type Command =
  | { readonly kind: 'call'; readonly tool: 'plain' | 'admin' }
  | { readonly kind: 'forget' }
  | { readonly kind: 'signIn' }
  | { readonly kind: 'revoke' }
  | { readonly kind: 'settle' }
  | { readonly kind: 'restart' }
  | { readonly kind: 'refreshes'; readonly outcome: RefreshOutcome }
  | { readonly kind: 'signIns'; readonly declined: boolean }
  | { readonly kind: 'lifetime'; readonly seconds: 10 | 3600 };

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('plain' as const, 'admin' as const).map((tool) => ({ kind: 'call' as const, tool })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'forget' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'signIn' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'revoke' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'settle' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
  { weight: 2, arbitrary: fc.constantFrom<RefreshOutcome>('ok', 'refused', 'failed', 'unreached').map((outcome) => ({ kind: 'refreshes' as const, outcome })) },
  { weight: 1, arbitrary: fc.boolean().map((declined) => ({ kind: 'signIns' as const, declined })) },
  { weight: 1, arbitrary: fc.constantFrom(10 as const, 3600 as const).map((seconds) => ({ kind: 'lifetime' as const, seconds })) },
);

function json(status: number, value: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(value), { status, headers: { 'Content-Type': 'application/json', ...headers } });
}

function urlOf(input: string | URL | Request): URL {
  return new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
}

/** An authorization server and a protected server that record what the client did; `tick` orders their events. */
class World {
  tick = 0;
  refreshOutcome: RefreshOutcome = 'ok';
  declined = false;
  lifetime = 3600;
  readonly violations: string[] = [];
  /** Ticks at which something happened that may make a request fail. */
  readonly excuses: number[] = [];
  /** Access tokens and the scope each carries; revoked ones are removed. */
  readonly access = new Map<string, ReadonlySet<string>>();
  /** Refresh tokens: their scope, or why they can no longer be used. */
  readonly refresh = new Map<string, { readonly scope: string; readonly lineage: number; spent?: 'rotated' | 'refused' }>();
  readonly codes = new Map<string, string>();
  /** The sign-in each access token descends from (through refreshes), and those the client saved a token of. */
  readonly lineage = new Map<string, number>();
  readonly savedLineages = new Set<number>();
  /** Requests still running that the protected server refused for want of `admin`. */
  readonly wantAdmin = new Set<number>();
  /** The last `forget()` that returned: its tick, and the sign-ins saved before it started (now unusable). */
  lastForget: { end: number; killed: ReadonlySet<number> } | undefined;
  /** Whether `admin` was asked since the last `forget()` started (what a widening may carry on). */
  adminAskedSinceForget = false;
  /** Sign-in prompts open (shown, not yet answered). */
  prompts = 0;
  #serial = 0;

  #mint(scope: string, lineage = this.#serial + 1): Record<string, unknown> {
    const access = `at-${++this.#serial}`;
    const refresh = `rt-${this.#serial}`;
    this.access.set(access, new Set(scope.split(' ')));
    this.lineage.set(access, lineage);
    this.refresh.set(refresh, { scope, lineage });
    return { access_token: access, token_type: 'Bearer', expires_in: this.lifetime, refresh_token: refresh, scope };
  }

  /** The `fetch` both servers answer on (the client's own requests carry `x-call`, its number). */
  fetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
    try {
      return Promise.resolve(this.#answer(urlOf(input), init));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #answer(url: URL, init: RequestInit): Response {
    const body = typeof init.body === 'string' ? init.body : '';
    this.tick++;
    if (url.href === PRM) return json(200, { resource: RESOURCE, authorization_servers: [ISSUER], scopes_supported: ['base'] });
    if (url.href === `${ISSUER}/.well-known/oauth-authorization-server`) {
      return json(200, {
        issuer: ISSUER,
        authorization_endpoint: `${ISSUER}/authorize`,
        token_endpoint: `${ISSUER}/token`,
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        scopes_supported: ['base', 'admin', 'offline_access'],
      });
    }
    if (url.href === `${ISSUER}/token`) return this.#token(new URLSearchParams(body));
    if (url.href === RESOURCE) return this.#resource(new Headers(init.headers), body);
    return json(404, { error: 'not_found' });
  }

  #token(params: URLSearchParams): Response {
    if (params.get('resource') !== RESOURCE) this.violations.push(`a token request for the resource ${params.get('resource')}`);
    if (params.get('grant_type') === 'authorization_code') {
      const scope = this.codes.get(params.get('code') ?? '');
      this.codes.delete(params.get('code') ?? '');
      if (scope === undefined) {
        this.violations.push('an authorization code presented twice');
        return json(400, { error: 'invalid_grant' });
      }
      return json(200, this.#mint(scope));
    }
    const presented = params.get('refresh_token') ?? '';
    const grant = this.refresh.get(presented);
    if (grant === undefined) {
      this.violations.push(`an unknown refresh token ${presented}`);
      return json(400, { error: 'invalid_grant' });
    }
    if (grant.spent !== undefined) {
      this.violations.push(`the refresh token ${presented} presented after it was ${grant.spent}`);
      return json(400, { error: 'invalid_grant' });
    }
    switch (this.refreshOutcome) {
      case 'unreached':
        throw new TypeError('fetch failed');
      case 'failed':
        return json(503, { error: 'Service Unavailable' });
      case 'refused':
        grant.spent = 'refused';
        return json(400, { error: 'invalid_grant' });
      case 'ok':
        grant.spent = 'rotated';
        return json(200, this.#mint(grant.scope, grant.lineage));
    }
  }

  #resource(headers: Headers, body: string): Response {
    const call = Number(headers.get('x-call'));
    const token = /^Bearer (.+)$/.exec(headers.get('authorization') ?? '')?.[1];
    const forgotten = this.lastForget;
    if (token !== undefined && forgotten !== undefined && callStarts.get(call)! > forgotten.end && forgotten.killed.has(this.lineage.get(token) ?? -1)) {
      this.violations.push(`request ${call}, started after forget() returned, carried ${token}, of a sign-in saved before it`);
    }
    const scopes = token === undefined ? undefined : this.access.get(token);
    const challenge = `Bearer resource_metadata="${PRM}"`;
    if (scopes === undefined) return json(401, { error: 'invalid_token' }, { 'WWW-Authenticate': `${challenge}, scope="base"` });
    const needed = (JSON.parse(body) as { tool: string }).tool === 'admin' ? ['base', 'admin'] : ['base'];
    if (!needed.every((s) => scopes.has(s))) {
      if (needed.includes('admin')) this.wantAdmin.add(call);
      return json(403, { error: 'insufficient_scope' }, { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${needed.join(' ')}", resource_metadata="${PRM}"` });
    }
    return json(200, { ok: true });
  }

  /** The user at the sign-in page: approves (a code for the scope asked) or declines. */
  authorize(request: { authorizationUrl: URL }): Promise<string> {
    const params = request.authorizationUrl.searchParams;
    const scope = params.get('scope') ?? '';
    if (params.get('resource') !== RESOURCE) this.violations.push(`a sign-in for the resource ${params.get('resource')}`);
    if (scope.split(' ').includes('admin')) {
      if (this.wantAdmin.size === 0 && !this.adminAskedSinceForget) this.violations.push(`a sign-in asked "${scope}" with no request refused for want of admin since the last forget()`);
      this.adminAskedSinceForget = true;
    }
    const back = new URL(REDIRECT);
    back.searchParams.set('state', params.get('state') ?? '');
    back.searchParams.set('iss', ISSUER);
    if (this.declined) {
      back.searchParams.set('error', 'access_denied');
    } else {
      const code = `code-${++this.#serial}`;
      this.codes.set(code, scope);
      back.searchParams.set('code', code);
    }
    return Promise.resolve(back.href);
  }
}

/** When each request started (a tick of its world); read by the protected server. */
let callStarts = new Map<number, number>();

interface CallRecord {
  readonly id: number;
  readonly tool: string;
  readonly start: number;
  end?: number;
  outcome?: string;
}

async function run(commands: readonly Command[], s: fc.Scheduler): Promise<{ world: World; calls: CallRecord[]; unsettled: string[] }> {
  const world = new World();
  callStarts = new Map();
  const store = new (class extends InMemoryOAuthStore {
    override saveTokens(resource: string, tokens: OAuthTokens | undefined): void {
      if (tokens !== undefined) world.savedLineages.add(world.lineage.get(tokens.accessToken) ?? -1);
      super.saveTokens(resource, tokens);
    }
  })();
  // Scheduled as settled outcomes: a fetch that fails must not be a rejection the scheduler holds unhandled.
  const answer = s.scheduleFunction((input: string | URL | Request, init?: RequestInit) => world.fetch(input, init).then((response) => ({ response }), (error: unknown) => ({ error })));
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const outcome = await answer(input, init);
    // A failure is a reason for the requests running when it arrives (those that join the flow it ends included).
    if ('error' in outcome) {
      world.excuses.push(++world.tick);
      throw outcome.error;
    }
    return outcome.response;
  };
  const decide = s.scheduleFunction((request: { authorizationUrl: URL }) => world.authorize(request));
  const authorize = async (request: { authorizationUrl: URL }): Promise<string> => {
    if (++world.prompts > 1) world.violations.push('two sign-in prompts open at once');
    try {
      const redirect = await decide(request);
      if (new URL(redirect).searchParams.has('error')) world.excuses.push(++world.tick);
      return redirect;
    } finally {
      world.prompts--;
    }
  };
  const start = (): { auth: ReturnType<typeof oauth>; mcp: FetchLike } => {
    // A 30 s margin: the 10 s lifetimes are refreshed before every use (the default would wait 5 s).
    const auth = oauth({ fetch, authorize, store, redirectUri: REDIRECT, refreshMarginMs: 30_000, client: { clientId: 'client-1', tokenEndpointAuthMethod: 'none' } });
    return { auth, mcp: authorizedFetch(fetch, auth) };
  };
  let { auth, mcp } = start();
  const calls: CallRecord[] = [];
  const unsettled = new Map<string, Promise<unknown>>();
  const track = (label: string, work: Promise<unknown>): void => {
    unsettled.set(label, work);
    void work.finally(() => unsettled.delete(label));
  };
  let chain: Promise<unknown> = Promise.resolve();
  commands.forEach((c, index) => {
    chain = chain.then(() => s.schedule(Promise.resolve(), `command ${index}`)).then((): Promise<unknown> | undefined => {
      world.tick++;
      switch (c.kind) {
        case 'call': {
          const record: CallRecord = { id: index, tool: c.tool, start: world.tick };
          calls.push(record);
          callStarts.set(index, world.tick);
          track(`call ${index}`, mcp(RESOURCE, { method: 'POST', headers: { 'x-call': String(index) }, body: JSON.stringify({ tool: c.tool }) }).then(
            (response) => {
              record.outcome = response.status === 200 ? 'ok' : `HTTP ${response.status}`;
            },
            (error: unknown) => {
              record.outcome = error instanceof AuthorizationError ? `AuthorizationError ${error.reason}` : `thrown ${String(error)}`;
            },
          ).finally(() => {
            record.end = ++world.tick;
            world.wantAdmin.delete(index);
          }));
          break;
        }
        case 'forget': {
          const start = world.tick;
          const killed = new Set(world.savedLineages);
          world.excuses.push(start);
          world.adminAskedSinceForget = false;
          track(`forget ${index}`, auth.forget(RESOURCE).then(() => {
            world.lastForget = { end: ++world.tick, killed };
          }));
          break;
        }
        case 'signIn':
          track(`signIn ${index}`, auth.signIn(RESOURCE).catch(() => undefined));
          break;
        case 'settle':
        case 'restart': {
          // The next command waits until everything started so far has ended; a restart is then another process
          // on the same store (the tokens kept, nothing else).
          const ended = Promise.allSettled([...unsettled].filter(([label]) => label !== 'the commands').map(([, work]) => work));
          return c.kind === 'settle'
            ? ended
            : ended.then(() => {
                ({ auth, mcp } = start());
              });
        }
        case 'revoke':
          world.excuses.push(world.tick);
          world.access.clear();
          break;
        case 'refreshes':
          world.refreshOutcome = c.outcome;
          break;
        case 'signIns':
          world.declined = c.declined;
          break;
        case 'lifetime':
          world.lifetime = c.seconds;
          break;
      }
      return undefined;
    });
  });
  track('the commands', chain);
  // The scheduler releases answers one at a time; between them, what runs off the microtask queue (Web Crypto's PKCE
  // digest) is given turns of the event loop. Nothing scheduled and nothing ending for 2 s is a request that hangs (a
  // loaded machine takes over 100 ms for a digest at times).
  for (let idle = Date.now(); unsettled.size > 0 && Date.now() - idle < 2000; ) {
    if (s.count() > 0) {
      await s.waitNext(1);
      idle = Date.now();
    } else await new Promise((resolve) => setImmediate(resolve));
  }
  return { world, calls, unsettled: [...unsettled.keys()] };
}

describe('oauth(): refresh and sign-in in any order', () => {
  it('keeps its rules whatever order the answers, sign-ins and forget() come in', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 14 }), fc.scheduler(), async (commands, s) => {
        const { world, calls, unsettled } = await run(commands, s);
        expect(unsettled, 'everything started has ended').toEqual([]);
        expect(world.violations.join('; ')).toBe('');
        for (const call of calls) {
          if (call.outcome === 'ok') continue;
          const excused = world.excuses.some((tick) => tick >= call.start && tick <= (call.end ?? Infinity));
          expect(excused, `request ${call.id} (${call.tool}) ended "${call.outcome}" with no reason given during its life`).toBe(true);
        }
      }),
      // 2,000 orderings (about 4 s): the rarest of the faults this found took 650 on average to show.
      { numRuns: Number(process.env.OAUTH_PROPERTY_RUNS ?? 2000) },
    );
  }, 60_000);
});
