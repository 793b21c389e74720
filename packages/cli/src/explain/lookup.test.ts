import { McpErrorCode } from '@switchboard/mcp';
import { describe, expect, it } from 'vitest';
import { captureIo } from '../cliIo.js';
import { run } from '../run.js';
import { ALL } from './entry.js';
import { EXPLANATIONS, explain, explainCode, explainMessage, explainStatus } from './lookup.js';

describe('the explanation tables', () => {
  it('have an entry of their own for every code of McpErrorCode (a new code without one fails here)', () => {
    for (const [name, code] of Object.entries(McpErrorCode)) {
      const entry = explainCode(code);
      expect(entry?.id, name).toBe(`code:${code}`);
    }
  });

  it('explain a -32000…-32099 code that no revision defines with the reserved-range entry, and nothing outside', () => {
    for (const code of [-32003, -32019, -32023, -32099]) expect(explainCode(code)?.id).toBe('code:reserved');
    expect(explainCode(-32100)).toBeUndefined();
    expect(explainCode(-1)).toBeUndefined();
  });

  it('have an entry for each HTTP status a Streamable HTTP exchange answers with', () => {
    for (const status of [202, 400, 401, 403, 404, 405, 406, 409, 415]) expect(explainStatus(status)?.id).toBe(`status:${status}`);
    expect(explainStatus(200)).toBeUndefined();
  });

  it('give every entry a meaning per revision (known revisions only, each at most once), causes, fixes and a spec section', () => {
    const ids = new Set<string>();
    for (const entry of EXPLANATIONS) {
      expect(ids.has(entry.id), entry.id).toBe(false);
      ids.add(entry.id);
      const seen = entry.meanings.flatMap((meaning) => meaning.revisions);
      expect(new Set(seen).size, entry.id).toBe(seen.length);
      for (const revision of seen) expect(ALL, entry.id).toContain(revision);
      expect(entry.causes.length, entry.id).toBeGreaterThan(0);
      expect(entry.fixes.length, entry.id).toBeGreaterThan(0);
      for (const spec of entry.spec) expect(spec, entry.id).toMatch(/^(MCP \d{4}-\d\d-\d\d [a-z/._-]+\.(mdx|ts)( "[^"]+")?|JSON-RPC 2\.0 §5\.1 "Error object")$/);
    }
  });
});

describe('explain(query)', () => {
  it('reads a negative integer as a code and 100…599 as a status', () => {
    expect(explain('-32601')).toMatchObject({ read: 'code', entries: [{ id: 'code:-32601' }] });
    expect(explain(' 404 ')).toMatchObject({ read: 'status', entries: [{ id: 'status:404' }] });
    expect(explain('-7')).toEqual({ read: 'code', entries: [] });
  });

  it.each([
    ['MCP error -32000: Connection closed', ['code:-32000', 'message:connection-closed']],
    ['MCP error -32001: Request timed out', ['code:-32001', 'message:request-timed-out']],
    ['Request timed out', ['message:request-timed-out']],
    [`Unexpected token 'S', "Server started" is not valid JSON`, ['message:not-valid-json']],
    ['Bad Request: No valid session ID provided', ['message:session-not-found']],
    ['Error POSTing to endpoint (HTTP 404): Session not found', ['status:404', 'message:session-not-found']],
    ['spawn npx ENOENT', ['message:command-not-found']],
    ['TypeError: fetch failed (ECONNREFUSED)', ['message:connection-refused']],
    ['switchboard: Nothing listens at http://127.0.0.1:9/mcp (connection refused)', ['message:connection-refused']],
    ['RedirectRefusedError: redirect_refused: 307 to https://other.example/mcp', ['message:redirect-refused']],
    ['ResponseTooLargeError: Response too large: 70000000 bytes', ['message:response-too-large']],
    ['switchboard: The command did not finish within its budget of 3000 ms (--timeout-ms)', ['message:command-budget', 'message:request-timed-out']],
    ['Not Acceptable: Client must accept both application/json and text/event-stream', ['message:not-acceptable']],
  ])('a message: %s', (message, ids) => {
    expect(explainMessage(message).map((entry) => entry.id)).toEqual(ids);
  });
});

describe('switchboard explain', () => {
  it('prints the meaning per revision, the causes in order, the fixes and the spec', async () => {
    const io = captureIo();
    expect(await run(['explain', '-32002'], io)).toBe(0);
    expect(io.out()).toBe([
      'Resource not found',
      '  2024-11-05 … 2025-11-25: resources/read named a URI the server has no resource for; data.uri says which.',
      '  2026-07-28: Retired: 2026-07-28 answers a missing resource with -32602. Servers must not send -32002 in this era; clients should still accept it from older servers.',
      '  Likely causes, most likely first:',
      '    1. The URI is misspelled, or was listed earlier and is gone',
      '    2. A template was filled with a value the server does not know',
      '  Fixes:',
      '    1. List the resources again (switchboard list <target>) and read a URI from the list',
      "    2. Check the template's variables",
      '  Spec: MCP 2025-11-25 server/resources.mdx "Error Handling"; MCP 2026-07-28 server/resources.mdx "Error Handling"',
      '',
    ].join('\n'));
  });

  it('takes a message in several words, and --json gives the entries as data', async () => {
    const io = captureIo();
    expect(await run(['explain', 'MCP', 'error', '-32000:', 'Connection', 'closed', '--json'], io)).toBe(0);
    const answer = JSON.parse(io.out()) as { read: string; entries: { id: string; pattern?: string }[] };
    expect(answer.read).toBe('message');
    expect(answer.entries.map((entry) => entry.id)).toEqual(['code:-32000', 'message:connection-closed']);
    expect(typeof answer.entries[1]!.pattern).toBe('string');
  });

  it('says when it knows nothing, with exit code 1', async () => {
    const io = captureIo();
    expect(await run(['explain', '-42'], io)).toBe(1);
    expect(io.err()).toBe("switchboard: No explanation for the code -42: it is outside -32768…-32000, so it is the application's own (only the server's documentation says what it means)\n");
  });
});
