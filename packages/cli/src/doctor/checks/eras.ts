/** The eras checks. */
import type { Check } from '../types.js';

export const ERAS_CHECKS: readonly Check[] = [];
