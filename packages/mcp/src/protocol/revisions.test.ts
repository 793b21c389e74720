import { describe, expect, it } from 'vitest';
import {
  LEGACY_REVISIONS,
  MODERN_REVISIONS,
  PROTOCOL_REVISIONS,
  REVISION_FEATURES,
  SERVED_REVISIONS,
  isLegacyRevision,
  isModernRevision,
  isProtocolRevision,
  revisionEra,
} from './revisions.js';

describe('revisions', () => {
  it('every revision has one row, legacy and modern revisions partition them', () => {
    expect(Object.keys(REVISION_FEATURES)).toEqual([...PROTOCOL_REVISIONS]);
    expect([...LEGACY_REVISIONS, ...MODERN_REVISIONS]).toEqual([...PROTOCOL_REVISIONS]);
    for (const r of LEGACY_REVISIONS) expect(revisionEra(r)).toBe('legacy');
    for (const r of MODERN_REVISIONS) expect(revisionEra(r)).toBe('modern');
  });

  it('2026-07-28: no handshake, no batches, resultType, server/discover, listen, resource not found -32602', () => {
    expect(REVISION_FEATURES['2026-07-28']).toMatchObject({
      era: 'modern', initializeHandshake: false, batches: false, resultType: true, serverDiscover: true,
      subscriptionsListen: true, ssePriming: false, resourceNotFoundCode: -32602,
    });
  });

  it('the legacy revisions: handshake, resource not found -32002, batches at 2025-03-26 only', () => {
    for (const r of LEGACY_REVISIONS) {
      expect(REVISION_FEATURES[r]).toMatchObject({ era: 'legacy', initializeHandshake: true, resultType: false, serverDiscover: false, resourceNotFoundCode: -32002 });
    }
    expect(PROTOCOL_REVISIONS.filter((r) => REVISION_FEATURES[r].batches)).toEqual(['2025-03-26']);
    expect(PROTOCOL_REVISIONS.filter((r) => REVISION_FEATURES[r].ssePriming)).toEqual(['2025-11-25']);
  });

  it('a server serves every revision by default: dual-era, oldest first', () => {
    expect(SERVED_REVISIONS).toEqual([...PROTOCOL_REVISIONS]);
    expect(SERVED_REVISIONS).toEqual(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']);
    expect(new Set(SERVED_REVISIONS.map(revisionEra))).toEqual(new Set(['legacy', 'modern']));
  });

  it('the guards tell the revisions apart', () => {
    expect([isLegacyRevision('2025-11-25'), isLegacyRevision('2026-07-28'), isLegacyRevision(20251125)]).toEqual([true, false, false]);
    expect([isModernRevision('2026-07-28'), isModernRevision('2025-11-25')]).toEqual([true, false]);
    expect([isProtocolRevision('2026-07-28'), isProtocolRevision('2024-10-07'), isProtocolRevision(undefined)]).toEqual([true, false, false]);
  });
});
