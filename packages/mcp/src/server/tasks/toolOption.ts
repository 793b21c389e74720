/**
 * A tool's `task` option (`ToolDefinition.task`), checked and completed once at registration.
 */
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
 * @throws TypeError when the option is neither a boolean nor an object, or a duration in it is not a positive
 *   number (`afterMs`: not a number of 0 or more)
 */
export function toolTaskSettings(name: string, option: boolean | ToolTaskOptions | undefined): ToolTaskSettings | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) return { required: false, ttlMs: undefined, pollIntervalMs: undefined, afterMs: 0 };
  if (!isRecord(option)) throw new TypeError(`Invalid task option of tool "${name}": expected a boolean or an object`);
  const o: ToolTaskOptions = option;
  for (const key of ['ttlMs', 'pollIntervalMs'] as const) {
    const value: unknown = o[key];
    if (value !== undefined && !(typeof value === 'number' && value > 0)) throw new TypeError(`Invalid task option of tool "${name}": "${key}" must be a positive number of milliseconds`);
  }
  const afterMs: unknown = o.afterMs;
  if (afterMs !== undefined && !(typeof afterMs === 'number' && afterMs >= 0)) {
    throw new TypeError(`Invalid task option of tool "${name}": "afterMs" must be a number of milliseconds, 0 or more`);
  }
  return { required: o.required === true, ttlMs: o.ttlMs, pollIntervalMs: o.pollIntervalMs, afterMs: o.afterMs ?? 0 };
}
