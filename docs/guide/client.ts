// #region client
import { McpClient } from '@switchboard/mcp/client';
import { spawnStdio } from '@switchboard/mcp/stdio';

// Starts build/stdio.js as a host would, and speaks MCP to it. For a server at a URL, use
// streamableHttp({ url: 'http://127.0.0.1:3000/mcp' }) from '@switchboard/mcp/client' as the connector.
const client = await McpClient.connect({ connector: spawnStdio({ command: process.execPath, args: ['build/stdio.js'] }) });
console.log(`${client.serverInfo?.name} ${client.serverInfo?.version}, revision ${client.protocolVersion}`);

const { tools } = await client.listTools();
console.log(tools.map((tool) => tool.name).join(', '));

const result = await client.callTool({ name: 'current', arguments: { city: 'Lisbon' } });
console.log(result.structuredContent);
await client.close();
// #endregion
