import { z } from 'zod';

/**
 * An IANA time zone name, validated by the runtime's own zone database. Zone names are
 * case-insensitive; one written in another case is kept in the database's (`america/new_york`
 * is stored as America/New_York, `utc` as UTC), since what is stored is shown as written.
 */
export const ianaTimeZone = z
  .string()
  .refine(isTimeZone, { message: 'must be an IANA time zone', params: { code: 'invalid_value' } })
  .transform(canonicalTimeZone);

export function canonicalTimeZone(name: string): string {
  // Only the case is changed: the runtime's own name for a zone may be another alias of it
  // (Asia/Kathmandu resolves to Asia/Katmandu, EST to America/Panama), which is kept as written.
  const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  return resolved.toLowerCase() === name.toLowerCase() ? resolved : name;
}

export function isTimeZone(name: string): boolean {
  // Zone names are short (the longest IANA name is 32 characters): a long text is no zone and
  // is never handed to Intl or kept.
  if (name.length === 0 || name.length > 64) return false;
  if (databaseZones && !databaseZones.has(name.toLowerCase())) return false;
  // Node 22 and later also take UTC offsets ("+05:30") as a time zone; PostgreSQL reads such a
  // string the POSIX way, east and west swapped. Every IANA name starts with a letter.
  if (!/^[A-Za-z]/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * The zones the database knows (pg_timezone_names, lower-cased: PostgreSQL matches them without
 * regard to case). A zone goes into SQL (`at time zone`) or is stored for later SQL, so a name
 * Node knows and the database does not (US/Pacific-New, Canada/East-Saskatchewan: dropped from
 * newer zone data) must be refused as input, not fail as a 500 when the query runs. Read once a
 * process per database, a closed set of some 1,200 names; with several databases in one process
 * (tests), a zone must be known to all of them.
 */
let databaseZones: Set<string> | undefined;

export function registerDatabaseTimeZones(names: Iterable<string>): void {
  const known = new Set([...names].map((n) => n.toLowerCase()));
  databaseZones = databaseZones ? new Set([...databaseZones].filter((n) => known.has(n))) : known;
}
