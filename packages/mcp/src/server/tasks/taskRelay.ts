/**
 * The tasks of a cluster of instances (the server's `cluster` option): a task runs on the instance whose
 * `tools/call` started it, and its record names that instance (`TaskRecord.runner`); a 2026-07-28 `tasks/update`
 * that lands on another instance is forwarded over the {@link ClusterBus} (channel {@link taskChannel} of the running
 * instance), which hands the input responses to the task and answers whether it ran there. With leases, an instance
 * whose lease lapsed is known dead before asking: its tasks will never end, so they are stored `failed`.
 *
 * Cancellation needs none of this: the store is where a cancellation is seen (see `TaskRunner.cancel`).
 *
 * @see the extension `io.modelcontextprotocol/tasks` "Task Update Requests"
 */
import type { Logger, TimerHandle } from '@switchboard/jsonrpc';
import { checkMsOption, setUnrefTimeout } from '@switchboard/jsonrpc/internal';
import { taskChannel, type ClusterBus, type ClusterTaskMessage } from '../../stores/clusterBus.js';
import { instanceLeaseKey, type LeaseStore } from '../../stores/leaseStore.js';
import type { ServerClusterOptions } from '../options.js';
import type { TaskRunner } from './runner.js';

/** @see {@link ServerClusterOptions.forwardTimeoutMs} */
export const DEFAULT_TASK_FORWARD_TIMEOUT_MS = 5000;
/** @see {@link ServerClusterOptions.leaseTtlMs} */
export const DEFAULT_SERVER_LEASE_TTL_MS = 10_000;
/** Forwarded updates waiting for their answer at once, at most; one more is answered as unreachable. */
const MAX_PENDING_FORWARDS = 10_000;

/** What became of input forwarded to the instance running a task (see {@link TaskRelay.forward}). */
export type ForwardOutcome =
  /** The task ran there and took the responses. */
  | 'delivered'
  /** The instance is gone (its lease lapsed), or alive but not running the task: the task will never end. */
  | 'lost'
  /** No answer in time (the instance may be alive but slow, or the bus failed). */
  | 'unreachable';

const INSTANCE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Checks the `cluster` option.
 * @throws TypeError when it is not an object, `bus` lacks `publish`/`subscribe`, `leases` lacks
 *   `acquire`/`get`/`release`, or `instanceId` is not 1–64 letters, digits, `_` or `-`
 * @throws RangeError when `leaseTtlMs` (at least 3) or `forwardTimeoutMs` (at least 1) is not an integer of ms in range
 *   (TypeError when not a number)
 */
export function checkServerClusterOptions(value: ServerClusterOptions | undefined): void {
  if (value === undefined) return;
  if (typeof value !== 'object' || value === null) throw new TypeError('Invalid option cluster: expected an object ({ bus, instanceId, leases?, leaseTtlMs?, forwardTimeoutMs? })');
  const bus = value.bus as Partial<ClusterBus> | undefined;
  if (typeof bus?.publish !== 'function' || typeof bus.subscribe !== 'function') throw new TypeError('Invalid option cluster.bus: expected a ClusterBus (publish, subscribe)');
  const leases = value.leases as Partial<LeaseStore> | undefined;
  if (leases !== undefined && (typeof leases?.acquire !== 'function' || typeof leases.get !== 'function' || typeof leases.release !== 'function')) {
    throw new TypeError('Invalid option cluster.leases: expected a LeaseStore (acquire, get, release)');
  }
  if (typeof value.instanceId !== 'string' || !INSTANCE_ID.test(value.instanceId)) throw new TypeError('Invalid option cluster.instanceId: expected 1 to 64 letters, digits, "_" or "-"');
  checkMsOption('cluster.leaseTtlMs', value.leaseTtlMs, { min: 3, integer: true });
  checkMsOption('cluster.forwardTimeoutMs', value.forwardTimeoutMs, { min: 1, integer: true });
}

/** One instance's side of the cluster's tasks (see the module documentation); not exported from an entry. */
export class TaskRelay {
  readonly instanceId: string;
  readonly #bus: ClusterBus;
  readonly #leases: LeaseStore | undefined;
  readonly #leaseTtlMs: number;
  readonly #timeoutMs: number;
  readonly #runner: TaskRunner;
  readonly #logger: Logger;
  readonly #pending = new Map<string, (running: boolean | undefined) => void>();
  readonly #unsubscribe: () => void;
  #heartbeat: TimerHandle | undefined;
  #seq = 0;
  #closed = false;

  constructor(options: ServerClusterOptions, runner: TaskRunner, logger: Logger) {
    this.instanceId = options.instanceId;
    this.#bus = options.bus;
    this.#leases = options.leases;
    this.#leaseTtlMs = options.leaseTtlMs ?? DEFAULT_SERVER_LEASE_TTL_MS;
    this.#timeoutMs = options.forwardTimeoutMs ?? DEFAULT_TASK_FORWARD_TIMEOUT_MS;
    this.#runner = runner;
    this.#logger = logger;
    this.#unsubscribe = this.#bus.subscribe<ClusterTaskMessage>(taskChannel(this.instanceId), (message) => this.#hear(message));
    this.#beat();
  }

  /**
   * Hands `responses` to task `taskId`, which runs on instance `runner` (not this one), and waits for its answer
   * (at most `forwardTimeoutMs`).
   */
  async forward(taskId: string, runner: string, responses: Readonly<Record<string, unknown>>): Promise<ForwardOutcome> {
    if (this.#closed || this.#pending.size >= MAX_PENDING_FORWARDS) return 'unreachable';
    const leases = this.#leases;
    if (leases !== undefined && (await leases.get(instanceLeaseKey(runner)).catch(() => null)) === undefined) return 'lost';
    const replyId = `${this.instanceId}:${++this.#seq}`;
    const answer = new Promise<boolean | undefined>((resolve) => {
      const timer = setUnrefTimeout(() => settle(undefined), this.#timeoutMs);
      const settle = (running: boolean | undefined): void => {
        clearTimeout(timer);
        this.#pending.delete(replyId);
        resolve(running);
      };
      this.#pending.set(replyId, settle);
    });
    try {
      await this.#bus.publish(taskChannel(runner), { type: 'task_input', from: this.instanceId, replyId, taskId, responses });
    } catch (error) {
      this.#logger.warn('Cluster bus failed: input for a task on another instance was not sent', { taskId, runner, error });
      this.#pending.get(replyId)?.(undefined);
    }
    const running = await answer;
    return running === undefined ? 'unreachable' : running ? 'delivered' : 'lost';
  }

  /** Stops listening and renewing, gives the lease up; forwards still waiting are answered unreachable. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#heartbeat !== undefined) clearTimeout(this.#heartbeat);
    this.#unsubscribe();
    for (const settle of [...this.#pending.values()]) settle(undefined);
    await this.#leases?.release(instanceLeaseKey(this.instanceId), this.instanceId).catch((error: unknown) => {
      this.#logger.warn('Lease store failed releasing the instance lease', { error });
    });
  }

  #hear(message: ClusterTaskMessage): void {
    if (message.type === 'task_input_result') {
      this.#pending.get(message.replyId)?.(message.running === true);
      return;
    }
    if (message.type !== 'task_input' || typeof message.taskId !== 'string' || typeof message.from !== 'string') return;
    const responses = typeof message.responses === 'object' && message.responses !== null ? message.responses : {};
    void this.#runner
      .provide(message.taskId, responses)
      .catch((error: unknown) => {
        this.#logger.error('Input from another instance not handed to its task', { taskId: message.taskId, error });
        return false;
      })
      .then((running) => this.#bus.publish(taskChannel(message.from), { type: 'task_input_result', from: this.instanceId, replyId: message.replyId, running }))
      .catch((error: unknown) => this.#logger.warn('Cluster bus failed: the answer to forwarded task input was not sent', { taskId: message.taskId, error }));
  }

  /** Renews the instance lease, then arms the next renewal (a third of the TTL later). */
  #beat(): void {
    const leases = this.#leases;
    if (leases === undefined || this.#closed) return;
    leases.acquire(instanceLeaseKey(this.instanceId), { holder: this.instanceId, ttlMs: this.#leaseTtlMs }).then(
      (held) => {
        if (!held) this.#logger.error('Another instance holds this instance id: give each instance its own id', { instanceId: this.instanceId });
      },
      (error: unknown) => this.#logger.warn('Lease store failed renewing the instance lease', { error }),
    );
    this.#heartbeat = setUnrefTimeout(() => this.#beat(), Math.max(1, Math.floor(this.#leaseTtlMs / 3)));
  }
}
