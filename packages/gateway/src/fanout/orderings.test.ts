/**
 * The upstream pool under every ordering fast-check can find: three in-memory upstreams (one session-based only, one
 * 2026-07-28 only, one dual-era) whose connections open when the scheduler says, and which may die (refusing new
 * connections until revived), lose their connection, change their tool list, be reported failed by a call, or be
 * removed from the pool and added back, between any two steps.
 *
 * What must hold once every upstream is alive again and the backoff has run (MCP 2025-11-25 server/tools.mdx "List
 * Changed Notification"; MCP 2026-07-28 basic/patterns/subscriptions.mdx for the 2026-07-28 upstream's changes):
 * - every upstream in the pool is `ready`, and the pool lists exactly the tools its server has now;
 * - it holds one connection to each, none to an upstream removed: no attempt, re-read or reconnection leaks one;
 * - after `close()`, no connection is left open and every upstream is gone.
 * The same world behind `createGateway` (upstreams mounted through their proxies or forwarded with a rename, taken out
 * of its configuration, put back or switched between the two by `update()`, several updates at once): the front
 * lists exactly the namespaced tools of every upstream configured, as they are now.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProtocolRevision } from '@switchboard/mcp';
import type { ClientConnector, ClientTransport } from '@switchboard/mcp/client';
import { McpServer } from '@switchboard/mcp/server';
import { inMemoryConnector } from '@switchboard/mcp/testing';
import { McpClient } from '@switchboard/mcp/client';
import { UpstreamPool, createGateway, type GatewayUpstreamOptions } from '../index.js';
import type { UpstreamSpec } from './upstream.js';

const RUNS = Number(process.env.POOL_PROPERTY_RUNS ?? 200);
const GATEWAY_RUNS = Number(process.env.GATEWAY_PROPERTY_RUNS ?? 100);
const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const NAMES = ['old', 'new', 'both'] as const;
const REVISIONS: Record<(typeof NAMES)[number], ProtocolRevision[]> = {
  old: ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'],
  new: ['2026-07-28'],
  both: ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'],
};

type Command =
  | { readonly kind: 'die' | 'revive' | 'drop' | 'report' | 'addTool' | 'removeTool' | 'remove' | 'add' | 'call'; readonly upstream: number };

const command: fc.Arbitrary<Command> = fc.record({
  kind: fc.constantFrom('die', 'revive', 'drop', 'report', 'addTool', 'removeTool', 'remove', 'add', 'call'),
  upstream: fc.integer({ min: 0, max: NAMES.length - 1 }),
});

/**
 * A client transport counted in `open` from its opening until its channel closes (whichever side closes it). What
 * the server sends, and the channel's end, reach the client in order when the scheduler says, what came meanwhile in
 * one turn: an answer (a listing) can come after anything else that happens meanwhile, or with what followed it.
 */
function counted(inner: ClientTransport, open: Set<ClientTransport>, s: fc.Scheduler, name: string): ClientTransport {
  const outer: ClientTransport = {
    kind: inner.kind,
    get endFacts() {
      return inner.endFacts;
    },
    start: () => inner.start(),
    send: (message, options) => inner.send(message, options),
    close: () => inner.close(),
    setProtocol: (protocol) => inner.setProtocol(protocol),
  };
  open.add(outer);
  const queue: (() => void)[] = [];
  const later = (delivery: () => void): void => {
    queue.push(delivery);
    // What came meanwhile is delivered together, in one turn, as a read of several messages from a pipe is.
    void s.schedule(Promise.resolve(), `${name} delivers`).then(() => {
      for (const next of queue.splice(0)) next();
    });
  };
  inner.onmessage = (message, extra) => later(() => outer.onmessage?.(message, extra));
  inner.onerror = (error) => outer.onerror?.(error);
  inner.onclose = () => {
    open.delete(outer);
    later(() => outer.onclose?.());
  };
  return outer;
}

/** One upstream of the world: its server, whether it takes connections, and its connections open now. */
interface World {
  readonly name: string;
  readonly server: McpServer;
  readonly tools: Map<string, () => void>;
  readonly connector: ClientConnector & { drop(): Promise<void> };
  readonly open: Set<ClientTransport>;
  alive: boolean;
  inPool: boolean;
  /** Behind a gateway: served through its own proxy, or forwarded through the catalog (a rename makes it so). */
  mode: 'mounted' | 'forwarded';
  nextTool: number;
}

/** A tool of upstream `name`: it answers its upstream's name when the scheduler says. */
function answer(name: string, s: fc.Scheduler): () => Promise<{ content: { type: 'text'; text: string }[] }> {
  return async () => {
    await s.schedule(Promise.resolve(), `a tool of ${name} answers`);
    return { content: [{ type: 'text', text: name }] };
  };
}

function world(name: (typeof NAMES)[number], s: fc.Scheduler): World {
  const server = new McpServer({ name, version: '1.0.0' }, { revisions: REVISIONS[name], logger: silent, capabilities: { tools: { listChanged: true } } });
  const tools = new Map<string, () => void>();
  const inner = inMemoryConnector(server);
  const open = new Set<ClientTransport>();
  const w: World = {
    name,
    server,
    tools,
    open,
    alive: true,
    inPool: true,
    mode: name === 'new' ? 'forwarded' : 'mounted',
    nextTool: 1,
    connector: {
      kind: 'stdio',
      verdictKey: inner.verdictKey,
      open: async (options) => {
        await s.schedule(Promise.resolve(), `${name} opens`);
        if (!w.alive) throw new Error(`${name} refuses connections`);
        return counted(await inner.open(options), open, s, name);
      },
      drop: () => inner.drop({ reason: `${name} went away` }),
    },
  };
  tools.set('t0', server.tool('t0', {}, answer(name, s)));
  return w;
}

const spec = (w: World): UpstreamSpec => ({ name: w.name, connector: w.connector, connectTimeoutMs: 5_000 });

const BACKOFF = { initialDelayMs: 1, maxDelayMs: 20, multiplier: 2, jitter: 0 };

/**
 * Plays `commands` on `worlds`, each when the scheduler says (`pool`: where reports, removals and additions go), and
 * waits until they and what they started ended.
 */
/**
 * How `remove` and `add` change who is served (the pool's own calls by default; a gateway reconfigures), and what
 * `call` does (nothing in the pool; a call of one of the upstream's tools through a gateway's front).
 */
interface Membership {
  remove(w: World): Promise<unknown>;
  add(w: World): Promise<unknown> | undefined;
  call?(w: World): Promise<unknown>;
}

const poolMembership = (pool: UpstreamPool): Membership => ({
  remove: (w) => pool.remove(w.name),
  add: (w) => {
    if (w.inPool) return undefined;
    w.inPool = true;
    pool.add(spec(w));
    return undefined;
  },
});

async function play(commands: readonly Command[], s: fc.Scheduler, worlds: readonly World[], pool: UpstreamPool, membership: Membership = poolMembership(pool)): Promise<void> {
  const pending = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>): void => {
    pending.add(work);
    void work.finally(() => pending.delete(work));
  };
  let chain: Promise<unknown> = Promise.resolve();
  commands.forEach((c, index) => {
    const w = worlds[c.upstream] as World;
    chain = chain.then(() => s.schedule(Promise.resolve(), `command ${index}: ${c.kind} ${w.name}`)).then(() => {
      switch (c.kind) {
        case 'die':
          w.alive = false;
          track(w.connector.drop());
          break;
        case 'revive':
          w.alive = true;
          break;
        case 'drop':
          track(w.connector.drop());
          break;
        case 'report':
          pool.reportFailure(w.name, new Error('a call failed on the connection'));
          break;
        case 'addTool': {
          const name = `t${w.nextTool++}`;
          w.tools.set(name, w.server.tool(name, {}, answer(w.name, s)));
          break;
        }
        case 'removeTool': {
          const [name, unregister] = [...w.tools][0] ?? [];
          if (name === undefined || unregister === undefined) break;
          w.tools.delete(name);
          unregister();
          break;
        }
        case 'remove':
          if (!w.inPool) break;
          w.inPool = false;
          track(membership.remove(w));
          break;
        case 'call':
          if (membership.call !== undefined) track(membership.call(w));
          break;
        case 'add': {
          // The pool's: added back when it is not in. A gateway's: served again, or served the other way (mounted or
          // forwarded), a reconfiguration either way.
          const done = membership.add(w);
          if (done !== undefined) track(done);
          break;
        }
      }
    });
  });
  track(chain);
  for (let idle = Date.now(); (pending.size > 0 || s.count() > 0) && Date.now() - idle < 2_000; ) {
    if (s.count() > 0) {
      await s.waitNext(1);
      idle = Date.now();
    } else await new Promise((resolve) => setTimeout(resolve, 1));
  }
  for (const w of worlds) w.alive = true;
}

/** Runs the scheduler and the timers until `problems` finds none (held a few turns), or 3 s passed. */
async function settle(s: fc.Scheduler, problems: () => Promise<string[]> | string[]): Promise<void> {
  for (const started = Date.now(); Date.now() - started < 3_000; ) {
    if (s.count() > 0) await s.waitNext(1);
    else if ((await problems()).length === 0) {
      // Held a few turns more: a late re-read or reconnection would show now.
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (s.count() === 0 && (await problems()).length === 0) break;
    } else await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

async function run(commands: readonly Command[], s: fc.Scheduler): Promise<{ worlds: World[]; pool: UpstreamPool; problems: () => string[] }> {
  const worlds = NAMES.map((name) => world(name, s));
  const pool = new UpstreamPool({ upstreams: worlds.map(spec), logger: silent, healthCheckIntervalMs: 0, backoff: BACKOFF });
  pool.start();
  await play(commands, s, worlds, pool);
  const problems = (): string[] => {
    const found: string[] = [];
    for (const w of worlds) {
      const health = pool.health().find((h) => h.name === w.name);
      if (!w.inPool) {
        if (health !== undefined) found.push(`${w.name}: removed, still in the pool`);
        if (w.open.size > 0) found.push(`${w.name}: removed, ${w.open.size} connection(s) open`);
        continue;
      }
      if (health?.state !== 'ready') {
        found.push(`${w.name}: ${health?.state ?? 'missing'} (${health?.lastError ?? ''})`);
        continue;
      }
      const listed = (pool.listing(w.name)?.tools ?? []).map((t) => t.name).sort();
      const has = [...w.tools.keys()].sort();
      if (listed.join() !== has.join()) found.push(`${w.name}: lists [${listed.join()}], has [${has.join()}]`);
      if (w.open.size !== 1) found.push(`${w.name}: ${w.open.size} connections open`);
    }
    return found;
  };
  await settle(s, problems);
  return { worlds, pool, problems };
}

/** After a close(): what the scheduler still holds is let run, then no connection of any upstream may be open. */
async function expectNothingOpen(s: fc.Scheduler, worlds: readonly World[]): Promise<void> {
  for (let i = 0; i < 20 && s.count() > 0; i++) await s.waitNext(1);
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
  expect(
    worlds.filter((w) => w.open.size > 0).map((w) => `${w.name}: ${w.open.size}`),
    'connections open after close()',
  ).toEqual([]);
}

describe('UpstreamPool: deaths, drops, list changes, removals in any order', () => {
  it('ends with every upstream ready, listed as it is, on one connection each; and with none after close()', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 12 }), fc.scheduler(), async (commands, s) => {
        const { worlds, pool, problems } = await run(commands, s);
        try {
          expect(problems(), 'once every upstream is alive again').toEqual([]);
        } finally {
          await pool.close();
        }
        await expectNothingOpen(s, worlds);
        expect(pool.health(), 'upstreams after close()').toEqual([]);
      }),
      { numRuns: RUNS },
    );
  }, Math.max(120_000, RUNS * 400));
});

/** A tool's name on the gateway's front: namespaced by its upstream, `t0` renamed `zero` when forwarded. */
function frontName(w: World, tool: string): string {
  return `${w.name}_${w.mode === 'forwarded' && tool === 't0' ? 'zero' : tool}`;
}

/** The gateway's upstreams as configured now: those served, each mounted or forwarded (`t0` renamed `zero`). */
function gatewayConfig(worlds: readonly World[]): Record<string, GatewayUpstreamOptions> {
  return Object.fromEntries(worlds.filter((w) => w.inPool).map((w) => [w.name, { connector: w.connector, connectTimeoutMs: 5_000, ...(w.mode === 'forwarded' ? { tools: { rename: { t0: 'zero' } } } : {}) }]));
}

describe('createGateway: the same world behind its front', () => {
  it('ends with the front listing every upstream\'s tools as they are, mounted or forwarded, through reconfigurations', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 12 }), fc.scheduler(), async (commands, s) => {
        const worlds = NAMES.map((name) => world(name, s));
        const gateway = createGateway({ logger: silent, healthCheckIntervalMs: 0, backoff: BACKOFF, upstreams: gatewayConfig(worlds) });
        // `remove` takes an upstream out of the configuration; `add` puts it back, or switches how it is served. Each
        // applied with `update()` at once, not waiting for the one before (a config file saved twice quickly).
        const membership: Membership = {
          remove: () => gateway.update(gatewayConfig(worlds)),
          add: (w) => {
            if (w.inPool) w.mode = w.mode === 'mounted' ? 'forwarded' : 'mounted';
            w.inPool = true;
            return gateway.update(gatewayConfig(worlds));
          },
          // A call of the upstream's first tool under its front name now; it may vanish, die or be reconfigured meanwhile.
          call: (w) => {
            const tool = [...w.tools.keys()][0];
            if (tool === undefined) return Promise.resolve();
            const name = frontName(w, tool);
            const call = { name, settled: false, outcome: '' };
            calls.push(call);
            // By turns from a 2025-11-25 session and a 2026-07-28 client.
            return (calls.length % 2 === 0 ? front : session)
              .callTool({ name })
              .then(
                (result) => (result.isError === true ? `isError ${JSON.stringify(result.content)}` : `result ${JSON.stringify(result.content)}`),
                (error: unknown) => `error ${String((error as { code?: unknown }).code)} ${(error as Error).message}`,
              )
              .then((outcome) => {
                call.settled = true;
                call.outcome = outcome;
              });
          },
        };
        const calls: { readonly name: string; settled: boolean; outcome: string }[] = [];
        const front = await McpClient.connect({ connector: inMemoryConnector(gateway.server), era: 'modern', logger: silent });
        const session = await McpClient.connect({ connector: inMemoryConnector(gateway.server), era: 'legacy', logger: silent });
        try {
          await play(commands, s, worlds, gateway.pool, membership);
          const expected = worlds.filter((w) => w.inPool).flatMap((w) => [...w.tools.keys()].map((tool) => frontName(w, tool))).sort();
          const problems = async (): Promise<string[]> => {
            const found: string[] = [];
            const listed = (await front.listAllTools()).map((t) => t.name).sort();
            if (listed.join() !== expected.join()) {
              const states = gateway.health().map((h) => `${h.name} ${h.state}`).join(', ');
              found.push(`the front lists [${listed.join()}], the upstreams have [${expected.join()}] (${states}; mounted: ${gateway.mounted().join(', ')})`);
            }
            // What the pool says of each (its listing, the health's count), as an operator reads it.
            for (const w of worlds.filter((u) => u.inPool)) {
              const has = [...w.tools.keys()].sort().join();
              const pooled = (gateway.pool.listing(w.name)?.tools ?? []).map((t) => t.name).sort().join();
              const counted = gateway.health().find((h) => h.name === w.name)?.tools;
              if (pooled !== has || counted !== w.tools.size) found.push(`${w.name}: the pool lists [${pooled}] (health: ${String(counted)} tools), it has [${has}]`);
            }
            return found;
          };
          await settle(s, problems);
          expect(await problems(), 'once every upstream is alive again').toEqual([]);
          // Every call through the front ended: its own upstream's answer, or a failure in the gateway's words (never
          // the upstream's connection text, here "went away" and "refuses connections").
          expect(calls.filter((c) => !c.settled).map((c) => c.name), 'calls never answered').toEqual([]);
          for (const call of calls) {
            const owner = call.name.split('_')[0] as string;
            expect(call.outcome, call.name).toMatch(new RegExp(`^(result \\[\\{"type":"text","text":"${owner}"\\}\\]|isError .*(unavailable|did not answer).*|error -32602 .*)$`));
            expect(call.outcome, call.name).not.toMatch(/went away|refuses connections/);
          }
        } finally {
          await Promise.all([front.close(), session.close()]);
          await gateway.close();
        }
        await expectNothingOpen(s, worlds);
      }),
      { numRuns: GATEWAY_RUNS },
    );
  }, Math.max(120_000, GATEWAY_RUNS * 1_000));
});
