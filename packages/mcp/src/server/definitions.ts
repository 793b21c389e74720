/**
 * Registration checks of {@link McpServer} definitions that need no schema: names, handlers, prompt argument
 * declarations, resource URIs. Each refuses, with a `TypeError` that says what to change, a definition that
 * would fail every call or could not be called at all. Schemas are checked where they are compiled
 * (`schema.ts`, `schemaCheck.ts`).
 *
 * @see MCP 2025-11-25 server/tools.mdx "Tool Names", server/prompts.mdx, server/resources.mdx
 */
import type { Logger } from '@switchboard/jsonrpc';

/**
 * The portable tool-name rule: 1–64 characters of `A-Z a-z 0-9 _ - .`. MCP 2025-11-25 and 2026-07-28
 * server/tools.mdx "Tool Names" say names SHOULD be 1–128 of `A-Z a-z 0-9 _ - .`; the official conformance suite
 * for 2026-07-28 checks 1–64 of `A-Z a-z 0-9 _ . / -`. A name inside both is safe with every host; one outside
 * either is accepted with a warning (both rules are SHOULDs).
 */
const TOOL_NAME_RULE = /^[A-Za-z0-9_.-]{1,64}$/;
/** Longest tool name accepted at all (the rule's bound): longer names are refused. */
const MAX_TOOL_NAME_LENGTH = 128;
/** Whitespace or control characters: no revision accepts them in a name, and hosts cannot display or type them. */
const WHITESPACE_OR_CONTROL = /[\s\p{Cc}]/u;

/** `scheme:rest` with a scheme per RFC 3986 §3.1, and no character a URI cannot hold unencoded (§2). */
const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const NOT_IN_URI = /[\s\p{Cc}<>"{}|\\^`]/u;
const BAD_PERCENT = /%(?![0-9A-Fa-f]{2})/;

type Kind = 'tool' | 'resource' | 'resource template' | 'prompt';

function label(kind: Kind, key: unknown): string {
  const what = kind.charAt(0).toUpperCase() + kind.slice(1);
  return `${what} ${typeof key === 'string' ? JSON.stringify(key) : String(key)}`;
}

/** Refuses a definition that is not an object and a handler that is not a function (`call`: its signature, for the message). */
function checkShape(kind: Kind, key: unknown, given: { readonly definition: unknown; readonly handler: unknown; readonly call: string }): void {
  const { definition, handler, call } = given;
  if (typeof definition !== 'object' || definition === null || Array.isArray(definition)) {
    const got = typeof definition === 'function' ? 'a function' : definition === null ? 'null' : Array.isArray(definition) ? 'an array' : typeof definition;
    throw new TypeError(`Invalid ${kind} definition: ${label(kind, key)} needs a definition object as its second argument and the handler as its third: got ${got}`);
  }
  if (typeof handler !== 'function') {
    throw new TypeError(`Invalid ${kind} definition: ${label(kind, key)} needs a handler function as its third argument, ${call}: got ${handler === null ? 'null' : typeof handler}`);
  }
}

function checkCompleters(kind: Kind, key: unknown, complete: unknown): void {
  if (complete === undefined) return;
  if (typeof complete !== 'object' || complete === null || Array.isArray(complete)) {
    throw new TypeError(`Invalid ${kind} definition: "complete" of ${label(kind, key)} must be an object of completion functions by argument name`);
  }
  for (const [name, completer] of Object.entries(complete)) {
    if (typeof completer !== 'function') {
      throw new TypeError(`Invalid ${kind} definition: completion "${name}" of ${label(kind, key)} must be a function (value, context) => string[]: got ${typeof completer}`);
    }
  }
}

/**
 * Checks a tool registration: the name (refused when empty, over 128 characters, or holding whitespace or
 * control characters; a warning on `logger` when outside the portable naming rule), the definition object and the
 * handler.
 * @throws TypeError with what to change
 */
export function checkToolDefinition(tool: { readonly name: unknown; readonly definition: unknown; readonly handler: unknown }, logger: Logger): void {
  const { name, definition, handler } = tool;
  if (typeof name !== 'string') throw new TypeError(`Invalid tool name: expected a string: got ${typeof name}`);
  if (name.length === 0) throw new TypeError('Invalid tool name: the name is empty: give the tool a name such as "get_weather"');
  if ([...name].length > MAX_TOOL_NAME_LENGTH) {
    throw new TypeError(`Invalid tool name: ${JSON.stringify(`${name.slice(0, 40)}...`)} has ${[...name].length} characters: use at most ${MAX_TOOL_NAME_LENGTH}`);
  }
  if (WHITESPACE_OR_CONTROL.test(name)) {
    throw new TypeError(`Invalid tool name: ${JSON.stringify(name)} contains whitespace or a control character: use "_", "-" or "." instead`);
  }
  if (!TOOL_NAME_RULE.test(name)) {
    logger.warn(
      `Tool name outside the portable naming rule (1-64 characters of A-Z a-z 0-9 _ - .; MCP 2025-11-25 and 2026-07-28 server/tools.mdx "Tool Names" allow 128 without "/", the 2026-07-28 conformance suite 64 with "/"): ${JSON.stringify(name)}; some hosts refuse such tools`,
    );
  }
  checkShape('tool', name, { definition, handler, call: '(args, ctx) => CallToolResult' });
}

/**
 * Checks a static resource registration: `uri` must be a URI (a scheme, then no whitespace, control or
 * other characters a URI cannot hold unencoded, and well-formed `%XX` escapes), then the definition and handler.
 * @throws TypeError with what to change
 */
/**
 * Whether `text` is a URI as a request names one (a scheme, then no whitespace, control or non-ASCII character, and
 * `%` only as an escape): the same rule registration applies.
 * @see RFC 3986 §3; MCP 2026-07-28 schema.ts `ReadResourceRequestParams.uri` (format uri)
 */
export function isUri(text: string): boolean {
  return URI_SCHEME.test(text) && !NOT_IN_URI.test(text) && !BAD_PERCENT.test(text);
}

export function checkResourceDefinition(uri: unknown, definition: unknown, handler: unknown): void {
  if (typeof uri !== 'string') throw new TypeError(`Invalid resource URI: expected a string: got ${typeof uri}`);
  if (!URI_SCHEME.test(uri)) {
    throw new TypeError(`Invalid resource URI: ${JSON.stringify(uri)} has no scheme: write it as an absolute URI such as "file:///path" or "myapp://item/1"`);
  }
  const bad = NOT_IN_URI.exec(uri);
  if (bad !== null) {
    throw new TypeError(`Invalid resource URI: ${JSON.stringify(uri)} contains ${JSON.stringify(bad[0])}, which a URI cannot hold: percent-encode it (${encodeURIComponent(bad[0])})`);
  }
  if (BAD_PERCENT.test(uri)) throw new TypeError(`Invalid resource URI: ${JSON.stringify(uri)} has a "%" not followed by two hex digits: write "%25" for a literal "%"`);
  checkShape('resource', uri, { definition, handler, call: '(uri, ctx) => ReadResourceResult' });
}

/**
 * Checks a resource template registration: the definition, the handler and its completion functions (the
 * template itself is parsed by `UriTemplate`).
 * @throws TypeError with what to change
 */
export function checkResourceTemplateDefinition(uriTemplate: unknown, definition: unknown, handler: unknown): void {
  if (typeof uriTemplate !== 'string') throw new TypeError(`Invalid resource template: expected a string: got ${typeof uriTemplate}`);
  checkShape('resource template', uriTemplate, { definition, handler, call: '(uri, variables, ctx) => ReadResourceResult' });
  checkCompleters('resource template', uriTemplate, (definition as { complete?: unknown }).complete);
}

/**
 * Checks a prompt registration: a string name, the definition, the handler, the argument declarations (an
 * array of objects with a non-empty string `name`, no name twice, `required` a boolean when present) and the
 * completion functions.
 * @throws TypeError with what to change
 */
export function checkPromptDefinition(name: unknown, definition: unknown, handler: unknown): void {
  if (typeof name !== 'string' || name.length === 0) throw new TypeError(`Invalid prompt name: expected a non-empty string: got ${JSON.stringify(name) ?? typeof name}`);
  checkShape('prompt', name, { definition, handler, call: '(args, ctx) => GetPromptResult' });
  const declared = (definition as { arguments?: unknown }).arguments;
  if (declared !== undefined) {
    if (!Array.isArray(declared)) throw new TypeError(`Invalid prompt definition: "arguments" of ${label('prompt', name)} must be an array of { name, description?, required? }`);
    const seen = new Set<string>();
    for (const [i, argument] of declared.entries()) {
      const argName = (argument as { name?: unknown } | null)?.name;
      if (typeof argName !== 'string' || argName.length === 0) {
        throw new TypeError(`Invalid prompt definition: argument ${i} of ${label('prompt', name)} needs a non-empty string "name"`);
      }
      if (seen.has(argName)) throw new TypeError(`Invalid prompt definition: ${label('prompt', name)} declares the argument "${argName}" twice: give each argument its own name`);
      seen.add(argName);
      const required = (argument as { required?: unknown }).required;
      if (required !== undefined && typeof required !== 'boolean') {
        throw new TypeError(`Invalid prompt definition: "required" of argument "${argName}" of ${label('prompt', name)} must be true or false: got ${JSON.stringify(required)}`);
      }
    }
  }
  checkCompleters('prompt', name, (definition as { complete?: unknown }).complete);
}
