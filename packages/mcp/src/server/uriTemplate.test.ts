import { describe, expect, it } from 'vitest';
import { UriTemplate } from './uriTemplate.js';

describe('UriTemplate', () => {
  it('matches simple expressions and decodes values', () => {
    const t = new UriTemplate('test://template/{id}/data');
    expect(t.match('test://template/123/data')).toEqual({ id: '123' });
    expect(t.match('test://template/a%20b/data')).toEqual({ id: 'a b' });
    expect(t.match('test://template/1/2/data')).toBeUndefined();
    expect(t.match('test://other/1/data')).toBeUndefined();
  });

  it('matches reserved, path and query expressions', () => {
    expect(new UriTemplate('file:///{+path}').match('file:///a/b/c.txt')).toEqual({ path: 'a/b/c.txt' });
    expect(new UriTemplate('repo://x{/segments*}').match('repo://x/a/b')).toEqual({ segments: ['a', 'b'] });
    expect(new UriTemplate('search://q{?term,limit}').match('search://q?limit=5&term=cats')).toEqual({ term: 'cats', limit: '5' });
    expect(new UriTemplate('search://q{?term,limit}').match('search://q')).toEqual({});
  });

  it('treats regex metacharacters in the literal parts literally', () => {
    const t = new UriTemplate('x://a.b+c/{id}');
    expect(t.match('x://a.b+c/7')).toEqual({ id: '7' });
    expect(t.match('x://aXb+c/7')).toBeUndefined();
  });

  it('refuses malformed templates', () => {
    expect(() => new UriTemplate('x://{a')).toThrow(TypeError);
    expect(() => new UriTemplate('x://{}')).toThrow(TypeError);
  });

  it('variable names like __proto__ do not touch the prototype', () => {
    const m = new UriTemplate('x://{__proto__}').match('x://polluted');
    expect(m).toBeDefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
