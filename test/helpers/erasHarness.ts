// A small stand-in for the doctor's runner, for the eras and protocol checks' own tests: a CheckContext over a real
// child process or a real HTTP server (no mocks), collecting what the checks report. The gallery test runs the real
// runner; this one lets a check be tested alone.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { McpClient } from '@switchboard/mcp/client';
import { streamableHttp } from '@switchboard/mcp/client';
import { nodeFetch } from '@switchboard/mcp/node';
import { spawnStdio } from '@switchboard/mcp/stdio';
import type { ProtocolRevision } from '@switchboard/mcp';
import type { Check, CheckContext, DoctorFacts, DoctorTarget, HttpProbeResponse, Observation, StdioLine, StdioWire } from '../../packages/cli/src/doctor/types.js';

export interface Reported extends Observation {
  readonly id: string;
}

function wireOf(child: ChildProcessWithoutNullStreams): StdioWire {
  const lines: StdioLine[] = [];
  const waiters = new Set<() => void>();
  let exit: StdioWire['exit'];
  let buffer = '';
  const wake = (): void => {
    for (const waiter of waiters) waiter();
  };
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const raw = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      let json: unknown;
      try {
        json = JSON.parse(raw.replace(/\r$/, '').replace(/^\uFEFF/, ''));
      } catch {
        json = undefined;
      }
      lines.push({ raw, ...(json === undefined ? {} : { json }), atMs: performance.now() });
    }
    wake();
  });
  child.stderr.resume();
  child.on('exit', (code, signal) => {
    exit = { code, signal };
    wake();
  });
  const waitFor: StdioWire['waitFor'] = (match, { timeoutMs, fromIndex = 0 }) =>
    new Promise((resolve) => {
      let index = fromIndex;
      const check = (): void => {
        for (; index < lines.length; index++) {
          if (match(lines[index]!)) return done(lines[index]);
        }
        if (exit !== undefined) done(undefined);
      };
      const timer = setTimeout(() => done(undefined), timeoutMs);
      function done(line: StdioLine | undefined): void {
        clearTimeout(timer);
        waiters.delete(check);
        resolve(line);
      }
      waiters.add(check);
      check();
    });
  const write = (text: string): Promise<void> => new Promise((resolve, reject) => child.stdin.write(text, (error) => (error ? reject(error) : resolve())));
  return {
    pid: child.pid,
    startedAtMs: performance.now(),
    lines,
    stderrTail: [],
    get exit() {
      return exit;
    },
    write,
    send: (message) => write(`${JSON.stringify(message)}\n`),
    waitFor,
    request: async (message, timeoutMs) => {
      const from = lines.length;
      await write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`).catch(() => undefined);
      return waitFor((line) => (line.json as { id?: unknown } | undefined)?.id === message.id, { timeoutMs, fromIndex: from });
    },
    close: async () => {
      if (exit !== undefined) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    },
  };
}

async function httpOf(target: Extract<DoctorTarget, { transport: 'http' }>, request: Parameters<CheckContext['http']>[0], timeoutMs: number): Promise<HttpProbeResponse> {
  const headers: Record<string, string> = { ...target.headers };
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    if (value === null) delete headers[name];
    else headers[name] = value;
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), request.timeoutMs ?? timeoutMs);
  try {
    const body = request.body === undefined ? undefined : typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    const response = await nodeFetch(request.url ?? target.url, { method: request.method, headers, ...(body === undefined ? {} : { body }), signal: controller.signal });
    const responseHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => (responseHeaders[name.toLowerCase()] = value));
    const messages: unknown[] = [];
    const eventIds: string[] = [];
    let text = '';
    if ((responseHeaders['content-type'] ?? '').startsWith('text/event-stream') && response.body !== null) {
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        const events = text.split('\n\n');
        messages.length = 0;
        for (const event of events) {
          const data = event.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
          if (data !== '') {
            try {
              messages.push(JSON.parse(data));
            } catch {
              // not JSON
            }
          }
        }
        if (messages.some((m) => typeof m === 'object' && m !== null && ('result' in m || 'error' in m))) break;
      }
      await reader.cancel().catch(() => undefined);
    } else {
      text = await response.text();
      try {
        const parsed: unknown = JSON.parse(text);
        messages.push(...(Array.isArray(parsed) ? parsed : [parsed]));
      } catch {
        // not JSON
      }
    }
    return { status: response.status, headers: responseHeaders, text, messages, eventIds };
  } catch (error) {
    return { status: 0, headers: {}, text: '', messages: [], eventIds: [], error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `checks` in order against `target`, the way the runner does (without its connect step's facts). */
export async function runChecks(options: {
  readonly target: DoctorTarget;
  readonly checks: readonly Check[];
  readonly era?: CheckContext['era'];
  readonly call?: CheckContext['call'];
  readonly requestTimeoutMs?: number;
}): Promise<{ readonly reported: Reported[]; readonly facts: DoctorFacts }> {
  const { target } = options;
  const reported: Reported[] = [];
  const facts: DoctorFacts = { connected: true, legacyRevisions: [], modernRevisions: [], measurements: {} };
  const wires: StdioWire[] = [];
  const clients = new Map<string, Promise<McpClient>>();
  const requestTimeoutMs = options.requestTimeoutMs ?? 3000;
  let allowed: readonly string[] = [];
  const ctx: CheckContext = {
    target,
    env: undefined as never,
    signal: new AbortController().signal,
    requestTimeoutMs,
    era: options.era ?? 'auto',
    ...(options.call === undefined ? {} : { call: options.call }),
    facts,
    report: (id, observation) => {
      if (!allowed.includes(id)) throw new Error(`Not a requirement of this check: "${id}"`);
      reported.push({ id, ...observation });
    },
    client: (clientOptions) => {
      const era = clientOptions?.era ?? (options.era === 'session' ? 'legacy' : options.era === 'stateless' ? 'modern' : 'auto');
      const key = `${era}:${clientOptions?.revision ?? ''}`;
      let client = clients.get(key);
      if (client === undefined) {
        const connector =
          target.transport === 'stdio' ? spawnStdio({ command: target.command, args: [...target.args], stderr: 'ignore' }) : streamableHttp({ url: target.url, fetch: nodeFetch });
        client = McpClient.connect({ connector, era, timeoutMs: requestTimeoutMs, ...(clientOptions?.revision === undefined ? {} : { pin: clientOptions.revision as ProtocolRevision }) });
        clients.set(key, client);
      }
      return client;
    },
    spawn: () => {
      if (target.transport !== 'stdio') throw new Error('spawn() is for stdio targets');
      const wire = wireOf(spawn(target.command, [...target.args], { stdio: ['pipe', 'pipe', 'pipe'] }));
      wires.push(wire);
      return Promise.resolve(wire);
    },
    http: (request) => {
      if (target.transport !== 'http') throw new Error('http() is for HTTP targets');
      return httpOf(target, request, requestTimeoutMs);
    },
    progress: () => undefined,
  };
  try {
    for (const check of options.checks) {
      if (!check.transports.includes(target.transport)) continue;
      allowed = check.requirements;
      await check.run(ctx);
    }
  } finally {
    await Promise.all(wires.map((w) => w.close()));
    await Promise.all([...clients.values()].map((c) => c.then((client) => client.close()).catch(() => undefined)));
  }
  return { reported, facts };
}
