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

/** The estimated tokens of `tools` in a model's context, and the largest tools (name and tokens, most first, at most `top`). */
export async function catalogueTokens(tools: readonly Readonly<Record<string, unknown>>[], top = 3): Promise<{ readonly total: number; readonly largest: readonly { readonly name: string; readonly tokens: number }[] }> {
  const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
  const total = countTokens(JSON.stringify(tools.map(asSentToModel)), PLAIN);
  const sized = tools.map((tool) => ({ name: typeof tool.name === 'string' ? tool.name : '(no name)', tokens: countTokens(JSON.stringify(asSentToModel(tool)), PLAIN) }));
  sized.sort((a, b) => b.tokens - a.tokens);
  return { total, largest: sized.slice(0, top) };
}
