/**
 * The endpoint of the deprecated 2024-11-05 HTTP+SSE transport: `GET <ssePath>` opens a session's stream (its first
 * event names where to POST), `POST <messagesPath>?sessionId=<id>` delivers one message to that session.
 * @see MCP 2024-11-05 basic/transports.mdx "HTTP with SSE"
 */
import { classifyValue } from '@switchboard/jsonrpc';
import { isRefusedBody, readJsonBody } from '../body.js';
import { TEXT_HEADERS, extraOf, newSessionId } from '../endpointContext.js';
import type { EndpointContext } from '../endpointContext.js';
import type { HttpInput, HttpOutput } from '../inputOutput.js';
import { acceptsMediaType, isJsonContentType } from '../../media.js';
import { HttpStatus, errorOutput, refusalOutput } from '../refusals.js';
import { HttpSseSessionTransport, formatEndpointEvent } from './httpSseTransport.js';
import type { HttpSseEntry } from '../sessions/sessionEntry.js';
import { SSE_HEADERS, SseChannel } from '../../sse/sseChannel.js';

/** @internal The 2024-11-05 HTTP+SSE endpoint of one handler. */
export class HttpSseEndpoint {
  readonly #context: EndpointContext;
  readonly #messagesPath: string;

  /** `messagesPath`: where messages are POSTed, announced in the `endpoint` event. */
  constructor(context: EndpointContext, messagesPath: string) {
    this.#context = context;
    this.#messagesPath = messagesPath;
  }

  /** `GET <ssePath>`: opens a session and its stream (Host and Origin already checked). */
  async open(input: HttpInput): Promise<HttpOutput> {
    const context = this.#context;
    if (input.method !== 'GET') return refusalOutput('methodNotAllowed', { detail: `'${input.method}'`, allow: 'GET' });
    if (!acceptsMediaType(input.header('accept'), 'text/event-stream')) {
      return refusalOutput('notAcceptableSse', { detail: `got '${input.header('accept') ?? ''}'` });
    }
    const sessionId = newSessionId();
    const refused = await context.admit({ sessionId, kind: 'legacy-sse', input, streamPrefix: null });
    if (refused !== undefined) return refused;
    const channel = new SseChannel(context.maxSseBufferBytes);
    // 2024-11-05 "HTTP with SSE": on connect the server MUST send an `endpoint` event with the POST URI.
    channel.write(formatEndpointEvent(`${this.#messagesPath}?sessionId=${sessionId}`));
    const transport = new HttpSseSessionTransport({
      sessionId,
      channel,
      onClosed: (t) => {
        void context.table.remove(t.sessionId, t);
      },
      record: context.table.link(sessionId),
    });
    const entry: HttpSseEntry = { kind: 'legacy-sse', transport, session: undefined, principal: context.principalOf?.(input) };
    context.table.add(entry);
    // The session lives as long as its stream (2024-11-05 has no resumability).
    channel.ondetach = () => {
      void context.table.closeEntry(entry);
    };
    try {
      entry.session = await context.server.connect(transport, { sessionId, authInfo: input.authInfo, batches: false });
    } catch (error) {
      await transport.close();
      return context.internalError(error);
    }
    channel.keepAlive(context.keepAliveMs);
    return { status: HttpStatus.Ok, headers: SSE_HEADERS, sse: channel };
  }

  /**
   * `POST <messagesPath>?sessionId=<id>`: one message for the session (Host and Origin already checked). The body is
   * read before the session is looked up, so a refusal of a readable request carries its id (JSON-RPC 2.0 §5).
   */
  async post(input: HttpInput): Promise<HttpOutput> {
    const context = this.#context;
    if (input.method !== 'POST') return refusalOutput('methodNotAllowed', { detail: `'${input.method}'`, allow: 'POST' });
    const contentType = input.header('content-type');
    if (!isJsonContentType(contentType)) return refusalOutput('legacyBadContentType', { detail: `got '${contentType ?? ''}'` });
    // TS SDK server-legacy sse.ts: a message that does not parse is 400.
    const read = await readJsonBody(input, context.body);
    if (isRefusedBody(read)) return read;
    const inbound = classifyValue(read.value);
    if (inbound.kind === 'invalid') return errorOutput(HttpStatus.BadRequest, inbound.reply);
    const id = inbound.kind === 'request' ? inbound.message.id : null;
    const sessionId = new URLSearchParams(input.query).get('sessionId');
    if (sessionId === null || sessionId === '') return refusalOutput('legacyMissingSessionId', { id });
    const entry = context.table.httpSse(sessionId);
    if (entry === undefined || entry.transport.closed) return refusalOutput('sessionNotFound', { id });
    // MCP 2025-11-25 basic/security_best_practices.mdx "Session Hijacking": servers "SHOULD bind session IDs to
    // user-specific information" and "MUST NOT use sessions for authentication". With `auth`, a session is its
    // opener's: another principal's message (a request, or a bare response to the opener's server→client request)
    // gets the answer to an unknown session (404), as on Streamable HTTP, so it learns nothing.
    if (entry.principal !== undefined && context.principalOf?.(input) !== entry.principal) return refusalOutput('sessionNotFound', { id });
    // 2024-11-05 has no JSON-RPC batching (batches arrived with MCP 2025-03-26 basic/index.mdx "Batching"): a batch
    // is refused whole, unless it holds only responses and notifications, which are never answered (JSON-RPC 2.0
    // §4.1, §5): those are read and accepted like a lone response.
    if (inbound.kind === 'batch' && !inbound.items.every((item) => item.kind === 'response' || item.kind === 'notification')) {
      return refusalOutput('legacyBatch');
    }
    const forbidden = context.authorize?.({ input, inbound, session: entry });
    if (forbidden !== undefined) return forbidden;
    void context.table.touch(entry, 'active');
    entry.transport._receive(inbound, extraOf(input, this.#context.callerOf));
    return { status: HttpStatus.Accepted, headers: TEXT_HEADERS, body: 'Accepted' };
  }
}
