/**
 * One Streamable HTTP session's side of the cluster (see `clusterHub.ts`): the ids of the server→client requests it
 * sends are tagged with the instance id; a client's answer to another instance's request, and a client notification
 * naming a request not run here, are handed to the hub instead of (or as well as) this session. Reads no method name:
 * it routes by ids (JSON-RPC 2.0 §4 "id", §5 "Response object"), and a notification is recognised as naming a
 * request by its `params.requestId`.
 * Internal to the package (not a public entry).
 */
import type { Inbound, InboundSingle, JsonRpcId, JsonRpcMessage } from '@switchboard/jsonrpc';
import type { ClusterJsonRpcMessage, ClusterMessage } from '../../../../stores/clusterBus.js';
import { ClusterHub } from './clusterHub.js';

/** The most outbound request ids remembered as unanswered per session (a bound, far above any pending table). */
const MAX_OUTSTANDING = 4096;

function paramsOf(message: JsonRpcMessage): Record<string, unknown> | undefined {
  const params = (message as { params?: unknown }).params;
  return typeof params === 'object' && params !== null && !Array.isArray(params) ? (params as Record<string, unknown>) : undefined;
}

/** @internal See the module documentation. */
export class ClusterSession {
  readonly hub: ClusterHub;
  readonly #sessionId: string;
  /** Local ids of this instance's requests on the session that were sent and not answered (insertion order). */
  readonly #outstanding = new Set<number>();

  constructor(hub: ClusterHub, sessionId: string) {
    this.hub = hub;
    this.#sessionId = sessionId;
  }

  /**
   * The message as it goes on the wire: a request's numeric id tagged with the instance, and a notification naming
   * one of those requests (`params.requestId`: the server giving up on it) naming the tagged id.
   */
  outbound(message: JsonRpcMessage): JsonRpcMessage {
    if (!('method' in message)) return message;
    if ('id' in message) {
      const id = message.id;
      if (typeof id !== 'number') return message;
      if (this.#outstanding.size >= MAX_OUTSTANDING) this.#outstanding.delete(this.#outstanding.values().next().value as number);
      this.#outstanding.add(id);
      return { ...message, id: this.hub.tag(id) };
    }
    const params = paramsOf(message);
    const named = params?.requestId;
    if (params === undefined || typeof named !== 'number' || !this.#outstanding.delete(named)) return message;
    return { ...message, params: { ...params, requestId: this.hub.tag(named) } };
  }

  /**
   * What of `inbound` this instance's session handles: a response to another instance's request goes to that
   * instance (and is left out); a response to ours gets its local id back; a notification naming a request that
   * `runsHere` does not know is also sent to the other instances holding the session.
   * @returns The part to deliver here, or `undefined` when nothing is left.
   */
  inbound(inbound: Inbound, runsHere: (id: JsonRpcId) => boolean): Inbound | undefined {
    if (inbound.kind !== 'batch') return this.#single(inbound, runsHere);
    const items: InboundSingle[] = [];
    for (const item of inbound.items) {
      const kept = this.#single(item, runsHere);
      if (kept !== undefined) items.push(kept as InboundSingle);
    }
    if (items.length === 0) return undefined;
    return items.length === inbound.items.length && items.every((item, i) => item === inbound.items[i]) ? inbound : { ...inbound, items };
  }

  /** A message another instance received for this session, as this session's inbound (or `undefined`). */
  fromCluster(message: ClusterMessage): InboundSingle | undefined {
    if (message.type === 'client_response') {
      const local = this.#localResponse(message.message as unknown as JsonRpcMessage);
      return local === undefined ? undefined : ({ kind: 'response', message: local } as InboundSingle);
    }
    if (message.type === 'client_notification') return { kind: 'notification', message: message.message } as unknown as InboundSingle;
    return undefined;
  }

  #single(item: InboundSingle | Inbound, runsHere: (id: JsonRpcId) => boolean): Inbound | undefined {
    if (item.kind === 'response') {
      const id: unknown = item.message.id;
      const tagged = typeof id === 'string' ? ClusterHub.untag(id) : undefined;
      if (tagged === undefined) return item;
      if (tagged.instanceId !== this.hub.instanceId) {
        this.hub.forwardResponse(this.#sessionId, tagged.instanceId, item.message as unknown as ClusterJsonRpcMessage);
        return undefined;
      }
      const local = this.#localResponse(item.message);
      return local === undefined ? item : ({ ...item, message: local } as Inbound);
    }
    if (item.kind === 'notification') {
      const named = paramsOf(item.message)?.requestId;
      if ((typeof named === 'string' || typeof named === 'number') && !runsHere(named)) {
        this.hub.forwardNotification(this.#sessionId, item.message as unknown as ClusterJsonRpcMessage);
      }
    }
    return item;
  }

  /** A response to one of this instance's requests with its local (numeric) id; `undefined` when not ours. */
  #localResponse(message: JsonRpcMessage): JsonRpcMessage | undefined {
    const id = (message as { id?: unknown }).id;
    const tagged = typeof id === 'string' ? ClusterHub.untag(id) : undefined;
    if (tagged === undefined || tagged.instanceId !== this.hub.instanceId) return undefined;
    this.#outstanding.delete(tagged.n);
    return { ...message, id: tagged.n };
  }
}
