// What OpenTelemetry costs a call, in process, on the built packages (plain Node, no build step):
//
//   node bench/otel.mjs                  rounds of sequential tools/call, McpClient → McpServer in memory, both eras
//   node bench/otel.mjs --rounds 21 --calls 5000 --gate
//   node bench/otel.mjs --smoke          a few checked calls per pair and era, no timing
//
// Four client/server pairs, the same `echo` tool, over the in-memory connector (client and server in this one
// process): `off` has no telemetry; `server` has `serverTelemetry()` on the server; `client` has `clientTelemetry()`
// on the client; `both` has both. The OpenTelemetry SDK is registered as in production: a tracer provider whose
// batch span processor hands the spans to a no-op exporter, a meter provider with a reader, the AsyncLocalStorage
// context manager, the W3C propagators. A side's telemetry per call: one span, one histogram record, and the trace
// context injected into `_meta` (client) or extracted from it (server). Each round runs `--calls` sequential calls
// (distinct arguments, every answer checked) on each pair, the order rotating between rounds; the figure is the
// median over rounds of the per-round difference (pair − off) in CPU µs per call (process.cpuUsage, user + system:
// both sides, as both run here), per era, printed with ✓/✗ against issue 24's target — OpenTelemetry on costs
// ≤ 15 µs per call — for each side on its own; `both` is shown for a client and server in one process (a gateway
// pays both sides per call). `--gate` makes a miss exit 1.
import { costFlags, median, silent } from './lib/inprocess.mjs';
import process from 'node:process';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { McpClient } from '@switchboard/mcp/client';
import { McpServer } from '@switchboard/mcp/server';
import { inMemoryConnector } from '@switchboard/mcp/testing';
import { clientTelemetry, serverTelemetry } from '@switchboard/otel';

const { smoke, gate, rounds, calls } = costFlags({ calls: 3_000, smokeCalls: 20 });
const TARGET_US = 15;


let exported = 0;
const noopExporter = {
  export(spans, done) {
    exported += spans.length;
    done({ code: 0 });
  },
  shutdown: () => Promise.resolve(),
};
class Reader extends MetricReader {
  onShutdown() {
    return Promise.resolve();
  }
  onForceFlush() {
    return Promise.resolve();
  }
}
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const reader = new Reader();
const providers = {
  tracerProvider: new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter: noopExporter, maxQueueSize: 65_536, maxExportBatchSize: 4_096, scheduledDelayMillis: 200 })] }),
  meterProvider: new MeterProvider({ readers: [reader] }),
  propagator: new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
};

async function makePair(era, sides) {
  const server = new McpServer({ name: 'bench-otel', version: '1.0.0' }, { logger: silent });
  if (sides.server) server.use(serverTelemetry(providers));
  server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  const client = await McpClient.connect({ connector: inMemoryConnector(server), era, logger: silent, cache: false, ...(sides.client ? { instrumentation: clientTelemetry(providers) } : {}) });
  return { server, client };
}

/** CPU µs per call of `count` sequential calls; throws on a wrong answer. */
async function time(client, count, firstId) {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const text = `call ${firstId + i}`;
    const result = await client.callTool({ name: 'echo', arguments: { text } });
    if (result.content[0]?.text !== text) throw new Error(`wrong answer to ${text}: ${JSON.stringify(result)}`);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}


let missed = 0;
let nextId = 1;
let onCalls = 0;
/** Spans per call of each pair. */
const SPANS = { off: 0, server: 1, client: 1, both: 2 };
console.log(smoke ? 'otel smoke: checked calls per pair and era' : `OpenTelemetry cost: server, client, both sides on (SDK, batch processor, no-op exporter) vs off, McpClient → McpServer in memory, ${rounds} rounds × ${calls} sequential calls, interleaved, CPU per call`);
for (const era of ['legacy', 'modern']) {
  const pairs = [
    ['off', await makePair(era, {})],
    ['server', await makePair(era, { server: true })],
    ['client', await makePair(era, { client: true })],
    ['both', await makePair(era, { server: true, client: true })],
  ];
  if (!smoke) {
    for (const [name, pair] of pairs) {
      await time(pair.client, calls, nextId);
      nextId += calls;
      onCalls += SPANS[name] * calls;
    }
  }
  const perPair = new Map(pairs.map(([name]) => [name, []]));
  const deltas = new Map(pairs.map(([name]) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    const order = [...pairs.slice(round % pairs.length), ...pairs.slice(0, round % pairs.length)];
    const us = {};
    for (const [name, pair] of order) {
      us[name] = await time(pair.client, calls, nextId);
      nextId += calls;
      onCalls += SPANS[name] * calls;
      perPair.get(name).push(us[name]);
    }
    for (const [name] of pairs) deltas.get(name).push(us[name] - us.off);
  }
  for (const [, pair] of pairs) {
    await pair.client.close();
    await pair.server.close();
  }
  if (smoke) {
    console.log(`ok     ${era}: ${rounds * calls} calls per pair answered`);
    continue;
  }
  const off = median(perPair.get('off'));
  for (const name of ['server', 'client', 'both']) {
    const delta = median(deltas.get(name));
    const gated = name !== 'both';
    const ok = delta <= TARGET_US;
    if (gated && !ok) missed++;
    const mark = gated ? (ok ? '✓' : '✗') : ' ';
    console.log(`${mark} ${era.padEnd(7)} ${name.padEnd(6)} +${delta.toFixed(2)} µs CPU per call${gated ? ` (target ≤ ${TARGET_US} µs)` : ' (both sides, for reference)'}: off ${off.toFixed(2)} µs, with ${median(perPair.get(name)).toFixed(2)} µs`);
  }
}
await providers.tracerProvider.forceFlush();
// Every measured call made one span per instrumented side.
if (exported < onCalls) {
  console.error(`the no-op exporter saw ${exported} spans, expected at least ${onCalls}`);
  process.exit(1);
}
if (missed > 0 && gate) process.exit(1);
