import { McpError } from '@switchboard/mcp';
import { HttpStatusError, RequestTimeoutError } from '@switchboard/mcp/client';
import { describe, expect, it } from 'vitest';
import { CliError, describeFailure, scopeLoginHint } from './errors.js';

describe('the hint after a 403 insufficient_scope: sign in again with the scopes of the challenge', () => {
  const challenge = { url: 'https://mcp.example.com/mcp', scope: 'notes:read notes:purge' };

  it('points the server error answer (-32000) and an HTTP 403 to switchboard login <url> --scope', () => {
    const expected = 'the server needs more scope (403 insufficient_scope): switchboard login https://mcp.example.com/mcp --scope "notes:read notes:purge", then run this again';
    expect(describeFailure(new McpError(-32000, 'Forbidden: insufficient scope'), { connecting: false, scopeChallenge: challenge }).hint).toBe(expected);
    expect(describeFailure(new HttpStatusError({ status: 403, body: '{}', what: 'POST' }), { connecting: false, scopeChallenge: challenge }).hint).toBe(expected);
  });

  it('without a challenge the hints are as before', () => {
    expect(describeFailure(new McpError(-32000, 'x'), { connecting: false }).hint).toBe('switchboard explain -32000');
    expect(describeFailure(new HttpStatusError({ status: 403, body: '', what: 'POST' }), { connecting: false }).hint).toContain('switchboard login <url>');
  });

  it('never puts what a shell would read into the hint: the server chose the scope and the URL may hold anything', () => {
    expect(scopeLoginHint({ url: challenge.url, scope: 'a $(touch /tmp/x)' })).toContain('--scope "<the scopes of its WWW-Authenticate challenge>"');
    expect(scopeLoginHint({ url: challenge.url, scope: 'a`id`' })).not.toContain('`');
    expect(scopeLoginHint({ url: 'https://h/mcp?a=1&b=2', scope: 'x' })).toContain('switchboard login <url> --scope "x"');
    expect(scopeLoginHint({ url: challenge.url, scope: 'https://graph.example.com/.default offline_access' })).toContain('--scope "https://graph.example.com/.default offline_access"');
  });
});

describe('a timeout\'s hint names the option the running command has', () => {
  const timedOut = new RequestTimeoutError({ method: 'initialize', timeoutMs: 300 });
  const spent = new CliError('command_timeout', 'The command did not finish within its budget of 300 ms (--timeout-ms)');

  it('--timeout-ms by default (list, call, read, doctor, install)', () => {
    expect(describeFailure(timedOut, { connecting: true }).hint).toBe('raise --timeout-ms, or see switchboard explain "Request timed out"');
    expect(describeFailure(spent, { connecting: true }).hint).toBe('raise --timeout-ms (the whole command\'s budget, in ms)');
  });

  it('--request-timeout-ms for bridge and dashboard', () => {
    expect(describeFailure(timedOut, { connecting: true, timeoutOption: '--request-timeout-ms' }).hint).toBe('raise --request-timeout-ms, or see switchboard explain "Request timed out"');
  });

  it('no option at all for a command without one (gateway)', () => {
    expect(describeFailure(timedOut, { connecting: true, timeoutOption: false }).hint).toBe('switchboard explain "Request timed out"');
    expect(describeFailure(spent, { connecting: true, timeoutOption: false }).hint).toBeUndefined();
  });
});
