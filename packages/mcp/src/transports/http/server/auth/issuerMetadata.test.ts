/**
 * The JWK Set URL found from an issuer (`jwtVerifier({ issuer })` without `jwksUrl`), in process with an injected
 * `fetch`: the URLs in MCP's order, the fallback past a 404, the issuer rule (RFC 8414 §3.3). Against a real
 * authorization server (oidc-provider, OpenID Connect Discovery only): test/auth-oidc-provider.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { discoverJwksUri, issuerMetadataUrls } from './issuerMetadata.js';

function server(documents: Readonly<Record<string, unknown>>): { fetch: (url: string, init: RequestInit) => Promise<Response>; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    fetch: (url) => {
      asked.push(url);
      const doc = documents[url];
      return Promise.resolve(doc === undefined ? new Response('no', { status: 404 }) : new Response(JSON.stringify(doc), { status: 200 }));
    },
  };
}

describe('issuer metadata discovery', () => {
  it('tries the URLs in the order MCP gives (path-inserted OAuth, path-inserted OpenID, path-appended OpenID)', () => {
    expect(issuerMetadataUrls('https://as.example.com')).toEqual(['https://as.example.com/.well-known/oauth-authorization-server', 'https://as.example.com/.well-known/openid-configuration']);
    expect(issuerMetadataUrls('https://as.example.com/tenant1/')).toEqual([
      'https://as.example.com/.well-known/oauth-authorization-server/tenant1',
      'https://as.example.com/.well-known/openid-configuration/tenant1',
      'https://as.example.com/tenant1/.well-known/openid-configuration',
    ]);
  });

  it('falls back past a 404 to OpenID Connect Discovery and returns jwks_uri', async () => {
    const issuer = 'https://as.example.com/tenant1';
    const as = server({ 'https://as.example.com/tenant1/.well-known/openid-configuration': { issuer, jwks_uri: 'https://as.example.com/tenant1/jwks' } });
    expect(await discoverJwksUri(issuer, { fetch: as.fetch, timeoutMs: 1000 })).toBe('https://as.example.com/tenant1/jwks');
    expect(as.asked).toHaveLength(3);
  });

  it('refuses metadata naming another issuer, or without an http(s) jwks_uri, and says when none is found', async () => {
    const issuer = 'https://as.example.com';
    const other = server({ 'https://as.example.com/.well-known/oauth-authorization-server': { issuer: 'https://evil.example', jwks_uri: 'https://evil.example/jwks' } });
    await expect(discoverJwksUri(issuer, { fetch: other.fetch, timeoutMs: 1000 })).rejects.toThrow(/another issuer/);
    const noKeys = server({ 'https://as.example.com/.well-known/oauth-authorization-server': { issuer, jwks_uri: 'file:///etc/keys' } });
    await expect(discoverJwksUri(issuer, { fetch: noKeys.fetch, timeoutMs: 1000 })).rejects.toThrow(/no http\(s\) jwks_uri/);
    await expect(discoverJwksUri(issuer, { fetch: server({}).fetch, timeoutMs: 1000 })).rejects.toThrow(/no authorization server metadata found/);
  });
});
