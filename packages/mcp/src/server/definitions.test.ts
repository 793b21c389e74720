import { describe, expect, it } from 'vitest';
import { silentLogger, type Logger } from '@switchboard/jsonrpc';
import { McpServer } from './mcpServer.js';
import type { PromptHandler, ResourceHandler, ToolHandler } from './types.js';

/** A logger that keeps what it is given. */
function recordingLogger(): Logger & { readonly lines: string[] } {
  const lines: string[] = [];
  const keep = (level: string) => (message: string) => void lines.push(`${level}: ${message}`);
  return { lines, debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error') };
}

const ok: ToolHandler = () => ({ content: [] });
const server = (logger: Logger = silentLogger) => new McpServer({ name: 't', version: '1' }, { logger });
const refusal = (register: () => unknown): string => {
  try {
    register();
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return (error as Error).message;
  }
  throw new Error('the definition was accepted');
};

describe('tool names', () => {
  it('refuses names no revision accepts: empty, over 128 characters, whitespace or control characters', () => {
    const s = server();
    expect(refusal(() => s.tool('', {}, ok))).toBe('Invalid tool name: the name is empty: give the tool a name such as "get_weather"');
    expect(refusal(() => s.tool('a'.repeat(129), {}, ok))).toBe(`Invalid tool name: "${'a'.repeat(40)}..." has 129 characters: use at most 128`);
    expect(refusal(() => s.tool('get weather', {}, ok))).toBe('Invalid tool name: "get weather" contains whitespace or a control character: use "_", "-" or "." instead');
    expect(refusal(() => s.tool('tab\there', {}, ok))).toMatch(/contains whitespace or a control character/);
    expect(refusal(() => s.tool('bell\u0007', {}, ok))).toMatch(/contains whitespace or a control character/);
    expect(() => s.tool('a'.repeat(128), {}, ok)).not.toThrow();
  });

  it('warns, naming the rule, for a name outside the MCP naming rule, and stays silent for one inside it', () => {
    const logger = recordingLogger();
    const s = server(logger);
    s.tool('admin.tools_list-v2', {}, ok);
    expect(logger.lines).toEqual([]);
    s.tool('files/read', {}, ok);
    s.tool('météo', {}, ok);
    expect(logger.lines).toEqual([
      'warn: Tool name outside the MCP naming rule (MCP 2025-11-25 and 2026-07-28 server/tools.mdx "Tool Names": 1-128 characters of A-Z a-z 0-9 _ - .): "files/read"; some hosts refuse such tools',
      'warn: Tool name outside the MCP naming rule (MCP 2025-11-25 and 2026-07-28 server/tools.mdx "Tool Names": 1-128 characters of A-Z a-z 0-9 _ - .): "météo"; some hosts refuse such tools',
    ]);
  });
});

describe('handlers and definition objects', () => {
  it('refuses a missing or non-function handler for every kind of registration', () => {
    const s = server();
    const none = undefined as unknown as ToolHandler;
    expect(refusal(() => s.tool('t', {}, none))).toBe('Invalid tool definition: Tool "t" needs a handler function as its third argument, (args, ctx) => CallToolResult: got undefined');
    expect(refusal(() => s.resource('test://a', { name: 'a' }, 'text' as unknown as ResourceHandler))).toBe(
      'Invalid resource definition: Resource "test://a" needs a handler function as its third argument, (uri, ctx) => ReadResourceResult: got string',
    );
    expect(refusal(() => s.resourceTemplate('test://{id}', { name: 'a' }, null as never))).toMatch(/^Invalid resource template definition: Resource template "test:\/\/\{id\}" needs a handler function .*: got null$/);
    expect(refusal(() => s.prompt('p', {}, {} as unknown as PromptHandler))).toMatch(/^Invalid prompt definition: Prompt "p" needs a handler function .*: got object$/);
  });

  it('refuses the SDK v1 call shape tool(name, handler)', () => {
    expect(refusal(() => server().tool('t', ok as never, undefined as never))).toBe(
      'Invalid tool definition: Tool "t" needs a definition object as its second argument and the handler as its third: got a function',
    );
  });

  it('refuses completion values that are not functions', () => {
    const s = server();
    expect(refusal(() => s.prompt('p', { arguments: [{ name: 'a' }], complete: { a: ['x'] as never } }, () => ({ messages: [] })))).toBe(
      'Invalid prompt definition: completion "a" of Prompt "p" must be a function (value, context) => string[]: got object',
    );
  });
});

describe('prompt arguments', () => {
  const handler: PromptHandler = () => ({ messages: [] });
  it('refuses declarations without a string name, repeated names, and a non-boolean required', () => {
    const s = server();
    expect(refusal(() => s.prompt('p', { arguments: [{ description: 'x' } as never] }, handler))).toBe('Invalid prompt definition: argument 0 of Prompt "p" needs a non-empty string "name"');
    expect(refusal(() => s.prompt('p', { arguments: [{ name: 'a' }, { name: 'a' }] }, handler))).toBe(
      'Invalid prompt definition: Prompt "p" declares the argument "a" twice: give each argument its own name',
    );
    expect(refusal(() => s.prompt('p', { arguments: [{ name: 'a', required: 'yes' as never }] }, handler))).toBe(
      'Invalid prompt definition: "required" of argument "a" of Prompt "p" must be true or false: got "yes"',
    );
    expect(refusal(() => s.prompt('p', { arguments: { name: 'a' } as never }, handler))).toMatch(/"arguments" of Prompt "p" must be an array/);
    expect(() => s.prompt('p', { arguments: [{ name: 'a', required: true }, { name: 'b' }] }, handler)).not.toThrow();
  });
});

describe('resource URIs', () => {
  const read: ResourceHandler = (uri) => ({ contents: [{ uri, text: '' }] });
  it('refuses a resource URI that is not a URI, saying what to write', () => {
    const s = server();
    expect(refusal(() => s.resource('notes/today', { name: 'n' }, read))).toBe(
      'Invalid resource URI: "notes/today" has no scheme: write it as an absolute URI such as "file:///path" or "myapp://item/1"',
    );
    expect(refusal(() => s.resource('file:///my notes.txt', { name: 'n' }, read))).toBe(
      'Invalid resource URI: "file:///my notes.txt" contains " ", which a URI cannot hold: percent-encode it (%20)',
    );
    expect(refusal(() => s.resource('test://100%', { name: 'n' }, read))).toBe('Invalid resource URI: "test://100%" has a "%" not followed by two hex digits: write "%25" for a literal "%"');
    expect(refusal(() => s.resource('', { name: 'n' }, read))).toMatch(/has no scheme/);
    for (const uri of ['file:///a/b%20c.txt', 'urn:isbn:0451450523', 'test://static-text', 'https://example.com/a?b=c#d', 'mem://caf\u00e9']) {
      expect(() => s.resource(uri, { name: 'n' }, read), uri).not.toThrow();
    }
  });
});
