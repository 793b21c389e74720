/**
 * The primitives checks of the doctor, run by the real runner (`runDoctor` with only these checks after its connect
 * step), against the primitives fixtures of the broken-servers gallery and our demo server (stdio, both eras): each
 * fixture yields its planted finding with the evidence a user needs (the repeated cursor, the offending tool, the
 * token count), and our demo server yields none. The gallery (test/doctor-gallery.test.ts) runs every check on the
 * same fixtures; this file pins what the primitives findings say.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PRIMITIVES_CHECKS } from '../packages/cli/src/doctor/checks/primitives.js';
import { runDoctor } from '../packages/cli/src/doctor/doctor.js';
import { nodeDoctorEnv } from '../packages/cli/src/doctor/nodeEnv.js';
import type { Check, DoctorFacts, DoctorOptions, DoctorReport, Finding } from '../packages/cli/src/doctor/types.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'broken-servers');

/** Runs the connect step and the primitives checks on `node <args>`; what they found, and the facts they left. */
async function runPrimitives(
  args: readonly string[],
  options: { readonly era?: DoctorOptions['era']; readonly call?: DoctorOptions['call']; readonly requestTimeoutMs?: number } = {},
): Promise<{ findings: readonly Finding[]; facts: DoctorFacts; checks: DoctorReport['checks'] }> {
  let facts: DoctorFacts | undefined;
  /** A last check that keeps the facts the primitives checks filled (the report carries only the measurements). */
  const keepFacts: Check = { id: 'primitives.kept-facts', title: 'facts', area: 'primitives', transports: ['stdio'], requirements: [], run: (ctx) => Promise.resolve(void (facts = ctx.facts)) };
  const report = await runDoctor({
    target: { transport: 'stdio', command: process.execPath, args },
    env: nodeDoctorEnv(),
    checks: [...PRIMITIVES_CHECKS, keepFacts],
    timeoutMs: 20_000,
    requestTimeoutMs: options.requestTimeoutMs ?? 3_000,
    ...(options.era === undefined ? {} : { era: options.era }),
    ...(options.call === undefined ? {} : { call: options.call }),
  });
  expect(report.connected).toBe(true);
  // The --call check is skipped with its reason when no tool is called (it showed nothing), never counted as passed.
  const callSkipped = (c: (typeof report.checks)[number]): boolean => options.call === undefined && c.id === 'primitives.call' && c.status === 'skipped' && /no tool was called/.test(c.reason ?? '');
  expect(report.checks.filter((c) => c.status !== 'passed' && c.status !== 'failed' && !callSkipped(c)).map((c) => `${c.id} ${c.status} ${c.reason ?? ''}`)).toEqual([]);
  if (options.call === undefined) expect(report.checks.find((c) => c.id === 'primitives.call')?.status).toBe('skipped');
  expect(report.measurements).toEqual(facts?.measurements);
  if (facts === undefined) throw new Error('The primitives checks did not run');
  return { findings: report.findings, facts, checks: report.checks };
}

const fixture = (name: string): string[] => [path.join(FIXTURES, `${name}.mjs`)];
const ids = (findings: readonly Finding[]): string[] => findings.map((f) => f.id);

describe('doctor primitives checks', () => {
  for (const era of ['legacy', 'modern'] as const) {
    it(`reports nothing about our demo server (stdio, --era ${era}) and measures it`, async () => {
      const { findings, facts } = await runPrimitives([path.join(ROOT, 'examples', 'demo', 'main.js'), '--stdio'], { era, call: { name: 'add_numbers', args: { a: 2, b: 3 } } });
      expect(findings).toEqual([]);
      expect(facts.tools?.map((t) => t.name)).toEqual(['execute_sql', 'convert', 'get_time', 'add_numbers']);
      expect(facts.resources?.length).toBe(4);
      expect(facts.resourceTemplates?.length).toBe(1);
      expect(facts.prompts?.length).toBe(1);
      expect(facts.measurements['tools/list.tokens']).toBeGreaterThan(300);
      expect(facts.measurements['tools/list.tokens']).toBeLessThan(2000);
      // The same list in tool-search mode: the two tools' definitions, a few hundred tokens whatever the catalog.
      expect(facts.measurements['tools/list.tokensWithSearch']).toBeGreaterThan(100);
      expect(facts.measurements['tools/list.tokensWithSearch']).toBeLessThan(400);
      for (const key of ['latencyMs.ping', 'latencyMs.tools/list', 'latencyMs.resources/list', 'latencyMs.resources/templates/list', 'latencyMs.prompts/list']) {
        expect(facts.measurements[key], key).toBeGreaterThanOrEqual(0);
      }
    });
  }

  it('reports an inputSchema without "type": "object" and names the tool', async () => {
    const { findings } = await runPrimitives(fixture('primitives-schema-not-object'));
    expect(ids(findings)).toEqual(['primitives.input-schema-not-object']);
    expect(findings[0]?.message).toBe('The inputSchema of "search" is not an object schema');
    expect(findings[0]?.evidence[0]).toContain('search: no "type" at the root');
  });

  it('reports an endless cursor, quoting the cursor and the repeated answer', async () => {
    const { findings, facts } = await runPrimitives(fixture('primitives-endless-cursor'));
    expect(ids(findings)).toEqual(['primitives.endless-pagination']);
    expect(findings[0]?.message).toBe('Pagination of tools/list never ends: the cursor "page-2" was answered twice with the same page (stopped after 3 pages)');
    expect(findings[0]?.evidence[0]).toBe('→ {"method":"tools/list","params":{"cursor":"page-2"}}');
    expect(findings[0]?.evidence[1]).toContain('"nextCursor":"page-2"');
    expect(facts.tools?.map((t) => t.name)).toEqual(['echo']);
  });

  it('reports a draft-07 schema as a warning only', async () => {
    const { findings } = await runPrimitives(fixture('primitives-draft07-schema'));
    expect(ids(findings)).toEqual(['primitives.schema-dialect']);
    expect(findings[0]?.severity).toBe('warning');
    expect(findings[0]?.evidence).toEqual(['echo inputSchema.$schema: "http://json-schema.org/draft-07/schema#"']);
  });

  it('reports a tool name with a space (and not the host rule the spec rule already covers)', async () => {
    const { findings } = await runPrimitives(fixture('primitives-bad-tool-name'));
    expect(ids(findings)).toEqual(['primitives.tool-name-invalid']);
    expect(findings[0]?.evidence).toEqual(['"Create Note": it contains " " (only A-Z, a-z, 0-9, "_", "-" and "." are allowed)']);
  });

  it('reports a duplicate tool name as an error', async () => {
    const { findings } = await runPrimitives(fixture('primitives-duplicate-tool-name'));
    expect(ids(findings)).toEqual(['primitives.duplicate-name']);
    expect(findings[0]?.severity).toBe('error');
    expect(findings[0]?.evidence).toEqual(['tool name "echo" at positions 0 and 1']);
  });

  it('reports tools without descriptions as one warning', async () => {
    const { findings } = await runPrimitives(fixture('primitives-missing-descriptions'));
    expect(findings.map((f) => ({ id: f.id, severity: f.severity, message: f.message, evidence: f.evidence }))).toEqual([
      { id: 'primitives.missing-description', severity: 'warning', message: 'Tools without a description: "echo", "now"', evidence: ['{"name":"echo","description":null}', '{"name":"now","description":null}'] },
    ]);
  });

  it('reports structuredContent against the outputSchema only with --call', async () => {
    const without = await runPrimitives(fixture('primitives-structured-mismatch'));
    expect(without.findings).toEqual([]);
    const { findings } = await runPrimitives(fixture('primitives-structured-mismatch'), { call: { name: 'add', args: { a: 1, b: 2 } } });
    expect(ids(findings)).toEqual(['primitives.structured-content-mismatch']);
    expect(findings[0]?.message).toBe('The structuredContent of tool "add" does not match its outputSchema: structuredContent/sum: must be number');
    expect(findings[0]?.evidence[0]).toContain('"structuredContent":{"sum":"3"}');
  });

  it('reports a huge catalogue as an error with its token count', async () => {
    const { findings, facts } = await runPrimitives(fixture('primitives-huge-catalogue'));
    expect(ids(findings)).toEqual(['primitives.token-cost']);
    expect(findings[0]?.severity).toBe('error');
    expect(findings[0]?.message).toMatch(/^The 1,001 tools cost about [\d,]+ tokens of a model's context \(o200k_base\), above 100,000; listed as tool search \(search_tools \+ call_tool\) about \d{3}$/);
    expect(findings[0]?.evidence).toHaveLength(3);
    expect(findings[0]?.evidence[0]).toMatch(/^largest tool: get_\w+ \(\d+ tokens\)$/);
    expect(facts.tools?.length).toBe(1001);
    expect(facts.measurements['tools/list.tokens']).toBeGreaterThan(150_000);
    expect(facts.measurements['tools/list.tokens']).toBeLessThan(300_000);
    expect(facts.measurements['tools/list.tokensWithSearch']! / facts.measurements['tools/list.tokens']!).toBeLessThan(0.01);
  });

  it('reports a slow tools/list once, without reading it three times', async () => {
    const { findings, facts } = await runPrimitives(fixture('primitives-slow-list'));
    expect(ids(findings)).toEqual(['primitives.slow-list']);
    expect(findings[0]?.evidence).toHaveLength(1);
    expect(facts.measurements['latencyMs.tools/list']).toBeGreaterThan(2000);
  });

  const PLANTED: [string, string, Finding['severity'], DoctorOptions['call']?][] = [
    ['primitives-list-not-declared', 'primitives.list-not-declared', 'warning'],
    ['primitives-list-failed', 'primitives.list-failed', 'error'],
    ['primitives-root-anyof', 'primitives.host-root-combinator', 'warning'],
    ['primitives-array-without-items', 'primitives.host-array-without-items', 'warning'],
    ['primitives-dotted-tool-name', 'primitives.host-name-pattern', 'warning'],
    ['primitives-output-schema-not-object', 'primitives.output-schema-invalid', 'error'],
    ['primitives-unstable-list', 'primitives.list-unstable', 'warning'],
    ['primitives-invalid-content', 'primitives.call-result-invalid', 'error', { name: 'now', args: {} }],
    ['primitives-tool-error-as-protocol-error', 'primitives.call-error-not-result', 'warning', { name: 'fetch_page', args: { title: 'Home' } }],
    ['primitives-no-text-fallback', 'primitives.structured-content-no-text', 'warning', { name: 'add', args: { a: 1, b: 2 } }],
  ];
  for (const [name, id, severity, call] of PLANTED) {
    it(`reports only ${id} (${severity}) about ${name}`, async () => {
      const { findings } = await runPrimitives(fixture(name), call === undefined ? {} : { call });
      expect(findings.map((f) => [f.id, f.severity])).toEqual([[id, severity]]);
    });
  }

  it('probes a list the server does not declare with at most 2 s, even when it never answers', async () => {
    const { findings, checks } = await runPrimitives([path.join(ROOT, 'test', 'fixtures', 'primitives-silent-undeclared-list.mjs')], { requestTimeoutMs: 6_000 });
    expect(findings).toEqual([]);
    const catalogue = checks.find((c) => c.id === 'primitives.catalogue');
    expect(catalogue?.status).toBe('passed');
    // The request budget is 6 s; the probe's is 2 s.
    expect(catalogue?.durationMs).toBeGreaterThanOrEqual(1900);
    expect(catalogue?.durationMs).toBeLessThan(5000);
  });
});
