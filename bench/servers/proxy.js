// The gateway benchmark's proxy: `createProxyServer` of @switchboard/gateway in front of one upstream, served on
// Streamable HTTP (responses decided per exchange, as serveHttp does by default).
//
//   node bench/servers/proxy.js --port <N> --upstream-stdio        upstream: node bench/servers/switchboard.js --stdio (its child)
//   node bench/servers/proxy.js --port <N> --upstream-url <URL>     upstream: a Streamable HTTP server already running
//   options: --upstream-era legacy|modern|auto   the era the proxy speaks upstream (default legacy: the era bridge's case)
//
// Prints `BENCH_READY <url>` on stderr once it accepts connections; stops the upstream (its process group) on exit.
// V8 runs with the `switchboard` executable's settings (./_asTheCli.js, imported first).
import './_asTheCli.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createProxyServer } from '@switchboard/gateway';
import { streamableHttp } from '@switchboard/mcp/client';
import { serveHttp } from '@switchboard/mcp/node';
import { spawnStdio } from '@switchboard/mcp/stdio';
import { announceReady, installShutdown, parseUpstreamArgs } from './_common.js';

const { port, stdio, url, extra } = parseUpstreamArgs('usage: node bench/servers/proxy.js --port <N> (--upstream-stdio | --upstream-url <URL>) [--upstream-era legacy|modern|auto]', { '--upstream-era': 'legacy' });
const era = extra['--upstream-era'];
const echoServer = path.join(path.dirname(fileURLToPath(import.meta.url)), 'switchboard.js');
const upstream = stdio ? spawnStdio({ command: process.execPath, args: [echoServer, '--stdio'] }) : streamableHttp({ url });
const front = await createProxyServer({ upstream, client: { era } });
const handle = await serveHttp({ server: front, port, host: '127.0.0.1' });
announceReady(handle.url);
installShutdown(async () => {
  await handle.close();
  await front.close();
});
