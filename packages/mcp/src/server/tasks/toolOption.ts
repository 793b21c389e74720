/**
 * A tool's `task` option (`ToolDefinition.task`), checked and completed once at registration.
 */
import { checkMsOption } from '@switchboard/jsonrpc/internal';
import { isRecord } from '../params.js';
import type { ToolTaskOptions } from '../types.js';

/** A tool's task option, checked and completed at registration. */
export interface ToolTaskSettings {
  readonly required: boolean;
  readonly ttlMs: number | undefined;
  readonly pollIntervalMs: number | undefined;
  readonly afterMs: number;
}

/**
 * The task settings of a tool's `task` option (`undefined`: not task-capable).
 * @throws TypeError when the option is neither a boolean nor an object, or a duration in it is not a number
 * @throws RangeError when `ttlMs` is not above 0, `pollIntervalMs` not above 0 and at most 2^31 − 1, or `afterMs`
 *   negative (`NaN` never)
 */
export function toolTaskSettings(name: string, option: boolean | ToolTaskOptions | undefined): ToolTaskSettings | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) return { required: false, ttlMs: undefined, pollIntervalMs: undefined, afterMs: 0 };
  if (!isRecord(option)) throw new TypeError(`Invalid task option of tool "${name}": expected a boolean or an object`);
  const o: ToolTaskOptions = option;
  // pollIntervalMs goes on the wire as it is (a JSON number: never Infinity); a ttlMs is capped by tasks.maxTtlMs.
  checkMsOption(`task.ttlMs of tool "${name}"`, o.ttlMs, { above: 0, max: Infinity });
  checkMsOption(`task.pollIntervalMs of tool "${name}"`, o.pollIntervalMs, { above: 0 });
  checkMsOption(`task.afterMs of tool "${name}"`, o.afterMs, { max: Infinity });
  return { required: o.required === true, ttlMs: o.ttlMs, pollIntervalMs: o.pollIntervalMs, afterMs: o.afterMs ?? 0 };
}
