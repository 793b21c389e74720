import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { processRunning as alive } from '../../../../test/helpers/process.js';
import { nodeDoctorEnv } from './nodeEnv.js';

const env = nodeDoctorEnv();

describe('nodeDoctorEnv', () => {
  it('kill() ends the whole process group, a child that ignores SIGTERM included, and settles once it is gone', async () => {
    // The server starts a grandchild that ignores SIGTERM and stdin's end, prints its PID, and ignores SIGTERM itself.
    const script = [
      'const { spawn } = require("node:child_process");',
      'const g = spawn(process.execPath, ["-e", "process.on(\'SIGTERM\', () => {}); setInterval(() => {}, 1000)"], { stdio: "ignore" });',
      'process.on("SIGTERM", () => {});',
      'process.stdout.write(String(g.pid) + "\\n");',
      'setInterval(() => {}, 1000);',
    ].join('\n');
    const proc = env.spawn({ command: process.execPath, args: ['-e', script], env: { PATH: process.env.PATH ?? '' } });
    let out = '';
    for await (const chunk of proc.stdout) {
      out += new TextDecoder().decode(chunk);
      if (out.includes('\n')) break;
    }
    const grandchild = Number(out.trim());
    expect(alive(proc.pid!)).toBe(true);
    expect(alive(grandchild)).toBe(true);
    await proc.kill(200);
    expect(alive(proc.pid!)).toBe(false);
    expect(alive(grandchild)).toBe(false);
    expect(await proc.exited).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('kill(0) escalates a gentle kill under way: the group is SIGKILLed at once', async () => {
    const proc = env.spawn({ command: process.execPath, args: ['-e', 'process.on("SIGTERM", () => {}); process.stdout.write("ready\\n"); setInterval(() => {}, 1000)'], env: { PATH: process.env.PATH ?? '' } });
    for await (const _chunk of proc.stdout) break; // it runs
    const gentle = proc.kill(60_000);
    const started = performance.now();
    await proc.kill(0);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(alive(proc.pid!)).toBe(false);
    await gentle;
    expect(await proc.exited).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('kill() ends stdin and sends SIGTERM at once: a server that ignores SIGTERM but exits when its stdin ends is gone without waiting for the grace', async () => {
    const proc = env.spawn({ command: process.execPath, args: ['-e', 'process.on("SIGTERM", () => {}); process.stdin.resume(); process.stdin.on("end", () => process.exit(0)); process.stdout.write("ready\\n")'], env: { PATH: process.env.PATH ?? '' } });
    for await (const _chunk of proc.stdout) break; // it runs
    const started = performance.now();
    await proc.kill(30_000);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(await proc.exited).toEqual({ code: 0, signal: null });
  });

  it('a command that does not exist settles exited with ENOENT; write rejects once stdin is closed', async () => {
    const proc = env.spawn({ command: 'switchboard-no-such-command-xyz', args: [], env: { PATH: '/nonexistent' } });
    expect(await proc.exited).toEqual({ code: null, signal: null, error: { code: 'ENOENT', message: expect.stringContaining('ENOENT') } });
    await proc.kill();
    const cat = env.spawn({ command: process.execPath, args: ['-e', 'process.stdin.resume()'], env: {} });
    cat.endInput();
    await expect(cat.write(new TextEncoder().encode('x'))).rejects.toThrow('Cannot write to the server: its stdin is closed');
    await cat.kill();
  });

  it('sleep is abortable, with the signal\'s reason; isExecutable wants an executable regular file', async () => {
    const abort = new AbortController();
    const sleeping = env.sleep(60_000, abort.signal);
    abort.abort(new Error('stop'));
    await expect(sleeping).rejects.toThrow('stop');
    await expect(env.sleep(1)).resolves.toBeUndefined();
    const dir = await mkdtemp(path.join(tmpdir(), 'doctor-env-'));
    try {
      const file = path.join(dir, 'server');
      await writeFile(file, '#!/bin/sh\n');
      expect(await env.isExecutable(file)).toBe(false);
      await chmod(file, 0o755);
      expect(await env.isExecutable(file)).toBe(true);
      expect(await env.isExecutable(dir)).toBe(false);
      expect(await env.isExecutable(path.join(dir, 'missing'))).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
