/**
 * The HTTP {@link ClientConnector}s an `McpClient` connects with: {@link streamableHttp} (with the 2024-11-05
 * HTTP+SSE transport of the same URL as its fallback) and {@link httpSse}.
 */
import type { ClientConnector, ClientConnectorOpenOptions, ClientTransport } from '../../../protocol/transport.js';
import { HttpSseClientTransport, type HttpSseClientOptions } from './httpSseClient.js';
import { StreamableHttpClientTransport } from './streamableHttpClient.js';
import type { StreamableHttpClientOptions } from './streamableHttpClientOptions.js';

/** The endpoint URL without query or fragment: the key of the cached era verdict. */
function verdictKeyOf(url: string | URL): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

function checkUrl(url: string | URL): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (cause) {
    throw new TypeError(`Invalid MCP server URL: "${String(url).slice(0, 200)}"`, { cause });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError(`Invalid MCP server URL: expected http: or https:, got "${parsed.protocol}"`);
}

async function started(transport: ClientTransport, signal: AbortSignal | undefined): Promise<ClientTransport> {
  if (signal === undefined) {
    await transport.start();
    return transport;
  }
  signal.throwIfAborted();
  const stop = (): void => void transport.close();
  signal.addEventListener('abort', stop, { once: true });
  try {
    await transport.start();
  } finally {
    signal.removeEventListener('abort', stop);
  }
  return transport;
}

/**
 * A connector to a Streamable HTTP endpoint: every `open` makes a fresh {@link StreamableHttpClientTransport}
 * (no request is sent until the client sends one); `openHttpSse` makes an {@link HttpSseClientTransport} for the
 * same URL, which the client tries when an `initialize` POST is refused the way a 2024-11-05 server refuses it.
 *
 * @param options - `url` (required), `fetch`, `headers`, `auth`, `requestInit`, `maxSseEventBytes`, `maxResponseBytes`,
 *   `reconnect`, `closeTimeoutMs`; see {@link StreamableHttpClientOptions}.
 * @returns A connector of kind `'streamable-http'`, `verdictKey` the URL without query or fragment.
 * @throws TypeError when `url` is not an `http:` or `https:` URL.
 * @see MCP 2025-11-25 basic/transports.mdx "Backwards Compatibility"
 * @example
 * const client = await McpClient.connect({ connector: streamableHttp({ url: 'http://127.0.0.1:3000/mcp' }) });
 */
export function streamableHttp(options: StreamableHttpClientOptions): ClientConnector {
  checkUrl(options.url);
  return {
    kind: 'streamable-http',
    verdictKey: verdictKeyOf(options.url),
    open: (open: ClientConnectorOpenOptions) => started(new StreamableHttpClientTransport({ ...options, logger: open.logger }), open.signal),
    openHttpSse: (open: ClientConnectorOpenOptions) =>
      started(
        new HttpSseClientTransport({
          url: options.url,
          ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
          ...(options.headers === undefined ? {} : { headers: options.headers }),
          ...(options.auth === undefined ? {} : { auth: options.auth }),
          ...(options.requestInit === undefined ? {} : { requestInit: options.requestInit }),
          ...(options.maxSseEventBytes === undefined ? {} : { maxSseEventBytes: options.maxSseEventBytes }),
          logger: open.logger,
        }),
        open.signal,
      ),
  };
}

/**
 * A connector to a 2024-11-05 HTTP+SSE server: every `open` GETs the SSE endpoint and resolves once its
 * `endpoint` event arrived.
 *
 * @param options - `url` (required), `fetch`, `headers`, `requestInit`, `maxSseEventBytes`, `endpointTimeoutMs`;
 *   see {@link HttpSseClientOptions}.
 * @returns A connector of kind `'http-sse'`, `verdictKey` the URL without query or fragment.
 * @throws TypeError when `url` is not an `http:` or `https:` URL.
 * @see MCP 2024-11-05 basic/transports.mdx "HTTP with SSE"
 * @example
 * const client = await McpClient.connect({ connector: httpSse({ url: 'http://127.0.0.1:3000/sse' }) });
 */
export function httpSse(options: HttpSseClientOptions): ClientConnector {
  checkUrl(options.url);
  return {
    kind: 'http-sse',
    verdictKey: verdictKeyOf(options.url),
    open: (open: ClientConnectorOpenOptions) => started(new HttpSseClientTransport({ ...options, logger: open.logger }), open.signal),
  };
}
