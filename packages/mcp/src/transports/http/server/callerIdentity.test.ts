/**
 * The caller behind proxies: `trustProxy` compiled from lists, CIDR ranges and functions, and the caller read from
 * the right of `X-Forwarded-For` / RFC 7239 `Forwarded` (the first entry is the client's to forge).
 */
import { describe, expect, it } from 'vitest';
import { addressKey, callerAddress, callerKey, compileTrustProxy, exemptFromShare, forwardingChain } from './callerIdentity.js';
import type { CallerSource, TrustProxy } from './callerIdentity.js';
import { defaultCallerIdentity } from './handlerOptions.js';

function source(remoteAddress: string | undefined, headers: Record<string, string> = {}, authInfo?: unknown): CallerSource {
  return { remoteAddress, authInfo, header: (name) => headers[name] };
}

describe('compileTrustProxy', () => {
  it.each([
    [true, '127.0.0.1', true],
    [true, '127.9.9.9', true],
    [true, '::1', true],
    [true, '::ffff:127.0.0.1', true],
    [true, '10.0.0.1', false],
    [['10.0.0.0/8'], '10.200.3.4', true],
    [['10.0.0.0/8'], '11.0.0.1', false],
    [['192.0.2.7'], '192.0.2.7', true],
    [['192.0.2.7'], '192.0.2.8', false],
    [['fd00::/8'], 'fd12:3456::1', true],
    [['fd00::/8'], 'fe80::1', false],
    [['::ffff:10.0.0.0/104'], '10.1.2.3', true],
    [['loopback'], '::1', true],
    [['0.0.0.0/0'], '203.0.113.1', true],
    [['0.0.0.0/0'], '2001:db8::1', false],
    [['10.0.0.0/8'], 'not-an-ip', false],
  ] as const)('%o trusts %s: %s', (option, address, trusted) => {
    expect(compileTrustProxy(option as TrustProxy)?.(address, 0)).toBe(trusted);
  });

  it('false, undefined and an empty list trust nobody; a function is used as given', () => {
    expect(compileTrustProxy(false)).toBeUndefined();
    expect(compileTrustProxy(undefined)).toBeUndefined();
    expect(compileTrustProxy([])).toBeUndefined();
    const fn = (address: string): boolean => address === '192.0.2.1';
    expect(compileTrustProxy(fn)).toBe(fn);
  });

  it.each([
    [['10.0.0.0/33'], 'Invalid option trustProxy: "10.0.0.0/33" has an invalid prefix length'],
    [['proxy.local'], 'Invalid option trustProxy: "proxy.local" is not an IP address or CIDR range'],
    [['1.2.3'], 'Invalid option trustProxy: "1.2.3" is not an IP address or CIDR range'],
    [[7], 'Invalid option trustProxy: expected addresses or CIDR ranges as strings, got 7'],
    ['yes', 'Invalid option trustProxy: expected a boolean, an array of addresses or CIDR ranges, or a function, got "yes"'],
  ] as const)('refuses %o', (option, message) => {
    expect(() => compileTrustProxy(option as unknown as TrustProxy)).toThrow(new TypeError(message));
  });
});

describe('forwardingChain', () => {
  it('reads X-Forwarded-For left to right, ports and brackets removed', () => {
    expect(forwardingChain((name) => (name === 'x-forwarded-for' ? ' 203.0.113.5:1234 , [2001:db8::7]:80, ::ffff:10.0.0.1 ' : undefined)))
      .toEqual(['203.0.113.5', '2001:db8::7', '10.0.0.1']);
  });

  it('reads the for= nodes of RFC 7239 Forwarded when there is no X-Forwarded-For (quoted, with ports, unknown)', () => {
    const header = 'for=192.0.2.60;proto=http;by=203.0.113.43, for="[2001:db8:cafe::17]:4711", proto=https, For=unknown';
    expect(forwardingChain((name) => (name === 'forwarded' ? header : undefined))).toEqual(['192.0.2.60', '2001:db8:cafe::17', 'unknown', 'unknown']);
  });

  it('writes IPv6 nodes in their RFC 5952 form, keeps a comma inside a quoted Forwarded value, and cuts long names', () => {
    expect(forwardingChain((name) => (name === 'x-forwarded-for' ? '2001:DB8:0:0::1, 2001:db8:0000:0:0:0:0:1' : undefined))).toEqual(['2001:db8::1', '2001:db8::1']);
    // A quoted value is one value whatever it holds (RFC 7230 quoted-string): its comma splits nothing.
    const quoted = 'for="1.2.3.4, for=9.9.9.9"';
    expect(forwardingChain((name) => (name === 'forwarded' ? quoted : undefined))).toEqual(['1.2.3.4, for=9.9.9.9']);
    const junk = `_${'x'.repeat(5000)}`;
    expect(forwardingChain((name) => (name === 'x-forwarded-for' ? junk : undefined))[0]).toHaveLength(64);
  });

  it('uses X-Forwarded-For alone when both are present', () => {
    const headers: Record<string, string> = { 'x-forwarded-for': '198.51.100.1', forwarded: 'for=192.0.2.60' };
    expect(forwardingChain((name) => headers[name])).toEqual(['198.51.100.1']);
  });
});

describe('callerAddress', () => {
  const nginx = compileTrustProxy(['127.0.0.1']);
  const twoHops = compileTrustProxy(['127.0.0.1', '10.0.0.0/8']);

  it('without trustProxy the caller is the peer, whatever the headers say', () => {
    expect(callerAddress(source('198.51.100.9', { 'x-forwarded-for': '1.2.3.4' }), undefined)).toBe('198.51.100.9');
    expect(callerAddress(source('::ffff:198.51.100.9'), undefined)).toBe('198.51.100.9');
  });

  it('behind a trusted proxy the caller is the rightmost entry, never the forged first one', () => {
    expect(callerAddress(source('127.0.0.1', { 'x-forwarded-for': '6.6.6.6, 203.0.113.5' }), nginx)).toBe('203.0.113.5');
  });

  it('walks every trusted hop from the right and stops at the first untrusted one', () => {
    expect(callerAddress(source('127.0.0.1', { 'x-forwarded-for': '6.6.6.6, 198.51.100.7, 10.1.1.1' }), twoHops)).toBe('198.51.100.7');
  });

  it('a peer that is not a trusted proxy is the caller, with its forwarding headers ignored', () => {
    expect(callerAddress(source('203.0.113.5', { 'x-forwarded-for': '6.6.6.6' }), nginx)).toBe('203.0.113.5');
  });

  it('a trusted proxy that forwards nothing is the caller itself; every hop trusted gives the leftmost', () => {
    expect(callerAddress(source('127.0.0.1'), nginx)).toBe('127.0.0.1');
    expect(callerAddress(source('127.0.0.1', { 'x-forwarded-for': '10.0.0.5, 10.0.0.6' }), twoHops)).toBe('10.0.0.5');
  });

  it('the function form is asked with the hop number', () => {
    const hops: [string, number][] = [];
    const trust = compileTrustProxy((address, hop) => {
      hops.push([address, hop]);
      return hop < 2;
    });
    expect(callerAddress(source('192.0.2.1', { 'x-forwarded-for': 'a, 192.0.2.3, 192.0.2.2' }), trust)).toBe('192.0.2.3');
    expect(hops).toEqual([['192.0.2.1', 0], ['192.0.2.2', 1], ['192.0.2.3', 2]]);
  });

  it('a Web runtime that does not tell the peer counts it as the trusted proxy once one is configured', () => {
    expect(callerAddress(source(undefined, { 'x-forwarded-for': '6.6.6.6, 203.0.113.5' }), nginx)).toBe('203.0.113.5');
    expect(callerAddress(source(undefined, { 'x-forwarded-for': '203.0.113.5' }), undefined)).toBeUndefined();
  });
});

describe('callerKey and the loopback exemption', () => {
  const nginx = compileTrustProxy(['127.0.0.1']);

  it('the principal first, then the address after trustProxy', () => {
    expect(callerKey(source('127.0.0.1', {}, { clientId: 'app-1' }), nginx)).toBe('client:app-1');
    expect(callerKey(source('127.0.0.1', { 'x-forwarded-for': '203.0.113.5' }), nginx)).toBe('address:203.0.113.5');
    expect(callerKey(source(undefined), undefined)).toBeUndefined();
  });

  it('loopback is a free pass only while no proxy is trusted', () => {
    expect(exemptFromShare('address:127.0.0.1', undefined)).toBe(true);
    expect(exemptFromShare('address:::1', undefined)).toBe(true);
    expect(exemptFromShare('address:127.0.0.1', nginx)).toBe(false);
    expect(exemptFromShare('address:203.0.113.5', undefined)).toBe(false);
    expect(exemptFromShare('client:127.0.0.1', undefined)).toBe(false);
    const header = (): undefined => undefined;
    expect(defaultCallerIdentity({ authInfo: undefined, remoteAddress: '127.0.0.1', callerAddress: '127.0.0.1', header })).toBeUndefined();
    expect(defaultCallerIdentity({ authInfo: undefined, remoteAddress: '127.0.0.1', callerAddress: '127.0.0.1', trustsProxy: true, header })).toBe('address:127.0.0.1');
    expect(defaultCallerIdentity({ authInfo: undefined, remoteAddress: '127.0.0.1', callerAddress: '203.0.113.5', trustsProxy: true, header })).toBe('address:203.0.113.5');
  });
});

describe('addressKey', () => {
  it('keys IPv4 and loopback by the address, other IPv6 addresses by their /64 (one subscriber, one share)', () => {
    expect(addressKey('203.0.113.5')).toBe('address:203.0.113.5');
    expect(addressKey('::1')).toBe('address:::1');
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('address:2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2:ffff:ffff:ffff:fffe')).toBe(addressKey('2001:db8:1:2::9'));
    expect(addressKey('2001:db8:1:3::9')).not.toBe(addressKey('2001:db8:1:2::9'));
    expect(callerKey(source('2001:db8:0:0:0:0:0:7'), undefined)).toBe('address:2001:db8::/64');
  });
});
