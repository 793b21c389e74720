// #region test
import { connectRawClient } from '@switchboard/mcp/testing';
import { describe, expect, it } from 'vitest';
import { createServer } from './server.js';

describe('weather server', () => {
  it('forecasts a known city', async () => {
    const client = await connectRawClient(createServer());
    await client.initialize();
    const response = await client.request(1, 'tools/call', { name: 'forecast', arguments: { city: 'Oslo', days: 2 } });
    expect(response).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'Oslo, next 2 day(s): snow, -3 °C' }] },
    });
    await client.close();
  });

  it('stops working on a call the client cancelled, and never answers it', async () => {
    const client = await connectRawClient(createServer());
    await client.initialize();
    await client.send({
      jsonrpc: '2.0', id: 2, method: 'tools/call',
      params: { name: 'week', arguments: { city: 'Oslo' }, _meta: { progressToken: 'p' } },
    });
    await client.waitFor((m) => 'method' in m && m.method === 'notifications/progress');
    await client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });
    await new Promise((resolve) => setTimeout(resolve, 500)); // the whole call would take 7 × 50 ms
    const progress = client.received.filter((m) => 'method' in m && m.method === 'notifications/progress');
    expect(progress.length).toBeLessThan(7);
    expect(client.received.filter((m) => 'id' in m && m.id === 2)).toEqual([]);
    await client.close();
  });
});
// #endregion
