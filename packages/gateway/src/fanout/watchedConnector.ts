/**
 * The pool's view of an upstream's connector: every channel it opens can be abandoned (an attempt past its
 * deadline), and its end is seen (a process that exits, a channel that closes), so a dead upstream leaves the
 * catalog at once instead of at its next call.
 */
import type { ClientConnector, ClientConnectorOpenOptions, ClientTransport } from '@switchboard/mcp/client';

/**
 * `connector` with two hooks: every channel it opens is abandoned when `signal` aborts (the connector's own
 * `signal` option: a spawn is killed, a fetch aborted), and `closed` is called once the channel ends. The channel's
 * `onclose` belongs to the JSON-RPC peer that runs on it, which assigns it once; an accessor on the transport
 * object keeps the peer's listener and calls `closed` after it.
 */
export function watchedConnector(inner: ClientConnector, hooks: { readonly signal: AbortSignal; readonly opened: (transport: ClientTransport) => void; readonly closed: (transport: ClientTransport) => void }): ClientConnector {
  const watch = (transport: ClientTransport): ClientTransport => {
    let listener = transport.onclose;
    // The listener is the one set when the transport reads `onclose`: the HTTP transports read it, clear it, then
    // call it (a listener read at the call would be the cleared one, and the peer would never hear of the end).
    Object.defineProperty(transport, 'onclose', {
      configurable: true,
      enumerable: true,
      get: () => {
        const current = listener;
        return (): void => {
          try {
            current?.();
          } finally {
            hooks.closed(transport);
          }
        };
      },
      set: (next: (() => void) | undefined) => {
        listener = next;
      },
    });
    hooks.opened(transport);
    return transport;
  };
  const open = (options: ClientConnectorOpenOptions): ClientConnectorOpenOptions => ({ ...options, signal: options.signal === undefined ? hooks.signal : AbortSignal.any([options.signal, hooks.signal]) });
  const openHttpSse = inner.openHttpSse?.bind(inner);
  return {
    kind: inner.kind,
    verdictKey: inner.verdictKey,
    open: async (options) => watch(await inner.open(open(options))),
    ...(openHttpSse === undefined ? {} : { openHttpSse: async (options: ClientConnectorOpenOptions) => watch(await openHttpSse(open(options))) }),
  };
}

/** ` (<reason>, exit code N)` from how a channel ended, when it says. */
export function describeEnd(transport: ClientTransport | undefined): string {
  const facts = transport?.endFacts;
  if (facts === undefined) return '';
  const parts: string[] = [];
  if (facts.reason !== undefined) parts.push(facts.reason);
  if (typeof facts.exitCode === 'number') parts.push(`exit code ${facts.exitCode}`);
  if (typeof facts.signal === 'string') parts.push(`signal ${facts.signal}`);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}
