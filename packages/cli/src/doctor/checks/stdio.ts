/** The stdio checks: what a stdio server writes on stdout and how it answers, on one raw session. */
import type { Check } from '../types.js';
import { STDIO_HYGIENE_CHECK } from './stdio/hygiene.js';
import { STDIO_STDOUT_WATCH_CHECK } from './stdio/stdoutWatch.js';

export const STDIO_CHECKS: readonly Check[] = [STDIO_HYGIENE_CHECK];

/** The stdio checks that run after all others: they judge what every process of the run wrote. */
export const STDIO_LATE_CHECKS: readonly Check[] = [STDIO_STDOUT_WATCH_CHECK];
