/**
 * A 2026-07-28 client across three Switchboard instances on one real `redis-server` behind a real nginx doing plain
 * round-robin (`test/helpers/nginxCluster.ts`). A `subscriptions/listen` stream held by one instance receives the
 * `notifications/tools/list_changed` of a tool registered at runtime on each instance in turn and the
 * `notifications/resources/updated` raised on each instance (the shared bus). A task-augmented `tools/call` made
 * on one instance is polled through the others and its result read there; a second task is cancelled through another
 * instance than its own, reads `cancelled` everywhere and its work stops where it runs; a task asking for input gets
 * the answer its `tasks/update` carried to another instance; and once the instance that ran the first task is killed
 * (SIGKILL), its result is still read through the survivors (the Redis task store). nginx's access log (each request
 * tagged with its method) shows where each request landed.
 *
 * Spec: MCP 2026-07-28 basic/patterns/subscriptions.mdx; the extension `io.modelcontextprotocol/tasks` "Task
 * Creation", "Task Polling", "Task Update Requests", "Task Cancellation".
 */
import { McpClient, streamableHttp, type ListenNotification } from '@switchboard/mcp/client';
import { describe, expect, it } from 'vitest';
import { NGINX_CLUSTER_MISSING, eventually, stop, taggedFetch, textOf, useNginxCluster, type AccessEntry } from './helpers/nginxCluster.js';

const NAMES = ['A', 'B', 'C'] as const;
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: {} };

function modernClient(url: string, prefix: string, tasks = false): Promise<McpClient> {
  return McpClient.connect({
    connector: streamableHttp({ url, fetch: taggedFetch({ prefix }) }),
    era: 'modern', logger: silent, reconnect: false,
    ...(tasks ? { capabilities: TASKS } : {}),
  });
}

describe.skipIf(NGINX_CLUSTER_MISSING !== undefined)('a 2026-07-28 client across three instances behind nginx round-robin', () => {
  const cluster = useNginxCluster({ names: NAMES });

  it('a listen stream held on one instance receives list changes and resource updates raised on the others', async () => {
    const listener = await modernClient(cluster.url, 'listener:');
    const actor = await modernClient(cluster.url, 'actor:');
    try {
      expect(listener.era).toBe('modern');
      const subscription = await listener.listen({ toolsListChanged: true, resourceSubscriptions: ['test://watched/5'] });
      expect(subscription.acknowledged).toMatchObject({ toolsListChanged: true, resourceSubscriptions: ['test://watched/5'] });
      const heard: ListenNotification[] = [];
      subscription.on((n) => void heard.push(n));
      const registeredOn: string[] = [];
      const touchedOn: string[] = [];
      for (let i = 0; i < 3; i++) {
        registeredOn.push(textOf(await actor.callTool({ name: 'register', arguments: { tool: `runtime${i}` } })));
        touchedOn.push(textOf(await actor.callTool({ name: 'touch', arguments: { uri: 'test://watched/5' } })));
      }
      // Not subscribed: no notification for this URI.
      await actor.callTool({ name: 'touch', arguments: { uri: 'test://watched/6' } });
      expect(new Set(registeredOn)).toEqual(new Set(NAMES));
      expect(new Set(touchedOn)).toEqual(new Set(NAMES));
      expect(await eventually(() => heard.length >= 6, 5000)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const methods = heard.map((n) => n.method);
      expect(methods.filter((m) => m === 'notifications/tools/list_changed')).toHaveLength(3);
      expect(heard.filter((n) => n.method === 'notifications/resources/updated').map((n) => n.params.uri)).toEqual(['test://watched/5', 'test://watched/5', 'test://watched/5']);
      expect(heard).toHaveLength(6);
      await subscription.close();
    } finally {
      await listener.close();
      await actor.close();
    }
    // nginx logs the listen request once it ended: the instance that held it, and the others that raised changes.
    expect(await eventually(() => cluster.accessLog().some((e) => e.tag === 'listener:subscriptions/listen'), 5000)).toBe(true);
    const log = cluster.accessLog();
    const holders = log.filter((e) => e.tag === 'listener:subscriptions/listen').map((e) => e.upstreams.at(-1)!);
    expect(holders).toHaveLength(1);
    const raisedOn = log.filter((e) => e.tag === 'actor:tools/call:register' || e.tag === 'actor:tools/call:touch').map((e) => e.upstreams.at(-1)!);
    expect(new Set(raisedOn.filter((name) => name !== holders[0]))).toEqual(new Set(NAMES.filter((name) => name !== holders[0])));
    console.log(`redis-nginx-modern: listen stream on ${holders[0]!}; changes raised on ${raisedOn.join(',')}`);
  }, 30_000);

  it('a task made on one instance is polled, read, updated and cancelled through the others; its result outlives its instance (SIGKILL)', async () => {
    const client = await modernClient(cluster.url, 'tasks:', true);
    try {
      // A task that completes: made on one instance, polled through the others, its result read where it lands.
      const task = await client.callToolAsTask({ name: 'job', arguments: { ms: 700 } }, { pollIntervalMs: 100 });
      expect(task.taskId).toMatch(/.+/);
      const taskId = task.taskId!;
      const statuses: string[] = [];
      for (let i = 0; i < 3; i++) statuses.push(await task.poll());
      expect(statuses).toEqual(['working', 'working', 'working']);
      const result = await task.result();
      const ranOn = textOf(result).split(' ')[0]!;
      expect(textOf(result)).toMatch(/^[ABC] job done$/);

      // A task cancelled through another instance than the one running it reads cancelled through every instance.
      const second = await client.callToolAsTask({ name: 'job', arguments: { ms: 20_000 } }, { pollIntervalMs: 100 });
      const secondId = second.taskId!;
      await second.cancel();
      const afterCancel: string[] = [];
      for (let i = 0; i < 3; i++) afterCancel.push(((await client.request<{ status: string }>('tasks/get', { taskId: secondId })).status));
      expect(afterCancel).toEqual(['cancelled', 'cancelled', 'cancelled']);
      // The cancellation reached the work where it runs: its job stopped there (and nowhere else).
      const stopped = new Map<string, string>();
      expect(await eventually(async () => {
        const [name, count] = textOf(await client.callTool({ name: 'stopped', arguments: {} })).split(' ') as [string, string];
        stopped.set(name, count);
        return stopped.size === 3;
      }, 5000)).toBe(true);

      // A task that asks for input (input_required), its tasks/update sent so that it lands on another instance than
      // the one running the task: nginx's round-robin goes A, B, C in turn, so after an answer from W the next
      // request goes to the one after W.
      const created = await client.request<{ resultType: string; taskId: string }>('tools/call', { name: 'approve', arguments: {} });
      expect(created.resultType).toBe('task');
      type Detailed = { status: string; inputRequests?: Record<string, unknown>; result?: { content: { text: string }[] } };
      let waiting: Detailed | undefined;
      expect(await eventually(async () => {
        waiting = await client.request<Detailed>('tasks/get', { taskId: created.taskId });
        return waiting.status === 'input_required';
      }, 5000)).toBe(true);
      const key = Object.keys(waiting!.inputRequests ?? {})[0]!;
      const askedOn = cluster.accessLog().filter((e) => e.tag === 'tasks:tools/call:approve').map((e) => e.upstreams.at(-1)!)[0]!;
      const after = (name: string): string => NAMES[(NAMES.indexOf(name as (typeof NAMES)[number]) + 1) % NAMES.length]!;
      if (after(textOf(await client.callTool({ name: 'whoami', arguments: {} }))) === askedOn) await client.callTool({ name: 'whoami', arguments: {} });
      await client.request('tasks/update', { taskId: created.taskId, inputResponses: { [key]: { action: 'accept', content: { ok: true } } } });
      let done: Detailed | undefined;
      expect(await eventually(async () => {
        done = await client.request<Detailed>('tasks/get', { taskId: created.taskId });
        return done.status === 'completed';
      }, 5000)).toBe(true);
      expect(done!.result!.content[0]!.text).toBe(`${askedOn} approved accept true`);

      // Where each landed (nginx's log: a request is logged when it ends, and these all ended).
      const log = cluster.accessLog().filter((e) => e.tag.startsWith('tasks:'));
      const where = (tag: string): string[] => log.filter((e) => e.tag === `tasks:${tag}`).map((e) => e.upstreams.at(-1)!);
      const [madeOn, secondMadeOn] = where('tools/call:job');
      expect(madeOn).toBe(ranOn); // the task runs where it was made
      const gets = where('tasks/get');
      expect(new Set(gets)).toEqual(new Set(NAMES)); // polled and read through every instance
      const cancelledOn = where('tasks/cancel');
      expect(cancelledOn).toHaveLength(1);
      expect(cancelledOn[0]).not.toBe(secondMadeOn);
      expect(stopped).toEqual(new Map(NAMES.map((name) => [name, name === secondMadeOn ? '1' : '0'])));
      const updatedOn = where('tasks/update');
      expect(updatedOn).toHaveLength(1);
      expect(updatedOn[0]).not.toBe(askedOn);

      // The instance that ran the first task dies: its result is still there, read through the survivors (by a
      // second client, so that nginx's log tells its requests apart; nginx logs a request once it has answered it).
      const victim = cluster.instances.find((one) => one.name === ranOn)!;
      await stop(victim.child, 'SIGKILL');
      const reader = await modernClient(cluster.url, 'after-kill:', true);
      try {
        for (let i = 0; i < 3; i++) {
          const got = await reader.request<{ status: string; result?: { content: { text: string }[] } }>('tasks/get', { taskId });
          expect(got).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: `${ranOn} job done` }] } });
        }
      } finally {
        await reader.close();
      }
      const afterKill = (): AccessEntry[] => cluster.accessLog().filter((e) => e.tag === 'after-kill:tasks/get');
      expect(await eventually(() => afterKill().length === 3, 5000)).toBe(true);
      const survivors = afterKill().map((e) => e.upstreams.at(-1)!);
      expect(survivors).not.toContain(ranOn);
      console.log(`redis-nginx-modern: task made on ${madeOn!}, polled on ${gets.join(',')}; second made on ${secondMadeOn!}, cancelled on ${cancelledOn[0]!}; input asked on ${askedOn}, answered on ${updatedOn[0]!}; ${ranOn} killed, result read on ${survivors.join(',')}`);
    } finally {
      await client.close();
    }
  }, 30_000);
});

// Without nginx or redis-server the suite above is skipped, and this line says why.
if (NGINX_CLUSTER_MISSING !== undefined) it.skip(NGINX_CLUSTER_MISSING, () => {});
