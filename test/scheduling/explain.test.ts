import { describe, expect, it } from 'vitest';
import { type AgentCalendar, availableSlots, explainSlots, type SlotQuery } from '../../src/scheduling/slots.js';

// explainSlots must be availableSlots plus reasons: the same slots, every other candidate
// rejected with at least one reason, and each reason true of that candidate.
function prng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

const MINUTE = 60_000;
const BASE = Date.parse('2026-03-07T00:00:00Z');
const zones = ['UTC', 'America/New_York', 'Europe/Berlin', 'Asia/Kathmandu', 'Australia/Lord_Howe'];
const kinds = ['call', 'blocked', 'dnd'] as const;

function scenario(seed: number): { query: SlotQuery; agents: AgentCalendar[] } {
  const r = prng(seed);
  const int = (n: number) => Math.floor(r() * n);
  const hh = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
  const agents: AgentCalendar[] = Array.from({ length: 1 + int(4) }, (_, i) => ({
    agentId: `agent-${i}`,
    timezone: zones[int(zones.length)]!,
    workingHours: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, r() < 0.2 ? [] : [[hh(int(48) * 15), hh(int(96) * 15)]]])),
    availableExtra: Array.from({ length: int(3) }, () => {
      const startMs = BASE + int(3 * 24 * 4) * 15 * MINUTE;
      return { startMs, endMs: startMs + (1 + int(12)) * 15 * MINUTE };
    }),
    busy: Array.from({ length: int(12) }, (_, j) => {
      const startMs = BASE + int(3 * 24 * 12) * 5 * MINUTE;
      return { startMs, endMs: startMs + (1 + int(24)) * 5 * MINUTE, kind: kinds[int(3)], id: `busy-${j}` };
    }),
  }));
  const durationMinutes = [5, 15, 30, 60, 90][int(5)]!;
  return {
    agents,
    query: {
      fromMs: BASE + int(24) * 60 * MINUTE,
      toMs: BASE + (36 + int(36)) * 60 * MINUTE,
      durationMinutes,
      stepMinutes: [5, 10, 15, 30, 60][int(5)]!,
      bufferBeforeMinutes: [0, 5, 15][int(3)]!,
      bufferAfterMinutes: [0, 10, 30][int(3)]!,
      respectWorkingHours: r() < 0.8,
    },
  };
}

describe('explainSlots agrees with availableSlots', () => {
  it('on 200 random calendars: same slots, every rejection explained, every reason true', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const { query, agents } = scenario(seed);
      const { slots, rejected } = explainSlots({ query, agents });
      expect(slots, `seed ${seed}`).toEqual(availableSlots({ query, agents }));
      for (const candidate of rejected) {
        expect(candidate.reasons.length, `seed ${seed}`).toBeGreaterThan(0);
        const s = Date.parse(candidate.startUtc);
        const e = Date.parse(candidate.endUtc);
        const agent = agents.find((a) => a.agentId === candidate.agentId)!;
        for (const reason of candidate.reasons) {
          if (reason.code === 'outside_working_hours') continue;
          const busy = agent.busy.find((b) => b.id === reason.id)!;
          const direct = busy.startMs < e && busy.endMs > s;
          const buffered = busy.startMs < e + query.bufferAfterMinutes * MINUTE && busy.endMs > s - query.bufferBeforeMinutes * MINUTE;
          expect(buffered, `seed ${seed}`).toBe(true);
          expect(reason.code === 'buffer_overlap', `seed ${seed}`).toBe(!direct);
        }
      }
      // Every candidate appears once, as a slot or a rejection.
      const grid = Math.floor((query.toMs - query.fromMs - query.durationMinutes * MINUTE) / (query.stepMinutes * MINUTE)) + 1;
      expect(slots.length + rejected.length, `seed ${seed}`).toBe(Math.max(0, grid) * agents.length);
    }
  });
});
