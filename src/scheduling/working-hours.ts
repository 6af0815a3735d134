import { IANAZone } from 'luxon';
import { z } from 'zod';
import { refuseProtoKey } from '../validation/proto-key.js';

export const weekdays = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof weekdays)[number];

// `working_hours` is `{"mon": [["09:00", "17:00"]], …, "sun": []}` in the agent's
// local time. "24:00" may only end an interval; a missing day has no working hours.
const startTime = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected HH:MM from 00:00 to 23:59');
const endTime = z.string().regex(/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/, 'expected HH:MM from 00:00 to 24:00');
export const weeklyHoursSchema = z.preprocess(refuseProtoKey('unrecognized', 'Unrecognized key: not a day (mon to sun)'), z.partialRecord(z.enum(weekdays), z.array(z.tuple([startTime, endTime]))));
export type WeeklyHours = z.infer<typeof weeklyHoursSchema>;

/** A half-open UTC interval [startMs, endMs) in epoch milliseconds. */
export interface Interval {
  startMs: number;
  endMs: number;
}

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
// A zone's offsets are looked up a week at a time (weeks counted from the epoch); a week whose
// ends agree is taken to have one offset: no zone in tzdb changes its offset and back within a week.
const WEEK_MS = 7 * DAY_MS;
// Converting a wall time looks at offsets one day either side of it, and the window's first and
// last local days reach up to two days past its ends.
const CLOCK_PADDING_MS = 3 * DAY_MS;

// Zones found valid: tzdb's names are a closed set, so this stays small; an invalid name is
// never kept (callers choose them).
const validZones = new Set<string>();

export function isValidTimeZone(timezone: string): boolean {
  if (validZones.has(timezone)) return true;
  // A UTC offset ("+05:30") is a valid zone to luxon on Node 22 and later, not an IANA name.
  const valid = /^[A-Za-z]/.test(timezone) && IANAZone.isValidZone(timezone);
  if (valid) validZones.add(timezone);
  return valid;
}

interface OffsetChange {
  atMs: number;
  offsetMinutes: number;
}

/**
 * One zone's UTC offset over a window, as a step function, so that every working-hours boundary
 * converts by arithmetic. It also makes ambiguous wall times deterministic: luxon's
 * `DateTime.fromObject` resolves a fall-back hour from the offset in force on the day the
 * process first asked it about that zone.
 */
export interface ZoneClock {
  timezone: string;
  fromMs: number;
  toMs: number;
  initialOffsetMinutes: number;
  changes: OffsetChange[];
}

interface ZoneWeek {
  startOffsetMinutes: number;
  /** Changes in (weekStart, weekStart + WEEK_MS]. */
  changes: OffsetChange[];
}

// Each luxon offset look-up is a slow Intl call, and a week with a DST change takes a dozen or
// more of them. tzdb cannot change while the process
// runs, so weeks are remembered, a bounded number; results stay a function of the arguments.
const zoneWeeks = new Map<string, ZoneWeek>();
const ZONE_WEEKS_KEPT = 4096;

function zoneWeek(zone: IANAZone, weekStart: number): ZoneWeek {
  const key = `${zone.name} ${weekStart}`;
  const known = zoneWeeks.get(key);
  if (known) return known;
  const weekEnd = weekStart + WEEK_MS;
  const endOffset = zone.offset(weekEnd);
  const week: ZoneWeek = { startOffsetMinutes: zone.offset(weekStart), changes: [] };
  let current = { atMs: weekStart, offsetMinutes: week.startOffsetMinutes };
  // Bisect to the first minute (tzdb changes offsets on whole minutes) with another offset.
  while (current.offsetMinutes !== endOffset) {
    let same = current.atMs;
    let changed = { atMs: weekEnd, offsetMinutes: endOffset };
    while (changed.atMs - same > MINUTE_MS) {
      const middle = same + Math.floor((changed.atMs - same) / 2 / MINUTE_MS) * MINUTE_MS;
      const offsetMinutes = zone.offset(middle);
      if (offsetMinutes === current.offsetMinutes) same = middle;
      else changed = { atMs: middle, offsetMinutes };
    }
    current = changed;
    week.changes.push(current);
  }
  if (zoneWeeks.size >= ZONE_WEEKS_KEPT) zoneWeeks.delete(zoneWeeks.keys().next().value as string);
  zoneWeeks.set(key, week);
  return week;
}

export function zoneClock({ timezone, fromMs, toMs }: { timezone: string; fromMs: number; toMs: number }): ZoneClock {
  if (!isValidTimeZone(timezone)) throw new RangeError(`invalid IANA time zone: ${timezone}`);
  const zone = IANAZone.create(timezone);
  const firstWeekStart = Math.floor((fromMs - CLOCK_PADDING_MS) / WEEK_MS) * WEEK_MS;
  const changes: OffsetChange[] = [];
  for (let weekStart = firstWeekStart; weekStart < toMs + CLOCK_PADDING_MS; weekStart += WEEK_MS) {
    changes.push(...zoneWeek(zone, weekStart).changes);
  }
  return { timezone, fromMs, toMs, initialOffsetMinutes: zoneWeek(zone, firstWeekStart).startOffsetMinutes, changes };
}

/** The zone's UTC offset in minutes at an instant (inside the clock's window, padding included). */
export function offsetAt(clock: ZoneClock, utcMs: number): number {
  let offsetMinutes = clock.initialOffsetMinutes;
  for (const change of clock.changes) {
    if (change.atMs > utcMs) break;
    offsetMinutes = change.offsetMinutes;
  }
  return offsetMinutes;
}

/**
 * The instant of a local wall time, given as the epoch ms that wall time would have in UTC.
 * - In a spring-forward gap the time shifts forward by the gap, as luxon does: 02:30 on
 *   2026-03-08 in New York is 03:30 EDT (07:30Z), and a local 02:00-03:00 interval that night
 *   is empty.
 * - In a fall-back overlap it is the earlier instant: 01:30 on 2026-11-01 in New York is
 *   01:30 EDT (05:30Z), so a local 01:00-02:00 interval that night lasts two real hours.
 */
function wallToUtc(clock: ZoneClock, wallMs: number): number {
  const offsetBefore = offsetAt(clock, wallMs - DAY_MS);
  const viaBefore = wallMs - offsetBefore * MINUTE_MS;
  if (offsetAt(clock, viaBefore) === offsetBefore) return viaBefore;
  const offsetAfter = offsetAt(clock, wallMs + DAY_MS);
  const viaAfter = wallMs - offsetAfter * MINUTE_MS;
  return offsetAt(clock, viaAfter) === offsetAfter ? viaAfter : viaBefore;
}

function minutesOfDay(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

/**
 * The agent's working hours (as parsed by weeklyHoursSchema) as UTC intervals overlapping the
 * clock's window [fromMs, toMs), sorted. Touching and overlapping intervals are merged, so a slot
 * across mon 22:00-02:00 and tue 00:00-08:00 lies inside one working-hours interval.
 * Wall times follow the agent's zone across DST: on a
 * spring-forward day 09:00-17:00 lasts 8 real hours.
 */
export function expandWorkingHours({ clock, hours }: { clock: ZoneClock; hours: WeeklyHours }): Interval[] {
  const localDayOf = (utcMs: number) => {
    const wallMs = utcMs + offsetAt(clock, utcMs) * MINUTE_MS;
    return wallMs - (((wallMs % DAY_MS) + DAY_MS) % DAY_MS);
  };
  const intervals: Interval[] = [];
  // Start a day early: an interval of the previous local day can run past midnight into the window.
  for (let day = localDayOf(clock.fromMs) - DAY_MS; day <= localDayOf(clock.toMs); day += DAY_MS) {
    const weekday = weekdays[(new Date(day).getUTCDay() + 6) % 7] as Weekday;
    for (const [start, end] of hours[weekday] ?? []) {
      const startMinute = minutesOfDay(start);
      let endMinute = minutesOfDay(end);
      // An interval whose end is not after its start runs past midnight into the next day.
      if (endMinute <= startMinute) endMinute += 24 * 60;
      const startMs = wallToUtc(clock, day + startMinute * MINUTE_MS);
      const endMs = wallToUtc(clock, day + endMinute * MINUTE_MS);
      // Empty only when a start inside a spring-forward gap shifts to or past its end.
      if (startMs < endMs && endMs > clock.fromMs && startMs < clock.toMs) intervals.push({ startMs, endMs });
    }
  }
  intervals.sort((a, b) => a.startMs - b.startMs);
  const merged: Interval[] = [];
  for (const interval of intervals) {
    const previous = merged[merged.length - 1];
    if (previous && interval.startMs <= previous.endMs) previous.endMs = Math.max(previous.endMs, interval.endMs);
    else merged.push({ ...interval });
  }
  return merged;
}
