/**
 * The README's library example is real code: extract it, run it over stdio as a child process, check the wire.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const README = fileURLToPath(new URL('../README.md', import.meta.url));
const OUT_DIR = fileURLToPath(new URL('./.generated/', import.meta.url));

describe('README example', () => {
  it('the "Using the library" snippet serves its tool over stdio as the README says', () => {
    const text = readFileSync(README, 'utf8');
    const section = text.slice(text.indexOf('## Using the library'));
    const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
    expect(code).toBeDefined();
    mkdirSync(OUT_DIR, { recursive: true });
    const file = `${OUT_DIR}readme-example.mjs`;
    writeFileSync(file, code!);
    const input = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'readme', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'forecast', arguments: { city: 'Atlantis' } } },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'forecast', arguments: { city: 'Oslo' }, _meta: { progressToken: 7 } } },
    ].map((m) => JSON.stringify(m) + '\n').join('');
    const run = spawnSync(process.execPath, [file, '--stdio'], { input, encoding: 'utf8', timeout: 10_000 });
    expect(run.status).toBe(0);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    // The initialize result comes first; the two calls run concurrently, so their messages may interleave.
    expect(lines).toHaveLength(4);
    expect(lines.slice(1)).toEqual(expect.arrayContaining([
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'No forecast for "Atlantis"' }], isError: true } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 7, progress: 0, total: 1 } },
      { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'Oslo: sunny' }] } },
    ]));
    expect(lines[0]).toEqual(
      { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25', capabilities: { logging: {}, tools: { listChanged: true } }, serverInfo: { name: 'weather', version: '1.0.0' } } },
    );
  });
});
