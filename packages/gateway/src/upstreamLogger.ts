/** A gateway's log holds many upstreams' lines: each says which upstream it is about. */
import type { Logger } from '@switchboard/jsonrpc';

/** `logger` with `upstream` (the upstream's name in the gateway) added to every line's fields. */
export function upstreamLogger(logger: Logger, upstream: string): Logger {
  const line =
    (level: keyof Logger) =>
    (message: string, fields?: Record<string, unknown>): void => {
      logger[level](message, { upstream, ...fields });
    };
  return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
}
