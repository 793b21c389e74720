/**
 * startLoopbackRedirect (`@switchboard/mcp/node`): the one-shot OAuth redirect listener on 127.0.0.1 (RFC 8252 §7.3)
 * takes only the redirect that carries the `state` it waits for, gives up after its time bound, and fails a pending
 * sign-in when closed.
 */
import { startLoopbackRedirect } from '@switchboard/mcp/node';
import { describe, expect, it } from 'vitest';

const request = (state: string): Parameters<Awaited<ReturnType<typeof startLoopbackRedirect>>['authorize']>[0] => ({
  authorizationUrl: new URL('https://as.example/authorize'),
  redirectUri: '',
  state,
  resource: 'https://mcp.example/mcp',
});

describe('startLoopbackRedirect', () => {
  it('listens on 127.0.0.1 at an OS-picked port; answers 404 to a redirect with another state, resolves the right one', async () => {
    let opened: URL | undefined;
    const loopback = await startLoopbackRedirect({ open: (url) => void (opened = url) });
    try {
      expect(loopback.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      const pending = loopback.authorize(request('s1'));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(opened?.href).toBe('https://as.example/authorize');
      expect((await fetch(`${loopback.redirectUri}?code=c&state=other`)).status).toBe(404);
      expect((await fetch(`${loopback.redirectUri.replace('/callback', '/elsewhere')}?code=c&state=s1`)).status).toBe(404);
      const page = await fetch(`${loopback.redirectUri}?code=c1&state=s1&iss=https%3A%2F%2Fas.example`);
      expect(page.status).toBe(200);
      expect(page.headers.get('cache-control')).toBe('no-store');
      const url = new URL(String(await pending));
      expect(Object.fromEntries(url.searchParams)).toEqual({ code: 'c1', state: 's1', iss: 'https://as.example' });
      expect(`${url.origin}${url.pathname}`).toBe(loopback.redirectUri);
    } finally {
      await loopback.close();
    }
  });

  it('fails a sign-in whose redirect does not come within timeoutMs, and a pending one when closed', async () => {
    const loopback = await startLoopbackRedirect({ timeoutMs: 50 });
    await expect(loopback.authorize(request('late'))).rejects.toThrow(/no sign-in redirect arrived within 50 ms/);
    const slow = await startLoopbackRedirect({ timeoutMs: 60_000 });
    const pending = slow.authorize(request('never'));
    await slow.close();
    await expect(pending).rejects.toThrow(/closed/);
    await expect(slow.authorize(request('after'))).rejects.toThrow(/closed/);
    await loopback.close();
  });
});
