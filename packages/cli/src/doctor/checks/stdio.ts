/** The stdio checks: what a stdio server writes on stdout and how it answers, on one raw session. */
import type { Check } from '../types.js';
import { STDIO_HYGIENE_CHECK } from './stdio/hygiene.js';

export const STDIO_CHECKS: readonly Check[] = [STDIO_HYGIENE_CHECK];
