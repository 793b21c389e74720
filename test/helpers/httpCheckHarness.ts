/**
 * A small stand-in for the doctor's runner, for the Streamable HTTP checks alone: a `CheckContext` whose `http()`
 * is `nodeFetch` (which, unlike the global `fetch`, sends a `Host` header as given), the facts of a real
 * `McpClient` connection, and the reports collected. HTTP fixtures are started as child processes and stopped
 * by their own PID.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpClient, streamableHttp } from '@switchboard/mcp/client';
import { nodeFetch } from '@switchboard/mcp/node';
import type { Check, CheckContext, DoctorFacts, HttpProbeRequest, HttpProbeResponse, Observation } from '../../packages/cli/src/doctor/types.js';
import { stopByPid } from './process.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** One reported observation. */
export interface Reported extends Observation {
  readonly id: string;
  readonly check: string;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max);
}

/** Reads an SSE body: each `data` event parsed, the `id`s kept; stops after the first response when asked. */
async function readSse(body: ReadableStream<Uint8Array>, stopAtResponse: boolean, signal: AbortSignal): Promise<{ text: string; messages: unknown[]; eventIds: string[] }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let buffer = '';
  const messages: unknown[] = [];
  const eventIds: string[] = [];
  let data: string[] = [];
  const onAbort = (): void => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done || value === undefined) break;
      const chunk = decoder.decode(value, { stream: true });
      text += chunk;
      buffer += chunk;
      let stop = false;
      for (let nl = buffer.search(/\r?\n/); nl !== -1; nl = buffer.search(/\r?\n/)) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(buffer[nl] === '\r' ? nl + 2 : nl + 1);
        if (line === '') {
          if (data.length > 0) {
            try {
              const message: unknown = JSON.parse(data.join('\n'));
              messages.push(message);
              if (stopAtResponse && typeof message === 'object' && message !== null && ('result' in message || 'error' in message)) stop = true;
            } catch {
              // not JSON: kept in text only
            }
          }
          data = [];
        } else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        else if (line.startsWith('id:')) eventIds.push(line.slice(3).trim());
      }
      if (stop) break;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    await reader.cancel().catch(() => undefined);
  }
  return { text: cut(text, 1 << 20), messages, eventIds };
}

/** One raw exchange, as the doctor's `ctx.http()` promises it: never throws. */
async function httpExchange(url: string, request: HttpProbeRequest, timeoutMs: number): Promise<HttpProbeResponse> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) if (value !== null) headers[name.toLowerCase()] = value;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`timed out after ${timeoutMs} ms`)), request.timeoutMs ?? timeoutMs);
  try {
    const response = await nodeFetch(request.url ?? url, {
      method: request.method,
      headers,
      ...(request.body === undefined ? {} : { body: typeof request.body === 'string' ? request.body : JSON.stringify(request.body) }),
      signal: controller.signal,
    });
    const answerHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      answerHeaders[name.toLowerCase()] = value;
    });
    const type = (answerHeaders['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type === 'text/event-stream' && response.body !== null) {
      const sse = await readSse(response.body, request.readSse !== 'until-end', controller.signal);
      return { status: response.status, headers: answerHeaders, ...sse };
    }
    const text = await response.text().catch(() => '');
    let messages: unknown[] = [];
    try {
      const parsed: unknown = JSON.parse(text);
      messages = Array.isArray(parsed) ? parsed : [parsed];
    } catch {
      messages = [];
    }
    return { status: response.status, headers: answerHeaders, text: cut(text, 1 << 20), messages, eventIds: [] };
  } catch (error) {
    return { status: 0, headers: {}, text: '', messages: [], eventIds: [], error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `checks` against the server at `url`, after a real `McpClient` connection has set the facts. */
export async function runHttpChecks(options: {
  readonly url: string;
  readonly checks: readonly Check[];
  readonly era?: 'session' | 'stateless' | 'auto';
  readonly requestTimeoutMs?: number;
}): Promise<{ readonly reports: readonly Reported[]; readonly notes: readonly string[]; readonly facts: DoctorFacts }> {
  const era = options.era ?? 'auto';
  const facts: DoctorFacts = { connected: false, legacyRevisions: [], modernRevisions: [], measurements: {} };
  const client = await McpClient.connect({
    connector: streamableHttp({ url: options.url, fetch: nodeFetch }),
    era: era === 'session' ? 'legacy' : era === 'stateless' ? 'modern' : 'auto',
    timeoutMs: 5000,
  });
  facts.connected = true;
  facts.era = client.era;
  if (client.era === 'modern') facts.modernRevisions.push(client.protocolVersion);
  else facts.legacyRevisions.push(client.protocolVersion);
  await client.close();
  const reports: Reported[] = [];
  const notes: string[] = [];
  const requestTimeoutMs = options.requestTimeoutMs ?? 5000;
  for (const check of options.checks) {
    const ctx: CheckContext = {
      target: { transport: 'http', url: options.url },
      env: { fetch: nodeFetch } as unknown as CheckContext['env'],
      signal: new AbortController().signal,
      requestTimeoutMs,
      era,
      facts,
      report: (id, observation) => {
        if (!check.requirements.includes(id)) throw new Error(`check ${check.id} reported ${id}, not one of its requirements`);
        reports.push({ id, check: check.id, ...observation });
      },
      client: () => Promise.reject(new Error('not in the HTTP check harness')),
      spawn: () => Promise.reject(new Error('not in the HTTP check harness')),
      http: (request) => httpExchange(options.url, request, requestTimeoutMs),
      progress: (text) => notes.push(`${check.id}: ${text}`),
    };
    await check.run(ctx);
  }
  return { reports, notes, facts };
}

/** A running HTTP fixture of `test/fixtures/broken-servers/`. */
export interface HttpFixture {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): void;
}

/** Starts `test/fixtures/broken-servers/<file>.mjs` (or any script) and waits for its `{"url":…}` line. */
export async function startHttpFixture(file: string, args: readonly string[] = []): Promise<HttpFixture> {
  const script = path.isAbsolute(file) ? file : path.join(ROOT, 'test', 'fixtures', 'broken-servers', `${file}.mjs`);
  const child = spawn(process.execPath, [script, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${file} printed no URL within 10 s; stderr: ${stderr}`)), 10_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const line = out.split('\n').find((l) => l.trim().startsWith('{'));
      if (line === undefined) return;
      clearTimeout(timer);
      resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`${file} exited (${String(code)}) before printing a URL; stderr: ${stderr}`)));
  });
  return { url, child, stop: () => stopByPid(child) };
}
