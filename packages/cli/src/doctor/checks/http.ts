/**
 * The Streamable HTTP checks, in order: media types first (they say whether a plain POST works at all), then
 * GET and DELETE, sessions, the protocol version header, Host and Origin, CORS, resumption.
 */
import type { Check } from '../types.js';
import { CORS_CHECK } from './http/cors.js';
import { DNS_REBINDING_CHECK } from './http/dnsRebinding.js';
import { MEDIA_TYPES_CHECK } from './http/mediaTypes.js';
import { METHODS_CHECK } from './http/methods.js';
import { PROTOCOL_VERSION_CHECK } from './http/protocolVersion.js';
import { RESUMPTION_CHECK } from './http/resumption.js';
import { SESSIONS_CHECK } from './http/sessions.js';

/** The http checks, in the order the doctor runs them. */
export const HTTP_CHECKS: readonly Check[] = [
  MEDIA_TYPES_CHECK,
  METHODS_CHECK,
  SESSIONS_CHECK,
  PROTOCOL_VERSION_CHECK,
  DNS_REBINDING_CHECK,
  CORS_CHECK,
  RESUMPTION_CHECK,
];
