/**
 * `date.toISOString()`, computed in JavaScript: V8's builtin goes through its date cache and
 * costs several times more, and a page of messages serializes a few instants per row. Same output for every
 * instant in years 1000-9999 (test/time/iso-instant.test.ts compares the two); anything else,
 * or an invalid date, is left to the builtin (which throws RangeError for an invalid date).
 */
const DAY_MS = 86_400_000;
/** 1000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z. */
const MIN_MS = -30_610_224_000_000;
const MAX_MS = 253_402_300_799_999;
const ZERO = 48;
const tens = (n: number) => ZERO + ((n / 10) | 0);
const ones = (n: number) => ZERO + (n % 10);

export function isoInstant(date: Date): string {
  const ms = date.getTime();
  if (!(ms >= MIN_MS && ms <= MAX_MS)) return date.toISOString();
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  // Days since the epoch to a civil date (H. Hinnant, "chrono-compatible low-level date algorithms").
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hour = Math.floor(rest / 3_600_000);
  rest -= hour * 3_600_000;
  const minute = Math.floor(rest / 60_000);
  rest -= minute * 60_000;
  const second = Math.floor(rest / 1000);
  const milli = rest - second * 1000;
  // One flat string from char codes: no concatenation tree to build and flatten again.
  return String.fromCharCode(
    tens((year / 100) | 0), ones((year / 100) | 0), tens(year % 100), ones(year % 100), 45, // YYYY-
    tens(month), ones(month), 45, tens(day), ones(day), 84, // MM-DDT
    tens(hour), ones(hour), 58, tens(minute), ones(minute), 58, tens(second), ones(second), 46, // hh:mm:ss.
    ZERO + ((milli / 100) | 0), tens(milli % 100), ones(milli % 100), 90, // fffZ
  );
}
