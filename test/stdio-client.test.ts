/**
 * McpClient over the stdio connector, built packages only: our own servers spawned as child processes in both eras,
 * and the typed errors of a server that cannot start or is killed under a call.
 */
import { fileURLToPath } from 'node:url';
import { silentLogger } from '@switchboard/jsonrpc';
import { ConnectionClosedError, McpClient, SpawnError, type ClientConnector } from '@switchboard/mcp/client';
import { spawnStdio, type StdioClientTransport } from '@switchboard/mcp/stdio';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const NODE = process.execPath;

const clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connect(args: string[], options: { reconnect?: false; era?: 'legacy' } = {}): Promise<McpClient> {
  const client = await McpClient.connect({ connector: spawnStdio({ command: NODE, args }), logger: silentLogger, ...options });
  clients.push(client);
  return client;
}

describe('McpClient.connect({ connector: spawnStdio(…) })', () => {
  it('the dual-era demo over stdio: modern at 2026-07-28 after the server/discover probe; lists and calls a tool', async () => {
    const client = await connect([`${ROOT}examples/demo/main.js`, '--stdio']);
    expect(client.transportKind).toBe('stdio');
    expect(client.era).toBe('modern');
    expect(client.protocolVersion).toBe('2026-07-28');
    const tools = await client.listAllTools();
    expect(tools.map((tool) => tool.name)).toContain('add_numbers');
    expect(await client.callTool({ name: 'add_numbers', arguments: { a: 2, b: 3 } })).toMatchObject({ content: [{ type: 'text', text: '5' }], structuredContent: { sum: 5 } });
  });

  it("era: 'legacy' with test/fixtures/stdio-server.mjs: an initialize session at 2025-11-25", async () => {
    const client = await connect([`${ROOT}test/fixtures/stdio-server.mjs`], { era: 'legacy' });
    expect(client.era).toBe('legacy');
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(client.serverInfo).toMatchObject({ name: 'stdio-fixture' });
    expect(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).toEqual({ content: [{ type: 'text', text: 'hi' }] });
  });

  it('a command that is not found is SpawnError not_found from connect', async () => {
    const failure = McpClient.connect({ connector: spawnStdio({ command: 'switchboard-no-such-server', env: { PATH: '/nonexistent' } }), logger: silentLogger });
    await expect(failure).rejects.toBeInstanceOf(SpawnError);
    await expect(failure).rejects.toMatchObject({ code: 'spawn_failed', failure: 'not_found', detail: 'looked up on PATH "/nonexistent"' });
  });

  it('a server that exits at once fails connect with its exit code and last stderr lines', async () => {
    const failure = McpClient.connect({ connector: spawnStdio({ command: NODE, args: [`${ROOT}test/fixtures/stdio-servers/exit-at-once.js`, '3', '2'] }), logger: silentLogger, reconnect: false });
    // The transport's endFacts is a SpawnError (failure 'exited'), and the client raises that very instance.
    await expect(failure).rejects.toBeInstanceOf(SpawnError);
    await expect(failure).rejects.toMatchObject({ code: 'spawn_failed', failure: 'exited', exitCode: 3, signal: null, stderrTail: ['startup error line 1', 'startup error line 2'] });
  });

  it('a server killed under a call: the call fails with ConnectionClosedError carrying the signal', async () => {
    // The connector, recording the transport it opens, to know the process to kill.
    const connector = spawnStdio({ command: NODE, args: [`${ROOT}test/fixtures/stdio-server.mjs`] });
    let transport: StdioClientTransport | undefined;
    const recording: ClientConnector = { ...connector, open: async (options) => (transport = (await connector.open(options)) as StdioClientTransport) };
    const client = await McpClient.connect({ connector: recording, logger: silentLogger, reconnect: false });
    clients.push(client);
    const call = client.callTool({ name: 'hang' });
    process.kill(transport!.pid, 'SIGKILL');
    await expect(call).rejects.toBeInstanceOf(ConnectionClosedError);
    await expect(call).rejects.toMatchObject({ code: 'connection_closed', signal: 'SIGKILL', reason: 'the server process exited' });
  });
});
