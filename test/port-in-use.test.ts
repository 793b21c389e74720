/**
 * A port already in use: `serveHttp` rejects with a typed AddressInUseError, and the example launcher prints one
 * line on stderr and exits 1 (no stack trace). The port is held by the test itself on 127.0.0.1.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '@switchboard/jsonrpc';
import { McpServer } from '@switchboard/mcp/server';
import { AddressInUseError, serveHttp } from '@switchboard/mcp/node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const LAUNCHER = fileURLToPath(new URL('../examples/conformance-server/main.js', import.meta.url));

describe('port already in use', () => {
  let holder: net.Server;
  let port: number;

  beforeEach(async () => {
    holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    port = (holder.address() as net.AddressInfo).port;
  });

  afterEach(async () => {
    await new Promise<void>((resolve) => holder.close(() => resolve()));
  });

  it('serveHttp rejects with AddressInUseError (port, host, stable code, the listen error as cause)', async () => {
    const server = new McpServer({ name: 'busy', version: '0' }, { logger: silentLogger });
    const failure: unknown = await serveHttp({ server, port, host: '127.0.0.1' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(AddressInUseError);
    const error = failure as AddressInUseError;
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('AddressInUseError');
    expect(error.message).toBe(`Port ${port} on 127.0.0.1 is in use`);
    expect(error.code).toBe('ADDRESS_IN_USE');
    expect(error.port).toBe(port);
    expect(error.host).toBe('127.0.0.1');
    expect((error.cause as NodeJS.ErrnoException).code).toBe('EADDRINUSE');
    // The port is still the holder's, and the failed call left no session or timer behind.
    expect(server.sessions.size).toBe(0);
  });

  it('the conformance launcher prints one line on stderr and exits 1', async () => {
    const child = spawn(process.execPath, [LAUNCHER, '--port', String(port), '--host', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    clearTimeout(timer);
    expect(code).toBe(1);
    expect(stderr).toBe(`conformance-server: port ${port} is in use; pass --port\n`);
    expect(stdout).toBe('');
  }, 20_000);
});
