/** The eras checks: which revisions the server speaks (it fills the facts later checks read), then the 2026-07-28 refusals. */
import type { Check } from '../types.js';
import { MODERN_REFUSALS_CHECK } from './eras/modernRefusals.js';
import { REVISIONS_CHECK } from './eras/revisionsCheck.js';

export const ERAS_CHECKS: readonly Check[] = [REVISIONS_CHECK, MODERN_REFUSALS_CHECK];
