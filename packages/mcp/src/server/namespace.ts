/**
 * The namespace of a mounted server (`mount.ts`): how its names and URIs are renamed on the server it is mounted
 * on, reversibly.
 *
 * - Tools and prompts: `<prefix>_<name>`. MCP 2025-11-25 and 2026-07-28 server/tools.mdx "Tool Names": names
 *   SHOULD be 1 to 128 characters, case-sensitive, of `A-Z a-z 0-9 _ - .`, unique within a server. A prefix of
 *   `a-z 0-9 -` and `_` keep a name inside that rule (the renamed tool is checked like a registration).
 * - Resource URIs and URI templates: the prefix joins the scheme, `<prefix>+<scheme>:<rest>`, so
 *   `file:///notes/a.md` under `docs` is `docs+file:///notes/a.md`. RFC 3986 §3.1: `scheme = ALPHA *( ALPHA /
 *   DIGIT / "+" / "-" / "." )`, so the result is a URI whenever the original is, for every scheme (hierarchical or
 *   not: `urn:`, `mailto:`); the rest is untouched, byte for byte; and a prefix holds no `+`, so the first `+` ends
 *   it and the original comes back by cutting `<prefix>+`. Schemes are case-insensitive and lower case is
 *   canonical (§3.1), so prefixes are lower case. A URI template (RFC 6570) is renamed the same way when it begins
 *   with its scheme as literal text (`docs+file:///{path}` matches exactly the renamed URIs, with the same
 *   variables); one that begins with an expression cannot be namespaced and is refused.
 */

/** A mount prefix: a lower-case letter, then lower-case letters, digits and `-` (see the module comment). */
const PREFIX = /^[a-z][a-z0-9-]*$/;
/** A literal URI scheme and its `:` at the start of a URI template (RFC 3986 §3.1). */
const LEADING_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** @throws TypeError when `prefix` is not a mount prefix */
export function checkMountPrefix(prefix: unknown): asserts prefix is string {
  if (typeof prefix !== 'string' || !PREFIX.test(prefix)) {
    const shown = typeof prefix === 'string' ? JSON.stringify(prefix) : typeof prefix;
    throw new TypeError(`Invalid mount prefix ${shown}: use a lower-case letter, then lower-case letters, digits or "-" (it becomes "<prefix>_<tool>" and the URI scheme "<prefix>+<scheme>:")`);
  }
}

/** A tool or prompt name under `prefix`. */
export function prefixedName(prefix: string, name: string): string {
  return `${prefix}_${name}`;
}

/** A resource URI under `prefix`. */
export function prefixedUri(prefix: string, uri: string): string {
  return `${prefix}+${uri}`;
}

/** The mounted server's own URI of `uri`, a URI under `prefix` (the inverse of {@link prefixedUri}). */
export function unprefixedUri(prefix: string, uri: string): string {
  return uri.slice(prefix.length + 1);
}

/** A URI template under `prefix`. @throws TypeError when the template does not begin with its scheme */
export function prefixedUriTemplate(prefix: string, template: string): string {
  if (!LEADING_SCHEME.test(template)) {
    throw new TypeError(`Cannot namespace resource template ${JSON.stringify(template)} under prefix "${prefix}": it does not begin with a literal URI scheme ("scheme:"), so "${prefix}+" cannot be joined to it`);
  }
  return `${prefix}+${template}`;
}
