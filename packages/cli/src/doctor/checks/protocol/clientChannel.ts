/**
 * A {@link RawChannel} over a connected `McpClient`, for a target the raw channels cannot reach (the 2024-11-05
 * HTTP+SSE transport): its answers carry the code, message and data of a wire error, but neither the id nor an HTTP
 * status.
 */
import { McpError } from '@switchboard/mcp';
import type { McpClient } from '@switchboard/mcp/client';
import type { RawAnswer, RawChannel } from '../eras/channel.js';

function cut(text: string, length = 400): string {
  return text.length > length ? `${text.slice(0, length)}…` : text;
}

/** The client's channel; closing it leaves the client to the doctor. */
export function clientChannel(client: McpClient): RawChannel {
  return {
    era: client.era,
    revision: client.protocolVersion,
    request: async (method, params): Promise<RawAnswer> => {
      const sent = cut(JSON.stringify({ method, params }));
      try {
        const result: unknown = await client.request(method, params === undefined ? undefined : { ...params });
        const response = { result };
        return { response, sent, seen: cut(JSON.stringify(response)) };
      } catch (error) {
        if (!(error instanceof McpError)) return { sent, seen: `(no answer: ${error instanceof Error ? error.message : String(error)})` };
        const response = { error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) } };
        return { response, sent, seen: cut(JSON.stringify(response)) };
      }
    },
    close: () => Promise.resolve(),
  };
}
