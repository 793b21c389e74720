/**
 * The seam between a transport and its auth, on its own: which hook sees which answer, in what order, and that a
 * hook's failure costs nothing but itself.
 */
import { describe, expect, it } from 'vitest';
import { authorizedFetch, type AuthRequestFacts, type HttpClientAuth } from './authorizedFetch.js';

/** A `fetch` answering each request with the next status of `statuses` (the last one once they run out). */
function answering(statuses: readonly number[]): { fetch: (input: string | URL, init?: RequestInit) => Promise<Response>; sent: Headers[] } {
  const sent: Headers[] = [];
  let i = 0;
  return {
    sent,
    fetch: (_input, init) => {
      sent.push(new Headers(init?.headers));
      const status = statuses[Math.min(i++, statuses.length - 1)] as number;
      return Promise.resolve(new Response('body', { status }));
    },
  };
}

describe('authorizedFetch', () => {
  it('shows every answer to answered(), before challenged() for a 401 or 403, and resends when challenged() says so', async () => {
    const seen: string[] = [];
    let token = 'one';
    const auth: HttpClientAuth = {
      headers: () => Promise.resolve({ Authorization: `Bearer ${token}` }),
      answered: (request: AuthRequestFacts, response: Response) => void seen.push(`answered ${response.status} ${request.authorization ?? ''}`),
      challenged: (request, response) => {
        seen.push(`challenged ${response.status} resent=${request.resent}`);
        token = 'two';
        return Promise.resolve(true);
      },
    };
    const { fetch, sent } = answering([401, 200]);
    const response = await authorizedFetch(fetch, auth)('http://127.0.0.1:9/mcp', { method: 'POST', body: '{}' });
    expect(response.status).toBe(200);
    expect(seen).toEqual(['answered 401 Bearer one', 'challenged 401 resent=0', 'answered 200 Bearer two']);
    expect(sent.map((h) => h.get('authorization'))).toEqual(['Bearer one', 'Bearer two']);
  });

  it('an answered() that throws, or rejects, changes nothing: the answer is the caller\'s and nothing goes unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      for (const answered of [
        (): void => {
          throw new Error('the hook broke');
        },
        ((): Promise<void> => Promise.reject(new Error('the async hook broke'))) as unknown as HttpClientAuth['answered'],
      ]) {
        const auth: HttpClientAuth = { headers: () => Promise.resolve({}), ...(answered === undefined ? {} : { answered }), challenged: () => Promise.resolve(false) };
        const response = await authorizedFetch(answering([200]).fetch, auth)('http://127.0.0.1:9/mcp', { method: 'POST', body: '{}' });
        expect(await response.text()).toBe('body');
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
