/** The startup requirements (see `Requirement`): one entry per rule, its spec section, causes and fix. */
import type { Requirement } from '../types.js';

export const STARTUP_REQUIREMENTS: readonly Requirement[] = [];
