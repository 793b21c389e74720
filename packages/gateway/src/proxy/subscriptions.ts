/**
 * The upstream resource subscriptions held for the front's subscribers, reference-counted by URI: the first front
 * subscriber of a URI subscribes upstream, the last to leave unsubscribes. A session-era upstream gets
 * `resources/subscribe` / `resources/unsubscribe` (MCP 2025-11-25 server/resources.mdx "Subscriptions"); a
 * 2026-07-28 upstream gets one `subscriptions/listen` per URI (MCP 2026-07-28 basic/patterns/subscriptions.mdx),
 * closed with the last subscriber. Upstream `notifications/resources/updated` are published on the front's bus,
 * which sends each to the front subscribers of its URI (legacy sessions and listen streams alike).
 */
import type { Logger } from '@switchboard/jsonrpc';
import type { ListenSubscription, McpClient } from '@switchboard/mcp/client';

/** Reference-counted upstream subscriptions; see the module comment. */
export class UpstreamSubscriptions {
  readonly #client: McpClient;
  readonly #max: number;
  readonly #logger: Logger;
  readonly #counts = new Map<string, { count: number; listen: Promise<ListenSubscription | undefined> | undefined }>();

  constructor(init: { readonly client: McpClient; readonly max: number; readonly logger: Logger }) {
    this.#client = init.client;
    this.#max = init.max;
    this.#logger = init.logger;
  }

  /** URIs subscribed upstream now. */
  get size(): number {
    return this.#counts.size;
  }

  /** One more front subscriber of `uri`. */
  acquire(uri: string): void {
    const held = this.#counts.get(uri);
    if (held !== undefined) {
      held.count += 1;
      return;
    }
    if (this.#counts.size >= this.#max) {
      this.#logger.warn('Proxy: the upstream subscription budget is spent; this URI is not subscribed upstream', { max: this.#max, uri: uri.slice(0, 200) });
      return;
    }
    const client = this.#client;
    let listen: Promise<ListenSubscription | undefined> | undefined;
    if (client.era === 'modern') {
      listen = client.listen({ resourceSubscriptions: [uri] }).catch((error: unknown) => {
        this.#logger.warn('Proxy: an upstream listen for a resource failed', { error });
        return undefined;
      });
    } else {
      client.subscribeResource(uri).catch((error: unknown) => this.#logger.warn('Proxy: an upstream resources/subscribe failed', { error }));
    }
    this.#counts.set(uri, { count: 1, listen });
  }

  /** One front subscriber of `uri` fewer. */
  release(uri: string): void {
    const held = this.#counts.get(uri);
    if (held === undefined) return;
    held.count -= 1;
    if (held.count > 0) return;
    this.#counts.delete(uri);
    if (held.listen !== undefined) void held.listen.then((listen) => listen?.close());
    else if (!this.#client.closed) this.#client.unsubscribeResource(uri).catch((error: unknown) => this.#logger.debug('Proxy: an upstream resources/unsubscribe failed', { error }));
  }
}
