/**
 * The cluster bus: how the instances serving one set of sessions (several processes behind a load balancer with no
 * sticky sessions, sharing one {@link SessionStore}) hand each other what arrived on the wrong instance. A client
 * may send any request of a session to any instance; what must reach a particular instance travels here:
 * - the client's answer to a server→client request (`sampling/createMessage`, `elicitation/create`, `roots/list`)
 *   goes to the instance whose request it answers (channel {@link instanceChannel});
 * - a cancellation, a server→client request that needs the session's GET stream, a change of the session's state
 *   (log level, subscriptions, `notifications/initialized`), new events of a response stream the client resumed
 *   elsewhere, and the end of the session go to every instance that holds the session (channel {@link sessionChannel}).
 *
 * The {@link NotificationBus} stays what it is (server events: list changes, resource updates, tasks); this bus
 * carries per-session and per-instance traffic only. The in-memory default ({@link InMemoryClusterBus}) links
 * instances in one process (tests, several handlers in one server); a shared implementation (Redis pub/sub, NATS)
 * links processes.
 *
 * @see MCP 2025-11-25 basic/transports.mdx "Session Management", "Multiple Connections"; basic/utilities/cancellation.mdx
 */

import type { SessionStateJson } from './sessionStore.js';

/** A JSON-RPC message as plain JSON (what the bus carries, never a live object). */
export type ClusterJsonRpcMessage = Readonly<Record<string, unknown>> & { readonly jsonrpc: '2.0' };

/**
 * One message on the cluster bus. Plain JSON, so any bus can carry it (`JSON.stringify` round trip); `from` is the
 * publishing instance's id, so an instance can ignore its own messages on a channel it also listens to.
 * - `client_response`: the client answered (on another instance) a server→client request this instance sent;
 *   `message` is the JSON-RPC response, its `id` as the client wrote it (the instance-tagged id);
 * - `client_notification`: a notification of the client that names a request (`params.requestId`, i.e.
 *   `notifications/cancelled`) the receiving instance did not hold; every instance holding the session delivers it
 *   to its copy of the session, and the one running that request stops it;
 * - `server_request`: a server→client request (no related client request, e.g. `roots/list` from a session) raised
 *   on an instance that does not hold the client's GET stream; the instance that holds it writes `message` there;
 * - `state`: the session's state changed (see {@link SessionRecord.state}); every other instance holding the
 *   session applies it;
 * - `closed`: the session ended (DELETE, idle timeout): every instance closes its copy;
 * - `stream_events`: events of response stream `streamId` were stored (in the shared event store) while the client
 *   was not connected to it on the publishing instance; `done` once the stream is complete. An instance serving the
 *   client's resumed stream (`GET` + `Last-Event-ID`) reads the store after the last event it sent. Only a hint:
 *   a lost one delays those events until that instance's next periodic read.
 */
export type ClusterMessage =
  | { readonly type: 'client_response'; readonly from: string; readonly sessionId: string; readonly message: ClusterJsonRpcMessage }
  | { readonly type: 'client_notification'; readonly from: string; readonly sessionId: string; readonly message: ClusterJsonRpcMessage }
  | { readonly type: 'server_request'; readonly from: string; readonly sessionId: string; readonly message: ClusterJsonRpcMessage }
  | { readonly type: 'state'; readonly from: string; readonly sessionId: string; readonly state: SessionStateJson }
  | { readonly type: 'closed'; readonly from: string; readonly sessionId: string }
  | { readonly type: 'stream_events'; readonly from: string; readonly sessionId: string; readonly streamId: string; readonly done: boolean };

/**
 * A message about a task, between the instance that received a request for it and the instance running it (channel
 * {@link taskChannel} of the receiving end):
 * - `task_input`: a 2026-07-28 `tasks/update` landed on instance `from`, but the task runs on the instance whose
 *   channel this is; `responses` are its `inputResponses` (already checked against the task's input requests);
 * - `task_input_result`: the answer to the `task_input` of the same `replyId`: `running` tells whether the task ran
 *   there (and so took the responses).
 */
export type ClusterTaskMessage =
  | { readonly type: 'task_input'; readonly from: string; readonly replyId: string; readonly taskId: string; readonly responses: Readonly<Record<string, unknown>> }
  | { readonly type: 'task_input_result'; readonly from: string; readonly replyId: string; readonly running: boolean };

/**
 * An application's own message to its other instances, on a channel of its own ({@link appChannel}): e.g. "tool X
 * was added", so that every instance changes its registry alike (a registry is per process). `data` is plain JSON.
 */
export interface ClusterAppMessage {
  readonly type: 'app';
  /** The publishing instance (any id the application gives itself). */
  readonly from: string;
  readonly data: unknown;
}

/** Anything a {@link ClusterBus} carries: session traffic, task traffic, application messages. */
export type ClusterBusMessage = ClusterMessage | ClusterTaskMessage | ClusterAppMessage;

/**
 * Receives the messages of one channel; may return a promise of its handling (awaited by nothing but errors are
 * caught). `M` is what the channel carries: {@link ClusterMessage} on the instance and session channels,
 * {@link ClusterTaskMessage} on a task channel, {@link ClusterAppMessage} on an application channel.
 */
export type ClusterListener<M extends ClusterBusMessage = ClusterMessage> = (message: M) => void | Promise<void>;

/**
 * Carries {@link ClusterMessage}s between instances, by channel (a string: {@link instanceChannel},
 * {@link sessionChannel}).
 *
 * Contract (what the conformance checks hold every implementation to):
 * - at most once: a message published on a channel reaches each listener subscribed to that channel *when it was
 *   published* at most once, on every instance; a listener added later never sees it (no replay);
 * - order: messages one instance publishes on one channel reach each listener in publish order;
 * - isolation: a listener that throws or rejects does not stop delivery to the others, and `publish` never rejects
 *   for a listener's failure (only for the bus's own failure, e.g. a lost connection);
 * - plain JSON: a listener receives an equal copy (`JSON.stringify` round trip), never the publisher's object;
 * - unsubscribing (the function `subscribe` returned) is idempotent and stops delivery at once; a channel with no
 *   listener left costs nothing.
 * Nothing is stored: an instance that is down misses what was published meanwhile (its pending requests died with
 * it; the session's state is in the {@link SessionStore}).
 */
export interface ClusterBus {
  /**
   * Delivers `message` to every listener of `channel` on every instance. Resolves once handed to the bus (and, in
   * memory, to each local listener).
   * @throws whatever the bus's transport throws (rejection), never a listener's error
   */
  publish(channel: string, message: ClusterBusMessage): Promise<void>;
  /**
   * Adds a listener of `channel`; returns the function that removes it (idempotent). `M`: what the channel carries
   * (see {@link ClusterListener}); the bus does not check it.
   */
  subscribe<M extends ClusterBusMessage = ClusterMessage>(channel: string, listener: ClusterListener<M>): () => void;
}

/** The channel of one instance: the answers to the server→client requests it sent. */
export function instanceChannel(instanceId: string): string {
  return `instance:${instanceId}`;
}

/** The channel of one session: what every instance holding the session must hear. */
export function sessionChannel(sessionId: string): string {
  return `session:${sessionId}`;
}

/** The channel of the tasks one instance runs: the input for them that other instances received, and the answers. */
export function taskChannel(instanceId: string): string {
  return `task:${instanceId}`;
}

/** An application's channel `name` (its {@link ClusterAppMessage}s); distinct from every channel of the library. */
export function appChannel(name: string): string {
  return `app:${name}`;
}

/** The in-process {@link ClusterBus}: listeners are called synchronously, in subscription order, each with its own JSON copy. */
export class InMemoryClusterBus implements ClusterBus {
  readonly #channels = new Map<string, Set<{ readonly listener: ClusterListener<ClusterBusMessage> }>>();

  /** Channels with at least one listener. */
  get channelCount(): number {
    return this.#channels.size;
  }

  publish(channel: string, message: ClusterBusMessage): Promise<void> {
    const listeners = this.#channels.get(channel);
    if (listeners === undefined) return Promise.resolve();
    // One text, one parse per listener: what a shared bus delivers is a copy, so the in-memory one is too (a live
    // object passed by reference would hide a message that does not survive JSON).
    const text = JSON.stringify(message);
    for (const entry of [...listeners]) {
      if (!listeners.has(entry)) continue;
      try {
        const delivery = entry.listener(JSON.parse(text) as ClusterBusMessage);
        if (delivery !== undefined) delivery.catch(() => undefined);
      } catch {
        // A listener's failure is its own; the others still hear the message.
      }
    }
    return Promise.resolve();
  }

  subscribe<M extends ClusterBusMessage = ClusterMessage>(channel: string, listener: ClusterListener<M>): () => void {
    let listeners = this.#channels.get(channel);
    if (listeners === undefined) this.#channels.set(channel, (listeners = new Set()));
    // What the channel carries is the subscriber's word (see ClusterBus.subscribe).
    const entry = { listener: listener as ClusterListener<ClusterBusMessage> };
    listeners.add(entry);
    return () => {
      const current = this.#channels.get(channel);
      if (current === undefined || !current.delete(entry)) return;
      if (current.size === 0) this.#channels.delete(channel);
    };
  }
}
