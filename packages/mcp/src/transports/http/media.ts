/**
 * Media types of the MCP HTTP transports (RFC 9110 §8.3, §12.5.1): the essence of a `Content-Type`, whether it is
 * JSON, and whether an `Accept` header allows a type.
 */

/**
 * The essence of a media type (RFC 9110 §8.3.1): the part before any `;`, trimmed and lower-cased.
 * @param value - A `Content-Type` value.
 * @returns The essence, or `undefined` for `undefined`.
 * @example mediaTypeEssence('Application/JSON; charset=utf-8') // 'application/json'
 */
export function mediaTypeEssence(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const semi = value.indexOf(';');
  return (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase();
}

/**
 * Whether a `Content-Type` is JSON. Parameters and letter case are tolerated (field bug B21; RFC 9110 §8.3:
 * media types are case-insensitive and take parameters).
 * @example isJsonContentType('application/json;charset=UTF-8') // true
 */
export function isJsonContentType(value: string | undefined): boolean {
  return value === 'application/json' || mediaTypeEssence(value) === 'application/json';
}

/**
 * Whether an `Accept` header allows `type` (RFC 9110 §12.5.1): a missing or empty header allows everything;
 * `type`, `major/*` and `*∕*` match; the most specific matching range decides; `q=0` means "not acceptable".
 * @param accept - The `Accept` value.
 * @param type - A full media type such as `application/json`.
 * @example acceptsMediaType('application/*', 'application/json') // true
 */
export function acceptsMediaType(accept: string | undefined, type: string): boolean {
  if (accept === undefined) return true;
  const trimmed = accept.trim();
  if (trimmed === '') return true;
  const major = type.slice(0, type.indexOf('/'));
  let bestSpecificity = 0;
  let bestQ = 0;
  for (const range of trimmed.split(',')) {
    const parts = range.split(';');
    const essence = (parts[0] ?? '').trim().toLowerCase();
    const specificity = essence === type ? 3 : essence === `${major}/*` ? 2 : essence === '*/*' ? 1 : 0;
    if (specificity === 0 || specificity < bestSpecificity) continue;
    let q = 1;
    for (let i = 1; i < parts.length; i++) {
      const param = (parts[i] ?? '').trim().toLowerCase();
      if (param.startsWith('q=')) {
        const parsed = Number(param.slice(2));
        if (!Number.isNaN(parsed)) q = parsed;
      }
    }
    if (specificity > bestSpecificity) {
      bestSpecificity = specificity;
      bestQ = q;
    } else if (q > bestQ) {
      bestQ = q;
    }
  }
  return bestSpecificity > 0 && bestQ > 0;
}

