/**
 * `--redis-url` (or `SWITCHBOARD_REDIS_URL`) of `serve` and `gateway`: the shared stores of `@switchboard/redis`,
 * loaded only when asked for: an optional peer dependency of the CLI (install `@switchboard/redis` beside it), so the
 * CLI neither installs nor loads `ioredis` otherwise. The HTTP handler gets the session and
 * event stores; the server gets the bus, the task store and the request state store where the command builds it
 * (the gateway's front server, a `serve` module whose default export is a function: it is called with them).
 */
import type { RedisStores, redisStores as RedisStoresFactory } from '@switchboard/redis';
import type { CliIo } from '../cliIo.js';

/** The environment variable read when `--redis-url` is not given. */
export const REDIS_URL_ENV = 'SWITCHBOARD_REDIS_URL';

/** The Redis URL of a command: the flag, else the environment variable, else `undefined` (in-memory stores). */
export function redisUrlOf(flag: string | undefined, io: CliIo): string | undefined {
  const url = flag ?? io.env[REDIS_URL_ENV];
  return url === undefined || url === '' ? undefined : url;
}

/**
 * The stores on `url`, once the bus listens.
 * @throws Error naming the URL (password hidden) when Redis cannot be reached within `timeoutMs`
 */
export async function openRedisStores(url: string, options: { readonly keyPrefix?: string; readonly io: CliIo; readonly timeoutMs?: number }): Promise<RedisStores> {
  let redisStores: typeof RedisStoresFactory;
  try {
    ({ redisStores } = await import('@switchboard/redis'));
  } catch (error) {
    // An optional peer dependency of the CLI: only --redis-url needs it.
    throw new Error('--redis-url needs the package @switchboard/redis next to the CLI: npm install @switchboard/redis', { cause: error });
  }
  const shown = url.replace(/\/\/[^@/]*@/, '//…@');
  const stores = redisStores({
    url,
    ...(options.keyPrefix === undefined ? {} : { keyPrefix: options.keyPrefix }),
    logger: {
      debug: () => undefined,
      info: (message) => options.io.stderr(`switchboard: ${message}\n`),
      warn: (message) => options.io.stderr(`switchboard: ${message}\n`),
      error: (message, fields) => options.io.stderr(`switchboard: ${message}${fields?.error === undefined ? '' : ` (${typeof fields.error === 'string' ? fields.error : JSON.stringify(fields.error)})`}\n`),
    },
  });
  const timeoutMs = options.timeoutMs ?? 5000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      stores.ready.then(() => stores.redis.ping()),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no answer')), timeoutMs))),
    ]);
  } catch (error) {
    await stores.close().catch(() => undefined);
    throw new Error(`Cannot reach Redis at ${shown}: ${(error as Error).message}`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
  return stores;
}
