/** The protocol checks: the error codes of unknown methods, tools and resources, then (only with `--call`) invalid arguments. */
import type { Check } from '../types.js';
import { BAD_ARGUMENTS_CHECK } from './protocol/badArguments.js';
import { ERROR_CODES_CHECK } from './protocol/errorCodes.js';

export const PROTOCOL_CHECKS: readonly Check[] = [ERROR_CODES_CHECK, BAD_ARGUMENTS_CHECK];
