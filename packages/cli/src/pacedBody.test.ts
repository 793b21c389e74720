import { describe, expect, it } from 'vitest';
import { pacedResponse } from './pacedBody.js';

/** A body with `count` chunks queued at once: reading it never waits for I/O, only for microtasks. */
function queuedBody(count: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(64).fill(120);
  let left = count;
  return new ReadableStream({
    pull(controller) {
      if (left-- > 0) controller.enqueue(chunk);
      else controller.close();
    },
  });
}

/** Reads a body to its end the way a client does: `await reader.read()` in a loop, spinning the clock by `costMs` a chunk. */
async function drain(response: Response, clock: { ms: number }, costMs: number): Promise<{ chunks: number; error?: unknown }> {
  const reader = response.body!.getReader();
  let chunks = 0;
  try {
    for (;;) {
      const { done } = await reader.read();
      if (done) return { chunks };
      chunks++;
      clock.ms += costMs;
    }
  } catch (error) {
    return { chunks, error };
  }
}

describe('pacedResponse', () => {
  it('gives timers a turn while a queued body is read, which an unpaced read never does', async () => {
    for (const paced of [false, true]) {
      const clock = { ms: 0 };
      const raw = new Response(queuedBody(200), { status: 200, headers: { 'content-type': 'text/event-stream' } });
      const response = paced ? pacedResponse(raw, { now: () => clock.ms, expired: () => false, reason: () => new Error('spent') }) : raw;
      let fired = -1;
      setTimeout(() => (fired = clock.ms), 0);
      const { chunks } = await drain(response, clock, 5);
      expect(chunks).toBe(200);
      // Unpaced: the timer waited for the whole body (1000 ms of reading). Paced: it ran within the first 20 ms.
      if (paced) expect(fired).toBeLessThanOrEqual(25);
      else expect(fired === -1 || fired >= 1000).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(response.headers.get('content-type')).toBe('text/event-stream');
    }
  });

  it('ends the body with the reason once the time is spent', async () => {
    const clock = { ms: 0 };
    const response = pacedResponse(new Response(queuedBody(1000)), { now: () => clock.ms, expired: () => clock.ms >= 100, reason: () => new Error('spent') });
    const { chunks, error } = await drain(response, clock, 10);
    expect(chunks).toBe(10);
    expect(error).toEqual(new Error('spent'));
  });
});
