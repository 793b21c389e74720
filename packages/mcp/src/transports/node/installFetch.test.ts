import { afterEach, describe, expect, it } from 'vitest';
import { defaultClientFetch, DIRECT_REQUEST, installDefaultClientFetch, type DirectRequest, type FetchLike } from '../http/client/clientHttp.js';
import { installNodeFetch } from './installFetch.js';
import type * as nodeFetchExports from './nodeFetch.js';

const before = defaultClientFetch();
afterEach(() => installDefaultClientFetch(before));

describe('installNodeFetch', () => {
  it('loads the Node fetch at the first request, once, and tries again after a failed load', async () => {
    let imports = 0;
    let fail = true;
    const answer = new Response('ok');
    const direct = (() => Promise.resolve({ status: 200, header: () => undefined, text: 'direct' })) as unknown as DirectRequest;
    const fake = Object.assign(() => Promise.resolve(answer), { [DIRECT_REQUEST]: direct });
    installNodeFetch(() => {
      imports += 1;
      return fail ? Promise.reject(new Error('cannot load')) : Promise.resolve({ nodeFetch: fake } as unknown as typeof nodeFetchExports);
    });
    expect(imports).toBe(0);
    const fetch = defaultClientFetch() as FetchLike & { [DIRECT_REQUEST]: DirectRequest };
    // Two requests waiting on the same failed load share its error.
    const failed = await Promise.allSettled([fetch('http://127.0.0.1:1/'), fetch[DIRECT_REQUEST](new URL('http://127.0.0.1:1/'), {} as never)]);
    expect(failed.map((r) => r.status === 'rejected' && (r.reason as Error).message)).toEqual(['cannot load', 'cannot load']);
    expect(imports).toBe(1);
    fail = false;
    expect(await fetch('http://127.0.0.1:1/')).toBe(answer);
    expect(await fetch[DIRECT_REQUEST](new URL('http://127.0.0.1:1/'), {} as never)).toMatchObject({ text: 'direct' });
    expect(await fetch('http://127.0.0.1:1/')).toBe(answer);
    expect(imports).toBe(2);
  });
});
