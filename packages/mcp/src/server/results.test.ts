import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from '@switchboard/jsonrpc';
import { connectRawClient, type RawClient } from '../testing/index.js';
import { McpError, ResourceNotFoundError as RootResourceNotFoundError } from '../index.js';
import { McpServer } from './index.js';
import { ResourceNotFoundError } from '../index.js';
import { contentBlockProblem, resultChecksEnabled } from './results.js';
import type { McpServerOptions } from './options.js';

function recordingLogger(): Logger & { readonly lines: string[] } {
  const lines: string[] = [];
  const keep = (level: string) => (message: string) => void lines.push(`${level}: ${message}`);
  return { lines, debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error') };
}

const INTERNAL = { code: -32603, message: 'Internal error' };
const clients: RawClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

/** A server whose handlers return what the test asks for, through `value`. */
async function serve(value: () => unknown, options: McpServerOptions = {}) {
  const logger = recordingLogger();
  const server = new McpServer({ name: 't', version: '1' }, { logger, ...options });
  server.tool('t', {}, () => value() as never);
  server.tool('typed', { outputSchema: { type: 'object', properties: { n: { type: 'number' } } } }, () => value() as never);
  server.prompt('p', {}, () => value() as never);
  server.resource('test://r', { name: 'r' }, () => value() as never);
  server.resourceTemplate('test://items/{id}', { name: 'item' }, () => value() as never);
  const client = await connectRawClient(server);
  clients.push(client);
  await client.initialize();
  return { client, logger };
}

describe('result shapes on the wire', () => {
  it('a prompt handler returning a string is -32603 with no text, and one log line naming the prompt', async () => {
    const { client, logger } = await serve(() => 'Hello');
    expect(await client.request(1, 'prompts/get', { name: 'p' })).toEqual({ jsonrpc: '2.0', id: 1, error: INTERNAL });
    expect(logger.lines).toEqual(['error: Prompt "p" returned an invalid result: a value that is not a GetPromptResult (an object with a "messages" array): got a string']);
  });

  it('a prompt message with an unknown role or content type is refused', async () => {
    let value: unknown = { messages: [{ role: 'system', content: { type: 'text', text: 'x' } }] };
    const { client, logger } = await serve(() => value);
    expect(await client.request(1, 'prompts/get', { name: 'p' })).toEqual({ jsonrpc: '2.0', id: 1, error: INTERNAL });
    value = { messages: [{ role: 'user', content: { type: 'image', data: 'AAAA' } }] };
    expect(await client.request(2, 'prompts/get', { name: 'p' })).toEqual({ jsonrpc: '2.0', id: 2, error: INTERNAL });
    expect(logger.lines).toEqual([
      'error: Prompt "p" returned an invalid result: messages[0] has role "system": expected "user" or "assistant"',
      'error: Prompt "p" returned an invalid result: messages[0].content of type "image" needs a string "mimeType"',
    ]);
  });

  it('a tool content block with an unknown type is -32603 and logged with its index', async () => {
    const { client, logger } = await serve(() => ({ content: [{ type: 'text', text: 'ok' }, { type: 'img', data: 'AAAA' }] }));
    expect(await client.request(1, 'tools/call', { name: 't' })).toEqual({ jsonrpc: '2.0', id: 1, error: INTERNAL });
    expect(logger.lines).toEqual([
      'error: Tool "t" returned an invalid result: content[1] has an unknown type "img": expected "text", "image", "audio", "resource_link" or "resource"',
    ]);
  });

  it('a tool with an outputSchema whose success result has no structuredContent is -32603; an isError result needs none', async () => {
    let value: unknown = { content: [{ type: 'text', text: '{}' }] };
    const { client, logger } = await serve(() => value);
    expect(await client.request(1, 'tools/call', { name: 'typed' })).toEqual({ jsonrpc: '2.0', id: 1, error: INTERNAL });
    expect(logger.lines).toEqual(['error: Tool "typed" returned an invalid result: no "structuredContent", which its outputSchema requires on success']);
    value = { content: [{ type: 'text', text: 'failed' }], isError: true };
    expect(await client.request(2, 'tools/call', { name: 'typed' })).toEqual({ jsonrpc: '2.0', id: 2, result: value });
  });

  it('structuredContent that does not match the outputSchema is -32603, logged with its location under structuredContent', async () => {
    const { client, logger } = await serve(() => ({ content: [{ type: 'text', text: '{"n":"one"}' }], structuredContent: { n: 'one' } }));
    expect(await client.request(1, 'tools/call', { name: 'typed' })).toEqual({ jsonrpc: '2.0', id: 1, error: INTERNAL });
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toMatch(/^error: Tool "typed" returned structuredContent that does not match its outputSchema: structuredContent\/n: /);
  });

  it('resource contents without uri, or without text or blob, are -32603', async () => {
    let value: unknown = { contents: [{ text: 'x' }] };
    const { client, logger } = await serve(() => value);
    expect(await client.request(1, 'resources/read', { uri: 'test://r' })).toEqual({ jsonrpc: '2.0', id: 1, error: INTERNAL });
    value = { contents: [{ uri: 'test://items/1', mimeType: 'text/plain' }] };
    expect(await client.request(2, 'resources/read', { uri: 'test://items/1' })).toEqual({ jsonrpc: '2.0', id: 2, error: INTERNAL });
    expect(logger.lines).toEqual([
      'error: Resource handler for "test://r" returned an invalid result: contents[0] has no string "uri"',
      'error: Resource handler for "test://items/1" returned an invalid result: contents[0] has no string "text" or "blob" (uri "test://items/1")',
    ]);
  });

  it('valid results of every content type pass unchanged', async () => {
    const content = [
      { type: 'text', text: 't' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      { type: 'resource_link', uri: 'test://r', name: 'r' },
      { type: 'resource', resource: { uri: 'test://r', blob: 'AAAA' } },
    ];
    const { client, logger } = await serve(() => ({ content }));
    expect(await client.request(1, 'tools/call', { name: 't' })).toEqual({ jsonrpc: '2.0', id: 1, result: { content } });
    expect(logger.lines).toEqual([]);
  });

  it('checkResults: false skips the member checks (the outer shape is still checked)', async () => {
    let value: unknown = { content: [{ type: 'img' }] };
    const { client } = await serve(() => value, { checkResults: false });
    expect(await client.request(1, 'tools/call', { name: 't' })).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'img' }] } });
    value = 'not a result';
    expect(await client.request(2, 'prompts/get', { name: 'p' })).toEqual({ jsonrpc: '2.0', id: 2, error: INTERNAL });
  });
});

describe('resultChecksEnabled', () => {
  it('follows the option, else NODE_ENV', () => {
    const saved = process.env.NODE_ENV;
    try {
      process.env.NODE_ENV = 'production';
      expect([resultChecksEnabled(undefined), resultChecksEnabled(true)]).toEqual([false, true]);
      process.env.NODE_ENV = 'development';
      expect([resultChecksEnabled(undefined), resultChecksEnabled(false)]).toEqual([true, false]);
    } finally {
      process.env.NODE_ENV = saved;
    }
  });

  it('contentBlockProblem names the missing field per type', () => {
    expect(contentBlockProblem({ type: 'resource_link', uri: 'x' })).toBe('of type "resource_link" needs a string "name"');
    expect(contentBlockProblem({ type: 'resource', resource: { uri: 'x' } })).toBe('of type "resource" has a "resource" with no string "text" or "blob" (uri "x")');
    expect(contentBlockProblem({ text: 'no type' })).toBe('has an unknown type (none): expected "text", "image", "audio", "resource_link" or "resource"');
  });
});

describe('ResourceNotFoundError', () => {
  it('is exported from ./server and the root entry, with its uri', () => {
    expect(RootResourceNotFoundError).toBe(ResourceNotFoundError);
    const cause = new Error('row missing');
    const error = new ResourceNotFoundError('test://x', { cause });
    expect([error.name, error.message, error.uri, error.cause]).toEqual(['ResourceNotFoundError', 'Resource not found: "test://x"', 'test://x', cause]);
  });

  it('thrown by a resource or template handler, it is -32002 with data.uri; a plain Error stays -32603 with no text', async () => {
    let fail: () => never = () => {
      throw new ResourceNotFoundError('test://items/7');
    };
    const { client, logger } = await serve(() => fail());
    expect(await client.request(1, 'resources/read', { uri: 'test://items/7' })).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: -32002, message: 'Resource not found: "test://items/7"', data: { uri: 'test://items/7' } },
    });
    expect(await client.request(2, 'resources/read', { uri: 'test://r' })).toMatchObject({ error: { code: -32002, data: { uri: 'test://items/7' } } });
    fail = () => {
      throw new Error('secret connection string');
    };
    expect(await client.request(3, 'resources/read', { uri: 'test://r' })).toEqual({ jsonrpc: '2.0', id: 3, error: INTERNAL });
    // An McpError thrown by hand (the older idiom) still reaches the wire as given.
    fail = () => {
      throw new McpError(-32002, 'Resource not found: "test://r"', { uri: 'test://r' });
    };
    expect(await client.request(4, 'resources/read', { uri: 'test://r' })).toMatchObject({ error: { code: -32002, data: { uri: 'test://r' } } });
    // An unknown URI keeps -32002.
    expect(await client.request(5, 'resources/read', { uri: 'test://zzz' })).toEqual({
      jsonrpc: '2.0', id: 5, error: { code: -32002, message: 'Resource not found: "test://zzz"', data: { uri: 'test://zzz' } },
    });
    expect(logger.lines.filter((l) => l.includes('secret'))).toEqual([]);
  });
});
