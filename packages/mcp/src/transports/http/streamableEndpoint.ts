/**
 * The Streamable HTTP endpoint (MCP 2025-03-26 … 2025-11-25): POST, GET and DELETE on one path, classified by the
 * ladder and handed to the session transport of the session they name (or a new one for `initialize`).
 * @see MCP 2025-11-25 basic/transports.mdx "Streamable HTTP"
 */
import { classifyValue } from '@switchboard/jsonrpc';
import type { Inbound } from '@switchboard/jsonrpc';
import { isRefusedBody, readJsonBody } from './body.js';
import { extraOf, newSessionId } from './endpointContext.js';
import type { EndpointContext } from './endpointContext.js';
import type { HttpInput, HttpOutput } from './io.js';
import { checkStreamableHttpHead, classifyStreamableHttp } from './ladder.js';
import type { HttpInitializeDecision, HttpRefusalDecision, ResponseMode } from './ladder.js';
import { HttpStatus, errorOutput } from './refusals.js';
import { phaseAfterPost } from './sessionTable.js';
import type { StreamableEntry } from './sessionTable.js';
import { newStreamPrefix } from './sessionLease.js';
import { StreamableHttpSessionTransport } from './sessionTransport.js';
import type { EventStore } from '../../stores/eventStore.js';

/** The settings of the Streamable HTTP endpoint besides the shared ones. */
export interface StreamableEndpointSettings {
  readonly responseMode: ResponseMode;
  /** `responseMode: 'auto'`: ms before an undecided exchange becomes SSE. */
  readonly sseAfterMs: number;
  readonly eventStore: EventStore | undefined;
  /** The `retry` hint (ms) on priming events and before a stream is closed on purpose. */
  readonly retryMs: number;
}

const EMPTY_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** The answer to a refusal decision of the ladder (with `Allow` on a 405). */
function decisionOutput(decision: HttpRefusalDecision): HttpOutput {
  return errorOutput(decision.httpStatus, decision.jsonrpcError, decision.allow === undefined ? undefined : { allow: decision.allow });
}

/** @internal The Streamable HTTP endpoint of one handler. */
export class StreamableEndpoint {
  readonly #context: EndpointContext;
  readonly #settings: StreamableEndpointSettings;

  constructor(context: EndpointContext, settings: StreamableEndpointSettings) {
    this.#context = context;
    this.#settings = settings;
  }

  /** Answers one request to the endpoint (Host and Origin already checked). */
  async handle(input: HttpInput): Promise<HttpOutput> {
    const method = input.method;
    const contentType = input.header('content-type');
    // Refuse what the headers alone refuse (405, 415) before reading a body.
    const head = checkStreamableHttpHead(method, contentType);
    if (head !== undefined) return decisionOutput(head);

    let body: Inbound | undefined;
    if (method === 'POST') {
      const read = await readJsonBody(input, this.#context.body);
      if (isRefusedBody(read)) return read;
      body = classifyValue(read.value);
    }

    const table = this.#context.table;
    const sessionId = input.header('mcp-session-id');
    const entry = sessionId === undefined ? undefined : table.streamable(sessionId);
    const decision = classifyStreamableHttp({
      httpMethod: method,
      contentType,
      accept: input.header('accept'),
      sessionId,
      protocolVersionHeader: input.header('mcp-protocol-version'),
      lastEventId: input.header('last-event-id'),
      session: entry?.transport,
      body,
      responseMode: this.#settings.responseMode,
    });

    switch (decision.kind) {
      case 'refuse':
        return decisionOutput(decision);
      case 'initialize':
        return this.#initialize(decision, input);
      case 'message':
        table.touch(entry as StreamableEntry, phaseAfterPost(decision.inbound));
        return (entry as StreamableEntry).transport._post(decision, extraOf(input));
      case 'listen':
        table.touch(entry as StreamableEntry, 'active');
        return (entry as StreamableEntry).transport._listen(decision.lastEventId);
      case 'terminate':
        // MCP 2025-11-25 basic/transports.mdx "Session Management" item 5: DELETE ends the session; later
        // requests with its id get 404 (the session is no longer in the table).
        table.remove((entry as StreamableEntry).transport.sessionId);
        await table.closeEntry(entry as StreamableEntry);
        return { status: HttpStatus.Ok, headers: EMPTY_HEADERS };
    }
  }

  async #initialize(decision: HttpInitializeDecision, input: HttpInput): Promise<HttpOutput> {
    const context = this.#context;
    const settings = this.#settings;
    // MCP 2025-11-25 basic/transports.mdx "Session Management" item 1: the id is assigned on the response that
    // carries the InitializeResult.
    const sessionId = newSessionId();
    const streamPrefix = newStreamPrefix();
    const refused = await context.admit({ sessionId, kind: 'streamable-http', input, streamPrefix });
    if (refused !== undefined) return refused;
    const transport = new StreamableHttpSessionTransport({
      sessionId,
      eventStore: settings.eventStore,
      logger: context.logger,
      retryMs: settings.retryMs,
      keepAliveMs: context.keepAliveMs,
      maxSseBufferBytes: context.maxSseBufferBytes,
      sseAfterMs: settings.sseAfterMs,
      onClosed: (t) => context.table.remove(t.sessionId, t),
      streamPrefix,
      record: context.table.link(sessionId),
    });
    const entry: StreamableEntry = { kind: 'streamable-http', transport, session: undefined };
    context.table.add(entry);
    try {
      entry.session = await context.server.connect(transport, { sessionId, authInfo: input.authInfo, batches: true });
    } catch (error) {
      await transport.close();
      return context.internalError(error);
    }
    const output = await transport._initialize(decision.request, decision.respondWith, extraOf(input));
    // A failed initialize leaves no session behind (its answer carries no Mcp-Session-Id).
    if (transport.protocolVersion === undefined) await context.table.closeEntry(entry);
    return output;
  }
}
