import { describe, expect, it } from 'vitest';
import { canonicalTimeZone, ianaTimeZone } from '../../src/validation/time-zone.js';

describe('IANA time zone inputs', () => {
  it('keeps a zone written in another case in the database spelling', () => {
    expect(ianaTimeZone.parse('america/new_york')).toBe('America/New_York');
    expect(ianaTimeZone.parse('utc')).toBe('UTC');
    expect(ianaTimeZone.parse('EUROPE/LONDON')).toBe('Europe/London');
  });

  it('keeps a name as written when the runtime would swap it for another alias', () => {
    // The runtime's own names are older aliases for some zones.
    expect(canonicalTimeZone('Asia/Kathmandu')).toBe('Asia/Kathmandu');
    expect(canonicalTimeZone('EST')).toBe('EST');
    expect(canonicalTimeZone('Pacific/Chatham')).toBe('Pacific/Chatham');
  });

  it('refuses what is no zone', () => {
    expect(ianaTimeZone.safeParse('Mars/Olympus_Mons').success).toBe(false);
    expect(ianaTimeZone.safeParse('').success).toBe(false);
  });

  it.each(['+05:30', '-08:00', '+0530', '+05'])('refuses the UTC offset %s, which Node 22 and later take as a zone', (offset) => {
    // PostgreSQL reads "+05:30" as a POSIX zone: 05:30 west of UTC, not east.
    expect(ianaTimeZone.safeParse(offset).success).toBe(false);
  });
});
