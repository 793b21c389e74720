/**
 * Node's own hardening against prototype pollution, `--disable-proto=throw|delete`, leaves a server working: the
 * JSON-RPC classifier tests a message's prototype through `__proto__` only where that accessor is there (a fresh
 * reviewer found every message answered 500, or a stdio server dead on its first line, under `throw`).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SERVER = fileURLToPath(new URL('../bench/servers/switchboard.js', import.meta.url));
const LINES = [
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
  { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { __proto__: { cursor: 'x' } } },
].map((m) => JSON.stringify(m)).join('\n');

describe('node --disable-proto', () => {
  it.each(['throw', 'delete'])('--disable-proto=%s: a stdio server answers every request', (mode) => {
    const run = spawnSync(process.execPath, [`--disable-proto=${mode}`, SERVER, '--stdio'], { input: `${LINES}\n`, encoding: 'utf8', timeout: 20000 });
    const answers = run.stdout.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as { id: number; result?: unknown; error?: unknown });
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3]);
    expect(answers.find((a) => a.id === 2)).toMatchObject({ result: { content: [{ type: 'text', text: 'hi' }] } });
    for (const answer of answers) expect(answer.error, JSON.stringify(answer)).toBeUndefined();
  });
});
