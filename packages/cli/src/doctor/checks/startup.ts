/** The start-up checks: does the server start, stay up and answer (stdio), is anything listening (HTTP). */
import type { Check } from '../types.js';
import { STDIO_STARTUP_CHECK } from './startup/startupCheck.js';
import { HTTP_STARTUP_CHECK } from './startup/reach.js';

export const STARTUP_CHECKS: readonly Check[] = [STDIO_STARTUP_CHECK, HTTP_STARTUP_CHECK];
