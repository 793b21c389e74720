/**
 * Media types of the MCP HTTP transports (RFC 9110 §8.3, §12.5.1): the essence of a `Content-Type`, whether it is
 * JSON, whether an `Accept` header allows a type, and the type a POST's answer takes.
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

/**
 * How the server prefers to answer a POST that carries requests (MCP 2025-11-25 basic/transports.mdx "Sending
 * Messages to the Server" item 5): `auto` decides per exchange when the client accepts both types (see
 * {@link ResponseShape} `adaptive`); `sse` and `json` force one type whenever the client accepts it.
 */
export type ResponseMode = 'auto' | 'json' | 'sse';

/**
 * How one POST is answered: `json` one `application/json` body; `sse` a `text/event-stream`; `adaptive` the
 * exchange writer decides at the first outbound message (the response alone ⇒ JSON; a notification or
 * server→client request first, or nothing within `sseAfterMs` ⇒ SSE).
 */
export type ResponseShape = 'adaptive' | 'json' | 'sse';

const BOTH_ACCEPTED = 'application/json, text/event-stream';
const BOTH_ACCEPTED_SSE_FIRST = 'text/event-stream, application/json';

/**
 * Chooses how to answer a POST that carries requests. `auto`: both types accepted ⇒ `adaptive`, else the one
 * accepted. `sse`: SSE when accepted. `json` and `sse` answer a client that accepts only JSON with JSON (field bug
 * B19: the "list both types" MUST is on the client; a server able to answer with a type the client accepts should
 * do so). Pure. `undefined` means 406.
 * @see MCP 2025-11-25 basic/transports.mdx "Sending Messages to the Server" items 2 and 5
 */
export function negotiateResponseShape(accept: string | undefined, mode: ResponseMode): ResponseShape | undefined {
  // The official clients' Accept, spelled out: both types without parsing the header (every POST carries it).
  if (accept === BOTH_ACCEPTED || accept === BOTH_ACCEPTED_SSE_FIRST) return mode === 'auto' ? 'adaptive' : mode;
  const json = acceptsMediaType(accept, 'application/json');
  if (mode === 'json') return json ? 'json' : undefined;
  const sse = acceptsMediaType(accept, 'text/event-stream');
  if (mode === 'auto' && sse && json) return 'adaptive';
  return sse ? 'sse' : json ? 'json' : undefined;
}

