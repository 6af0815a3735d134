import { describe, expect, it } from 'vitest';
import { billCall, billedMinutes, MAX_BILLED_MINUTES } from '../../src/video/billing.js';

const now = new Date('2026-03-01T12:00:00.000Z');
const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);

describe('billedMinutes: whole minutes connected, rounded up', () => {
  it.each<[string, number, number | null, number]>([
    ['0 s bills 0', -60_000, -60_000, 0],
    ['1 ms bills 1', -60_000, -59_999, 1],
    ['59 s bills 1', -59_000, 0, 1],
    ['60 s bills exactly 1', -60_000, 0, 1],
    ['61 s bills 2', -61_000, 0, 2],
    ['60 min 0.001 s bills 61', -3_600_001, 0, 61],
    ['connected for 5 min 30 s bills 6 up to now', -330_000, null, 6],
    ['connected since exactly 2 min ago bills 2', -120_000, null, 2],
    ['joined just now and still connected bills 0', 0, null, 0],
    ['a join stamped in the future bills 0, never negative', 30_000, null, 0],
  ])('%s', (_name, joined, left, expected) => {
    expect(billedMinutes({ joinedAt: at(joined), leftAt: left === null ? null : at(left) }, now)).toBe(expected);
  });
});

describe('billCall: every session against one clock reading', () => {
  it('sums the billed minutes of each session into participantMinutes', () => {
    const sessions = [
      { id: 'a', joinedAt: at(-61_000), leftAt: at(0) },
      { id: 'b', joinedAt: at(-330_000), leftAt: null },
      { id: 'c', joinedAt: at(-10_000), leftAt: at(-10_000) },
    ];
    const billed = billCall(sessions, now);
    expect(billed.sessions.map((s) => [s.id, s.billedMinutes])).toEqual([
      ['a', 2],
      ['b', 6],
      ['c', 0],
    ]);
    expect(billed.participantMinutes).toBe(8);
  });

  it('a call without participants has 0 participant minutes', () => {
    expect(billCall([], now)).toEqual({ sessions: [], participantMinutes: 0 });
  });
});

describe('minutes saturate at the largest GraphQL Int', () => {
  it('a session or a sum past about 4,000 years is MAX_BILLED_MINUTES, not an error', () => {
    const ancient = { joinedAt: new Date('1000-01-01T00:00:00.000Z'), leftAt: null };
    expect(billedMinutes(ancient, now)).toBeLessThan(MAX_BILLED_MINUTES);
    const billed = billCall(Array.from({ length: 5 }, () => ancient), now);
    expect(billed.participantMinutes).toBe(MAX_BILLED_MINUTES);
    expect(billedMinutes({ joinedAt: new Date(-8.64e15), leftAt: null }, now)).toBe(MAX_BILLED_MINUTES);
  });
});
