/**
 * The loopback preload (scripts/conformance-shim/loopback.cjs): a host-less `listen` binds 127.0.0.1, and
 * synchronously (the conformance suite reads `address().port` on the line after `listen(0)`); any call that names
 * a host is left alone. Checked in a child process started with `--require`, as the runner starts the suite.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exitWithin, stopByPid } from './helpers/process.js';

const PRELOAD = fileURLToPath(new URL('../scripts/conformance-shim/loopback.cjs', import.meta.url));

/** What the child prints: one JSON line per listen form, then it closes every server and exits. */
const PROGRAM = `
const http = require('node:http');
const net = require('node:net');
const out = {};
const servers = [];
const a = http.createServer(); servers.push(a);
out.portOnly = a.listen(0).address();
const b = net.createServer(); servers.push(b);
out.objectForm = b.listen({ port: 0 }).address();
const c = net.createServer(); servers.push(c);
out.noArgs = c.listen().address();
const d = net.createServer(); servers.push(d);
d.listen(0, '127.0.0.1');
out.withHostBeforeLookup = d.address();
const e = net.createServer(); servers.push(e);
const busy = out.portOnly.port;
e.on('error', (err) => { out.busyError = err.code; finish(); });
e.listen(busy);
let pending = 2;
const finish = () => { if (--pending > 0) return; for (const s of servers) s.close(); console.log(JSON.stringify(out)); };
b.once('listening', () => { out.listeningEvent = true; finish(); });
`;

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...args, '-e', PROGRAM], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8'); });
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
  return exitWithin(child, 10_000).then(
    (code) => ({ code, stdout, stderr }),
    (error: unknown) => { stopByPid(child); throw error; },
  );
}

describe('loopback preload', () => {
  it('binds host-less listen calls to 127.0.0.1 synchronously, leaves a named host alone, still reports EADDRINUSE', async () => {
    const { code, stdout, stderr } = await run(['--require', PRELOAD]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const out = JSON.parse(stdout) as Record<string, { address: string; family: string; port: number } | string | boolean | null>;
    for (const form of ['portOnly', 'objectForm', 'noArgs'] as const) {
      expect(out[form]).toMatchObject({ address: '127.0.0.1', family: 'IPv4' });
      expect((out[form] as { port: number }).port).toBeGreaterThan(0);
    }
    // A call with a host goes through Node's own path, which resolves the host first: no address yet.
    expect(out.withHostBeforeLookup).toBeNull();
    expect(out.listeningEvent).toBe(true);
    expect(out.busyError).toBe('EADDRINUSE');
  });
});
