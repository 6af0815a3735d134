import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { type AgentCalendar, availableSlots, type SlotQuery } from '../../src/scheduling/slots.js';
import { weekdays, type WeeklyHours } from '../../src/scheduling/working-hours.js';

// The availability engine against a brute-force, minute-by-minute reference written from the
// slot rules with luxon. Hour boundaries avoid 00:00-04:00 local, where
// DST gaps fall and where the engine's documented gap rule (shift forward) would need its own
// reference; windows straddle the 2026 DST changes of the zones used.
const RUNS = Number(process.env.PROPERTY_RUNS ?? 150);
const SEED = Number(process.env.PROPERTY_SEED ?? 20261123);
const MINUTE = 60_000;
const zones = ['UTC', 'America/New_York', 'Europe/Berlin', 'Australia/Sydney', 'Asia/Kathmandu', 'America/Sao_Paulo'];
const windowStarts = ['2026-03-07T00:00:00Z', '2026-03-28T00:00:00Z', '2026-04-04T00:00:00Z', '2026-10-24T00:00:00Z', '2026-10-31T00:00:00Z'].map(Date.parse);

const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
// Quarter hours from 04:00 to 23:45, and 24:00 as an end.
const boundary = fc.integer({ min: 16, max: 96 }).map((q) => q * 15);
const interval = fc.tuple(boundary.filter((m) => m < 24 * 60), boundary).map(([a, b]) => [hhmm(a), hhmm(b)] as [string, string]);
const hours: fc.Arbitrary<WeeklyHours> = fc.record(Object.fromEntries(weekdays.map((d) => [d, fc.array(interval, { maxLength: 2 })])) as Record<(typeof weekdays)[number], fc.Arbitrary<[string, string][]>>);

const span = (baseMs: number) =>
  fc.tuple(fc.integer({ min: 0, max: 48 * 12 }), fc.integer({ min: 1, max: 36 })).map(([start, length]) => ({ startMs: baseMs + start * 5 * MINUTE, endMs: baseMs + (start + length) * 5 * MINUTE }));

const scenario = fc.constantFrom(...windowStarts).chain((baseMs) =>
  fc.record({
    agents: fc.uniqueArray(
      fc.record({
        agentId: fc.constantFrom('a', 'b', 'c', 'd'),
        timezone: fc.constantFrom(...zones),
        workingHours: hours,
        availableExtra: fc.array(span(baseMs), { maxLength: 2 }),
        busy: fc.array(span(baseMs), { maxLength: 6 }),
      }),
      { minLength: 1, maxLength: 3, selector: (a) => a.agentId },
    ),
    query: fc.record({
      fromMs: fc.integer({ min: 0, max: 24 * 12 }).map((k) => baseMs + k * 5 * MINUTE),
      durationMinutes: fc.constantFrom(5, 15, 30, 45, 60, 120),
      stepMinutes: fc.constantFrom(5, 10, 15, 30, 60),
      bufferBeforeMinutes: fc.constantFrom(0, 5, 15),
      bufferAfterMinutes: fc.constantFrom(0, 10, 30),
      respectWorkingHours: fc.boolean(),
      lengthMinutes: fc.integer({ min: 60, max: 24 * 60 }),
    }),
  }),
);

/** Whether the UTC minute starting at `ms` is inside the agent's working hours. */
function workingMinute(agent: AgentCalendar, ms: number): boolean {
  const local = DateTime.fromMillis(ms, { zone: agent.timezone });
  const minuteOfDay = local.hour * 60 + local.minute;
  const today = weekdays[local.weekday - 1]!;
  const yesterday = weekdays[(local.weekday + 5) % 7]!;
  const toMinutes = (t: string) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3));
  for (const [start, end] of agent.workingHours[today] ?? []) {
    const s = toMinutes(start);
    const e = toMinutes(end) <= s ? 24 * 60 : toMinutes(end);
    if (minuteOfDay >= s && minuteOfDay < e) return true;
  }
  // An interval of the previous day that runs past midnight.
  for (const [start, end] of agent.workingHours[yesterday] ?? []) {
    if (toMinutes(end) <= toMinutes(start) && minuteOfDay < toMinutes(end)) return true;
  }
  return false;
}

function reference(query: SlotQuery, agents: AgentCalendar[]) {
  const slots: { startUtc: string; endUtc: string; agentId: string }[] = [];
  const working = new Map(
    agents.map((a) => {
      const minutes: boolean[] = [];
      for (let ms = query.fromMs; ms < query.toMs; ms += MINUTE) minutes.push(workingMinute(a, ms));
      return [a.agentId, minutes];
    }),
  );
  for (let s = query.fromMs; s + query.durationMinutes * MINUTE <= query.toMs; s += query.stepMinutes * MINUTE) {
    const e = s + query.durationMinutes * MINUTE;
    for (const agent of [...agents].sort((x, y) => (x.agentId < y.agentId ? -1 : 1))) {
      const minutes = working.get(agent.agentId)!;
      const inHours = (() => {
        for (let ms = s; ms < e; ms += MINUTE) if (!minutes[(ms - query.fromMs) / MINUTE]) return false;
        return true;
      })();
      const inExtra = agent.availableExtra.some((x) => x.startMs <= s && e <= x.endMs);
      const ok = !query.respectWorkingHours || inHours || inExtra;
      const lo = s - query.bufferBeforeMinutes * MINUTE;
      const hi = e + query.bufferAfterMinutes * MINUTE;
      const free = agent.busy.every((b) => !(b.startMs < hi && b.endMs > lo));
      if (ok && free) slots.push({ startUtc: new Date(s).toISOString(), endUtc: new Date(e).toISOString(), agentId: agent.agentId });
    }
  }
  return slots;
}

describe('availability engine = brute-force reference', () => {
  it('for random agents, hours (past midnight, across DST), calls, exceptions and DND', () => {
    fc.assert(
      fc.property(scenario, ({ agents, query: { lengthMinutes, ...q } }) => {
        const query: SlotQuery = { ...q, toMs: q.fromMs + lengthMinutes * MINUTE };
        const slots = availableSlots({ query, agents });
        expect(slots).toEqual(reference(query, agents));
        // Sorted by start, then agent; unique.
        const keys = slots.map((s) => `${s.startUtc} ${s.agentId}`);
        expect(new Set(keys).size).toBe(keys.length);
        expect([...keys].sort()).toEqual(keys);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
