/** The protocol checks. */
import type { Check } from '../types.js';

export const PROTOCOL_CHECKS: readonly Check[] = [];
