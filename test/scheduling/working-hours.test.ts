import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  expandWorkingHours,
  isValidTimeZone,
  weeklyHoursSchema,
  type WeeklyHours,
  zoneClock,
} from '../../src/scheduling/working-hours.js';

const expand = (timezone: string, from: string, to: string, hours: WeeklyHours) =>
  expandWorkingHours({ clock: zoneClock({ timezone, fromMs: Date.parse(from), toMs: Date.parse(to) }), hours }).map(
    (i) => [new Date(i.startMs).toISOString(), new Date(i.endMs).toISOString()],
  );

describe('weeklyHoursSchema', () => {
  it.each([
    ['a full week', { mon: [['09:00', '17:00']], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] }],
    ['some days only', { sat: [['10:00', '12:00'], ['13:00', '24:00']] }],
    ['a past-midnight interval', { fri: [['22:00', '02:00']] }],
    ['a whole day as 00:00-00:00', { sun: [['00:00', '00:00']] }],
  ])('accepts %s', (_, hours) => {
    expect(weeklyHoursSchema.safeParse(hours).success).toBe(true);
  });

  it.each([
    ['an unknown day', { monday: [['09:00', '17:00']] }],
    ['an hour past 24', { mon: [['09:00', '25:00']] }],
    ['a single-digit hour', { mon: [['9:00', '17:00']] }],
    ['24:00 as a start', { mon: [['24:00', '02:00']] }],
    ['24:30 as an end', { mon: [['22:00', '24:30']] }],
    ['an interval with three times', { mon: [['09:00', '12:00', '17:00']] }],
    ['a day that is not a list', { mon: ['09:00', '17:00'] }],
  ])('rejects %s', (_, hours) => {
    expect(weeklyHoursSchema.safeParse(hours).success).toBe(false);
  });
});

describe('isValidTimeZone', () => {
  it.each([
    ['America/New_York', true],
    ['Asia/Kolkata', true],
    ['UTC', true],
    ['Mars/Olympus_Mons', false],
    ['+05:30', false],
    ['', false],
  ])('says %s is %s', (timezone, valid) => {
    expect(isValidTimeZone(timezone)).toBe(valid);
  });

  it('refuses to build a clock for an unknown zone', () => {
    expect(() => zoneClock({ timezone: 'Mars/Olympus_Mons', fromMs: 0, toMs: 1 })).toThrow(RangeError);
    expect(() => zoneClock({ timezone: '+05:30', fromMs: 0, toMs: 1 })).toThrow(RangeError);
  });
});

describe('expandWorkingHours', () => {
  afterEach(() => vi.useRealTimers());

  const utcDays: [name: string, timezone: string, utcDay: string, hours: WeeklyHours, expected: string[][]][] = [
    ['is 14:00-22:00Z on a winter day in New York', 'America/New_York', '2026-03-07', { sat: [['09:00', '17:00']] }, [['2026-03-07T14:00:00.000Z', '2026-03-07T22:00:00.000Z']]],
    ['is 13:00-21:00Z on the spring-forward day in New York (8 real hours)', 'America/New_York', '2026-03-08', { sun: [['09:00', '17:00']] }, [['2026-03-08T13:00:00.000Z', '2026-03-08T21:00:00.000Z']]],
    ['is 1 real hour for 01:00-03:00 on the spring-forward night', 'America/New_York', '2026-03-08', { sun: [['01:00', '03:00']] }, [['2026-03-08T06:00:00.000Z', '2026-03-08T07:00:00.000Z']]],
    ['shifts a start inside the spring-forward gap forward by the gap (02:30 is 03:30 EDT)', 'America/New_York', '2026-03-08', { sun: [['02:30', '05:00']] }, [['2026-03-08T07:30:00.000Z', '2026-03-08T09:00:00.000Z']]],
    ['drops an interval lying wholly inside the spring-forward gap once shifted', 'America/New_York', '2026-03-08', { sun: [['02:30', '03:00']] }, []],
    ['is 13:00-21:00Z on the day before fall-back in New York', 'America/New_York', '2026-10-31', { sat: [['09:00', '17:00']] }, [['2026-10-31T13:00:00.000Z', '2026-10-31T21:00:00.000Z']]],
    ['is 14:00-22:00Z on the fall-back day in New York (8 real hours)', 'America/New_York', '2026-11-01', { sun: [['09:00', '17:00']] }, [['2026-11-01T14:00:00.000Z', '2026-11-01T22:00:00.000Z']]],
    ['is 3 real hours for 01:00-03:00 on the fall-back night', 'America/New_York', '2026-11-01', { sun: [['01:00', '03:00']] }, [['2026-11-01T05:00:00.000Z', '2026-11-01T08:00:00.000Z']]],
    ['takes the earlier instant of an ambiguous fall-back time (01:30 is 01:30 EDT)', 'America/New_York', '2026-11-01', { sun: [['01:30', '04:00']] }, [['2026-11-01T05:30:00.000Z', '2026-11-01T09:00:00.000Z']]],
    ['is 09:00-17:00Z in London in winter', 'Europe/London', '2026-03-27', { fri: [['09:00', '17:00']] }, [['2026-03-27T09:00:00.000Z', '2026-03-27T17:00:00.000Z']]],
    ['is 08:00-16:00Z in London once summer time starts', 'Europe/London', '2026-03-30', { mon: [['09:00', '17:00']] }, [['2026-03-30T08:00:00.000Z', '2026-03-30T16:00:00.000Z']]],
    ['is 03:30-11:30Z in Kolkata', 'Asia/Kolkata', '2026-07-01', { wed: [['09:00', '17:00']] }, [['2026-07-01T03:30:00.000Z', '2026-07-01T11:30:00.000Z']]],
    ['follows Lord Howe\'s half-hour fall-back (01:00-03:00 is 2.5 real hours)', 'Australia/Lord_Howe', '2026-04-04', { sun: [['01:00', '03:00']] }, [['2026-04-04T14:00:00.000Z', '2026-04-04T16:30:00.000Z']]],
    ['reads 24:00 as the end of the day', 'UTC', '2026-07-01', { wed: [['20:00', '24:00']] }, [['2026-07-01T20:00:00.000Z', '2026-07-02T00:00:00.000Z']]],
  ];
  it.each(utcDays)('%s', (_, timezone, day, hours, expected) => {
    // The window is that UTC day; each expected interval overlaps it.
    const to = new Date(Date.parse(day) + 24 * 3600_000).toISOString();
    expect(expand(timezone, `${day}T00:00:00Z`, to, hours)).toEqual(expected);
  });

  it('runs an interval whose end is not after its start into the next day', () => {
    expect(expand('UTC', '2026-03-02T00:00:00Z', '2026-03-04T00:00:00Z', { mon: [['22:00', '02:00']] })).toEqual([
      ['2026-03-02T22:00:00.000Z', '2026-03-03T02:00:00.000Z'],
    ]);
  });

  it('reads 00:00-00:00 as a full 24 hours', () => {
    expect(expand('UTC', '2026-03-02T00:00:00Z', '2026-03-04T00:00:00Z', { mon: [['00:00', '00:00']] })).toEqual([
      ['2026-03-02T00:00:00.000Z', '2026-03-03T00:00:00.000Z'],
    ]);
  });

  it('merges a past-midnight interval with the next morning and touching intervals', () => {
    const hours: WeeklyHours = { mon: [['22:00', '02:00']], tue: [['00:00', '08:00'], ['08:00', '09:00'], ['12:00', '13:00']] };
    expect(expand('UTC', '2026-03-02T00:00:00Z', '2026-03-04T00:00:00Z', hours)).toEqual([
      ['2026-03-02T22:00:00.000Z', '2026-03-03T09:00:00.000Z'],
      ['2026-03-03T12:00:00.000Z', '2026-03-03T13:00:00.000Z'],
    ]);
  });

  it('includes an interval from the day before the window that runs into it', () => {
    expect(expand('UTC', '2026-03-03T01:00:00Z', '2026-03-03T01:30:00Z', { mon: [['22:00', '02:00']] })).toEqual([
      ['2026-03-02T22:00:00.000Z', '2026-03-03T02:00:00.000Z'],
    ]);
  });

  it('returns nothing for a week without hours', () => {
    expect(expand('America/New_York', '2026-03-01T00:00:00Z', '2026-03-15T00:00:00Z', {})).toEqual([]);
  });

  it('covers every weekday of a multi-week window across a DST change', () => {
    const hours: WeeklyHours = { mon: [['09:00', '10:00']], wed: [['09:00', '10:00']] };
    expect(expand('America/New_York', '2026-03-01T00:00:00Z', '2026-03-15T00:00:00Z', hours)).toEqual([
      ['2026-03-02T14:00:00.000Z', '2026-03-02T15:00:00.000Z'],
      ['2026-03-04T14:00:00.000Z', '2026-03-04T15:00:00.000Z'],
      ['2026-03-09T13:00:00.000Z', '2026-03-09T14:00:00.000Z'],
      ['2026-03-11T13:00:00.000Z', '2026-03-11T14:00:00.000Z'],
    ]);
  });

  it('resolves the ambiguous fall-back hour the same way whatever the date today', () => {
    const hours: WeeklyHours = { sun: [['01:30', '02:00']] };
    const results = ['2026-07-01T12:00:00Z', '2026-12-01T12:00:00Z'].map((today) => {
      vi.useFakeTimers({ now: new Date(today) });
      return expand('America/New_York', '2026-11-01T00:00:00Z', '2026-11-02T00:00:00Z', hours);
    });
    expect(results[0]).toEqual([['2026-11-01T05:30:00.000Z', '2026-11-01T07:00:00.000Z']]);
    expect(results[1]).toEqual(results[0]);
  });
});
