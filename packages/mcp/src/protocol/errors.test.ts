import { describe, expect, it } from 'vitest';
import { JsonRpcError } from '@switchboard/jsonrpc';
import {
  ClientRequestError,
  McpError,
  MissingClientCapabilityError,
  ResourceNotFoundError,
  UnsupportedProtocolVersionError,
  mcpErrorFromWire,
  resourceNotFound,
  resourceNotFoundCode,
} from './errors.js';

/** The wire object, parsed back from its JSON text, as a client receives it. */
const overTheWire = (error: McpError) => mcpErrorFromWire(JSON.parse(JSON.stringify(error.toJSON())) as ReturnType<McpError['toJSON']>);

describe('typed MCP errors round-trip through code and data', () => {
  it('McpError is a class of its own, a JsonRpcError, and the fallback of mcpErrorFromWire', () => {
    const e = new McpError(-32000, 'Server error: x', { a: 1 });
    expect(e).toBeInstanceOf(JsonRpcError);
    expect(McpError).not.toBe(JsonRpcError);
    const back = overTheWire(e);
    expect([back.constructor, back.code, back.message, back.data]).toEqual([McpError, -32000, 'Server error: x', { a: 1 }]);
  });

  it('UnsupportedProtocolVersionError carries supported and requested', () => {
    const e = new UnsupportedProtocolVersionError({ supported: ['2025-06-18', '2025-11-25'], requested: '1999-01-01' });
    expect(e.toJSON()).toEqual({ code: -32022, message: 'Unsupported protocol version: "1999-01-01"', data: { supported: ['2025-06-18', '2025-11-25'], requested: '1999-01-01' } });
    const back = overTheWire(e);
    expect(back).toBeInstanceOf(UnsupportedProtocolVersionError);
    expect([(back as UnsupportedProtocolVersionError).supported, (back as UnsupportedProtocolVersionError).requested]).toEqual([['2025-06-18', '2025-11-25'], '1999-01-01']);
  });

  it('ResourceNotFoundError carries the uri; its code is -32002 up to 2025-11-25 and -32602 from 2026-07-28', () => {
    const back = overTheWire(new ResourceNotFoundError('test://x'));
    expect(back).toBeInstanceOf(ResourceNotFoundError);
    expect((back as ResourceNotFoundError).uri).toBe('test://x');
    expect(['2024-11-05', '2025-11-25', '2026-07-28', undefined].map(resourceNotFoundCode)).toEqual([-32002, -32002, -32602, -32002]);
    expect(resourceNotFound('test://x', '2026-07-28').toJSON()).toEqual({ code: -32602, message: 'Resource not found: "test://x"', data: { uri: 'test://x' } });
  });

  it('MissingClientCapabilityError carries requiredCapabilities', () => {
    const e = new MissingClientCapabilityError({ sampling: {} });
    expect(e.toJSON()).toEqual({ code: -32021, message: 'Missing required client capability: "sampling"', data: { requiredCapabilities: { sampling: {} } } });
    const back = overTheWire(e);
    expect(back).toBeInstanceOf(MissingClientCapabilityError);
    expect((back as MissingClientCapabilityError).requiredCapabilities).toEqual({ sampling: {} });
  });

  it('a known code with data of the wrong shape stays a plain McpError', () => {
    for (const error of [{ code: -32022, message: 'm', data: { supported: 'no' } }, { code: -32002, message: 'm' }, { code: -32021, message: 'm', data: { requiredCapabilities: [] } }]) {
      expect(mcpErrorFromWire(error).constructor).toBe(McpError);
    }
  });

  it('ClientRequestError is local: it wraps the received error as its typed cause', () => {
    const e = new ClientRequestError({ method: 'sampling/createMessage', error: { code: -32600, message: 'client refused' } });
    expect(e).not.toBeInstanceOf(JsonRpcError);
    expect([e.name, e.code, e.method, e.message]).toEqual(['ClientRequestError', -32600, 'sampling/createMessage', 'Client request failed: "sampling/createMessage" was answered with error -32600: "client refused"']);
    expect(e.cause).toBeInstanceOf(McpError);
    expect(e.cause.toJSON()).toEqual({ code: -32600, message: 'client refused' });
  });
});
