/**
 * The token cost of a tool catalogue: what a host puts in a model's context for each tool — its `name`,
 * `description` and `inputSchema` (hosts pass these to the model API; `title`, `annotations` and `outputSchema` stay
 * on the client) — as the JSON of that list, counted with the `o200k_base` encoding of `gpt-tokenizer` (pure
 * JavaScript, no native code or network). `o200k_base` is the encoding of OpenAI's current models (GPT-4o, GPT-4.1,
 * GPT-5, the o-series); other vendors' tokenizers are not public, and their counts for JSON differ by tens of percent,
 * so the number is an estimate of the order of magnitude, which is what the thresholds need. The encoding is loaded
 * on first use (about half a second), so that the CLI's other commands do not pay for it.
 */

/** The encoding used, for the report. */
export const TOKEN_ENCODING = 'o200k_base';

/** Special-token text (`<|endoftext|>`) in a description is counted as plain text, never refused. */
const PLAIN = { disallowedSpecial: new Set<string>() };

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

/** Tokens of `text`, counted piece by piece with a turn of the event loop every {@link CHARS_PER_TURN} characters. */
async function countBounded(countTokens: (text: string, options: typeof PLAIN) => number, text: string, signal: AbortSignal | undefined): Promise<number> {
  let total = 0;
  let sinceTurn = 0;
  for (const piece of pieces(text)) {
    total += countTokens(piece, PLAIN);
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
 * The estimated tokens of `tools` in a model's context, and the largest tools (name and tokens, most first, at most
 * `top`). Never blocks the event loop for long, whatever the catalogue holds.
 * @throws the `signal`'s reason once it aborts (checked between pieces).
 */
export async function catalogueTokens(tools: readonly Readonly<Record<string, unknown>>[], top = 3, signal?: AbortSignal): Promise<{ readonly total: number; readonly largest: readonly { readonly name: string; readonly tokens: number }[] }> {
  const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
  // The catalogue is a JSON array of the tools' own JSON texts: its count is theirs plus the brackets and commas.
  const sized: { name: string; tokens: number }[] = [];
  let total = countTokens('[]', PLAIN) + Math.max(0, tools.length - 1);
  for (const tool of tools) {
    const tokens = await countBounded(countTokens, JSON.stringify(asSentToModel(tool)), signal);
    total += tokens;
    sized.push({ name: typeof tool.name === 'string' ? tool.name : '(no name)', tokens });
  }
  sized.sort((a, b) => b.tokens - a.tokens);
  return { total, largest: sized.slice(0, top) };
}
