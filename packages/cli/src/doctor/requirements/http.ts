/** The http requirements (see `Requirement`): one entry per rule, its spec section, causes and fix. */
import type { Requirement } from '../types.js';

export const HTTP_REQUIREMENTS: readonly Requirement[] = [];
