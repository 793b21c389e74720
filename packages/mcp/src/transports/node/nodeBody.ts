/**
 * Reading the body of a Node `IncomingMessage`: into one buffer bounded by `maxBodyBytes` (the direct path) or as
 * a Web `ReadableStream` (the fetch path); after a 413 the rest of the body is drained, not reset.
 */
import { setUnrefTimeout } from '@switchboard/jsonrpc/internal';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { BodyRead } from '../http/server/inputOutput.js';

const TOO_LARGE: BodyRead = Object.freeze({ kind: 'tooLarge' });
const ABORTED: BodyRead = Object.freeze({ kind: 'aborted' });
function ignore(): void {}

/**
 * After a 413: how long the rest of the body is read and dropped before the connection is cut. A client still
 * sending when the answer leaves (curl sends the whole body before it reads) must be able to finish and read it;
 * closing while it sends resets the connection under it (EPIPE/ECONNRESET instead of the 413). Dropping bytes
 * costs no memory, so only time bounds it: a client that never stops sending cannot hold the connection longer.
 */
const DRAIN_MAX_MS = 5000;

/**
 * Instead of Node's `destroySoon` (called after a `Connection: close` response: end, then destroy as soon as the
 * end is written, which resets a connection whose client is still sending): only half-close. The socket keeps
 * reading (and dropping) until the client closes its side, or {@link DRAIN_MAX_MS} passes.
 */
function halfClose(this: Socket): void {
  if (this.writable) this.end();
}

/**
 * Drains the rest of a request without keeping it (after a 413), then lets the connection end gracefully: the
 * answer (with `Connection: close`) goes out, the server half-closes, and the socket closes when the client does.
 * Destroyed only when that takes longer than {@link DRAIN_MAX_MS}.
 */
function discard(req: IncomingMessage): void {
  req.on('error', ignore);
  if (req.readableEnded || req.destroyed) return;
  const socket = req.socket as Socket | null;
  if (socket === null || socket.destroyed) return;
  (socket as { destroySoon?: () => void }).destroySoon = halfClose;
  socket.on('error', ignore);
  const timer = setUnrefTimeout(() => socket.destroy(), DRAIN_MAX_MS);
  socket.once('close', () => clearTimeout(timer));
  req.on('data', ignore);
  req.resume();
}

/**
 * A Node request body as a Web stream for the `fetch` path. Unlike `Readable.toWeb`, cancelling it (the handler
 * stops reading at `maxBodyBytes`) drains the rest within bounds instead of destroying the socket, so the 413
 * reaches the client.
 */
export function nodeBodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      req.on('data', (chunk: Buffer) => {
        if (cancelled) return;
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      });
      req.once('end', () => {
        if (!cancelled) controller.close();
      });
      const fail = (error?: unknown): void => {
        if (cancelled || req.readableEnded) return;
        cancelled = true;
        controller.error(error instanceof Error ? error : new Error('The client closed the connection while sending'));
      };
      req.once('error', fail);
      req.once('close', () => fail());
      req.pause();
    },
    pull() {
      req.resume();
    },
    cancel() {
      cancelled = true;
      discard(req);
    },
  });
}

export function readNodeBody(req: IncomingMessage, maxBytes: number): Promise<BodyRead> {
  // A body parser (express.json()) that already consumed the stream left its result on req.body.
  const parsed = (req as { body?: unknown }).body;
  if (parsed !== undefined && req.readableEnded) {
    if (typeof parsed === 'string') return Promise.resolve({ kind: 'text', text: parsed });
    if (Buffer.isBuffer(parsed)) return Promise.resolve({ kind: 'text', text: parsed.toString('utf8') });
    return Promise.resolve({ kind: 'parsed', value: parsed });
  }
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes) {
    discard(req);
    return Promise.resolve(TOO_LARGE);
  }
  return new Promise<BodyRead>((resolve) => {
    let first: Buffer | undefined;
    let more: Buffer[] | undefined;
    let size = 0;
    let settled = false;
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > maxBytes) {
        // Bounded buffering: stop keeping bytes as soon as the limit is passed.
        settled = true;
        first = undefined;
        more = undefined;
        resolve(TOO_LARGE);
        discard(req);
        return;
      }
      if (first === undefined) first = chunk;
      else (more ??= [first]).push(chunk);
    });
    req.on('end', () => {
      if (settled) return;
      settled = true;
      const bytes = more !== undefined ? Buffer.concat(more, size) : first;
      resolve({ kind: 'text', text: bytes === undefined ? '' : bytes.toString('utf8') });
    });
    // The client went away mid-body (field bug B27, first variant): 'error' (ECONNRESET) or 'close' before 'end'.
    const aborted = (): void => {
      if (settled) return;
      settled = true;
      resolve(ABORTED);
    };
    req.on('error', aborted);
    req.on('close', aborted);
  });
}
