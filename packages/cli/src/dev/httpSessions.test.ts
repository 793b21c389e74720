import { Agent } from 'node:http';
import { describe, expect, it } from 'vitest';
import { HeldSessions, MAX_CAPTURED_BYTES, MAX_HELD_BYTES, MAX_HELD_SESSIONS } from './httpSessions.js';

const held = (): HeldSessions => new HeldSessions({ agent: new Agent(), upstream: () => undefined, path: '/mcp' });
const open = (sessions: HeldSessions, id: string, bytes: number): void => sessions.open(id, { generation: 1, body: Buffer.alloc(bytes, 32), headers: {}, result: undefined });

describe('HeldSessions bounds', () => {
  it('forgets the longest-held sessions past MAX_HELD_SESSIONS', () => {
    const sessions = held();
    for (let i = 0; i <= MAX_HELD_SESSIONS; i++) open(sessions, `s${i}`, 100);
    expect(sessions.get('s0')).toBe(undefined);
    expect(sessions.get('s1')).toBeDefined();
    expect(sessions.get(`s${MAX_HELD_SESSIONS}`)).toBeDefined();
  });

  it('keeps the held initialize requests within MAX_HELD_BYTES, and does not hold one larger than MAX_CAPTURED_BYTES', () => {
    const sessions = held();
    const size = 200 * 1024;
    const count = Math.ceil(MAX_HELD_BYTES / size) + 10;
    for (let i = 0; i < count; i++) open(sessions, `s${i}`, size);
    const kept = Array.from({ length: count }, (_, i) => sessions.get(`s${i}`)).filter((s) => s !== undefined);
    expect(kept.length).toBe(Math.floor(MAX_HELD_BYTES / size));
    expect(sessions.get(`s${count - 1}`)).toBeDefined();
    open(sessions, 'huge', MAX_CAPTURED_BYTES + 1);
    expect(sessions.get('huge')).toBe(undefined);
  });
});
