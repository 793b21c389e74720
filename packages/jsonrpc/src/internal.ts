/**
 * @switchboard/jsonrpc/internal — engine helpers that exist for `@switchboard/mcp` and the CLI (timers that never
 * fire early or overflow, the checks of numeric options, the JSON depth and batch size checks the transports run
 * before parsing, the reply serializer, the map for requests in flight). The gateway, the dashboard and the Redis
 * stores use public API only (eslint.config.js).
 * Not public API: no stability promise, and nothing outside this repository should import it.
 * @packageDocumentation
 */
export { exceedsJsonDepth } from './json.js';
export { stringifyReply } from './reply.js';
export { batchTooLarge } from './batch.js';
export { TransientMap } from './transientMap.js';
export { clampTimerMs, setUnrefTimeout } from './timers.js';
export { checkCount, checkCountOption, checkMs, checkMsOption, msError, shownValue, type CountRule, type MsRule } from './optionChecks.js';
