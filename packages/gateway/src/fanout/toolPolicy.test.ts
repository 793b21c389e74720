import { describe, expect, it } from 'vitest';
import type { Tool } from '@switchboard/mcp';
import { CompiledToolPolicy } from './toolPolicy.js';

const tool = (name: string): Tool => ({ name, inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } });

describe('CompiledToolPolicy', () => {
  it('renames, hides fixed arguments from the listed schema, and filters with one rule', () => {
    const policy = new CompiledToolPolicy({ deny: ['trigger-*'], rename: { echo: 'say' }, fixedArguments: { 'get-sum': { b: 1 } } });
    const shown = policy.apply([tool('echo'), tool('get-sum'), tool('trigger-long-running-operation')]);
    expect(shown.map((s) => [s.upstreamName, s.name])).toEqual([['echo', 'say'], ['get-sum', 'get-sum']]);
    expect(shown[1]?.tool.inputSchema).toEqual({ type: 'object', properties: { a: { type: 'number' } }, required: ['a'] });
    expect(policy.visible('trigger-long-running-operation')).toBe(false);
  });

  it('names the rename and fixedArguments entries that match no listed tool (they would change nothing)', () => {
    const policy = new CompiledToolPolicy({ rename: { echo: 'say', longRunningOperation: 'slow' }, fixedArguments: { add: { b: 1 }, 'get-sum': { b: 1 } } });
    expect(policy.unmatched([tool('echo'), tool('get-sum')])).toEqual(['tools.rename["longRunningOperation"]', 'tools.fixedArguments["add"]']);
    expect(policy.unmatched([tool('echo'), tool('get-sum'), tool('longRunningOperation'), tool('add')])).toEqual([]);
  });
});
