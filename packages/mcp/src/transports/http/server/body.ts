/**
 * Reading a JSON-RPC request body, the same way on every endpoint that takes one (the Streamable HTTP endpoint's
 * POST and the 2024-11-05 HTTP+SSE `POST /messages`): a byte cap, a cut-short body, the engine's JSON parse with
 * its nesting cap, and the batch length cap, each refused with its HTTP answer before any message is classified.
 */
import { parseJson } from '@switchboard/jsonrpc';
import { batchTooLarge } from '@switchboard/jsonrpc/internal';
import type { HttpInput, HttpOutput } from './inputOutput.js';
import { HttpStatus, errorOutput, refusalOutput } from './refusals.js';

/** The caps {@link readJsonBody} applies. */
export interface BodyLimits {
  /** The body may be at most this many bytes (`maxBodyBytes`). */
  readonly maxBytes: number;
  /** Arrays and objects may nest at most this deep (`maxJsonDepth`). */
  readonly maxDepth: number;
  /** A JSON-RPC batch may hold at most this many messages (`maxBatchSize`). */
  readonly maxBatch: number;
}

/** A body read and parsed: its JSON value (not classified yet). */
export interface JsonBody {
  readonly value: unknown;
}

/**
 * Reads and parses the body of `input`.
 * @returns The JSON value, or the HTTP answer refusing the body: 413 over `maxBytes` (RFC 9110 §15.5.14; reading
 *   stopped at the cap); 400 -32700 when the client left while sending (field bug B27) or the text is not JSON;
 *   400 -32600 when it nests deeper than `maxDepth`; 400 -32600 for a batch longer than `maxBatch` (JSON-RPC 2.0
 *   §6: refused as a whole, before any member is looked at).
 */
export async function readJsonBody(input: HttpInput, limits: BodyLimits): Promise<JsonBody | HttpOutput> {
  const read = await input.readBody(limits.maxBytes);
  if (read.kind === 'tooLarge') return refusalOutput('payloadTooLarge', { detail: `more than ${limits.maxBytes} bytes` });
  // Nobody reads this answer: the client is gone.
  if (read.kind === 'aborted') return refusalOutput('parseError', { detail: 'the request body was cut short' });
  let value: unknown;
  if (read.kind === 'parsed') value = read.value;
  else {
    const parsed = parseJson(read.text, { maxDepth: limits.maxDepth });
    // JSON-RPC 2.0 §5.1: -32700 (or -32600 for a body nested too deep), id null.
    if (!parsed.ok) return errorOutput(HttpStatus.BadRequest, parsed.reply);
    value = parsed.value;
  }
  if (Array.isArray(value) && value.length > limits.maxBatch) return errorOutput(HttpStatus.BadRequest, batchTooLarge(value.length, limits.maxBatch));
  return { value };
}

/** Whether {@link readJsonBody} refused the body. */
export function isRefusedBody(read: JsonBody | HttpOutput): read is HttpOutput {
  return Object.hasOwn(read, 'status');
}
