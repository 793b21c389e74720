/** The primitives checks. */
import type { Check } from '../types.js';

export const PRIMITIVES_CHECKS: readonly Check[] = [];
