import { z } from 'zod';

/**
 * Instants and calendar days as clients send them. `new Date()` alone is too lenient for input:
 * it rolls 2026-02-30 over to March 2, and takes years (0000, 9999 plus a buffer, +275760) that
 * PostgreSQL refuses or JavaScript prints as "+010000-...", which would fail in the database as
 * a 500. Every accepted instant and day is a real calendar date and time within INPUT_YEARS:
 * far enough inside PostgreSQL's and ISO 8601's four-digit range that an instant plus any
 * duration, buffer or range the API allows (at most 400 days) still prints and stores.
 */
export const INPUT_YEARS = { min: 1900, max: 9998 } as const;
export const RANGE_MESSAGE = `must be between ${INPUT_YEARS.min}-01-01 and ${INPUT_YEARS.max}-12-31`;

/** ISO 8601 with a time and a zone (Z or an offset): "2026-03-08" or "March 8" are not instants. */
const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:Z|([+-])(\d{2}):?(\d{2}))$/i;
const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

export type InputProblem = 'format' | 'calendar' | 'range';
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: InputProblem };

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isCalendarDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= (month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1]!);
}

const inYears = (year: number) => year >= INPUT_YEARS.min && year <= INPUT_YEARS.max;

const FORMAT = { ok: false, problem: 'format' } as const;
const CALENDAR = { ok: false, problem: 'calendar' } as const;
const RANGE = { ok: false, problem: 'range' } as const;

/** The first three digits of a fraction of a second as milliseconds ("5" is 500; the rest is dropped, as Date does). */
function millisOf(fraction: string | undefined): number {
  if (fraction === undefined) return 0;
  let ms = 0;
  for (let i = 0; i < 3; i++) ms = ms * 10 + (i < fraction.length ? fraction.charCodeAt(i) - 48 : 0);
  return ms;
}

/**
 * An instant such as 2026-03-08T14:00:00Z or 2026-03-08T09:00:00-05:00 (an offset is ±hh:mm or
 * ±hhmm). Computed from the matched numbers with Date.UTC rather than handed to Date's string
 * parser again: the same instant, at a fraction of the cost on every DateTime argument.
 */
export function parseInstant(value: string): Parsed<Date> {
  const m = ISO_INSTANT.exec(value);
  if (!m) return FORMAT;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const offsetHours = m[8] === undefined ? 0 : Number(m[9]);
  const offsetMinutes = m[8] === undefined ? 0 : Number(m[10]);
  if (!isCalendarDay(year, month, day) || hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return CALENDAR;
  // An offset moves an instant by less than a day; Date.UTC would also read years 0-99 as 19xx.
  if (year < INPUT_YEARS.min - 1 || year > INPUT_YEARS.max + 1) return RANGE;
  const offsetMs = (offsetHours * 60 + offsetMinutes) * 60_000;
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second, millisOf(m[7])) + (m[8] === '-' ? offsetMs : -offsetMs));
  // The instant itself, in UTC: 9998-12-31T23:00-05:00 is already in 9999.
  if (!inYears(date.getUTCFullYear())) return RANGE;
  return { ok: true, value: date };
}

/** A calendar day such as 2026-03-08. */
export function parseDay(value: string): Parsed<string> {
  const m = ISO_DAY.exec(value);
  if (!m) return { ok: false, problem: 'format' };
  const [year, month, day] = m.slice(1).map(Number);
  if (!isCalendarDay(year!, month!, day!)) return { ok: false, problem: 'calendar' };
  if (!inYears(year!)) return { ok: false, problem: 'range' };
  return { ok: true, value };
}

/** A parser as a zod schema: each problem its message; a bad format is `invalid_format`, the rest `invalid_value`. */
function zodSchema<T>(parse: (value: string) => Parsed<T>, messages: Record<InputProblem, string>, base = z.string()) {
  return base.transform((value, ctx) => {
    const parsed = parse(value);
    if (parsed.ok) return parsed.value;
    ctx.addIssue({ code: 'custom', message: messages[parsed.problem], params: { code: parsed.problem === 'format' ? 'invalid_format' : 'invalid_value' } });
    return z.NEVER;
  });
}

/**
 * What JSON Schema can say of an accepted instant or day: RFC 3339 (`format`), and a year within
 * INPUT_YEARS (`pattern`). The OpenAPI document states inputs with these; the parser accepts a
 * little more (no seconds, a ±hhmm offset), never less.
 */
const YEARS_PATTERN = '(?:19\\d\\d|[2-8]\\d{3}|9[0-8]\\d\\d|99[0-8]\\d|999[0-8])';
export const instantJsonSchema = { type: 'string', format: 'date-time', pattern: `^${YEARS_PATTERN}-` } as const;
export const dayJsonSchema = { type: 'string', format: 'date', pattern: `^${YEARS_PATTERN}-\\d{2}-\\d{2}$` } as const;

/** Instants inside JSON records (NDJSON imports, inbound events); GraphQL's DateTime scalar applies the same parseInstant. */
export const instantString = zodSchema(parseInstant, {
  format: 'must be an ISO 8601 timestamp with a zone, e.g. 2026-03-08T14:00:00Z',
  calendar: 'must be a real calendar date and time',
  range: RANGE_MESSAGE,
}).meta({ ...instantJsonSchema });

/** YYYY-MM-DD, a real calendar day within INPUT_YEARS (analytics day filters). */
const dayFormat = 'must be a date YYYY-MM-DD';
export const dayString = zodSchema(
  parseDay,
  { format: dayFormat, calendar: 'must be a real calendar day', range: RANGE_MESSAGE },
  // The pattern first: it is what OpenAPI shows of the parameter.
  z.string().regex(ISO_DAY, { message: dayFormat }),
).meta({ ...dayJsonSchema });
