import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import {
  type AgentCalendar,
  availableSlots,
  candidateCount,
  isSlotAvailable,
  type Slot,
  type SlotQuery,
} from '../../src/scheduling/slots.js';
import { type Interval, type WeeklyHours, weekdays } from '../../src/scheduling/working-hours.js';

const MINUTE_MS = 60_000;
const at = (iso: string) => Date.parse(iso);
const span = (from: string, to: string): Interval => ({ startMs: at(from), endMs: at(to) });
const weekdayHours = (from: string, to: string): WeeklyHours => ({
  mon: [[from, to]],
  tue: [[from, to]],
  wed: [[from, to]],
  thu: [[from, to]],
  fri: [[from, to]],
});

const agent = (overrides: Partial<AgentCalendar> = {}): AgentCalendar => ({
  agentId: 'ana',
  timezone: 'UTC',
  workingHours: weekdayHours('09:00', '17:00'),
  availableExtra: [],
  busy: [],
  ...overrides,
});

const query = (from: string, to: string, overrides: Partial<SlotQuery> = {}): SlotQuery => ({
  fromMs: at(from),
  toMs: at(to),
  durationMinutes: 30,
  stepMinutes: overrides.durationMinutes ?? 30,
  bufferBeforeMinutes: 0,
  bufferAfterMinutes: 0,
  respectWorkingHours: true,
  ...overrides,
});

/** Slot starts as HH:MM (UTC), for tests within one day and one agent. */
const startTimes = (slots: Slot[]) => slots.map((s) => s.startUtc.slice(11, 16));

// 2026-03-02 is a Monday; 2026-03-08 (US spring-forward) and 2026-11-01 (US fall-back) are Sundays.
describe('availableSlots', () => {
  const cases: { name: string; agent: AgentCalendar; query: SlotQuery; starts: string[] }[] = [
    {
      name: 'fits 16 half-hour slots into a 9-17 day',
      agent: agent(),
      query: query('2026-03-02T00:00:00Z', '2026-03-03T00:00:00Z'),
      starts: ['09:00', '09:30', '10:00', '10:30', '11:00', '11:30', '12:00', '12:30', '13:00', '13:30', '14:00', '14:30', '15:00', '15:30', '16:00', '16:30'],
    },
    {
      name: 'offers nothing to an agent without working hours',
      agent: agent({ workingHours: {} }),
      query: query('2026-03-02T00:00:00Z', '2026-03-03T00:00:00Z'),
      starts: [],
    },
    {
      name: 'offers nothing on a weekend without hours or exceptions',
      agent: agent(),
      query: query('2026-03-07T00:00:00Z', '2026-03-09T00:00:00Z'),
      starts: [],
    },
    {
      name: 'steps hourly slots every 15 minutes: 9 starts from 09:00 to 11:00',
      agent: agent(),
      query: query('2026-03-02T09:00:00Z', '2026-03-02T12:00:00Z', { durationMinutes: 60, stepMinutes: 15 }),
      starts: ['09:00', '09:15', '09:30', '09:45', '10:00', '10:15', '10:30', '10:45', '11:00'],
    },
    {
      name: 'keeps the last candidate that ends exactly at toUtc',
      agent: agent(),
      query: query('2026-03-02T09:00:00Z', '2026-03-02T10:00:00Z'),
      starts: ['09:00', '09:30'],
    },
    {
      name: 'drops a candidate that would end a minute after toUtc',
      agent: agent(),
      query: query('2026-03-02T09:00:00Z', '2026-03-02T09:59:00Z'),
      starts: ['09:00'],
    },
    {
      name: 'keeps a slot that ends exactly when working hours end, not one that runs over',
      agent: agent(),
      query: query('2026-03-02T16:00:00Z', '2026-03-02T18:00:00Z', { durationMinutes: 45, stepMinutes: 15 }),
      starts: ['16:00', '16:15'],
    },
    {
      name: 'keeps the slots touching a call on either side',
      agent: agent({ busy: [span('2026-03-02T12:00:00Z', '2026-03-02T13:00:00Z')] }),
      query: query('2026-03-02T11:00:00Z', '2026-03-02T14:00:00Z'),
      starts: ['11:00', '11:30', '13:00', '13:30'],
    },
    {
      name: 'drops the slot right after a call with a 15-minute buffer before',
      agent: agent({ busy: [span('2026-03-02T12:00:00Z', '2026-03-02T13:00:00Z')] }),
      query: query('2026-03-02T11:00:00Z', '2026-03-02T14:00:00Z', { bufferBeforeMinutes: 15 }),
      starts: ['11:00', '11:30', '13:30'],
    },
    {
      name: 'drops the slot right before a call with a 15-minute buffer after',
      agent: agent({ busy: [span('2026-03-02T12:00:00Z', '2026-03-02T13:00:00Z')] }),
      query: query('2026-03-02T11:00:00Z', '2026-03-02T14:00:00Z', { bufferAfterMinutes: 15 }),
      starts: ['11:00', '13:00', '13:30'],
    },
    {
      name: 'keeps a slot whose buffer only touches the end of a call',
      agent: agent({ busy: [span('2026-03-02T12:00:00Z', '2026-03-02T12:45:00Z')] }),
      query: query('2026-03-02T11:00:00Z', '2026-03-02T14:00:00Z', { bufferBeforeMinutes: 15 }),
      starts: ['11:00', '11:30', '13:00', '13:30'],
    },
    {
      name: 'lets a buffer reach outside working hours and the query window',
      agent: agent({ busy: [span('2026-03-02T08:30:00Z', '2026-03-02T08:50:00Z')] }),
      query: query('2026-03-02T09:00:00Z', '2026-03-02T10:00:00Z', { bufferBeforeMinutes: 15 }),
      starts: ['09:30'],
    },
    {
      name: 'drops the slots under a blocked exception',
      agent: agent({ busy: [span('2026-03-02T10:00:00Z', '2026-03-02T11:00:00Z')] }),
      query: query('2026-03-02T09:00:00Z', '2026-03-02T12:00:00Z'),
      starts: ['09:00', '09:30', '11:00', '11:30'],
    },
    {
      name: 'drops both slots a two-minute do-not-disturb window straddles',
      agent: agent({ busy: [span('2026-03-02T09:59:00Z', '2026-03-02T10:01:00Z')] }),
      query: query('2026-03-02T09:00:00Z', '2026-03-02T11:00:00Z'),
      starts: ['09:00', '10:30'],
    },
    {
      name: 'ignores an empty busy interval',
      agent: agent({ busy: [span('2026-03-02T09:15:00Z', '2026-03-02T09:15:00Z')] }),
      query: query('2026-03-02T09:00:00Z', '2026-03-02T10:00:00Z'),
      starts: ['09:00', '09:30'],
    },
    {
      name: 'offers a Saturday available_extra exception outside working hours',
      agent: agent({ availableExtra: [span('2026-03-07T10:00:00Z', '2026-03-07T12:00:00Z')] }),
      query: query('2026-03-07T00:00:00Z', '2026-03-08T00:00:00Z'),
      starts: ['10:00', '10:30', '11:00', '11:30'],
    },
    {
      name: 'needs a slot inside one window: none across working hours into a touching extra',
      agent: agent({ availableExtra: [span('2026-03-02T17:00:00Z', '2026-03-02T18:00:00Z')] }),
      query: query('2026-03-02T16:00:00Z', '2026-03-02T18:00:00Z', { durationMinutes: 60, stepMinutes: 30 }),
      starts: ['16:00', '17:00'],
    },
    {
      name: 'still drops a busy slot inside an available_extra exception',
      agent: agent({
        availableExtra: [span('2026-03-07T10:00:00Z', '2026-03-07T12:00:00Z')],
        busy: [span('2026-03-07T10:30:00Z', '2026-03-07T11:00:00Z')],
      }),
      query: query('2026-03-07T00:00:00Z', '2026-03-08T00:00:00Z'),
      starts: ['10:00', '11:00', '11:30'],
    },
    {
      name: 'offers night slots with respectWorkingHours=false but still drops conflicts',
      agent: agent({ workingHours: {}, busy: [span('2026-03-02T01:00:00Z', '2026-03-02T01:30:00Z')] }),
      query: query('2026-03-02T00:00:00Z', '2026-03-02T03:00:00Z', { durationMinutes: 60, respectWorkingHours: false }),
      starts: ['00:00', '02:00'],
    },
    {
      name: 'runs mon 22:00-02:00 past midnight: hourly slots until 01:00 Tuesday',
      agent: agent({ workingHours: { mon: [['22:00', '02:00']] } }),
      query: query('2026-03-02T20:00:00Z', '2026-03-03T04:00:00Z', { durationMinutes: 60 }),
      starts: ['22:00', '23:00', '00:00', '01:00'],
    },
    {
      name: 'counts a slot across touching intervals mon 22:00-02:00 and tue 02:00-04:00 as inside',
      agent: agent({ workingHours: { mon: [['22:00', '02:00']], tue: [['02:00', '04:00']] } }),
      query: query('2026-03-03T01:30:00Z', '2026-03-03T02:30:00Z', { durationMinutes: 60 }),
      starts: ['01:30'],
    },
    {
      name: 'offers 24 hourly slots for 00:00-00:00',
      agent: agent({ workingHours: { mon: [['00:00', '00:00']] } }),
      query: query('2026-03-02T00:00:00Z', '2026-03-03T00:00:00Z', { durationMinutes: 60 }),
      starts: Array.from({ length: 24 }, (_, h) => `${String(h).padStart(2, '0')}:00`),
    },
    {
      name: 'places a New York 9-17 winter Saturday at 14:00-22:00Z',
      agent: agent({ timezone: 'America/New_York', workingHours: { sat: [['09:00', '17:00']] } }),
      query: query('2026-03-07T00:00:00Z', '2026-03-08T00:00:00Z', { durationMinutes: 60 }),
      starts: ['14:00', '15:00', '16:00', '17:00', '18:00', '19:00', '20:00', '21:00'],
    },
    {
      name: 'fits 8 hourly slots at 13:00-21:00Z into the New York spring-forward day',
      agent: agent({ timezone: 'America/New_York', workingHours: { sun: [['09:00', '17:00']] } }),
      query: query('2026-03-08T00:00:00Z', '2026-03-09T00:00:00Z', { durationMinutes: 60 }),
      starts: ['13:00', '14:00', '15:00', '16:00', '17:00', '18:00', '19:00', '20:00'],
    },
    {
      name: 'fits one hourly slot into 01:00-03:00 on the spring-forward night',
      agent: agent({ timezone: 'America/New_York', workingHours: { sun: [['01:00', '03:00']] } }),
      query: query('2026-03-08T00:00:00Z', '2026-03-09T00:00:00Z', { durationMinutes: 60 }),
      starts: ['06:00'],
    },
    {
      name: 'fits 8 hourly slots at 14:00-22:00Z into the New York fall-back day',
      agent: agent({ timezone: 'America/New_York', workingHours: { sat: [['09:00', '17:00']], sun: [['09:00', '17:00']] } }),
      query: query('2026-11-01T00:00:00Z', '2026-11-02T00:00:00Z', { durationMinutes: 60 }),
      starts: ['14:00', '15:00', '16:00', '17:00', '18:00', '19:00', '20:00', '21:00'],
    },
    {
      name: 'fits three hourly slots into 01:00-03:00 on the fall-back night',
      agent: agent({ timezone: 'America/New_York', workingHours: { sun: [['01:00', '03:00']] } }),
      query: query('2026-11-01T00:00:00Z', '2026-11-02T00:00:00Z', { durationMinutes: 60 }),
      starts: ['05:00', '06:00', '07:00'],
    },
    {
      name: 'places a London 9-17 Monday at 08:00-16:00Z once summer time starts',
      agent: agent({ timezone: 'Europe/London' }),
      query: query('2026-03-30T00:00:00Z', '2026-03-31T00:00:00Z', { durationMinutes: 60 }),
      starts: ['08:00', '09:00', '10:00', '11:00', '12:00', '13:00', '14:00', '15:00'],
    },
    {
      name: 'fits 8 hourly slots into a Kolkata 9-17 day on a half-hour grid',
      agent: agent({ timezone: 'Asia/Kolkata' }),
      query: query('2026-03-02T03:30:00Z', '2026-03-02T12:00:00Z', { durationMinutes: 60 }),
      starts: ['03:30', '04:30', '05:30', '06:30', '07:30', '08:30', '09:30', '10:30'],
    },
    {
      name: 'offers no Kolkata slot on a whole-hour grid that crosses 09:00 IST',
      agent: agent({ timezone: 'Asia/Kolkata', workingHours: { mon: [['09:00', '10:00']] } }),
      query: query('2026-03-02T03:00:00Z', '2026-03-02T05:00:00Z', { durationMinutes: 60 }),
      starts: [],
    },
  ];

  it.each(cases)('$name', ({ agent, query, starts }) => {
    const slots = availableSlots({ query, agents: [agent] });
    expect(startTimes(slots)).toEqual(starts);
  });

  it('writes slots as toISOString() instants with the agent id', () => {
    expect(availableSlots({ query: query('2026-03-02T09:00:00Z', '2026-03-02T09:30:00Z'), agents: [agent()] })).toEqual([
      { startUtc: '2026-03-02T09:00:00.000Z', endUtc: '2026-03-02T09:30:00.000Z', agentId: 'ana' },
    ]);
  });

  it('returns nothing for no agents or a window shorter than the duration', () => {
    expect(availableSlots({ query: query('2026-03-02T09:00:00Z', '2026-03-02T17:00:00Z'), agents: [] })).toEqual([]);
    expect(availableSlots({ query: query('2026-03-02T09:00:00Z', '2026-03-02T09:29:00Z'), agents: [agent()] })).toEqual([]);
  });

  it('sorts slots of several agents by start, then agentId', () => {
    const agents = [
      agent({ agentId: 'cy' }),
      agent({ agentId: 'ana', busy: [span('2026-03-02T10:00:00Z', '2026-03-02T11:00:00Z')] }),
      agent({ agentId: 'bo', workingHours: weekdayHours('10:00', '17:00') }),
      agent({ agentId: 'Zed' }),
    ];
    const slots = availableSlots({ query: query('2026-03-02T09:00:00Z', '2026-03-02T11:00:00Z', { durationMinutes: 60 }), agents });
    expect(slots.map((s) => `${s.startUtc.slice(11, 16)} ${s.agentId}`)).toEqual([
      '09:00 Zed',
      '09:00 ana',
      '09:00 cy',
      '10:00 Zed',
      '10:00 bo',
      '10:00 cy',
    ]);
  });

  it('lists each slot once when an agent is passed twice', () => {
    const slots = availableSlots({ query: query('2026-03-02T09:00:00Z', '2026-03-02T10:00:00Z'), agents: [agent(), agent()] });
    expect(startTimes(slots)).toEqual(['09:00', '09:30']);
  });

  it('expands only around the candidates of a sparse grid spanning decades', () => {
    const yearly = query('2026-03-02T09:00:00Z', '2066-03-02T10:00:00Z', { durationMinutes: 60, stepMinutes: 7 * 24 * 60 * 52 * 5 });
    const slots = availableSlots({ query: yearly, agents: [agent({ workingHours: { mon: [['00:00', '24:00']] } })] });
    expect(slots.map((s) => s.startUtc)).toEqual([
      '2026-03-02T09:00:00.000Z',
      '2031-02-24T09:00:00.000Z',
      '2036-02-18T09:00:00.000Z',
      '2041-02-11T09:00:00.000Z',
      '2046-02-05T09:00:00.000Z',
      '2051-01-30T09:00:00.000Z',
      '2056-01-24T09:00:00.000Z',
      '2061-01-17T09:00:00.000Z',
      '2066-01-11T09:00:00.000Z',
    ]);
  });
});

describe('candidateCount', () => {
  const day = { fromMs: at('2026-03-02T09:00:00Z'), toMs: at('2026-03-02T17:00:00Z') };
  it.each([
    ['16 half-hour candidates in 8 hours', { ...day, durationMinutes: 30, stepMinutes: 30 }, 1, 16],
    ['29 hourly candidates every 15 minutes in 8 hours', { ...day, durationMinutes: 60, stepMinutes: 15 }, 1, 29],
    ['400 candidates for 25 agents (the most a request may ask for)', { ...day, durationMinutes: 30, stepMinutes: 30 }, 25, 400],
    ['416 candidates for 26 agents', { ...day, durationMinutes: 30, stepMinutes: 30 }, 26, 416],
    ['1 candidate when the duration equals the window', { ...day, durationMinutes: 480, stepMinutes: 480 }, 3, 3],
    ['1 candidate per agent when the step is longer than the window', { ...day, durationMinutes: 30, stepMinutes: 600 }, 2, 2],
    ['0 candidates when the duration exceeds the window', { ...day, durationMinutes: 481, stepMinutes: 481 }, 5, 0],
    ['0 candidates for a reversed window', { fromMs: day.toMs, toMs: day.fromMs, durationMinutes: 5, stepMinutes: 5 }, 5, 0],
    ['0 candidates for no agents', { ...day, durationMinutes: 30, stepMinutes: 30 }, 0, 0],
  ])('counts %s', (_, q, agentCount, expected) => {
    expect(candidateCount(q, agentCount)).toBe(expected);
  });

  it('refuses a step of zero instead of counting forever', () => {
    expect(() => candidateCount({ ...day, durationMinutes: 30, stepMinutes: 0 }, 1)).toThrow(RangeError);
  });
});

describe('isSlotAvailable', () => {
  // New York, weekdays 09:00-17:00 local; a call on Monday 2026-03-02 at 10:00-11:00 EST.
  const nyAgent = agent({
    timezone: 'America/New_York',
    busy: [span('2026-03-02T15:00:00Z', '2026-03-02T16:00:00Z')],
    availableExtra: [span('2026-03-07T15:00:00Z', '2026-03-07T17:00:00Z')],
  });
  it.each([
    ['accepts 09:00-10:00 EST, touching the call', '2026-03-02T14:00:00Z', '2026-03-02T15:00:00Z', true, true],
    ['refuses a slot overlapping the call by 30 minutes', '2026-03-02T14:30:00Z', '2026-03-02T15:30:00Z', true, false],
    ['refuses 08:00-09:00 EST, before working hours', '2026-03-02T13:00:00Z', '2026-03-02T14:00:00Z', true, false],
    ['accepts 08:00-09:00 EST when working hours are not respected', '2026-03-02T13:00:00Z', '2026-03-02T14:00:00Z', false, true],
    ['refuses the call\'s own hour even when working hours are not respected', '2026-03-02T15:00:00Z', '2026-03-02T16:00:00Z', false, false],
    ['refuses 16:30-17:30 EST, running past working hours', '2026-03-02T21:30:00Z', '2026-03-02T22:30:00Z', true, false],
    ['accepts Saturday inside the available_extra exception', '2026-03-07T15:00:00Z', '2026-03-07T16:00:00Z', true, true],
    ['refuses Saturday starting before the available_extra exception', '2026-03-07T14:30:00Z', '2026-03-07T15:30:00Z', true, false],
    ['accepts 09:00 EDT the Monday after spring-forward', '2026-03-09T13:00:00Z', '2026-03-09T14:00:00Z', true, true],
    ['refuses an empty slot', '2026-03-02T14:00:00Z', '2026-03-02T14:00:00Z', true, false],
  ])('%s', (_, start, end, respectWorkingHours, expected) => {
    expect(isSlotAvailable({ agent: nyAgent, startMs: at(start), endMs: at(end), respectWorkingHours })).toBe(expected);
  });

  it('respects working hours by default', () => {
    expect(isSlotAvailable({ agent: nyAgent, startMs: at('2026-03-02T13:00:00Z'), endMs: at('2026-03-02T14:00:00Z') })).toBe(false);
  });
});

describe('availableSlots against a minute-by-minute reference', () => {
  // mulberry32: a tiny seeded PRNG, so a failing calendar can be replayed from its seed.
  const prng = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };

  /** The instant of a wall time as luxon reads it, taking the earlier one when a fall-back repeats it. */
  const referenceWallToUtc = (timezone: string, wall: DateTime) => {
    const fields = { year: wall.year, month: wall.month, day: wall.day, hour: wall.hour, minute: wall.minute };
    const luxonMs = DateTime.fromObject(fields, { zone: timezone }).toMillis();
    for (const minutesBack of [60, 30]) {
      const earlier = DateTime.fromMillis(luxonMs - minutesBack * MINUTE_MS, { zone: timezone });
      if (earlier.day === wall.day && earlier.hour === wall.hour && earlier.minute === wall.minute) return earlier.toMillis();
    }
    return luxonMs;
  };

  const minutesOf = (intervals: Interval[]) => {
    const minutes = new Set<number>();
    for (const { startMs, endMs } of intervals) for (let m = startMs; m < endMs; m += MINUTE_MS) minutes.add(m);
    return minutes;
  };

  /** Every UTC minute in the agent's working hours near [fromMs, toMs), built day by day with luxon. */
  const referenceWorkingMinutes = (calendar: AgentCalendar, fromMs: number, toMs: number) => {
    const intervals: Interval[] = [];
    const localDate = (ms: number) => {
      const local = DateTime.fromMillis(ms, { zone: calendar.timezone });
      return DateTime.utc(local.year, local.month, local.day);
    };
    for (let day = localDate(fromMs).minus({ days: 2 }); day <= localDate(toMs).plus({ days: 1 }); day = day.plus({ days: 1 })) {
      for (const [start, end] of calendar.workingHours[weekdays[day.weekday - 1]!] ?? []) {
        const startWall = day.plus({ hours: Number(start.slice(0, 2)), minutes: Number(start.slice(3)) });
        let endWall = day.plus({ hours: Number(end.slice(0, 2)), minutes: Number(end.slice(3)) });
        if (endWall <= startWall) endWall = endWall.plus({ days: 1 });
        intervals.push({ startMs: referenceWallToUtc(calendar.timezone, startWall), endMs: referenceWallToUtc(calendar.timezone, endWall) });
      }
    }
    return minutesOf(intervals);
  };

  const referenceSlots = (q: SlotQuery, agents: AgentCalendar[]): Slot[] => {
    const every = (from: number, to: number, test: (minute: number) => boolean) => {
      for (let m = from; m < to; m += MINUTE_MS) if (!test(m)) return false;
      return true;
    };
    const prepared = [...agents]
      .sort((a, b) => (a.agentId < b.agentId ? -1 : 1))
      .map((calendar) => ({ calendar, working: referenceWorkingMinutes(calendar, q.fromMs, q.toMs), busy: minutesOf(calendar.busy) }));
    const slots: Slot[] = [];
    for (let s = q.fromMs; s + q.durationMinutes * MINUTE_MS <= q.toMs; s += q.stepMinutes * MINUTE_MS) {
      const e = s + q.durationMinutes * MINUTE_MS;
      for (const { calendar, working, busy } of prepared) {
        const inHours =
          !q.respectWorkingHours ||
          every(s, e, (m) => working.has(m)) ||
          calendar.availableExtra.some((x) => every(s, e, (m) => x.startMs <= m && m + MINUTE_MS <= x.endMs));
        const free = every(s - q.bufferBeforeMinutes * MINUTE_MS, e + q.bufferAfterMinutes * MINUTE_MS, (m) => !busy.has(m));
        if (inHours && free) slots.push({ startUtc: new Date(s).toISOString(), endUtc: new Date(e).toISOString(), agentId: calendar.agentId });
      }
    }
    return slots;
  };

  // A day on which each zone changes its offset this year (Kolkata and UTC never do), so that most
  // windows contain a DST change of at least one agent's zone.
  const zoneDays = [
    ['America/New_York', '2026-03-08'],
    ['America/New_York', '2026-11-01'],
    ['Europe/London', '2026-03-29'],
    ['Europe/London', '2026-10-25'],
    ['Australia/Lord_Howe', '2026-04-05'],
    ['Australia/Lord_Howe', '2026-10-04'],
    ['Pacific/Chatham', '2026-04-05'],
    ['Pacific/Chatham', '2026-09-27'],
    ['Asia/Kolkata', '2026-06-15'],
    ['UTC', '2026-01-14'],
  ] as const;

  const randomCase = (seed: number) => {
    const random = prng(seed);
    const integer = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const clock = () => {
      // Changes happen between 01:00 and 04:00 local, so favour those hours.
      const hour = random() < 0.4 ? integer(1, 3) : integer(0, 23);
      return `${String(hour).padStart(2, '0')}:${pick(['00', '15', '30', '45'])}`;
    };
    const interval = (fromMs: number, spreadMinutes: number, maxMinutes: number): Interval => {
      const startMs = fromMs + integer(-360, spreadMinutes) * MINUTE_MS;
      return { startMs, endMs: startMs + integer(0, maxMinutes) * MINUTE_MS };
    };

    const [zone, day] = pick(zoneDays);
    const fromMs = at(`${day}T00:00:00Z`) + integer(-36 * 60, 36 * 60) * MINUTE_MS;
    const windowMinutes = integer(60, 48 * 60);
    const durationMinutes = pick([5, 15, 30, 45, 60, 90, 120, 480]);
    const q: SlotQuery = {
      fromMs,
      toMs: fromMs + windowMinutes * MINUTE_MS,
      durationMinutes,
      stepMinutes: pick([5, 10, 15, 30, 60, durationMinutes]),
      bufferBeforeMinutes: pick([0, 0, 5, 15, 30]),
      bufferAfterMinutes: pick([0, 0, 5, 15, 30]),
      respectWorkingHours: random() < 0.8,
    };
    const agents = ['dee', 'ana', 'cy'].slice(0, integer(1, 3)).map(
      (agentId): AgentCalendar => ({
        agentId,
        timezone: random() < 0.7 ? zone : pick(zoneDays)[0],
        workingHours: Object.fromEntries(
          weekdays.map((d) => [d, Array.from({ length: pick([0, 1, 1, 2]) }, () => [clock(), random() < 0.1 ? '24:00' : clock()])]),
        ) as WeeklyHours,
        availableExtra: Array.from({ length: integer(0, 2) }, () => interval(fromMs, windowMinutes, 360)),
        busy: Array.from({ length: integer(0, 12) }, () => interval(fromMs, windowMinutes + 360, 180)),
      }),
    );
    while (candidateCount(q, agents.length) > 400) q.stepMinutes *= 2;
    return { q, agents };
  };

  it('matches the reference on 300 seeded random calendars', () => {
    let slotsSeen = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const { q, agents } = randomCase(seed);
      const actual = availableSlots({ query: q, agents });
      expect(actual, `seed ${seed}`).toEqual(referenceSlots(q, agents));
      slotsSeen += actual.length;
    }
    // Guard against a generator that only ever produces empty answers.
    expect(slotsSeen).toBeGreaterThan(3000);
  });
});
