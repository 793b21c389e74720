/**
 * The doctor's auth findings (`http.auth-*`) against real protected servers on 127.0.0.1: a correct one (the
 * library's `auth` option with a jwtVerifier over a local JWKS, its authorization server's metadata beside it)
 * yields no auth finding but the registration information; `--foreign-token` (a token signed by the same key for
 * another resource) is refused by it and accepted by a server whose verifier skips the audience; every auth fixture
 * of the broken-servers gallery yields exactly its own auth finding; an unprotected server skips the auth checks.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, jwtVerify, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDoctor } from '../packages/cli/src/doctor/doctor.js';
import { nodeDoctorEnv } from '../packages/cli/src/doctor/nodeEnv.js';
import type { DoctorReport } from '../packages/cli/src/doctor/types.js';
import { REQUIREMENTS } from '../packages/cli/src/doctor/requirements/index.js';
import { McpServer } from '../packages/mcp/src/server/index.js';
import { createMcpHttpHandler, jwtVerifier, type TokenVerifier } from '../packages/mcp/src/transports/http/index.js';
import { toNodeListener } from '../packages/mcp/src/transports/node/index.js';
import { captureIo } from '../packages/cli/src/cliIo.js';
import { run } from '../packages/cli/src/run.js';
import { startBrokenServer } from './helpers/brokenServer.js';

const OTHER_RESOURCE = 'https://other.example.com/mcp';

interface Protected {
  readonly url: string;
  readonly origin: string;
  close(): Promise<void>;
}

let privateKey: CryptoKey;
let publicJwk: Record<string, unknown>;

/** A protected server and its authorization server's metadata and JWKS on one listener. */
async function serveProtected(verifierOf: (origin: string) => TokenVerifier): Promise<Protected> {
  let origin = '';
  const route: { listener?: http.RequestListener } = {};
  const httpServer = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', origin).pathname;
    const json = (value: unknown): void => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (path === '/.well-known/oauth-authorization-server') {
      return json({ issuer: origin, authorization_endpoint: `${origin}/authorize`, token_endpoint: `${origin}/token`, jwks_uri: `${origin}/jwks`, response_types_supported: ['code'], code_challenge_methods_supported: ['S256'], client_id_metadata_document_supported: true, registration_endpoint: `${origin}/register` });
    }
    if (path === '/jwks') return json({ keys: [publicJwk] });
    route.listener?.(req, res);
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  const server = new McpServer({ name: 'protected', version: '1.0.0' });
  server.tool('echo', { description: 'Echoes.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }) => ({ content: [{ type: 'text', text: String(text) }] }));
  const handler = createMcpHttpHandler({ server, auth: { authorizationServers: [origin], verifier: verifierOf(origin) } });
  route.listener = toNodeListener(handler);
  return {
    url: `${origin}/mcp`,
    origin,
    close: async () => {
      await handler.close();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

function diagnose(url: string, foreignToken?: string): Promise<DoctorReport> {
  return runDoctor({ target: { transport: 'http', url }, env: nodeDoctorEnv(), timeoutMs: 20_000, requestTimeoutMs: 3000, ...(foreignToken === undefined ? {} : { foreignToken }) });
}

function authFindings(report: DoctorReport): string[] {
  return report.findings.filter((f) => f.id.startsWith('http.auth-')).map((f) => `${f.severity} ${f.id}`);
}

function check(report: DoctorReport, id: string): string {
  const outcome = report.checks.find((c) => c.id === id);
  return `${outcome?.status ?? 'absent'}${outcome?.reason === undefined ? '' : `: ${outcome.reason}`}`;
}

let good: Protected;
/** Verifies the signature and issuer but never the audience (it claims this resource for any token). */
let audienceBlind: Protected;
let foreignToken: string;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  privateKey = pair.privateKey;
  publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  good = await serveProtected((origin) => jwtVerifier({ issuer: origin, jwksUrl: `${origin}/jwks` }));
  audienceBlind = await serveProtected((origin) => ({
    verify: async (token) => {
      try {
        const { payload } = await jwtVerify(token, pair.publicKey, { issuer: origin });
        return { token, clientId: typeof payload.client_id === 'string' ? payload.client_id : 'c', scopes: [], audience: [`${origin}/mcp`] };
      } catch {
        return { refused: 'the token is not valid' };
      }
    },
  }));
  foreignToken = await new SignJWT({ client_id: 'agent', scope: '' })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' })
    .setIssuer(good.origin)
    .setAudience(OTHER_RESOURCE)
    .setSubject('user-1')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(privateKey);
});

afterAll(async () => {
  await good?.close();
  await audienceBlind?.close();
});

describe('the doctor on a protected server', () => {
  it('a correct server: no auth finding but the registration information; the audience check says what it needs', async () => {
    const report = await diagnose(good.url);
    expect(authFindings(report)).toEqual(['info http.auth-server-registration']);
    expect(report.findings.find((f) => f.id === 'http.auth-server-registration')?.message).toMatch(/Client ID Metadata Documents and dynamic registration/);
    expect(report.findings.filter((f) => f.severity !== 'info')).toEqual([]);
    expect(check(report, 'http.auth')).toBe('passed');
    expect(check(report, 'http.auth-server')).toBe('passed');
    expect(check(report, 'http.auth-audience')).toMatch(/^skipped: .*--foreign-token/);
  });

  it('--foreign-token: refused by the correct server, reported on one that does not check the audience', async () => {
    const refused = await diagnose(good.url, foreignToken);
    expect(check(refused, 'http.auth-audience')).toBe('passed');
    expect(authFindings(refused)).toEqual(['info http.auth-server-registration']);
    // The audience-blind server's metadata names the other origin's issuer too: its tokens are signed by the same key.
    const accepted = await diagnose(audienceBlind.url, await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer(audienceBlind.origin).setAudience(OTHER_RESOURCE).setIssuedAt().setExpirationTime('5m').sign(privateKey));
    expect(authFindings(accepted)).toEqual(['error http.auth-other-audience-accepted', 'info http.auth-server-registration']);
    // The token shown in the evidence is cut: the report never carries a whole credential.
    expect(accepted.findings.find((f) => f.id === 'http.auth-other-audience-accepted')?.evidence.join('\n')).not.toMatch(/Bearer [\w-]+\.[\w-]+\.[\w-]+/);
  });
});

describe('switchboard doctor --foreign-token', () => {
  async function cli(argv: string[], env: Record<string, string> = {}): Promise<DoctorReport> {
    const io = captureIo({ env: { PATH: process.env.PATH, ...env } });
    await run(['doctor', '--json', '--request-timeout-ms', '3000', ...argv], io);
    return JSON.parse(io.out()) as DoctorReport;
  }
  const blindToken = (): Promise<string> => new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer(audienceBlind.origin).setAudience(OTHER_RESOURCE).setIssuedAt().setExpirationTime('5m').sign(privateKey);

  it('the option, else SWITCHBOARD_DOCTOR_FOREIGN_TOKEN, reaches the audience check', async () => {
    const token = await blindToken();
    expect(authFindings(await cli([audienceBlind.url, '--foreign-token', token]))).toContain('error http.auth-other-audience-accepted');
    expect(authFindings(await cli([audienceBlind.url], { SWITCHBOARD_DOCTOR_FOREIGN_TOKEN: token }))).toContain('error http.auth-other-audience-accepted');
    expect(check(await cli([audienceBlind.url]), 'http.auth-audience')).toMatch(/^skipped: .*--foreign-token/);
  });
});

describe('the auth fixtures of the broken-servers gallery', () => {
  const rows = REQUIREMENTS.filter((r) => r.id.startsWith('http.auth-') && r.fixture !== undefined);
  it('there is one per planted fault', () => {
    expect(rows.map((r) => r.fixture?.file).sort()).toEqual([
      'http-auth-challenge-no-resource-metadata',
      'http-auth-garbage-token-accepted',
      'http-auth-no-authorization-servers',
      'http-auth-no-challenge',
      'http-auth-no-metadata',
      'http-auth-root-metadata-only',
      'http-auth-server-metadata-missing',
      'http-auth-server-no-s256',
      'http-auth-wrong-resource',
    ]);
  });
  for (const rule of rows) {
    it(`${rule.fixture?.file ?? ''}: exactly ${rule.id} among the auth findings (besides the registration information)`, async () => {
      const server = await startBrokenServer({ file: rule.fixture?.file ?? '', transport: 'http' });
      try {
        const report = await diagnose(server.target.transport === 'http' ? server.target.url : '');
        expect(authFindings(report).filter((f) => f !== 'info http.auth-server-registration')).toEqual([`${rule.severity} ${rule.id}`]);
      } finally {
        await server.stop();
      }
    });
  }
  it('a server that asks for no credentials: the auth checks skip and find nothing', async () => {
    const server = await startBrokenServer({ file: 'lib/http-clean', transport: 'http' });
    try {
      const report = await diagnose(server.target.transport === 'http' ? server.target.url : '');
      expect(authFindings(report)).toEqual([]);
      expect([check(report, 'http.auth'), check(report, 'http.auth-audience'), check(report, 'http.auth-server')]).toEqual(Array(3).fill('skipped: the server asks for no credentials (a request without any was not answered 401)'));
    } finally {
      await server.stop();
    }
  });
});
