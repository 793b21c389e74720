/**
 * Hostile Streamable HTTP servers for the client's reliability tests: each is a legacy-era session
 * (`legacySession`: `initialize` as JSON with a session id, 202 for notifications, 200 for DELETE) on a real
 * `node:http` server on 127.0.0.1, misbehaving in one way. Each records what it did so a test can bound it.
 *
 * MCP 2025-11-25 basic/transports.mdx "Streamable HTTP"; basic/utilities/pagination.mdx; basic/lifecycle.mdx
 * "Timeouts".
 */
import type { ServerResponse } from 'node:http';
import { FakeHttpServer, isPost, legacySession, openSse, sendJson, sseEvent, type Message, type RecordedRequest } from '../../helpers/fakeHttpServer.js';

export { FakeHttpServer, type RecordedRequest } from '../../helpers/fakeHttpServer.js';

function params(request: RecordedRequest): Message {
  return ((request.json as Message | undefined)?.params as Message | undefined) ?? {};
}

/** What {@link endlessPages} did. */
export interface PagesServed {
  pages: number;
  bytes: number;
}

/**
 * `tools/list` pages of `pageBytes` each (tools with long descriptions) whose `nextCursor` never repeats, ending
 * only after `lastPage` pages (so a client without a byte budget finishes instead of running out of memory).
 */
export async function endlessPages(shape: { readonly pageBytes: number; readonly toolsPerPage: number; readonly lastPage: number }): Promise<{ server: FakeHttpServer; served: PagesServed }> {
  const served: PagesServed = { pages: 0, bytes: 0 };
  const description = 'x'.repeat(Math.max(1, Math.floor(shape.pageBytes / shape.toolsPerPage) - 80));
  const server = await FakeHttpServer.start(
    legacySession({
      other: (request, response) => {
        if (!isPost(request, 'tools/list')) return void response.writeHead(404).end();
        const page = served.pages++;
        const tools = Array.from({ length: shape.toolsPerPage }, (_, i) => ({ name: `t${page}_${i}`, description, inputSchema: { type: 'object' } }));
        const body = { jsonrpc: '2.0', id: (request.json as Message).id, result: { tools, ...(page + 1 < shape.lastPage ? { nextCursor: `page-${page + 1}` } : {}) } };
        const text = JSON.stringify(body);
        served.bytes += text.length;
        response.writeHead(200, { 'content-type': 'application/json' }).end(text);
      },
    }),
  );
  return { server, served };
}

/**
 * `tools/call` answered on an SSE stream with `notifications/progress` every `everyMs` (progress going up) and never
 * a result; the stream stays open until the client leaves. `streams` holds the open answers.
 */
export async function endlessProgress(everyMs: number): Promise<{ server: FakeHttpServer; progressSent: () => number }> {
  let sent = 0;
  const server = await FakeHttpServer.start(
    legacySession({
      other: (request, response) => {
        if (!isPost(request, 'tools/call')) return void response.writeHead(404).end();
        const token = (params(request)['_meta'] as Message | undefined)?.['progressToken'];
        openSse(response);
        let progress = 0;
        const timer = setInterval(() => {
          progress++;
          sent++;
          response.write(sseEvent({ data: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress } } }));
        }, everyMs);
        response.on('close', () => clearInterval(timer));
      },
    }),
  );
  return { server, progressSent: () => sent };
}

/** What {@link requestFlood} did: requests written on the GET stream, and the bytes they took. */
export interface FloodState {
  written: number;
  bytes: number;
  /** The answers the client POSTed back. */
  answers: number;
  /** Times the GET stream's socket refused more (`write` returned false): the client stopped reading. */
  backedUp: number;
  /** Answer POSTs received and not yet answered, now and at most. */
  open: number;
  mostOpen: number;
}

/**
 * A session whose standalone GET stream carries `count` server→client `ping` requests of `padBytes` padding each,
 * written as fast as the socket takes them (each waits for `'drain'` when the socket is full). The answers are POSTed
 * back; they are accepted with 202 after `answerDelayMs` (a slow server keeps the client's answers in flight), or
 * refused with `answerStatus` and a JSON-RPC error.
 */
export async function requestFlood(shape: { readonly count: number; readonly padBytes: number; readonly answerDelayMs: number; readonly answerStatus?: number }): Promise<{ server: FakeHttpServer; state: FloodState; finished: Promise<void> }> {
  const state: FloodState = { written: 0, bytes: 0, answers: 0, backedUp: 0, open: 0, mostOpen: 0 };
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const pad = 'p'.repeat(shape.padBytes);
  const flood = async (response: ServerResponse): Promise<void> => {
    openSse(response);
    let closed = false;
    let onClose!: () => void;
    const closedPromise = new Promise<void>((resolve) => (onClose = resolve));
    response.on('close', () => {
      closed = true;
      onClose();
      finish();
    });
    for (let i = 0; i < shape.count && !closed; i++) {
      const text = sseEvent({ id: String(i), data: { jsonrpc: '2.0', id: `s${i}`, method: 'ping', params: { _meta: { pad } } } });
      state.written++;
      state.bytes += text.length;
      if (!response.write(text)) {
        state.backedUp++;
        let onDrain!: () => void;
        await Promise.race([new Promise<void>((resolve) => response.once('drain', (onDrain = resolve))), closedPromise]);
        response.off('drain', onDrain);
      }
    }
    finish();
  };
  const server = await FakeHttpServer.start((request, response) => {
    if (request.method === 'GET' && request.headers['last-event-id'] === undefined) return void flood(response);
    return legacySession({
      other: (req, res) => {
        const message = req.json as Message | undefined;
        if (req.method === 'POST' && message !== undefined && !('method' in message)) {
          state.answers++;
          const status = shape.answerStatus ?? 202;
          setTimeout(() => (status === 202 ? res.writeHead(202).end() : sendJson(res, status, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'refused' } })), shape.answerDelayMs);
          return;
        }
        sendJson(res, 404, {});
      },
    })(request, response);
  });
  return { server, state, finished };
}

/**
 * A session whose every answer to the client's POSTs (except the handshake), GETs and DELETEs is a redirect with
 * `status` to `location` (relative: the same origin); a request whose URL carries `?moved` is answered normally:
 * `tools/call` with a text result, the GET with 405, the DELETE with 200.
 */
export async function redirecting(redirect: () => { readonly status: number; readonly location: string }): Promise<FakeHttpServer> {
  return FakeHttpServer.start((request, response) => {
    const handshake = isPost(request, 'initialize') || isPost(request, 'notifications/initialized');
    if (!handshake && !request.url.includes('moved')) {
      const { status, location } = redirect();
      return void response.writeHead(status, { location }).end();
    }
    if (isPost(request, 'tools/call')) {
      return sendJson(response, 200, { jsonrpc: '2.0', id: (request.json as Message).id, result: { content: [{ type: 'text', text: `moved ${request.url}` }] } });
    }
    return legacySession({ other: (_req, res) => sendJson(res, 404, {}) })(request, response);
  });
}

/** A server that records everything it receives and answers 200 `{}`: the other origin a redirect points to. */
export function recorder(): Promise<FakeHttpServer> {
  return FakeHttpServer.start((_request, response) => sendJson(response, 200, {}));
}

/**
 * The 2024-11-05 HTTP+SSE transport's version of {@link requestFlood}: the GET stream names `/messages` as the
 * endpoint, `initialize` is answered on the stream, and once `notifications/initialized` came the stream carries
 * `count` pings; the answers POSTed to `/messages` are accepted with 202 after `answerDelayMs`.
 */
export async function requestFlood2024(shape: { readonly count: number; readonly padBytes: number; readonly answerDelayMs: number }): Promise<{ server: FakeHttpServer; state: FloodState }> {
  const state: FloodState = { written: 0, bytes: 0, answers: 0, backedUp: 0, open: 0, mostOpen: 0 };
  const pad = 'p'.repeat(shape.padBytes);
  let stream: ServerResponse | undefined;
  let closed = false;
  let closedPromise: Promise<void> = Promise.resolve();
  const flood = async (response: ServerResponse): Promise<void> => {
    for (let i = 0; i < shape.count && !closed; i++) {
      const text = sseEvent({ data: { jsonrpc: '2.0', id: `s${i}`, method: 'ping', params: { _meta: { pad } } } });
      state.written++;
      state.bytes += text.length;
      if (!response.write(text)) {
        state.backedUp++;
        let onDrain!: () => void;
        await Promise.race([new Promise<void>((resolve) => response.once('drain', (onDrain = resolve))), closedPromise]);
        response.off('drain', onDrain);
      }
    }
  };
  const server = await FakeHttpServer.start((request, response) => {
    const message = request.json as Message | undefined;
    if (request.method === 'GET') {
      openSse(response);
      response.write('event: endpoint\ndata: /messages\n\n');
      stream = response;
      closedPromise = new Promise<void>((resolve) => response.on('close', () => {
        closed = true;
        resolve();
      }));
      return;
    }
    if (isPost(request, 'initialize')) {
      response.writeHead(202).end();
      const asked = (message?.params as Message | undefined)?.protocolVersion;
      stream?.write(sseEvent({ data: { jsonrpc: '2.0', id: message?.id, result: { protocolVersion: asked, capabilities: {}, serverInfo: { name: 'flood-2024', version: '0' } } } }));
      return;
    }
    if (isPost(request, 'notifications/initialized')) {
      response.writeHead(202).end();
      if (stream !== undefined) void flood(stream);
      return;
    }
    if (request.method === 'POST' && message !== undefined && !('method' in message)) {
      state.answers++;
      state.mostOpen = Math.max(state.mostOpen, ++state.open);
      setTimeout(() => {
        state.open--;
        response.writeHead(202).end();
      }, shape.answerDelayMs);
      return;
    }
    response.writeHead(202).end();
  });
  return { server, state };
}
