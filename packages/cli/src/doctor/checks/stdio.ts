/** The stdio checks. */
import type { Check } from '../types.js';

export const STDIO_CHECKS: readonly Check[] = [];
