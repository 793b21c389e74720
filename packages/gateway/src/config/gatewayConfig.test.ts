/**
 * The gateway configuration format: the published JSON Schema file is the schema the code validates with, the
 * examples (examples/gateway/gateway.json and the README's Gateway section) validate against it, and a bad
 * configuration gets one error naming the field at fault.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GATEWAY_CONFIG_SCHEMA } from './configSchema.js';
import { GatewayConfigError, gatewayOptionsFromConfig, parseGatewayConfig, validateGatewayConfig } from './gatewayConfig.js';

const root = new URL('../../../../', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, root), 'utf8');

/** The ```json blocks of the README's "Gateway" section that hold an "upstreams" key. */
function readmeConfigs(): string[] {
  const readme = read('README.md');
  const start = readme.indexOf('\n## Gateway');
  if (start === -1) return [];
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').filter((block) => block.includes('"upstreams"'));
}

function failure(value: unknown): GatewayConfigError {
  try {
    validateGatewayConfig(value);
  } catch (error) {
    if (error instanceof GatewayConfigError) return error;
    throw error;
  }
  throw new Error('expected a GatewayConfigError');
}

describe('gateway config', () => {
  it('publishes the schema the code validates with', () => {
    expect(JSON.parse(read('packages/gateway/schema/gateway-config.schema.json'))).toEqual(GATEWAY_CONFIG_SCHEMA);
  });

  it('accepts the examples', () => {
    const example = parseGatewayConfig(read('examples/gateway/gateway.json'));
    expect(Object.keys(example.upstreams)).toEqual(['everything', 'demo', 'search']);
    const blocks = readmeConfigs();
    expect(blocks.length).toBeGreaterThanOrEqual(1);
    for (const block of blocks) expect(() => parseGatewayConfig(block)).not.toThrow();
  });

  it.each([
    [{ upstreams: { a: { command: 'x', url: 'http://127.0.0.1:1/mcp' } } }, '/upstreams/a', 'expected exactly one of "command" or "url"'],
    [{ upstreams: { a: {} } }, '/upstreams/a', 'expected exactly one of "command" or "url"'],
    [{ upstreams: { a: { command: 'x', commnd: 'y' } } }, '/upstreams/a/commnd', 'unknown field'],
    [{ upstreams: { a: { url: 'ftp://x' } } }, '/upstreams/a/url', 'expected a string matching ^https?://'],
    [{ upstreams: { 'a b': { command: 'x' } } }, '/upstreams/a b', 'the name is not allowed: expected a name matching ^[A-Za-z0-9_-]{1,64}$'],
    [{ upstreams: { p: { command: 'x', prefix: 'x' }, q: { command: 'y', prefix: 'x' } } }, '/upstreams/q/prefix', '"x" is already the prefix of upstream "p"'],
    [{ upstreams: { x: { command: 'x' }, q: { command: 'y', prefix: 'x' } } }, '/upstreams/q/prefix', '"x" is already the prefix of upstream "x"'],
    [{ upstreams: { a: { command: 'x', tools: { allow: 'x' } } } }, '/upstreams/a/tools/allow', 'expected array, got string'],
    [{ upstreams: {}, backoff: { jitter: 2 } }, '/backoff/jitter', '2 is greater than 1'],
    [{}, '', 'missing the required field "upstreams"'],
    [{ upstreams: {}, search: { enabled: 'yes' } }, '/search/enabled', 'expected boolean, got string'],
  ])('refuses %j naming the field', (value, field, why) => {
    const error = failure(value);
    expect(error.field).toBe(field);
    expect(error.message).toBe(`Invalid gateway config at ${field === '' ? '/' : field}: ${why}`);
  });

  it('takes inheritEnv: false to a stdio upstream, which then gets its env only (not the gateway\'s secrets)', () => {
    const options = gatewayOptionsFromConfig({ upstreams: { a: { command: 'a', env: { PATH: '/usr/bin' }, inheritEnv: false } } });
    expect(options.upstreams).toEqual({ a: { command: 'a', env: { PATH: '/usr/bin' }, inheritEnv: false } });
    expect(failure({ upstreams: { a: { command: 'a', inheritEnv: 'no' } } }).field).toBe('/upstreams/a/inheritEnv');
  });

  it('takes sessionPerCaller per upstream (true or bounds) into the gateway options, and refuses a bad bound', () => {
    const options = gatewayOptionsFromConfig({ upstreams: { a: { command: 'a', sessionPerCaller: true }, b: { url: 'http://127.0.0.1:1/mcp', sessionPerCaller: { maxSessions: 5, idleTimeoutMs: 60_000 } } } });
    expect(options.upstreams).toEqual({ a: { command: 'a', sessionPerCaller: true }, b: { url: 'http://127.0.0.1:1/mcp', sessionPerCaller: { maxSessions: 5, idleTimeoutMs: 60_000 } } });
    expect(() => validateGatewayConfig({ upstreams: { a: { command: 'a', sessionPerCaller: { maxSessions: 0 } } } })).toThrow(/^Invalid gateway config at \/upstreams\/a\/sessionPerCaller/);
  });

  it('says when the file is not JSON', () => {
    expect(() => parseGatewayConfig('{ "upstreams": ')).toThrow(/^Invalid gateway config: not JSON: /);
  });

  it('turns a configuration into gateway options (cwd against the file, era to the client)', () => {
    const options = gatewayOptionsFromConfig(
      { upstreams: { a: { command: 'node', args: ['s.js'], cwd: 'sub', era: 'legacy', prefix: '' } }, connectTimeoutMs: 500 },
      { resolvePath: (p) => `/etc/gw/${p}` },
    );
    expect(options).toEqual({ upstreams: { a: { command: 'node', args: ['s.js'], cwd: '/etc/gw/sub', prefix: '', client: { era: 'legacy' } } }, connectTimeoutMs: 500 });
  });
});
