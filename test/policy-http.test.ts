/**
 * Policy you can trust, over a real Streamable HTTP endpoint (`serveHttp` on 127.0.0.1, 2026-07-28 requests): the
 * tool is resolved from the body, and the `Mcp-Name` header must name the same tool (-32020, HTTP 400), so a
 * header naming a visible tool cannot carry a call of a hidden one; a hidden tool named in both answers exactly as
 * a tool the server never had; `tools/list` leaves it out. The server's visibility function decides; the header
 * check is the HTTP ladder's (transports/http/server/ladder/modernLadder.ts, rung 7).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp, type ServeHttpHandle } from '@switchboard/mcp/node';
import { McpServer } from '@switchboard/mcp/server';
import { modern, modernHeaders, post, silent, type Message } from './helpers/fieldBugsWire.js';

const calls: string[] = [];

function policyServer(withSecret: boolean): McpServer {
  const server = new McpServer({ name: 'policy', version: '1' }, { logger: silent, visibility: (item) => !item.name.startsWith('drop_') });
  server.tool('read_rows', {}, () => {
    calls.push('read_rows');
    return { content: [{ type: 'text', text: 'rows' }] };
  });
  const regionSchema = { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } } as const;
  if (withSecret) {
    server.tool('drop_tables', {}, () => {
      calls.push('drop_tables');
      return { content: [{ type: 'text', text: 'dropped' }] };
    });
    // Hidden too, and declares a header: a missing Mcp-Param-Region must not reveal that it exists.
    server.tool('drop_region', { inputSchema: regionSchema }, () => {
      calls.push('drop_region');
      return { content: [{ type: 'text', text: 'dropped' }] };
    });
  }
  return server;
}

let guarded: ServeHttpHandle;
let plain: ServeHttpHandle;
beforeAll(async () => {
  guarded = await serveHttp({ server: policyServer(true), host: '127.0.0.1', port: 0, responseMode: 'json' });
  plain = await serveHttp({ server: policyServer(false), host: '127.0.0.1', port: 0, responseMode: 'json' });
});
afterAll(async () => {
  await guarded.close();
  await plain.close();
});

const call = (id: number, name: string): Message => modern(id, 'tools/call', { name, arguments: {} });

describe('Mcp-Name against the body, with a hidden tool', () => {
  it('a header naming a visible tool over a body calling the hidden one is refused (-32020) and nothing runs', async () => {
    calls.length = 0;
    const body = call(1, 'drop_tables');
    const answer = await post(guarded.url, body, { ...modernHeaders(body), 'mcp-name': 'read_rows' });
    expect({ status: answer.status, body: answer.body }).toEqual({
      status: 400,
      body: { jsonrpc: '2.0', id: 1, error: { code: -32020, message: "Header mismatch: Mcp-Name header value 'read_rows' does not match the body's params.name 'drop_tables'" } },
    });
    // And the other way round: the body decides what would run, and a disagreement runs nothing.
    const visible = call(2, 'read_rows');
    const other = await post(guarded.url, visible, { ...modernHeaders(visible), 'mcp-name': 'drop_tables' });
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({ error: { code: -32020 } });
    expect(calls).toEqual([]);
  });

  it('the hidden tool named in both answers as a tool the server never had, and is not listed', async () => {
    calls.length = 0;
    const body = call(3, 'drop_tables');
    const hidden = await post(guarded.url, body, modernHeaders(body));
    const never = await post(plain.url, body, modernHeaders(body));
    expect({ status: hidden.status, body: hidden.body }).toEqual({ status: never.status, body: never.body });
    expect(hidden.body).toMatchObject({ error: { code: -32602, message: 'Invalid params: unknown tool "drop_tables"' } });
    const list = modern(4, 'tools/list');
    const listed = await post(guarded.url, list, modernHeaders(list));
    expect(listed.body).toMatchObject({ result: { tools: [{ name: 'read_rows' }], cacheScope: 'private' } });
    expect(calls).toEqual([]);
    // The visible tool is served when header and body agree.
    const ok = call(5, 'read_rows');
    expect((await post(guarded.url, ok, modernHeaders(ok))).body).toMatchObject({ result: { content: [{ type: 'text', text: 'rows' }] } });
    expect(calls).toEqual(['read_rows']);
  });

  it('a hidden tool that declares an x-mcp-header argument is not revealed by its headers (rung 10 asks with the caller)', async () => {
    calls.length = 0;
    const body = modern(6, 'tools/call', { name: 'drop_region', arguments: { region: 'eu' } });
    // No Mcp-Param-Region header: for a visible tool that is -32020; for a hidden one it must be the unknown-tool answer.
    const hidden = await post(guarded.url, body, modernHeaders(body));
    const never = await post(plain.url, body, modernHeaders(body));
    expect({ status: hidden.status, body: hidden.body }).toEqual({ status: never.status, body: never.body });
    expect(hidden.body).toMatchObject({ error: { code: -32602, message: 'Invalid params: unknown tool "drop_region"' } });
    expect(calls).toEqual([]);
  });
});
