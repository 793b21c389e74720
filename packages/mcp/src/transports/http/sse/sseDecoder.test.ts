/**
 * {@link SseDecoder} is linear in its input for any chunking, and its events do not depend on the chunking.
 * Rules: WHATWG HTML "Interpreting an event stream" (lines end with CR, LF or CRLF, also split across chunks).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseDecoder, type SseEvent } from './sseDecoder.js';

/** Work allowed per code unit of input: each is searched for CR, for LF, and copied into its line once. */
const WORK_PER_UNIT = 3;

/** Decodes `text` cut at `cuts` (sorted positions); the events and the decoder's work. */
function decode(text: string, cuts: readonly number[]): { events: SseEvent[]; work: number } {
  const decoder = new SseDecoder();
  const events: SseEvent[] = [];
  let from = 0;
  for (const cut of [...cuts, text.length]) {
    events.push(...decoder.push(text.slice(from, cut)));
    from = cut;
  }
  return { events, work: decoder.workUnits };
}

const piece = fc.constantFrom('data: ', 'data:', 'id: 7', 'event: x', 'retry: 5', ': c', '\r', '\n', '\r\n', 'a', 'bb', '{"x":1}', 'é', '\u{1F600}', ' ', ':');
const stream = fc.array(piece, { maxLength: 200 }).map((pieces) => pieces.join(''));
const chunked = stream.chain((text) => fc.tuple(fc.constant(text), fc.uniqueArray(fc.integer({ min: 0, max: text.length }), { maxLength: 60 }).map((cuts) => cuts.sort((a, b) => a - b))));

describe('SseDecoder', () => {
  it('gives the same events for every chunking, with work linear in the input', () => {
    fc.assert(
      fc.property(chunked, ([text, cuts]) => {
        const whole = decode(text, []);
        const split = decode(text, cuts);
        expect(split.events).toEqual(whole.events);
        expect(split.work).toBeLessThanOrEqual(WORK_PER_UNIT * text.length);
      }),
      { numRuns: 500 },
    );
  });

  it('reads an unfinished line fed one code unit at a time in linear work', () => {
    const length = 200_000;
    const decoder = new SseDecoder();
    decoder.push('data: ');
    for (let i = 0; i < length; i++) decoder.push('x');
    expect(decoder.pendingLength).toBe(length + 'data: '.length);
    const [event] = decoder.push('\n\n');
    expect(event?.data).toHaveLength(length);
    // The quadratic reader searched and copied its whole buffer per chunk: ~2 × 10^10 units here.
    expect(decoder.workUnits).toBeLessThanOrEqual(WORK_PER_UNIT * (length + 8));
  });

  it('ends a line at a CR with the LF in the next chunk once', () => {
    const decoder = new SseDecoder();
    expect(decoder.push('data: a\r')).toEqual([]);
    expect(decoder.push('\n\r\n')).toEqual([{ event: 'message', data: 'a', id: '' }]);
  });
});
