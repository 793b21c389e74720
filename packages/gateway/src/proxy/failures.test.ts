/**
 * Upstream failures as the front answers them (results.ts `failureForFront`): an upstream's -32603 text (or code 0's,
 * the Python SDK's crash answer) never reaches the front's clients; "resource not found" is answered with the code of the front client's revision
 * whatever the upstream's era; an upstream that stays silent past the client's timeout is said to have timed out.
 * Found by a fresh reviewer of the bridge (the first passed the upstream's -32603 text through, the second answered
 * a 2025 client -32602 for a 2026-only upstream's missing resource).
 */
import { describe, expect, it } from 'vitest';
import { McpError, McpErrorCode, ResourceNotFoundError } from '@switchboard/mcp';
import { McpServer } from '@switchboard/mcp/server';
import { connectRawClient, inMemoryConnector } from '@switchboard/mcp/testing';
import { createProxyServer } from '../index.js';

const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
type Answer = { readonly result?: any; readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown } } | undefined;

function upstream(revisions: string[]): McpServer {
  const server = new McpServer({ name: 'up', version: '1' }, { revisions: revisions as never, logger: silent });
  server.tool('boom', {}, () => {
    throw new McpError(McpErrorCode.InternalError, 'secret internal /etc/passwd stack');
  });
  // What a Python SDK server answers when a handler raises: code 0 and the exception's text.
  server.tool('raises', {}, () => {
    throw new McpError(0, "KeyError: 'DATABASE_URL' in /srv/app/settings.py");
  });
  server.tool('hang', {}, () => new Promise(() => {}));
  server.resourceTemplate('notes://{id}', { name: 'note' }, (uri) => {
    throw new ResourceNotFoundError(uri);
  });
  return server;
}

describe('upstream failures through the proxy', () => {
  it.each([
    ['a session-based upstream', ['2025-11-25']],
    ['a 2026-07-28-only upstream', ['2026-07-28']],
  ])('%s: -32603 without its text, and resource-not-found in the 2025-11-25 client\'s code (-32002)', async (_label, revisions) => {
    const front = await createProxyServer({ upstream: inMemoryConnector(upstream(revisions)), server: { logger: silent } });
    const client = await connectRawClient(front);
    try {
      await client.initialize();
      const boom = (await client.request(1, 'tools/call', { name: 'boom', arguments: {} })) as Answer;
      expect(boom?.error).toEqual({ code: -32603, message: 'Internal error' });
      const raises = (await client.request(4, 'tools/call', { name: 'raises', arguments: {} })) as Answer;
      expect(raises?.error).toEqual({ code: -32603, message: 'Internal error' });
      const read = (await client.request(2, 'resources/read', { uri: 'notes://nope' })) as Answer;
      expect(read?.error).toMatchObject({ code: -32002, data: { uri: 'notes://nope' } });
    } finally {
      await client.close();
      await front.close();
    }
  });

  it('an upstream request silent past the client timeout: the tool answers that it timed out', async () => {
    const front = await createProxyServer({ upstream: inMemoryConnector(upstream(['2025-11-25'])), server: { logger: silent }, client: { timeoutMs: 200 } });
    const client = await connectRawClient(front);
    try {
      await client.initialize();
      const hang = (await client.request(3, 'tools/call', { name: 'hang', arguments: {} })) as Answer;
      expect(hang?.result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'The upstream server did not answer in time' }] });
    } finally {
      await client.close();
      await front.close();
    }
  });
});
