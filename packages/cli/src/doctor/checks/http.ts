/** The http checks. */
import type { Check } from '../types.js';

export const HTTP_CHECKS: readonly Check[] = [];
