import { describe, expect, it } from 'vitest';
import { bearerChallengeOf, parseWwwAuthenticate, scopeList } from './challenge.js';
import { authorizationServerMetadataUrls, authorizationServerUrlProblem, canonicalResourceUri, protectedResourceMetadataUrls, readAuthorizationServerMetadata, readProtectedResourceMetadata, resourceCovers } from './metadata.js';

describe('parseWwwAuthenticate: the challenges of a WWW-Authenticate field (RFC 9110 §11.6.1)', () => {
  it('reads a Bearer challenge with quoted, unquoted and escaped parameters, names lower-cased', () => {
    expect(parseWwwAuthenticate('Bearer Resource_Metadata="https://a.example/.well-known/oauth-protected-resource/mcp", scope="mcp:basic mcp:read", error=insufficient_scope, error_description="say \\"hi\\""')).toEqual([
      {
        scheme: 'Bearer',
        params: { resource_metadata: 'https://a.example/.well-known/oauth-protected-resource/mcp', scope: 'mcp:basic mcp:read', error: 'insufficient_scope', error_description: 'say "hi"' },
      },
    ]);
  });

  it('reads several challenges, a token68 one among them, and tolerates spaces around "="', () => {
    expect(parseWwwAuthenticate('Basic dXNlcjpwYXNz==, DPoP algs="ES256", error = "use_dpop_nonce", Bearer realm="x"')).toEqual([
      { scheme: 'Basic', params: {} },
      { scheme: 'DPoP', params: { algs: 'ES256', error: 'use_dpop_nonce' } },
      { scheme: 'Bearer', params: { realm: 'x' } },
    ]);
  });

  it('returns what it read before a part it cannot read, and nothing for an empty or absent field', () => {
    expect(parseWwwAuthenticate(null)).toEqual([]);
    expect(parseWwwAuthenticate('')).toEqual([]);
    expect(parseWwwAuthenticate('Bearer scope="a" ;;;')).toEqual([{ scheme: 'Bearer', params: { scope: 'a' } }]);
    expect(parseWwwAuthenticate('Bearer scope="unterminated')).toEqual([{ scheme: 'Bearer', params: { scope: 'unterminated' } }]);
  });

  it('bearerChallengeOf prefers Bearer, then DPoP, and names the MCP fields', () => {
    const headers = new Headers({ 'WWW-Authenticate': 'DPoP error="use_dpop_nonce", Bearer scope="s1 s2", resource_metadata="https://r.example/prm"' });
    expect(bearerChallengeOf(headers)).toEqual({ scheme: 'Bearer', scope: 's1 s2', resourceMetadata: 'https://r.example/prm' });
    expect(bearerChallengeOf(new Headers({ 'WWW-Authenticate': 'DPoP resource_metadata="https://r.example/prm"' }))).toEqual({ scheme: 'DPoP', resourceMetadata: 'https://r.example/prm' });
    expect(bearerChallengeOf(new Headers({ 'WWW-Authenticate': 'Basic realm="x"' }))).toBeUndefined();
    expect(bearerChallengeOf(new Headers())).toBeUndefined();
  });

  it('scopeList splits on white space and drops duplicates', () => {
    expect(scopeList(' a  b a ')).toEqual(['a', 'b']);
    expect(scopeList(undefined)).toEqual([]);
  });
});

describe('well-known URLs in the order MCP gives', () => {
  it('protected resource metadata: path-inserted first, then the root; an endpoint at the root has one', () => {
    expect(protectedResourceMetadataUrls('https://h.example/public/mcp/').map(String)).toEqual([
      'https://h.example/.well-known/oauth-protected-resource/public/mcp',
      'https://h.example/.well-known/oauth-protected-resource',
    ]);
    expect(protectedResourceMetadataUrls('https://h.example/').map(String)).toEqual(['https://h.example/.well-known/oauth-protected-resource']);
  });

  it('authorization server metadata: OAuth then OpenID path-inserted, then OpenID appended; two forms without a path', () => {
    expect(authorizationServerMetadataUrls('https://as.example/tenant1').map((u) => [u.url.href, u.openid])).toEqual([
      ['https://as.example/.well-known/oauth-authorization-server/tenant1', false],
      ['https://as.example/.well-known/openid-configuration/tenant1', true],
      ['https://as.example/tenant1/.well-known/openid-configuration', true],
    ]);
    expect(authorizationServerMetadataUrls('https://as.example').map((u) => u.url.href)).toEqual([
      'https://as.example/.well-known/oauth-authorization-server',
      'https://as.example/.well-known/openid-configuration',
    ]);
  });
});

describe('the resource (RFC 8707, RFC 9728 §3.3)', () => {
  it('canonicalResourceUri lower-cases scheme and host, drops query, fragment and a trailing slash', () => {
    expect(canonicalResourceUri('HTTPS://MCP.Example.com:443/Mcp/?x=1#f')).toBe('https://mcp.example.com/Mcp');
    expect(canonicalResourceUri('http://127.0.0.1:3000/')).toBe('http://127.0.0.1:3000');
  });

  it('resourceCovers: same origin and the same path or a parent of it on a "/" boundary', () => {
    expect(resourceCovers('https://h.example/mcp', 'https://h.example/mcp')).toBe(true);
    expect(resourceCovers('https://h.example', 'https://h.example/mcp')).toBe(true);
    expect(resourceCovers('https://h.example/', 'https://h.example/mcp')).toBe(true);
    expect(resourceCovers('https://h.example/mc', 'https://h.example/mcp')).toBe(false);
    expect(resourceCovers('https://evil.example.com/mcp', 'https://h.example/mcp')).toBe(false);
    expect(resourceCovers('http://h.example/mcp', 'https://h.example/mcp')).toBe(false);
    expect(resourceCovers('https://h.example/mcp#x', 'https://h.example/mcp')).toBe(false);
    expect(resourceCovers('not a url', 'https://h.example/mcp')).toBe(false);
  });

  it('readProtectedResourceMetadata and readAuthorizationServerMetadata say what is wrong with a document', () => {
    expect(readProtectedResourceMetadata({ resource: 'https://h.example/mcp', authorization_servers: ['https://as.example'] })).toEqual({ resource: 'https://h.example/mcp', authorization_servers: ['https://as.example'] });
    expect(readProtectedResourceMetadata([])).toBe('the document is not a JSON object');
    expect(readProtectedResourceMetadata({ authorization_servers: [] })).toBe('the document has no "resource" string');
    expect(readProtectedResourceMetadata({ resource: 'x', scopes_supported: 'a b' })).toBe('"scopes_supported" is not an array of strings');
    expect(readAuthorizationServerMetadata({ issuer: 'https://as.example', token_endpoint: 5 })).toBe('"token_endpoint" is not a string');
    expect(readAuthorizationServerMetadata({ token_endpoint: 'x' })).toBe('the document has no "issuer" string');
  });
});

describe('authorizationServerUrlProblem: https, or http on loopback (MCP 2025-11-25 basic/authorization.mdx "Communication Security")', () => {
  it('takes https anywhere and http on localhost, 127.0.0.0/8 and [::1]', () => {
    for (const ok of ['https://as.example.com', 'https://as.example.com/tenant/x', 'http://localhost:9000', 'http://LOCALHOST/', 'http://127.0.0.1:8080/as', 'http://127.5.6.7', 'http://127.1/', 'http://[::1]:3000']) {
      expect(authorizationServerUrlProblem(ok), ok).toBeUndefined();
    }
  });

  it('refuses http on any other host, look-alike hosts, other schemes and what is not a URL', () => {
    for (const bad of ['http://as.example.com', 'http://10.0.0.1/as', 'http://127.0.0.1.nip.io/', 'http://localhost.example.com/', 'http://[::2]/', 'file:///etc/passwd', 'javascript:alert(1)//', 'ftp://as.example.com', 'not a url', '']) {
      expect(authorizationServerUrlProblem(bad), bad).toMatch(/MUST be https|not a URL/);
    }
  });
});
