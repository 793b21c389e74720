import { describe, expect, it } from 'vitest';
import { authorizationServerMetadataUrls, bearerChallenge, canonicalResource, protectedResourceMetadataUrls, refusedHost } from './authProbe.js';

describe('bearerChallenge', () => {
  it('reads the Bearer parameters, quoted or not, among other challenges', () => {
    expect(bearerChallenge('Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp", scope="a b"')).toEqual({ resource_metadata: 'https://a.example/.well-known/oauth-protected-resource/mcp', scope: 'a b' });
    expect(bearerChallenge('Basic realm="x", bearer error=invalid_token, Scope="q\\"r"')).toEqual({ error: 'invalid_token', scope: 'q"r' });
    expect(bearerChallenge('Bearer realm="a", DPoP algs="ES256"')).toEqual({ realm: 'a' });
    expect(bearerChallenge('Bearer')).toEqual({});
  });
  it('no Bearer challenge: undefined', () => {
    expect(bearerChallenge(undefined)).toBeUndefined();
    expect(bearerChallenge('Basic realm="Bearer"')).toBeUndefined();
    expect(bearerChallenge('BearerToken x=1')).toBeUndefined();
  });
});

describe('the well-known URLs', () => {
  it('protected-resource metadata: path-inserted, then root (RFC 9728 §3.1)', () => {
    expect(protectedResourceMetadataUrls('https://a.example/tenant/mcp/?q=1')).toEqual({ pathInserted: 'https://a.example/.well-known/oauth-protected-resource/tenant/mcp', root: 'https://a.example/.well-known/oauth-protected-resource' });
    expect(protectedResourceMetadataUrls('https://a.example/')).toEqual({ root: 'https://a.example/.well-known/oauth-protected-resource' });
  });
  it('authorization-server metadata in the MCP order', () => {
    expect(authorizationServerMetadataUrls('https://as.example/tenant1')).toEqual(['https://as.example/.well-known/oauth-authorization-server/tenant1', 'https://as.example/.well-known/openid-configuration/tenant1', 'https://as.example/tenant1/.well-known/openid-configuration']);
    expect(authorizationServerMetadataUrls('https://as.example')).toEqual(['https://as.example/.well-known/oauth-authorization-server', 'https://as.example/.well-known/openid-configuration']);
  });
  it('canonical resource: case of scheme and host, no trailing slash on a path, no query', () => {
    expect(canonicalResource('HTTPS://A.Example/mcp/?x=1')).toBe('https://a.example/mcp');
    expect(canonicalResource('https://a.example')).toBe('https://a.example/');
  });
});

describe('refusedHost', () => {
  const target = 'http://127.0.0.1:4000/mcp';
  it('the host the user named, any scheme and port', () => {
    expect(refusedHost(target, 'http://127.0.0.1:5000/')).toBeUndefined();
  });
  it('another host over https that is not local', () => {
    expect(refusedHost(target, 'https://auth.example.com')).toBeUndefined();
    expect(refusedHost(target, 'http://auth.example.com')).toMatch(/not reached over https/);
  });
  it('never a local or private address of another host, nor a non-http URL', () => {
    for (const url of ['https://localhost/', 'https://10.0.0.2/', 'https://192.168.1.1/', 'https://172.16.0.1/', 'https://169.254.169.254/', 'https://[::1]/', 'https://[fd00::1]/', 'https://127.0.0.2/']) {
      expect(refusedHost(target, url), url).toMatch(/local or private/);
    }
    expect(refusedHost(target, 'file:///etc/passwd')).toMatch(/not an http/);
    expect(refusedHost(target, 'not a url')).toMatch(/not a URL/);
  });
});
