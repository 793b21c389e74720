import { describe, expect, it } from 'vitest';
import { breakingArguments } from './badArguments.js';
import { definedCodes, errorShapeProblems, reservedCodeProblem, stackFrameIn } from './errorRules.js';

describe('reserved codes per revision', () => {
  it('lists what each revision defines in the implementation-defined range', () => {
    expect(definedCodes('2024-11-05')).toEqual([-32002, -32020, -32021, -32022]);
    expect(definedCodes('2025-11-25')).toEqual([-32002, -32042, -32020, -32021, -32022]);
    expect(definedCodes('2026-07-28')).toEqual([-32020, -32021, -32022]);
  });

  it('flags a made-up code in -32020…-32099, and the retired codes at 2026-07-28 only', () => {
    expect(reservedCodeProblem(-32050, '2025-11-25')).toBe('-32050 is in the range MCP reserves (-32020…-32099) but 2025-11-25 does not define it (MCP defines -32002, -32042, -32020, -32021, -32022)');
    expect(reservedCodeProblem(-32042, '2025-06-18')).toMatch(/^-32042 is in the range MCP reserves/);
    expect(reservedCodeProblem(-32042, '2025-11-25')).toBeUndefined();
    expect(reservedCodeProblem(-32002, '2025-11-25')).toBeUndefined();
    expect(reservedCodeProblem(-32002, '2026-07-28')).toBe('-32002 is retired at 2026-07-28 (MCP defines -32020, -32021, -32022 there)');
    expect(reservedCodeProblem(-32042, '2026-07-28')).toMatch(/^-32042 is retired/);
    // The legacy sub-range stays implementation-defined, and the standard codes are not MCP's to reserve.
    expect(reservedCodeProblem(-32000, '2026-07-28')).toBeUndefined();
    expect(reservedCodeProblem(-32001, '2025-11-25')).toBeUndefined();
    expect(reservedCodeProblem(-32602, '2026-07-28')).toBeUndefined();
    expect(reservedCodeProblem(-32099, '2026-07-28')).toMatch(/^-32099 is in the range/);
    expect(reservedCodeProblem(-32100, '2026-07-28')).toBeUndefined();
  });
});

describe('error response shape', () => {
  it('accepts a well-formed error, and an HTTP refusal without id (B45)', () => {
    expect(errorShapeProblems({ jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found' } }, { id: 3, httpRefusal: false })).toEqual([]);
    expect(errorShapeProblems({ jsonrpc: '2.0', error: { code: -32020, message: 'Header mismatch' } }, { id: 3, httpRefusal: true })).toEqual([]);
    expect(errorShapeProblems({ jsonrpc: '2.0', id: null, error: { code: -32020, message: 'Header mismatch' } }, { id: 3, httpRefusal: true })).toEqual([]);
  });

  it('names each problem', () => {
    expect(errorShapeProblems({ jsonrpc: '2.0', id: null, error: { code: '-32601' }, result: {} }, { id: 3, httpRefusal: false })).toEqual([
      "id is null, not the request's 3",
      'code is "-32601", not an integer',
      'message is missing, not a string',
      'it has a result beside the error',
    ]);
    expect(errorShapeProblems({ jsonrpc: '2.0', id: 3, error: { code: -32601.5, message: 'x' } }, { id: 3, httpRefusal: false })).toEqual(['code is -32601.5, not an integer']);
    expect(errorShapeProblems({ jsonrpc: '2.0', id: 3, error: 'boom' }, { id: 3, httpRefusal: false })).toEqual(['error is not an object']);
  });
});

describe('stack traces', () => {
  it('finds a Node or Python frame in the message or data', () => {
    expect(stackFrameIn({ code: -32603, message: 'Internal error', data: { stack: 'Error: x\n    at readResource (/srv/app/src/resources.js:42:11)' } })).toBe('at readResource (/srv/app/src/resources.js:42:11)');
    expect(stackFrameIn({ code: -32603, message: 'TypeError: x\n    at file:///srv/app/main.mjs:3:9' })).toBe('at file:///srv/app/main.mjs:3:9');
    expect(stackFrameIn({ code: -32603, message: 'Traceback: File "/srv/app/server.py", line 12, in handler' })).toBe('File "/srv/app/server.py", line 12');
  });

  it('leaves ordinary messages alone', () => {
    expect(stackFrameIn({ code: -32603, message: 'Internal error' })).toBeUndefined();
    expect(stackFrameIn({ code: -32602, message: 'Resource not found: "file:///tmp/a.txt"', data: { uri: 'file:///tmp/a.txt' } })).toBeUndefined();
    expect(stackFrameIn({ code: -32603, message: 'Failed at 12:30 on http://example.com/x' })).toBeUndefined();
  });
});

describe('arguments that break an inputSchema', () => {
  it('leaves out the first required property', () => {
    expect(breakingArguments({ type: 'object', properties: { a: { type: 'number' } }, required: ['a'] }, { a: 1, b: 2 })).toEqual({ args: { b: 2 }, how: 'without the required property "a"' });
  });

  it('else gives a property the wrong type, else adds one the schema forbids', () => {
    expect(breakingArguments({ type: 'object', properties: { q: { type: 'string' } } }, {})).toEqual({ args: { q: 12345 }, how: 'with "q" of the wrong type (12345)' });
    expect(breakingArguments({ type: 'object', additionalProperties: false }, {})).toEqual({ args: { 'switchboard-doctor-unexpected': true }, how: 'with a property the schema forbids' });
  });

  it('gives up on a schema that accepts anything', () => {
    expect(breakingArguments({ type: 'object' }, {})).toBeUndefined();
    expect(breakingArguments(undefined, {})).toBeUndefined();
  });
});
