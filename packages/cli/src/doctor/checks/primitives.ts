/**
 * The primitives checks, in order: the lists (filling `facts.tools`, `resources`, `resourceTemplates`, `prompts`),
 * the definitions and schemas, the token cost, latency and stability, and the `--call` tool result.
 */
import type { Check } from '../types.js';
import { CALL_CHECKS } from './primitives/toolCall.js';
import { CATALOGUE_CHECKS } from './primitives/catalogue.js';
import { LATENCY_CHECKS } from './primitives/latency.js';

/** The primitives checks, in the order they run (each later one reads what the catalogue check put in the facts). */
export const PRIMITIVES_CHECKS: readonly Check[] = [...CATALOGUE_CHECKS, ...LATENCY_CHECKS, ...CALL_CHECKS];
