/**
 * DNS-rebinding and cross-site protection: a local server refuses a request whose `Host` is not a loopback name,
 * and any server refuses a present, foreign `Origin` with 403. A server reached on a public name is not asked
 * about `Host` (it answers to its own names, which the doctor cannot know).
 * @see MCP 2025-11-25 basic/transports.mdx "Security Warning"; MCP 2026-07-28 basic/transports/streamable-http.mdx
 *   "Security & Endpoint"
 */
import type { Check, CheckContext } from '../../types.js';
import { endMintedSession, probePost } from './session.js';
import { exchange, exchangeEvidence, isLoopbackTarget, isSuccess, statusText } from './wire.js';

/** The name a rebinding page would be served from. */
const FOREIGN_HOST = 'evil.example';
const FOREIGN_ORIGIN = `http://${FOREIGN_HOST}`;

async function foreignHost(ctx: CheckContext): Promise<void> {
  const { request, response } = await exchange(ctx, probePost(ctx, 'doctor-host', { host: FOREIGN_HOST }));
  await endMintedSession(ctx, response);
  // Any refusal will do: 403, 400, 421 Misdirected Request; a 5xx refuses too, if clumsily.
  if (!isSuccess(response.status)) return;
  ctx.report('http.host-not-validated', {
    message: `A POST to this local server with Host: ${FOREIGN_HOST} was served (${response.status}): a web page whose domain rebinds to 127.0.0.1 can call the server`,
    evidence: exchangeEvidence(request, response),
  });
}

async function foreignOrigin(ctx: CheckContext, loopback: boolean): Promise<void> {
  const { request, response } = await exchange(ctx, probePost(ctx, 'doctor-origin', { origin: FOREIGN_ORIGIN }));
  await endMintedSession(ctx, response);
  // 401: authentication comes first; the doctor has no way past it to see the Origin rule.
  if (response.status === 403 || response.status === 401 || (response.status === 0 && ctx.signal.aborted)) return;
  if (isSuccess(response.status)) {
    ctx.report('http.origin-not-validated', {
      message: `A POST with Origin: ${FOREIGN_ORIGIN} was served (${response.status}) instead of refused with 403`,
      evidence: exchangeEvidence(request, response),
      // A public server may serve every origin on purpose (with authentication); a local one must not.
      ...(loopback ? {} : { severity: 'warning' as const }),
    });
    return;
  }
  if (response.status >= 400 && response.status < 500) {
    ctx.report('http.origin-not-validated', {
      message: `A POST with Origin: ${FOREIGN_ORIGIN} was refused with ${response.status} instead of 403`,
      evidence: exchangeEvidence(request, response),
      severity: 'warning',
    });
    return;
  }
  ctx.report('http.origin-not-validated', {
    message: `A POST with Origin: ${FOREIGN_ORIGIN} ${statusText(response)} instead of 403`,
    evidence: exchangeEvidence(request, response),
    severity: 'warning',
  });
}

/**
 * Whether the injected fetch can send a `Host` header. The Fetch standard forbids one, so the platform's own
 * `fetch` sends the URL's host instead (Node's does so silently): probing with it would see every server serve
 * "evil.example". The Node environment injects a fetch on `node:http`, which sends the header as given.
 */
function canSendHost(ctx: CheckContext): boolean {
  return ctx.env.fetch !== globalThis.fetch;
}

async function run(ctx: CheckContext): Promise<void> {
  const loopback = isLoopbackTarget(ctx);
  if (loopback && !canSendHost(ctx)) {
    ctx.progress(`Origin: ${FOREIGN_ORIGIN} (Host is not checked: this fetch cannot send a Host header)`);
  } else if (loopback) {
    ctx.progress(`Host: ${FOREIGN_HOST} and Origin: ${FOREIGN_ORIGIN}`);
    await foreignHost(ctx);
  } else {
    ctx.progress(`Origin: ${FOREIGN_ORIGIN} (Host is not checked on a server that is not local)`);
  }
  if (!ctx.signal.aborted) await foreignOrigin(ctx, loopback);
}

export const DNS_REBINDING_CHECK: Check = {
  id: 'http.dns-rebinding',
  title: 'HTTP Host and Origin validation',
  area: 'http',
  transports: ['http'],
  requirements: ['http.host-not-validated', 'http.origin-not-validated'],
  run,
};
