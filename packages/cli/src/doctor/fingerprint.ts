/**
 * A finding's fingerprint: its id and a digest of its evidence, with what differs from run to run blanked (ports,
 * session and event ids, durations, timestamps), so that the same behaviour of the same server gets the same
 * fingerprint run after run, and a changed answer (another code, another message) gets another one. A baseline
 * mutes findings by it. Pure and runtime-neutral (FNV-1a, no `node:crypto`): it tells findings apart, it is no
 * security boundary.
 */

/** What varies between two runs against the same server, and what it is replaced with. */
const VOLATILE: readonly (readonly [RegExp, string])[] = [
  [/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?/g, '<time>'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
  [/\b[0-9a-f]{16,}\b/gi, '<hex>'],
  [/\b[A-Za-z0-9_-]{32,}\b/g, '<token>'],
  [/((?:127\.\d+\.\d+\.\d+|localhost|\[::1\]|0\.0\.0\.0)):\d+/g, '$1:<port>'],
  [/\b\d+(?:\.\d+)?\s?(ms|s)\b/g, '<n> $1'],
  [/\bpid \d+/g, 'pid <n>'],
];

/** Evidence with what varies between runs blanked. */
export function normalizeEvidence(text: string): string {
  return VOLATILE.reduce((value, [pattern, replacement]) => value.replace(pattern, replacement), text);
}

/** FNV-1a over the UTF-16 code units, 2 × 32 bits with different offsets: 16 hex digits. */
function digest(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    a = Math.imul(a ^ unit, 0x01000193) >>> 0;
    b = Math.imul(b ^ unit, 0x01000193) >>> 0;
    b = (b ^ (b >>> 13)) >>> 0;
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

/** The fingerprint of a finding: `<id>@<16 hex digits>` of its normalized evidence. */
export function fingerprintOf(id: string, evidence: readonly string[]): string {
  return `${id}@${digest(evidence.map(normalizeEvidence).join('\n'))}`;
}
