/**
 * A response body that keeps the clock ticking, for the doctor's clients and the CLI's. A client reads a body in a
 * loop of `await reader.read()`; while chunks are queued, each read resolves at once (a microtask), so a server that
 * dribbles one endless SSE line faster than the client decodes it keeps the loop from ever yielding to timers, and a
 * deadline (a timer) fires late, or not at all. The paced body gives a turn of the event loop to timers at least
 * every {@link PACE_MS} of reading, and ends itself once the time is spent (`expired`), whatever the timers did.
 * Runtime-neutral (web streams and `setTimeout` only).
 */

/** The longest a body is read without a turn of the event loop for timers, in ms. */
export const PACE_MS = 20;

/** What {@link pacedResponse} is given. */
export interface PacedOptions {
  /** The clock, ms (`DoctorEnv.now`, `performance.now`). */
  readonly now: () => number;
  /** Whether the time is spent (the doctor's run, the CLI command's): the body then errors with `reason()`. */
  readonly expired: () => boolean;
  /** Why the body ended early. */
  readonly reason: () => Error;
}

/** One turn of the event loop (a macrotask): timers due by now run first. */
function turn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** `response` with its body paced (see the module comment); a response without a body is returned as it is. */
export function pacedResponse(response: Response, options: PacedOptions): Response {
  const source = response.body;
  if (source === null) return response;
  const reader = source.getReader();
  const { now, expired, reason } = options;
  let lastTurn = now();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (now() - lastTurn >= PACE_MS) {
          await turn();
          lastTurn = now();
        }
        if (expired()) {
          const error = reason();
          reader.cancel(error).catch(() => {});
          controller.error(error);
          return;
        }
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          controller.error(error);
        }
      },
      cancel(why) {
        return reader.cancel(why);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
