import { describe, expect, it } from 'vitest';
import { compileParamHeaders, decodeHeaderValue, encodeHeaderValue, paramHeaderMismatch } from './paramHeaders.js';
import type { ParamHeader } from './paramHeaders.js';

const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ type: 'object', properties, ...extra });
const annotated = (type: unknown, header = 'Region'): Record<string, unknown> => ({ type, 'x-mcp-header': header });

describe('compileParamHeaders: the annotations of an inputSchema', () => {
  it('compiles each annotated property: the declared name, the lower-case field, the path and the type, in schema order', () => {
    const schema = object({
      region: annotated('string'),
      query: { type: 'string' },
      limit: annotated('integer', 'Limit'),
      dry: annotated(['boolean', 'null'], 'Dry-Run'),
      target: object({ zone: annotated('string', 'Zone') }),
    });
    expect(compileParamHeaders(schema)).toEqual([
      { header: 'Region', field: 'mcp-param-region', path: ['region'], type: 'string' },
      { header: 'Limit', field: 'mcp-param-limit', path: ['limit'], type: 'integer' },
      { header: 'Dry-Run', field: 'mcp-param-dry-run', path: ['dry'], type: 'boolean' },
      { header: 'Zone', field: 'mcp-param-zone', path: ['target', 'zone'], type: 'string' },
    ]);
  });

  it('no annotation (or no schema object): one shared frozen empty list', () => {
    const none = compileParamHeaders(object({ a: { type: 'string' } }));
    expect(none).toEqual([]);
    expect(Object.isFrozen(none)).toBe(true);
    expect(compileParamHeaders(undefined)).toBe(none);
    expect(compileParamHeaders(true)).toBe(none);
  });

  it('a property named "x-mcp-header", or the keyword inside const/default/enum values, is no annotation', () => {
    const schema = object({ 'x-mcp-header': { type: 'string', default: { 'x-mcp-header': 'No' }, enum: [{ 'x-mcp-header': 'No' }] } });
    expect(compileParamHeaders(schema)).toEqual([]);
  });

  it.each([
    ['empty', '', /on property "region".*expected a non-empty string, got ""/],
    ['not a string', 7, /on property "region".*expected a non-empty string, got 7/],
    ['a space', 'Re gion', /expected an HTTP token .*got "Re gion"/],
    ['a colon', 'Region:', /expected an HTTP token/],
    ['a line feed', 'Re\ngion', /expected an HTTP token/],
    ['a carriage return', 'Re\rgion', /expected an HTTP token/],
    ['a NUL', 'Re\u0000gion', /expected an HTTP token/],
    ['non-ASCII', 'Régión', /expected an HTTP token/],
  ])('refuses a name that is %s, naming the property', (_case, header, message) => {
    expect(() => compileParamHeaders(object({ region: annotated('string', header as string) }))).toThrow(TypeError);
    expect(() => compileParamHeaders(object({ region: annotated('string', header as string) }))).toThrow(message);
  });

  it('refuses names equal without regard to case, naming both properties', () => {
    const schema = object({ a: annotated('string', 'Region'), b: annotated('string', 'REGION') });
    expect(() => compileParamHeaders(schema)).toThrow('Invalid x-mcp-header annotation on property "b": "REGION" is already declared by property "a" (names are compared without case)');
  });

  it.each([['number'], ['object'], ['array'], ['null'], [undefined], [['string', 'integer']]])('refuses a property of type %j', (type) => {
    expect(() => compileParamHeaders(object({ region: annotated(type) }))).toThrow(/on property "region": the property's type must be "string", "integer" or "boolean"/);
  });

  it.each([
    ['items', object({ list: { type: 'array', items: annotated('string') } })],
    ['prefixItems', object({ list: { type: 'array', prefixItems: [annotated('string')] } })],
    ['oneOf', object({ a: { oneOf: [annotated('string')] } })],
    ['anyOf', object({}, { anyOf: [object({ a: annotated('string') })] })],
    ['allOf', object({}, { allOf: [object({ a: annotated('string') })] })],
    ['not', object({ a: { not: annotated('string') } })],
    ['if', object({}, { if: object({ a: annotated('string') }) })],
    ['then', object({}, { then: object({ a: annotated('string') }) })],
    ['else', object({}, { else: object({ a: annotated('string') }) })],
    ['$defs', object({ a: { $ref: '#/$defs/r' } }, { $defs: { r: annotated('string') } })],
    ['additionalProperties', object({}, { additionalProperties: annotated('string') })],
    ['patternProperties', object({}, { patternProperties: { '^x': annotated('string') } })],
  ])('refuses an annotation reached through %s', (keyword, schema) => {
    expect(() => compileParamHeaders(schema)).toThrow(TypeError);
    expect(() => compileParamHeaders(schema)).toThrow(new RegExp(`${keyword.replace('$', '\\$')}.*only a property reached from the root through "properties" alone`));
  });

  it('refuses an annotation on the schema root, and quotes the tool name when given', () => {
    expect(() => compileParamHeaders({ type: 'string', 'x-mcp-header': 'Root' }, { toolName: 'sql' }))
      .toThrow('Invalid x-mcp-header annotation on the schema root of tool "sql": only a property reached from the root through "properties" alone may carry it');
  });
});

describe('encodeHeaderValue / decodeHeaderValue: the base64 sentinel, both ways', () => {
  // The examples of MCP 2026-07-28 basic/transports/streamable-http.mdx "Value Encoding".
  it.each([
    ['us-west1', 'us-west1'],
    ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
    [' padded ', '=?base64?IHBhZGRlZCA=?='],
    ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
    ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
  ])('%j ⇄ %j', (value, header) => {
    expect(encodeHeaderValue(value)).toBe(header);
    expect(decodeHeaderValue(header)).toBe(value);
  });

  it('integers in decimal, booleans in lower case, inner spaces kept plain', () => {
    expect([encodeHeaderValue(42), encodeHeaderValue(-7), encodeHeaderValue(true), encodeHeaderValue(false), encodeHeaderValue('a b')])
      .toEqual(['42', '-7', 'true', 'false', 'a b']);
  });

  it('round-trips any string, including tabs, controls, emoji and a long value', () => {
    for (const value of ['\tx', 'a\u0000b', '😀', 'é'.repeat(70_000), '', '=?base64??=']) expect(decodeHeaderValue(encodeHeaderValue(value))).toBe(value);
  });

  it('trims white space around the received value (inside the wrapper too)', () => {
    expect(decodeHeaderValue('  us-west1 \t')).toBe('us-west1');
    expect(decodeHeaderValue(' =?base64?SGVsbG8=?=  ')).toBe('Hello');
  });

  it('a value without the whole wrapper is literal', () => {
    expect(decodeHeaderValue('SGVsbG8=')).toBe('SGVsbG8=');
    expect(decodeHeaderValue('=?base64?SGVsbG8=')).toBe('=?base64?SGVsbG8=');
    expect(decodeHeaderValue('SGVsbG8=?=')).toBe('SGVsbG8=?=');
    expect(decodeHeaderValue('=?BASE64?SGVsbG8=?=')).toBe('=?BASE64?SGVsbG8=?=');
  });

  it.each([
    ['missing padding', '=?base64?SGVsbG8?='],
    ['characters outside the alphabet', '=?base64?SGVs!!!bG8=?='],
    ['base64url', '=?base64?-_8=?='],
    ['padding inside', '=?base64?SG=sbG8=?='],
    ['white space inside', '=?base64?SGVs bG8=?='],
    ['bytes that are not UTF-8', `=?base64?${btoa('\xff\xfe')}?=`],
    ['a control character in a literal', 'a\u0001b'],
    ['non-ASCII in a literal', 'caf\u00e9'],
  ])('refuses %s', (_case, header) => {
    expect(decodeHeaderValue(header)).toBeUndefined();
  });
});

describe('paramHeaderMismatch: headers against arguments', () => {
  const specs: readonly ParamHeader[] = compileParamHeaders(object({
    region: annotated(['string', 'null']),
    limit: annotated('integer', 'Limit'),
    dry: annotated('boolean', 'Dry'),
    target: object({ zone: annotated('string', 'Zone') }),
  }));
  const headers = (values: Record<string, string>) => (field: string): string | undefined => values[field];

  it('every present value with its header, decoded and compared: no mismatch', () => {
    const args = { region: 'Hello', limit: 42, dry: false, target: { zone: 'a' } };
    expect(paramHeaderMismatch(specs, args, headers({
      'mcp-param-region': '=?base64?SGVsbG8=?=', 'mcp-param-limit': ' 42 ', 'mcp-param-dry': 'false', 'mcp-param-zone': 'a',
    }))).toBeUndefined();
  });

  it('integers compare numerically: 42.0 and 4.2e1 are 42', () => {
    for (const header of ['42', '42.0', '4.2e1', '+42']) expect(paramHeaderMismatch(specs, { limit: 42 }, headers({ 'mcp-param-limit': header }))).toBeUndefined();
    expect(paramHeaderMismatch(specs, { limit: 42 }, headers({ 'mcp-param-limit': '0x2A' }))).toBe('Mcp-Param-Limit header value "0x2A" does not match arguments.limit "42"');
    expect(paramHeaderMismatch(specs, { limit: 42 }, headers({ 'mcp-param-limit': '43' }))).toMatch(/does not match arguments.limit "42"/);
  });

  it('values are case-sensitive', () => {
    expect(paramHeaderMismatch(specs, { region: 'eu' }, headers({ 'mcp-param-region': 'EU' }))).toBe('Mcp-Param-Region header value "EU" does not match arguments.region "eu"');
    expect(paramHeaderMismatch(specs, { dry: true }, headers({ 'mcp-param-dry': 'True' }))).toMatch(/does not match arguments.dry "true"/);
  });

  it('a present value without its header is a mismatch (nested paths too)', () => {
    expect(paramHeaderMismatch(specs, { region: 'eu' }, headers({}))).toBe('Mcp-Param-Region header is missing, but arguments.region is "eu"');
    expect(paramHeaderMismatch(specs, { target: { zone: 'z' } }, headers({}))).toBe('Mcp-Param-Zone header is missing, but arguments.target.zone is "z"');
    expect(paramHeaderMismatch(specs, { region: '' }, headers({}))).toMatch(/missing/);
  });

  it('a null or absent value expects no header, and refuses one sent anyway', () => {
    expect(paramHeaderMismatch(specs, { region: null }, headers({}))).toBeUndefined();
    expect(paramHeaderMismatch(specs, {}, headers({}))).toBeUndefined();
    expect(paramHeaderMismatch(specs, undefined, headers({}))).toBeUndefined();
    expect(paramHeaderMismatch(specs, { target: 'not an object' }, headers({}))).toBeUndefined();
    expect(paramHeaderMismatch(specs, { region: null }, headers({ 'mcp-param-region': 'eu' }))).toBe('Mcp-Param-Region header is "eu", but arguments.region is null');
    expect(paramHeaderMismatch(specs, {}, headers({ 'mcp-param-region': 'eu' }))).toBe('Mcp-Param-Region header is "eu", but arguments.region is absent');
  });

  it('an invalid encoding, or a value no header can stand for, is a mismatch', () => {
    expect(paramHeaderMismatch(specs, { region: 'Hello' }, headers({ 'mcp-param-region': '=?base64?SGVsbG8?=' })))
      .toBe('Mcp-Param-Region header value "=?base64?SGVsbG8?=" is not a valid header value (invalid characters or base64)');
    expect(paramHeaderMismatch(specs, { region: { x: 1 } }, headers({ 'mcp-param-region': '{"x":1}' }))).toMatch(/does not match/);
  });

  it('quotes long values in at most 200 characters', () => {
    const long = 'x'.repeat(1000);
    const message = paramHeaderMismatch(specs, { region: long }, headers({})) ?? '';
    expect(message.length).toBeLessThan(300);
  });
});
