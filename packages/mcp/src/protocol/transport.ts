/**
 * What an MCP server may tell the transport it runs on, beyond the JSON-RPC {@link Transport} contract. The
 * transport is told these facts; it never learns them by reading MCP messages itself.
 */
import type { JsonRpcId, Transport } from '@switchboard/jsonrpc';

/** A JSON-RPC transport an MCP connection runs on, with the optional hooks the MCP layer calls. */
export interface McpServerTransport extends Transport {
  /**
   * Called once the session's revision is negotiated (after the `initialize` result is produced, before it
   * is sent), so an HTTP transport can check `MCP-Protocol-Version` and pick revision-dependent framing
   * (MCP 2025-11-25 basic/transports.mdx "Protocol Version Header") without reading `initialize` results.
   */
  setProtocolVersion?(revision: string): void;
  /**
   * Called when the client cancelled one of its requests (`notifications/cancelled`) and the handler was
   * stopped: a transport with a stream per request (Streamable HTTP) may close that stream.
   */
  requestCancelled?(id: JsonRpcId): void;
}
