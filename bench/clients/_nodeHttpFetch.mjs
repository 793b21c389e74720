// A `fetch` over node:http with a keep-alive Agent, for the `switchboard-node-http` row: what Switchboard's
// client costs on HTTP when the connector is handed a cheaper `fetch` than Node's built-in (undici) one. The
// body is buffered, then handed over as a Web `Response` (the connector reads Responses); a request signal aborts it.
// Buffering makes it no general-purpose fetch (an endless SSE stream would never resolve): the raw floor answers
// the legacy GET stream with 405 and every POST with one whole body, which is all this row needs.
import http from 'node:http';

export function nodeHttpFetch({ maxSockets = 16 } = {}) {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const fetchImpl = (input, init = {}) =>
    new Promise((resolve, reject) => {
      const u = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
      const headers = {};
      new Headers(init.headers).forEach((v, k) => (headers[k] = v));
      const body = init.body ?? undefined;
      if (typeof body === 'string') headers['content-length'] = Buffer.byteLength(body);
      const req = http.request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: init.method ?? 'GET', agent, headers, signal: init.signal }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) h.set(k, Array.isArray(v) ? v.join(', ') : v);
          const status = res.statusCode;
          const nullBody = status === 204 || status === 205 || status === 304;
          resolve(new Response(nullBody ? null : Buffer.concat(chunks), { status, headers: h }));
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  fetchImpl.close = () => agent.destroy();
  return fetchImpl;
}
