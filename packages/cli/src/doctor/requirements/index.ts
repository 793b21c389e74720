/**
 * The requirements manifest: every rule the doctor checks and the test suite verifies, written once (id → spec
 * section → behaviour → revisions → transports, with causes and fix).
 */
import type { Requirement } from '../types.js';
import { ERAS_REQUIREMENTS } from './eras.js';
import { HTTP_REQUIREMENTS } from './http.js';
import { HTTP_AUTH_REQUIREMENTS } from './httpAuth.js';
import { PRIMITIVES_REQUIREMENTS } from './primitives.js';
import { PROTOCOL_REQUIREMENTS } from './protocol.js';
import { STARTUP_REQUIREMENTS } from './startup.js';
import { STDIO_REQUIREMENTS } from './stdio.js';

/** Every requirement, by area. */
export const REQUIREMENTS: readonly Requirement[] = [
  ...STARTUP_REQUIREMENTS,
  ...STDIO_REQUIREMENTS,
  ...HTTP_REQUIREMENTS,
  ...HTTP_AUTH_REQUIREMENTS,
  ...ERAS_REQUIREMENTS,
  ...PROTOCOL_REQUIREMENTS,
  ...PRIMITIVES_REQUIREMENTS,
];

const byId = new Map(REQUIREMENTS.map((r) => [r.id, r]));

/** The requirement of an id, or `undefined`. */
export function requirement(id: string): Requirement | undefined {
  return byId.get(id);
}
