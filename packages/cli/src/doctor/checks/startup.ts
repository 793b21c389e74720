/** The startup checks. */
import type { Check } from '../types.js';

export const STARTUP_CHECKS: readonly Check[] = [];
