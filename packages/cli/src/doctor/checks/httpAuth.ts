/**
 * The auth checks of an HTTP server, after the other http checks: the challenge, protected-resource metadata and
 * token validation, then a token for another resource (`--foreign-token`), then the authorization server. They need
 * no MCP connection (a server that asks for credentials is probed without any) and skip on a server that asks for
 * none.
 */
import type { Check } from '../types.js';
import { AUTH_AUDIENCE_CHECK, AUTH_CHECK } from './http/auth.js';
import { AUTH_SERVER_CHECK } from './http/authServer.js';

/** The auth checks, in the order the doctor runs them. */
export const HTTP_AUTH_CHECKS: readonly Check[] = [AUTH_CHECK, AUTH_AUDIENCE_CHECK, AUTH_SERVER_CHECK];
