/**
 * Checks of what handlers return, before it goes on the wire. Each function returns `undefined` when the value
 * is valid (and allocates nothing then: the success path stays cheap) or a sentence saying what is wrong, which
 * the server logs before it answers -32603 "Internal error" with none of that text.
 *
 * The outer shape (an object with its `content` / `contents` / `messages` array) is always checked; the
 * members are checked when {@link resultChecksEnabled} says so (by default everywhere but `NODE_ENV=production`).
 *
 * @see MCP 2025-11-25 schema.ts ContentBlock, CallToolResult, GetPromptResult, ReadResourceResult
 */
import { ErrorCode, JsonRpcError, type Logger } from '@switchboard/jsonrpc';

/** The content block types and the string members each needs (MCP 2025-11-25 schema.ts ContentBlock). */
const CONTENT_TYPES = '"text", "image", "audio", "resource_link" or "resource"';

/**
 * Whether member-level result checks run: `option` when given, else everywhere but `NODE_ENV=production`
 * (read defensively: `server/` runs on any JavaScript runtime).
 */
export function resultChecksEnabled(option: boolean | undefined): boolean {
  if (option !== undefined) return option;
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.NODE_ENV !== 'production';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function needsString(block: Record<string, unknown>, key: string, type: string): string | undefined {
  return typeof block[key] === 'string' ? undefined : `of type "${type}" needs a string "${key}"`;
}

/**
 * What is wrong with one content block, as a phrase to put after its location (`content[0] ` + problem), or
 * `undefined`.
 */
export function contentBlockProblem(block: unknown): string | undefined {
  if (!isRecord(block)) return 'is not a content block object';
  const type = block.type;
  switch (type) {
    case 'text':
      return needsString(block, 'text', type);
    case 'image':
    case 'audio':
      return needsString(block, 'data', type) ?? needsString(block, 'mimeType', type);
    case 'resource_link':
      return needsString(block, 'uri', type) ?? needsString(block, 'name', type);
    case 'resource': {
      const problem = resourceContentsProblem(block.resource);
      return problem === undefined ? undefined : `of type "resource" has a "resource" with ${problem}`;
    }
    default:
      return `has an unknown type ${typeof type === 'string' ? JSON.stringify(type) : '(none)'}: expected ${CONTENT_TYPES}`;
  }
}

/** One `TextResourceContents` / `BlobResourceContents`: a string `uri` and a string `text` or `blob`. */
function resourceContentsProblem(item: unknown): string | undefined {
  if (!isRecord(item)) return 'no object with "uri" and "text" or "blob"';
  if (typeof item.uri !== 'string') return 'no string "uri"';
  if (typeof item.text !== 'string' && typeof item.blob !== 'string') return `no string "text" or "blob" (uri ${JSON.stringify(item.uri)})`;
  return undefined;
}

/** What is wrong with the `content` blocks of a tool result (already known to be an array), or `undefined`. */
export function toolContentProblem(content: readonly unknown[]): string | undefined {
  for (let i = 0; i < content.length; i++) {
    const problem = contentBlockProblem(content[i]);
    if (problem !== undefined) return `content[${i}] ${problem}`;
  }
  return undefined;
}

/** What is wrong with a `prompts/get` result, or `undefined`; `deep` also checks each message. */
export function promptResultProblem(result: unknown, deep: boolean): string | undefined {
  if (!isRecord(result) || !Array.isArray(result.messages)) {
    return `a value that is not a GetPromptResult (an object with a "messages" array): got ${typeof result === 'string' ? 'a string' : Array.isArray(result) ? 'an array' : result === null ? 'null' : typeof result}`;
  }
  if (!deep) return undefined;
  const messages: unknown[] = result.messages;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (!isRecord(message)) return `messages[${i}] is not an object with "role" and "content"`;
    if (message.role !== 'user' && message.role !== 'assistant') return `messages[${i}] has role ${JSON.stringify(message.role) ?? 'undefined'}: expected "user" or "assistant"`;
    const problem = contentBlockProblem(message.content);
    if (problem !== undefined) return `messages[${i}].content ${problem}`;
  }
  return undefined;
}

/** What is wrong with a `resources/read` result, or `undefined`; `deep` also checks each `contents` item. */
export function resourceResultProblem(result: unknown, deep: boolean): string | undefined {
  if (!isRecord(result) || !Array.isArray(result.contents)) return 'a value without a "contents" array';
  if (!deep) return undefined;
  const contents: unknown[] = result.contents;
  for (let i = 0; i < contents.length; i++) {
    const problem = resourceContentsProblem(contents[i]);
    if (problem !== undefined) return `contents[${i}] has ${problem}`;
  }
  return undefined;
}

const INTERNAL_ERROR = 'Internal error';

/**
 * Logs one line (`<subject> returned an invalid result: <problem>`) and returns the wire error: -32603
 * "Internal error", with none of the problem's text.
 */
export function invalidResult(logger: Logger, subject: string, problem: string): JsonRpcError {
  logger.error(`${subject} returned an invalid result: ${problem}`);
  return new JsonRpcError(ErrorCode.InternalError, INTERNAL_ERROR);
}
