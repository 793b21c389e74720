/**
 * The connector of a configured upstream: a command (a stdio process, in a process group of its own so that
 * closing it stops its children too), or a URL (Streamable HTTP, falling back to HTTP+SSE when the server answers
 * as a 2024-11-05 one; or HTTP+SSE alone with `transport: "http-sse"`), or a connector given as it is.
 */
import { httpSse, streamableHttp, type ClientConnector } from '@switchboard/mcp/client';
import { spawnStdio } from '@switchboard/mcp/stdio';

/** How to reach one upstream: exactly one of `connector`, `command` or `url`. */
export interface UpstreamEndpoint {
  /** A connector made by the caller (`spawnStdio`, `streamableHttp`, `httpSse`, a test's in-memory one). */
  readonly connector?: ClientConnector;
  /** The program of a stdio upstream (looked up on `PATH`, or a path against `cwd`). */
  readonly command?: string;
  /** Its arguments. @default [] */
  readonly args?: readonly string[];
  /** Variables set for it, over the gateway's environment (unless `inheritEnv` is `false`). @default none */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * `false`: a stdio upstream gets `env` only, none of the gateway's own environment (which may hold the gateway's
   * secrets: `SWITCHBOARD_REDIS_URL` with a password, `SWITCHBOARD_REQUEST_STATE_SECRET`, tokens). A program that
   * needs `PATH` or `HOME` is then given them in `env`. @default true
   */
  readonly inheritEnv?: boolean;
  /** Its working directory. @default the gateway's */
  readonly cwd?: string;
  /** The endpoint of an HTTP upstream. */
  readonly url?: string;
  /** `streamable-http` (falls back to HTTP+SSE for a 2024-11-05 server) or `http-sse` (2024-11-05 only). @default 'streamable-http' */
  readonly transport?: 'streamable-http' | 'http-sse';
  /** Headers sent on every HTTP request (an `Authorization` the upstream wants). @default none */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * The connector of `endpoint`.
 * @throws TypeError naming the upstream when none or more than one of `connector`, `command`, `url` is given
 */
export function connectorFor(name: string, endpoint: UpstreamEndpoint): ClientConnector {
  const given = [endpoint.connector, endpoint.command, endpoint.url].filter((value) => value !== undefined).length;
  if (given !== 1) throw new TypeError(`Invalid upstream "${name}": expected exactly one of connector, command or url, got ${given}`);
  if (endpoint.connector !== undefined) return endpoint.connector;
  if (endpoint.command !== undefined) {
    return spawnStdio({
      command: endpoint.command,
      args: endpoint.args ?? [],
      ...(endpoint.env === undefined ? {} : { env: endpoint.env }),
      ...(endpoint.inheritEnv === undefined ? {} : { inheritEnv: endpoint.inheritEnv }),
      ...(endpoint.cwd === undefined ? {} : { cwd: endpoint.cwd }),
    });
  }
  const url = endpoint.url as string;
  const headers = endpoint.headers === undefined ? {} : { headers: { ...endpoint.headers } };
  return endpoint.transport === 'http-sse' ? httpSse({ url, ...headers }) : streamableHttp({ url, ...headers });
}
