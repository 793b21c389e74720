/**
 * One raw HTTP exchange of a check (`CheckContext.http`): exactly the headers asked (over the target's), no
 * default `Accept` or `Content-Type`, the body read to at most {@link MAX_PROBE_BODY_BYTES}, an SSE answer decoded
 * event by event. It never throws: no answer (a network error, the timeout, an abort) is `status: 0` with `error`.
 */
import { SseDecoder } from '@switchboard/mcp/client';
import { anySignal } from './budget.js';
import type { DoctorEnv, HttpProbeRequest, HttpProbeResponse } from './types.js';

/** The most of a body a probe reads, in bytes. */
export const MAX_PROBE_BODY_BYTES = 1024 * 1024;

/** What {@link httpProbe} is given. */
export interface HttpProbeOptions {
  readonly env: DoctorEnv;
  /** The target's URL and headers (the request's headers go over them). */
  readonly target: { readonly url: string; readonly headers?: Readonly<Record<string, string>> };
  readonly request: HttpProbeRequest;
  /** Used when the request gives no `timeoutMs`, ms. */
  readonly timeoutMs: number;
  /** Aborting ends the exchange (`status: 0`, or what was read so far once the headers came). */
  readonly signal?: AbortSignal;
}

function headersOf(target: HttpProbeOptions['target'], asked: HttpProbeRequest['headers']): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(target.headers ?? {})) headers[name.toLowerCase()] = value;
  for (const [name, value] of Object.entries(asked ?? {})) {
    if (value === null) delete headers[name.toLowerCase()];
    else headers[name.toLowerCase()] = value;
  }
  return headers;
}

function isResponse(message: unknown): boolean {
  return typeof message === 'object' && message !== null && !Array.isArray(message) && 'id' in message && !('method' in message) && ('result' in message || 'error' in message);
}

function jsonMessages(text: string): unknown[] {
  try {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) ? value : [value];
  } catch {
    return [];
  }
}

/** The failure as text, with the cause a `fetch` error carries (`fetch failed: connect ECONNREFUSED 127.0.0.1:4000`). */
function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error && cause.message !== '') return `${error.message}: ${cause.message}`;
  const code = typeof cause === 'object' && cause !== null && 'code' in cause ? `: ${String(cause.code)}` : '';
  return `${error.message}${code}`;
}

/**
 * Reads a body: all of it (to the byte cap), or for SSE until the first JSON-RPC response when asked, and never past
 * `until` on the clock. That check is made after every chunk, not left to the timeout's timer alone: while chunks
 * are queued, each `read()` resolves at once (a microtask), so a body dribbled faster than it is decoded could keep
 * the timer from ever firing.
 */
async function readBody(options: { readonly response: Response; readonly sse: boolean; readonly firstResponse: boolean; readonly signal: AbortSignal; readonly now: () => number; readonly until: number }): Promise<{ text: string; messages: unknown[]; eventIds: string[] }> {
  const { response, sse, firstResponse, signal, now, until } = options;
  const decoder = new TextDecoder();
  const sseDecoder = new SseDecoder();
  const messages: unknown[] = [];
  const eventIds: string[] = [];
  let text = '';
  let bytes = 0;
  const body = response.body;
  if (body === null) return { text, messages, eventIds };
  const reader = body.getReader();
  const cancel = (): void => {
    reader.cancel().catch(() => {});
  };
  signal.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const chunk = bytes + value.length > MAX_PROBE_BODY_BYTES ? value.subarray(0, MAX_PROBE_BODY_BYTES - bytes) : value;
      bytes += chunk.length;
      const decoded = decoder.decode(chunk, { stream: true });
      text += decoded;
      if (sse) {
        let answered = false;
        for (const event of sseDecoder.push(decoded)) {
          if (event.id !== '' && eventIds.at(-1) !== event.id) eventIds.push(event.id);
          if (event.data === '') continue;
          const message = jsonMessages(event.data);
          messages.push(...message);
          if (message.some(isResponse)) answered = true;
        }
        if (answered && firstResponse) break;
      }
      if (bytes >= MAX_PROBE_BODY_BYTES || signal.aborted || now() >= until) break;
    }
  } catch {
    // Aborted or cut: what was read is the answer.
  } finally {
    signal.removeEventListener('abort', cancel);
    cancel();
  }
  text += decoder.decode();
  return { text, messages: sse ? messages : jsonMessages(text), eventIds };
}

/** Sends one request and reads its answer; see the module comment. Never throws. */
export async function httpProbe(options: HttpProbeOptions): Promise<HttpProbeResponse> {
  const { env, target, request } = options;
  const timeoutMs = request.timeoutMs ?? options.timeoutMs;
  const until = env.now() + timeoutMs;
  const timer = new AbortController();
  const timeout = new AbortController();
  env.sleep(timeoutMs, timer.signal).then(
    () => timeout.abort(new Error(`Request timeout: no answer within ${timeoutMs} ms`)),
    () => {},
  );
  const signal = options.signal === undefined ? timeout.signal : anySignal([timeout.signal, options.signal]);
  const body = request.body === undefined ? undefined : typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
  try {
    let response: Response;
    try {
      response = await env.fetch(request.url ?? target.url, { method: request.method, headers: headersOf(target, request.headers), ...(body === undefined ? {} : { body }), signal, redirect: 'manual' });
    } catch (error) {
      const reason: unknown = signal.aborted ? signal.reason : error;
      return { status: 0, headers: {}, text: '', messages: [], eventIds: [], error: errorText(reason) };
    }
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name.toLowerCase()] = value;
    });
    const sse = (headers['content-type'] ?? '').toLowerCase().startsWith('text/event-stream');
    const read = await readBody({ response, sse, firstResponse: request.readSse !== 'until-end', signal, now: () => env.now(), until });
    return { status: response.status, headers, ...read };
  } catch (error) {
    return { status: 0, headers: {}, text: '', messages: [], eventIds: [], error: errorText(error) };
  } finally {
    timer.abort();
  }
}
