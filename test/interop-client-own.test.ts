/**
 * Our client against our own server (test/interop-servers/switchboard.mjs, the same fixture as the third-party
 * servers) in both eras, over stdio and Streamable HTTP: a dual-era server, where the client picks the modern era
 * (and, asked for `era: 'legacy'`, holds a session); a legacy-only server (`revisions: LEGACY_REVISIONS`), where the
 * `server/discover` probe is refused and the client falls back to `initialize`; and a modern-only server
 * (`revisions: MODERN_REVISIONS`). Last, a cached era verdict that stops holding when the server at a URL changes.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryEraVerdictStore, McpClient, streamableHttp } from '@switchboard/mcp/client';
import { SERVERS_DIR, capturingLogger, scratch, startHttpServer, type HttpServerProcess } from './interop-servers/harness.js';
import { describeInterop } from './interop-servers/scenarios.js';

const MODERN = { era: 'modern', revision: '2026-07-28', serverName: 'interop-switchboard', pages: true, inputs: true, cancelSeen: true } as const;
const LEGACY = { ...MODERN, era: 'legacy', revision: '2025-11-25' } as const;

for (const transport of ['stdio', 'http'] as const) {
  const over = transport === 'http' ? 'Streamable HTTP' : 'stdio';
  describeInterop({ title: `our dual-era server over ${over}`, script: 'switchboard.mjs', transport, expect: MODERN });
  describeInterop({ title: `our dual-era server over ${over}, client era legacy`, script: 'switchboard.mjs', transport, clientEra: 'legacy', expect: LEGACY });
  describeInterop({ title: `our legacy-only server over ${over}`, script: 'switchboard.mjs', args: ['--revisions', 'legacy'], transport, expect: LEGACY });
  describeInterop({ title: `our modern-only server over ${over}`, script: 'switchboard.mjs', args: ['--revisions', 'modern'], transport, expect: MODERN });
}

// One URL, two servers in turn: a dual-era server (the client learns "modern"), then a legacy-only one on the same
// port. The cached verdict fails the way a wrong verdict fails, so the client forgets it and negotiates again.
describe('a cached era verdict that no longer holds (our servers on one URL)', () => {
  const dir = scratch();
  const record = dir.record('server');
  const logger = capturingLogger();
  const verdicts = new InMemoryEraVerdictStore();
  let server: HttpServerProcess | undefined;
  const start = (revisions: string, port = 0) =>
    startHttpServer({ args: [path.join(SERVERS_DIR, 'switchboard.mjs'), '--port', String(port), '--revisions', revisions], env: { INTEROP_RECORD: record.file } });
  const connect = () => McpClient.connect({ connector: streamableHttp({ url: server!.url }), verdictStore: verdicts, logger, timeoutMs: 10_000 });

  afterAll(async () => {
    await server?.stop();
    dir.remove();
  });

  it('modern first; after the server is replaced by a legacy-only one, legacy, with the new verdict kept', async () => {
    server = await start('all');
    const first = await connect();
    expect([first.era, first.protocolVersion]).toEqual(['modern', '2026-07-28']);
    await first.close();
    const key = new URL(server.url).origin + new URL(server.url).pathname;
    expect(verdicts.get(key)).toMatchObject({ era: 'modern', revision: '2026-07-28', transport: 'streamable-http' });
    const port = server.port;
    await server.stop();
    server = await start('legacy', port);
    const second = await connect();
    try {
      expect([second.era, second.protocolVersion]).toEqual(['legacy', '2025-11-25']);
      expect((await second.callTool({ name: 'echo', arguments: { text: 'still here' } })).content).toEqual([{ type: 'text', text: 'still here' }]);
    } finally {
      await second.close();
    }
    expect(verdicts.get(key)).toMatchObject({ era: 'legacy', revision: '2025-11-25' });
    expect(logger.lines.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
    expect(logger.lines.filter((l) => l.level === 'info' && /verdict/i.test(l.message)).map((l) => l.fields)).toEqual([
      expect.objectContaining({ era: 'modern', revision: '2026-07-28' }),
    ]);
  });
});
