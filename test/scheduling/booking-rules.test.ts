import { describe, expect, it } from 'vitest';
import { assignmentOrder, type AssignmentCandidate } from '../../src/scheduling/assignment.js';
import {
  type AgentCalendar,
  availableSlots,
  bookingRefusal,
  type BookingRules,
  explainSlots,
  noBookingRules,
  type SlotQuery,
} from '../../src/scheduling/slots.js';
import type { WeeklyHours } from '../../src/scheduling/working-hours.js';

const at = (iso: string) => Date.parse(iso);
const allWeek: WeeklyHours = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [['00:00', '24:00']]]));

const calendar = (timezone: string, rules: Partial<BookingRules>, extra: Partial<AgentCalendar> = {}): AgentCalendar => ({
  agentId: 'ana',
  timezone,
  workingHours: allWeek,
  availableExtra: [],
  busy: [],
  rules: { ...noBookingRules, ...rules },
  ...extra,
});

const grid = (from: string, to: string, stepMinutes: number, now?: string): SlotQuery => ({
  fromMs: at(from),
  toMs: at(to),
  durationMinutes: 30,
  stepMinutes,
  bufferBeforeMinutes: 0,
  bufferAfterMinutes: 0,
  respectWorkingHours: true,
  ...(now ? { nowMs: at(now) } : {}),
});

/**
 * Every candidate's verdict as "HH:MM codes" (UTC start, ok when offered), after checking that
 * availability, its explanation and the booking decision agree on each candidate.
 */
function verdicts(query: SlotQuery, agent: AgentCalendar): string[] {
  const slots = availableSlots({ query, agents: [agent] });
  const explained = explainSlots({ query, agents: [agent] });
  expect(explained.slots).toEqual(slots);
  const all = [...explained.slots.map((s) => ({ ...s, reasons: [] as { code: string }[] })), ...explained.rejected].sort((a, b) => (a.startUtc < b.startUtc ? -1 : 1));
  return all.map((candidate) => {
    const codes = candidate.reasons.map((r) => r.code);
    const refusal = bookingRefusal({ agent, startMs: at(candidate.startUtc), endMs: at(candidate.endUtc), nowMs: query.nowMs });
    expect(refusal.map((r) => r.code), `booking at ${candidate.startUtc}`).toEqual(codes);
    return `${candidate.startUtc.slice(5, 16)} ${codes.join(',') || 'ok'}`;
  });
}

describe('booking rules, through availability, its explanation and the booking decision alike', () => {
  const cases: { name: string; query: SlotQuery; agent: AgentCalendar; expected: string[] }[] = [
    {
      name: 'minimum notice counts real minutes across the New York spring-forward night: 2 h after 01:00 EST is 04:00 EDT',
      query: grid('2026-03-08T05:00:00Z', '2026-03-08T09:30:00Z', 60, '2026-03-08T06:00:00Z'),
      agent: calendar('America/New_York', { minimumNoticeMinutes: 120 }),
      expected: ['03-08T05:00 minimum_notice', '03-08T06:00 minimum_notice', '03-08T07:00 minimum_notice', '03-08T08:00 ok', '03-08T09:00 ok'],
    },
    {
      name: 'no notice (the default) offers a slot starting now',
      query: grid('2026-03-08T06:00:00Z', '2026-03-08T07:00:00Z', 30, '2026-03-08T06:00:00Z'),
      agent: calendar('America/New_York', {}),
      expected: ['03-08T06:00 ok', '03-08T06:30 ok'],
    },
    {
      name: 'a one-day horizon over the London fall-back is 24 real hours, not the 25-hour local day',
      query: grid('2026-10-25T10:00:00Z', '2026-10-25T14:00:00Z', 60, '2026-10-24T12:00:00Z'),
      agent: calendar('Europe/London', { horizonDays: 1 }),
      expected: ['10-25T10:00 ok', '10-25T11:00 ok', '10-25T12:00 ok', '10-25T13:00 beyond_horizon'],
    },
    {
      name: "buffers keep 15 minutes free on both sides of a call on the London spring-forward day",
      query: grid('2026-03-29T08:00:00Z', '2026-03-29T10:30:00Z', 15),
      agent: calendar('Europe/London', { bufferBeforeMinutes: 15, bufferAfterMinutes: 15 }, { busy: [{ startMs: at('2026-03-29T09:00:00Z'), endMs: at('2026-03-29T09:30:00Z'), kind: 'call', id: 'c1' }] }),
      expected: [
        '03-29T08:00 ok',
        '03-29T08:15 ok',
        '03-29T08:30 buffer_overlap',
        '03-29T08:45 conflicts_call',
        '03-29T09:00 conflicts_call',
        '03-29T09:15 conflicts_call',
        '03-29T09:30 buffer_overlap',
        '03-29T09:45 ok',
        '03-29T10:00 ok',
      ],
    },
    {
      name: "a call's own buffers, kept from its booking, hold even when the agent's are off now",
      query: grid('2026-03-29T09:30:00Z', '2026-03-29T10:30:00Z', 30),
      agent: calendar('Europe/London', {}, {
        busy: [{ startMs: at('2026-03-29T09:00:00Z'), endMs: at('2026-03-29T09:30:00Z'), kind: 'call', id: 'c1', bufferBeforeMs: 0, bufferAfterMs: 30 * 60_000 }],
      }),
      expected: ['03-29T09:30 buffer_overlap', '03-29T10:00 ok'],
    },
    {
      name: "two calls a day fill the 25-hour New York fall-back day, from 00:30 EDT to 23:30 EST; the next local day is free",
      query: grid('2026-11-01T15:00:00Z', '2026-11-02T06:00:00Z', 300),
      agent: calendar('America/New_York', { maxCallsPerDay: 2 }, { callStarts: [at('2026-11-01T04:30:00Z'), at('2026-11-02T04:30:00Z')] }),
      // 15:00Z and 20:00Z are 10:00 and 15:00 EST on 1 November; 01:00Z on the 2nd is still the 1st (20:00 EST).
      expected: ['11-01T15:00 daily_limit', '11-01T20:00 daily_limit', '11-02T01:00 daily_limit'],
    },
    {
      name: 'the daily limit turns over at local midnight in EST, 05:00Z, the day after the fall-back',
      query: grid('2026-11-02T04:30:00Z', '2026-11-02T05:30:00Z', 30),
      agent: calendar('America/New_York', { maxCallsPerDay: 2 }, { callStarts: [at('2026-11-01T04:30:00Z'), at('2026-11-01T20:00:00Z')] }),
      expected: ['11-02T04:30 daily_limit', '11-02T05:00 ok'],
    },
    {
      name: 'a weekly limit counts the London week Monday to Sunday across the spring-forward, turning over at 23:00Z on Sunday (00:00 BST)',
      query: grid('2026-03-29T22:00:00Z', '2026-03-29T23:30:00Z', 30),
      agent: calendar('Europe/London', { maxCallsPerWeek: 2 }, { callStarts: [at('2026-03-23T09:00:00Z'), at('2026-03-25T09:00:00Z')] }),
      expected: ['03-29T22:00 weekly_limit', '03-29T22:30 weekly_limit', '03-29T23:00 ok'],
    },
    {
      name: 'limits under the count offer every slot',
      query: grid('2026-03-25T10:00:00Z', '2026-03-25T11:00:00Z', 30),
      agent: calendar('Europe/London', { maxCallsPerDay: 3, maxCallsPerWeek: 3 }, { callStarts: [at('2026-03-25T09:00:00Z'), at('2026-03-25T12:00:00Z')] }),
      expected: ['03-25T10:00 ok', '03-25T10:30 ok'],
    },
    {
      name: 'hourly alignment follows New York wall clocks across the spring-forward gap (01:00 EST, then 03:00 EDT)',
      query: grid('2026-03-08T06:00:00Z', '2026-03-08T08:30:00Z', 30),
      agent: calendar('America/New_York', { alignmentMinutes: 60 }),
      expected: ['03-08T06:00 ok', '03-08T06:30 misaligned', '03-08T07:00 ok', '03-08T07:30 misaligned', '03-08T08:00 ok'],
    },
    {
      name: 'hourly alignment is on local hours in a half-hour zone: 10:00 in Kolkata is 04:30Z',
      query: grid('2026-03-09T04:00:00Z', '2026-03-09T05:30:00Z', 30),
      agent: calendar('Asia/Kolkata', { alignmentMinutes: 60 }),
      expected: ['03-09T04:00 misaligned', '03-09T04:30 ok', '03-09T05:00 misaligned'],
    },
    {
      name: 'every rule breached at once names every reason, in a fixed order',
      query: grid('2026-10-25T00:15:00Z', '2026-10-25T00:45:00Z', 30, '2026-10-20T00:00:00Z'),
      agent: calendar('Europe/London', { minimumNoticeMinutes: 10_000, horizonDays: 1, alignmentMinutes: 30, maxCallsPerDay: 1, maxCallsPerWeek: 1 }, {
        callStarts: [at('2026-10-25T03:00:00Z')],
      }),
      // 00:15Z is 01:15 BST on the fall-back morning: off the half-hour grid.
      expected: ['10-25T00:15 minimum_notice,beyond_horizon,misaligned,daily_limit,weekly_limit'],
    },
  ];

  it.each(cases)('$name', ({ query, agent, expected }) => {
    expect(verdicts(query, agent)).toEqual(expected);
  });

  it('treats a query buffer larger than the policy as the larger buffer', () => {
    const agent = calendar('UTC', { bufferAfterMinutes: 15 }, { busy: [{ startMs: at('2026-03-02T10:00:00Z'), endMs: at('2026-03-02T10:30:00Z'), kind: 'call' }] });
    const query = { ...grid('2026-03-02T09:00:00Z', '2026-03-02T10:00:00Z', 30), bufferAfterMinutes: 45 };
    expect(availableSlots({ query, agents: [agent] }).map((s) => s.startUtc.slice(11, 16))).toEqual([]);
    expect(availableSlots({ query: { ...query, bufferAfterMinutes: 0 }, agents: [agent] }).map((s) => s.startUtc.slice(11, 16))).toEqual(['09:00']);
  });

  it('applies no notice and no horizon when now is not given', () => {
    const agent = calendar('UTC', { minimumNoticeMinutes: 60, horizonDays: 1 });
    expect(availableSlots({ query: grid('2020-01-01T00:00:00Z', '2020-01-01T01:00:00Z', 30), agents: [agent] })).toHaveLength(2);
  });
});

describe('assignmentOrder', () => {
  const c = (agentId: string, fields: Partial<AssignmentCandidate> = {}): AssignmentCandidate => ({
    agentId,
    priority: 2,
    weight: 100,
    callsSoFar: 0,
    callsNearby: 0,
    ...fields,
  });
  const cases: { name: string; strategy: 'least_busy' | 'round_robin'; candidates: AssignmentCandidate[]; order: string[] }[] = [
    { name: 'least_busy: fewest calls near the slot first, then id', strategy: 'least_busy', candidates: [c('b', { callsNearby: 1 }), c('c'), c('a', { callsNearby: 1 })], order: ['c', 'a', 'b'] },
    { name: 'least_busy ignores priority and weight', strategy: 'least_busy', candidates: [c('a', { priority: 4, callsNearby: 2 }), c('b', { weight: 1, callsNearby: 0 })], order: ['b', 'a'] },
    { name: 'round_robin: the highest priority group first, however busy', strategy: 'round_robin', candidates: [c('a', { priority: 1 }), c('b', { priority: 3, callsSoFar: 50 }), c('c', { priority: 2 })], order: ['b', 'c', 'a'] },
    { name: 'round_robin: equal weights go to the fewest calls so far', strategy: 'round_robin', candidates: [c('a', { callsSoFar: 3 }), c('b', { callsSoFar: 1 }), c('c', { callsSoFar: 2 })], order: ['b', 'c', 'a'] },
    { name: 'round_robin: weight 200 against 100 takes calls until it has twice as many', strategy: 'round_robin', candidates: [c('a', { weight: 200, callsSoFar: 3 }), c('b', { weight: 100, callsSoFar: 2 })], order: ['a', 'b'] },
    { name: 'round_robin: at exactly its share, the tie goes to the larger weight', strategy: 'round_robin', candidates: [c('b', { weight: 100, callsSoFar: 2 }), c('a', { weight: 200, callsSoFar: 4 })], order: ['a', 'b'] },
    { name: 'round_robin: full ties go by agent id', strategy: 'round_robin', candidates: [c('b'), c('a'), c('c')], order: ['a', 'b', 'c'] },
    { name: 'round_robin ignores calls near the slot', strategy: 'round_robin', candidates: [c('a', { callsNearby: 9 }), c('b', { callsSoFar: 1 })], order: ['a', 'b'] },
  ];
  it.each(cases)('$name', ({ strategy, candidates, order }) => {
    expect(assignmentOrder({ strategy, candidates })).toEqual(order);
  });

  it('shares 30 calls 2:1 between weights 200 and 100 when each booking counts toward the next', () => {
    const pool = [c('a', { weight: 200 }), c('b', { weight: 100 })];
    const counts = { a: 0, b: 0 } as Record<string, number>;
    for (let i = 0; i < 30; i++) {
      const [first] = assignmentOrder({ strategy: 'round_robin', candidates: pool.map((p) => ({ ...p, callsSoFar: counts[p.agentId]! })) });
      counts[first!]! += 1;
    }
    expect(counts).toEqual({ a: 20, b: 10 });
  });
});
