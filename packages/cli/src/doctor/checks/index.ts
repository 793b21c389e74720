/**
 * Every check, in the order the doctor runs them: start-up first (it says whether the server runs at all), then the
 * eras (what later checks connect with), the transport's hygiene (HTTP: then its auth), the protocol's answers, the primitives; last
 * the stdout watch, which judges what every process of the run wrote on stdout.
 */
import type { Check } from '../types.js';
import { ERAS_CHECKS } from './eras.js';
import { HTTP_CHECKS } from './http.js';
import { HTTP_AUTH_CHECKS } from './httpAuth.js';
import { PRIMITIVES_CHECKS } from './primitives.js';
import { PROTOCOL_CHECKS } from './protocol.js';
import { STARTUP_CHECKS } from './startup.js';
import { STDIO_CHECKS, STDIO_LATE_CHECKS } from './stdio.js';

/** Every check, in run order (what `runDoctor` runs by default). */
export const CHECKS: readonly Check[] = [...STARTUP_CHECKS, ...ERAS_CHECKS, ...STDIO_CHECKS, ...HTTP_CHECKS, ...HTTP_AUTH_CHECKS, ...PROTOCOL_CHECKS, ...PRIMITIVES_CHECKS, ...STDIO_LATE_CHECKS];
