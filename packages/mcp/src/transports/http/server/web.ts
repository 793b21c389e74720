/**
 * Web-standard conversion: `Request` → {@link HttpInput}, {@link HttpOutput} → `Response`. Runs on any fetch
 * runtime (Node ≥ 18, Deno, Bun, workers).
 * Internal to the package (not a public entry).
 */
import type { BodyRead, HttpInput, HttpOutput } from './inputOutput.js';

const TOO_LARGE: BodyRead = Object.freeze({ kind: 'tooLarge' });
const ABORTED: BodyRead = Object.freeze({ kind: 'aborted' });

function ignore(): void {}

/** Reads a Web body with a byte cap: stops (and cancels the stream) as soon as the cap is exceeded. */
export async function readWebBody(request: Request, maxBytes: number): Promise<BodyRead> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) {
    request.body?.cancel().catch(ignore);
    return TOO_LARGE;
  }
  const stream = request.body;
  if (stream === null) return { kind: 'text', text: '' };
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        reader.cancel().catch(ignore);
        return TOO_LARGE;
      }
      chunks.push(value);
    }
  } catch {
    return ABORTED;
  }
  let bytes: Uint8Array;
  if (chunks.length === 1) bytes = chunks[0] as Uint8Array;
  else {
    bytes = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
  }
  // TextDecoder replaces invalid UTF-8 with U+FFFD (then JSON.parse decides) and drops a leading BOM.
  return { kind: 'text', text: new TextDecoder().decode(bytes) };
}

/**
 * The peer address of Requests built by the Node adapter's `fetch` path (a Web `Request` carries none), so the
 * per-caller session budget sees the same address on both paths.
 */
export const REQUEST_PEERS = new WeakMap<Request, string>();

/** Adapts a Web `Request`. */
export function webInput(request: Request): HttpInput {
  const url = new URL(request.url);
  const headers = request.headers;
  return {
    remoteAddress: REQUEST_PEERS.get(request),
    // Runtimes that serve `fetch` handlers abort it when the client goes away (the Node adapter's fetch path too).
    signal: request.signal,
    method: request.method.toUpperCase(),
    path: url.pathname,
    query: url.search.length > 0 ? url.search.slice(1) : '',
    scheme: url.protocol === 'https:' ? 'https' : 'http',
    header(name: string): string | undefined {
      return headers.get(name) ?? (name === 'host' ? url.host : undefined);
    },
    headers(): Record<string, string> {
      const out: Record<string, string> = {};
      headers.forEach((value, key) => {
        out[key] = value;
      });
      return out;
    },
    readBody(maxBytes: number): Promise<BodyRead> {
      return readWebBody(request, maxBytes);
    },
  };
}

/**
 * Queued bytes count for a Web SSE body; with a high-water mark of 0, `pull` runs when the consumer waits on an
 * empty queue (everything was taken), which is when the channel's writers may go on.
 */
const SSE_STRATEGY: QueuingStrategy<Uint8Array> = { highWaterMark: 0, size: (chunk) => chunk.byteLength };
const CUT = new Error('SSE stream dropped: the client did not read');

/** Builds the Web `Response`; an SSE output streams through a `ReadableStream` (pull-based backpressure). */
export function webResponse(output: HttpOutput): Response {
  const channel = output.sse;
  if (channel === undefined) {
    return new Response(output.body ?? null, { status: output.status, headers: output.headers });
  }
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      channel.attach({
        write: (chunk) => controller.enqueue(encoder.encode(chunk)),
        end: () => controller.close(),
        // desiredSize is highWaterMark (0) minus what is queued; null once errored.
        buffered: () => -(controller.desiredSize ?? 0),
        abort: () => controller.error(CUT),
      });
    },
    pull() {
      channel.drained();
    },
    cancel() {
      // The client went away (field bug B27): the channel detaches, the session goes on.
      channel.detach();
    },
  }, SSE_STRATEGY);
  return new Response(body, { status: output.status, headers: output.headers });
}
