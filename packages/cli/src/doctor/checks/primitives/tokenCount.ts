/**
 * The token cost of a tool catalogue: what a host puts in a model's context for each tool — its `name`,
 * `description` and `inputSchema` (hosts pass these to the model API; `title`, `annotations` and `outputSchema` stay
 * on the client) — as the JSON of that list.
 *
 * Counted with the `o200k_base` encoding of `gpt-tokenizer` when that package is installed (an optional peer
 * dependency of the CLI: it weighs 30 MB with every encoding, three times the rest of the CLI, so `npx switchboard`
 * does not pull it). `o200k_base` is the encoding of OpenAI's current models (GPT-4o, GPT-4.1, GPT-5, the
 * o-series); other vendors' tokenizers are not public, and their counts for JSON differ by tens of percent, so even
 * that number is an estimate of the order of magnitude, which is what the thresholds need. Without the package the
 * count is estimated from the size: one token per 4 bytes of UTF-8 (OpenAI's rule of thumb; on tool catalogues it
 * lands within about 15 % of `o200k_base`, checked by tokenCount.test.ts). The tokenizer is loaded on first use
 * (about half a second), so that the CLI's other commands do not pay for it.
 */

/** The encoding used when `gpt-tokenizer` is installed, for the report. */
export const TOKEN_ENCODING = 'o200k_base';

/** UTF-8 bytes per token of the estimate used without `gpt-tokenizer`. */
export const BYTES_PER_TOKEN = 4;

/** How a count was made: with the `o200k_base` encoding, or estimated from the size. */
export type TokenCountMethod = 'o200k_base' | 'estimate';

/** Special-token text (`<|endoftext|>`) in a description is counted as plain text, never refused. */
const PLAIN = { disallowedSpecial: new Set<string>() };

const utf8 = new TextEncoder();

/** The estimate without a tokenizer: {@link BYTES_PER_TOKEN} bytes of UTF-8 per token, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(utf8.encode(text).byteLength / BYTES_PER_TOKEN);
}

interface Counter {
  readonly method: TokenCountMethod;
  readonly count: (text: string) => number;
}

let counter: Promise<Counter> | undefined;

/**
 * The `o200k_base` counter of `gpt-tokenizer` when it can be imported, else the estimate.
 * @param load imports the encoding (tests pass a failing one to see the fallback)
 */
export function tokenCounter(load: () => Promise<{ countTokens: (text: string, options: typeof PLAIN) => number }> = () => import('gpt-tokenizer/encoding/o200k_base')): Promise<Counter> {
  const made = load().then(
    ({ countTokens }): Counter => ({ method: 'o200k_base', count: (text) => countTokens(text, PLAIN) }),
    (): Counter => ({ method: 'estimate', count: estimateTokens }),
  );
  return made;
}

/** What of a tool a host sends to the model. */
function asSentToModel(tool: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const sent: Record<string, unknown> = { name: tool.name };
  if (tool.description !== undefined) sent.description = tool.description;
  sent.inputSchema = tool.inputSchema;
  return sent;
}

/**
 * The longest run of non-space characters handed to the encoder at once. Byte-pair encoding is quadratic in the
 * length of one pre-token (200,000 `x` in a description took minutes of synchronous CPU, so the run's deadline and
 * SIGTERM could not fire); a longer run is counted in pieces of this length, which changes the count only at the
 * cuts (a few tokens per piece at most, under 1 % for pieces this long).
 */
export const MAX_PIECE_CHARS = 256;

/** Characters counted between two turns of the event loop, so that a large catalogue never blocks timers. */
const CHARS_PER_TURN = 64 * 1024;

/** `text` cut so that no run of non-space characters is longer than {@link MAX_PIECE_CHARS}. */
function* pieces(text: string): Generator<string> {
  let start = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    run = c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d ? 0 : run + 1;
    if (run === MAX_PIECE_CHARS) {
      yield text.slice(start, i + 1);
      start = i + 1;
      run = 0;
    }
  }
  if (start < text.length) yield text.slice(start);
}

/** Tokens of `text` with `counter`, piece by piece, with a turn of the event loop every {@link CHARS_PER_TURN} characters. */
async function countBounded(counter: Counter, text: string, signal: AbortSignal | undefined): Promise<number> {
  // The estimate is linear in its input: only the encoder needs pieces, and they would round up once per piece.
  if (counter.method === 'estimate' && text.length <= CHARS_PER_TURN) return counter.count(text);
  let total = 0;
  let sinceTurn = 0;
  for (const piece of counter.method === 'estimate' ? [text] : pieces(text)) {
    total += counter.count(piece);
    sinceTurn += piece.length;
    if (sinceTurn >= CHARS_PER_TURN) {
      sinceTurn = 0;
      await new Promise((resolve) => setTimeout(resolve, 0));
      signal?.throwIfAborted();
    }
  }
  return total;
}

/**
 * The tokens of `tools` in a model's context, and the largest tools (name and tokens, most first, at most `top`):
 * the catalogue is the JSON array of the tools' own texts, so its count is theirs plus the brackets and commas.
 * Never blocks the event loop for long, whatever the catalogue holds.
 * @throws the `signal`'s reason once it aborts (checked between pieces).
 */
export async function catalogueTokens(
  tools: readonly Readonly<Record<string, unknown>>[],
  top = 3,
  signal?: AbortSignal,
): Promise<{ readonly total: number; readonly method: TokenCountMethod; readonly largest: readonly { readonly name: string; readonly tokens: number }[] }> {
  counter ??= tokenCounter();
  const made = await counter;
  const sized: { name: string; tokens: number }[] = [];
  let total = made.count('[]') + Math.max(0, tools.length - 1);
  for (const tool of tools) {
    const tokens = await countBounded(made, JSON.stringify(asSentToModel(tool)), signal);
    total += tokens;
    sized.push({ name: typeof tool.name === 'string' ? tool.name : '(no name)', tokens });
  }
  sized.sort((a, b) => b.tokens - a.tokens);
  return { total, method: made.method, largest: sized.slice(0, top) };
}

/** How a count made with `method` is named in the report. */
export function tokenMethodText(method: TokenCountMethod): string {
  return method === 'o200k_base' ? TOKEN_ENCODING : `estimated at ${BYTES_PER_TOKEN} bytes a token; install gpt-tokenizer for an ${TOKEN_ENCODING} count`;
}
