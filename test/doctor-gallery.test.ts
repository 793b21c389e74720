/**
 * The requirements manifest, the checks and the broken-servers gallery agree: ids are unique and well formed,
 * every requirement is reportable by some check and every id a check may report is in the manifest, every fixture
 * named exists, what a user reads cites public sources only and titles state what was found, and the gallery files (test/doctor-gallery-*.test.ts, see test/helpers/doctorGallery.ts) cover
 * every area.
 */
import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../packages/cli/src/doctor/checks/index.js';
import { REQUIREMENTS } from '../packages/cli/src/doctor/requirements/index.js';
import { fixturePath } from './helpers/brokenServer.js';
import { GALLERY_GROUPS, INTERNAL_ID, WITH_FIXTURE } from './helpers/doctorGallery.js';

describe('the requirements manifest and the checks', () => {
  it('ids are unique, well formed and in their area', () => {
    const ids = REQUIREMENTS.map((r) => r.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(REQUIREMENTS.filter((r) => !/^[a-z]+\.[a-z0-9]+(-[a-z0-9]+)*$/.test(r.id) || !r.id.startsWith(`${r.area}.`)).map((r) => r.id)).toEqual([]);
    const checkIds = CHECKS.map((c) => c.id);
    expect(checkIds.filter((id, i) => checkIds.indexOf(id) !== i)).toEqual([]);
    expect(CHECKS.filter((c) => !c.id.startsWith(`${c.area}.`)).map((c) => c.id)).toEqual([]);
  });

  it('every id a check may report is in the manifest, and every requirement is reportable by some check', () => {
    const known = new Set(REQUIREMENTS.map((r) => r.id));
    const reportable = new Set(CHECKS.flatMap((c) => c.requirements));
    expect(CHECKS.flatMap((c) => c.requirements.filter((id) => !known.has(id)).map((id) => `${c.id} -> ${id}`))).toEqual([]);
    expect(REQUIREMENTS.filter((r) => !reportable.has(r.id)).map((r) => r.id)).toEqual([]);
  });

  it('every fixture named exists (or is a command line), on a transport its requirement applies to', () => {
    expect(WITH_FIXTURE.filter((r) => r.fixture.command === undefined && !existsSync(fixturePath(r.fixture.file))).map((r) => `${r.id}: ${r.fixture.file}.mjs`)).toEqual([]);
    expect(WITH_FIXTURE.filter((r) => r.fixture.command !== undefined && (r.fixture.transport !== 'stdio' || r.fixture.command.length === 0)).map((r) => r.id)).toEqual([]);
    expect(WITH_FIXTURE.filter((r) => !r.transports.includes(r.fixture.transport)).map((r) => r.id)).toEqual([]);
  });

  it('every text a user reads cites public sources only: no internal id, and each source is a URL, an RFC or the JSON-RPC spec', () => {
    const texts = REQUIREMENTS.flatMap((r) => [r.title, r.rule, r.behaviour, r.source ?? '', r.fix, ...r.causes].map((text) => [r.id, text] as const));
    expect(texts.filter(([, text]) => INTERNAL_ID.test(text)).map(([id, text]) => `${id}: ${text}`)).toEqual([]);
    expect(REQUIREMENTS.filter((r) => r.source !== undefined && !/https:\/\/|RFC \d+|JSON-RPC 2\.0/.test(r.source)).map((r) => `${r.id}: ${r.source}`)).toEqual([]);
    expect(REQUIREMENTS.filter((r) => r.spec === null && r.source === undefined).map((r) => r.id)).toEqual([]);
  });

  it('titles state what was found, apart from the rule: no title is its rule', () => {
    expect(REQUIREMENTS.filter((r) => r.title === r.rule).map((r) => r.id)).toEqual([]);
    expect(REQUIREMENTS.filter((r) => r.rule.length === 0)).toEqual([]);
  });

  it('the gallery files cover every area, each once', () => {
    const areas = Object.values(GALLERY_GROUPS).flat();
    expect([...areas].sort()).toEqual(['eras', 'http', 'primitives', 'protocol', 'startup', 'stdio']);
    const files = readdirSync(new URL('.', import.meta.url)).filter((f) => /^doctor-gallery-.+\.test\.ts$/.test(f));
    expect(files.sort()).toEqual(Object.keys(GALLERY_GROUPS).map((g) => `doctor-gallery-${g}.test.ts`).sort());
  });
});
