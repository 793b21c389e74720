import { describe, expect, it } from 'vitest';
import { MAX_TEMPLATE_URI_LENGTH, UriTemplate } from './uriTemplate.js';

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

  it('variable names like __proto__ are ordinary own keys of a prototype-less result', () => {
    const m = new UriTemplate('x://{__proto__}').match('x://polluted');
    // On a plain object, assigning a string to __proto__ would be ignored (no own key): this fails without Object.create(null).
    expect(m !== undefined && Object.hasOwn(m, '__proto__')).toBe(true);
    expect(m?.['__proto__']).toBe('polluted');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('splits an ambiguous URI by the documented rule: each variable takes the shortest value that lets the rest match', () => {
    expect(new UriTemplate('x://{a}-{b}').match('x://1-2-3')).toEqual({ a: '1', b: '2-3' });
    expect(new UriTemplate('x://{a}-b').match('x://x-b-b')).toEqual({ a: 'x-b' });
    expect(new UriTemplate('x://{+a}/{b}').match('x://p/q/r')).toEqual({ a: 'p/q', b: 'r' });
  });

  it('matches in linear time: near-miss URIs of 8 KiB against multi-variable templates finish (a backtracking regex took minutes)', () => {
    const near = `x://${'1-'.repeat(4090)}`; // never ends the way the template needs
    expect(new UriTemplate('x://{a}-{b}-{c}-{d}!').match(near)).toBeUndefined();
    expect(new UriTemplate('x://{+a}/{+b}/{+c}.json').match(`x://${'/'.repeat(8000)}`)).toBeUndefined();
    expect(new UriTemplate('x://{a}{.b}{.c}').match(`x://${'.'.repeat(8000)}/`)).toBeUndefined();
  });

  it('URIs longer than MAX_TEMPLATE_URI_LENGTH never match', () => {
    const t = new UriTemplate('x://{+rest}');
    expect(t.match(`x://${'a'.repeat(MAX_TEMPLATE_URI_LENGTH - 4)}`)).toBeDefined();
    expect(t.match(`x://${'a'.repeat(MAX_TEMPLATE_URI_LENGTH - 3)}`)).toBeUndefined();
  });
});
