import { describe, expect, it } from 'vitest';
import { parseDay, parseInstant } from '../../src/time/instant-input.js';

const problem = (value: string) => {
  const parsed = parseInstant(value);
  return parsed.ok ? parsed.value.toISOString() : parsed.problem;
};

describe('parseInstant', () => {
  it('takes real instants with Z or an offset, fractions included', () => {
    expect(problem('2026-03-08T14:00:00Z')).toBe('2026-03-08T14:00:00.000Z');
    expect(problem('2026-03-08T14:00Z')).toBe('2026-03-08T14:00:00.000Z');
    expect(problem('2026-03-08t14:00:00.5z')).toBe('2026-03-08T14:00:00.500Z');
    expect(problem('2026-03-08T09:00:00-05:00')).toBe('2026-03-08T14:00:00.000Z');
    expect(problem('2026-03-08T23:30:00+14:00')).toBe('2026-03-08T09:30:00.000Z');
    expect(problem('2024-02-29T00:00:00Z')).toBe('2024-02-29T00:00:00.000Z');
    expect(problem('2000-02-29T00:00:00Z')).toBe('2000-02-29T00:00:00.000Z');
  });

  it('refuses what is not an instant with a zone', () => {
    for (const value of ['2026-03-08', '2026-03-08T14:00:00', 'March 8 2026', '2026-3-8T14:00:00Z', '', '+002026-03-08T14:00:00Z']) {
      expect(problem(value), value).toBe('format');
    }
  });

  it('refuses days and times the calendar does not have, instead of rolling over', () => {
    for (const value of [
      '2026-02-29T00:00:00Z', '1900-02-29T00:00:00Z', '2026-02-30T00:00:00Z', '2026-04-31T00:00:00Z', '2026-13-01T00:00:00Z',
      '2026-00-10T00:00:00Z', '2026-01-00T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T23:60:00Z', '2026-01-01T23:59:60Z',
      '2026-01-01T10:00:00+24:00', '2026-01-01T10:00:00+05:60',
    ]) {
      expect(problem(value), value).toBe('calendar');
    }
    // The last day of every month is accepted.
    const last = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    last.forEach((day, i) => expect(problem(`2026-${String(i + 1).padStart(2, '0')}-${day}T00:00:00Z`)).not.toBe('calendar'));
  });

  it('keeps instants in the years 1900 to 9998, in UTC', () => {
    expect(problem('1900-01-01T00:00:00Z')).toBe('1900-01-01T00:00:00.000Z');
    expect(problem('9998-12-31T23:59:59.999Z')).toBe('9998-12-31T23:59:59.999Z');
    expect(problem('1899-12-31T23:59:59Z')).toBe('range');
    expect(problem('9999-01-01T00:00:00Z')).toBe('range');
    expect(problem('0000-01-01T00:00:00Z')).toBe('range');
    // The offset moves the instant across the edge.
    expect(problem('9998-12-31T23:00:00-05:00')).toBe('range');
    expect(problem('1900-01-01T02:00:00+03:00')).toBe('range');
    expect(problem('9999-01-01T03:00:00+05:00')).toBe('9998-12-31T22:00:00.000Z');
  });

  it('gives what Date gives for every accepted instant (a sample across the range)', () => {
    const min = Date.parse('1900-01-01T00:00:00Z');
    const max = Date.parse('9998-12-31T23:59:59.999Z');
    for (let i = 0; i <= 2000; i++) {
      const ms = Math.round(min + ((max - min) * i) / 2000);
      const iso = new Date(ms).toISOString();
      expect(problem(iso)).toBe(iso);
    }
  });

  it("computes offsets and fractions as Date's parser does (no longer handed to it)", () => {
    const zones = ['+05:30', '-0930', '+00:00', '-00:00', '+14:00', '-12:00', '+23:59', 'Z'];
    const fractions = ['', '.5', '.05', '.123', '.1239', '.999999999'];
    for (const zone of zones) {
      for (const fraction of fractions) {
        for (const stamp of ['2026-03-08T14:07:09', '1900-01-01T23:59:59', '9998-12-31T00:00:01', '2024-02-29T12:00:00']) {
          const value = `${stamp}${fraction}${zone}`;
          const parsed = parseInstant(value);
          const expected = new Date(value);
          if (!parsed.ok) {
            expect(parsed.problem, value).toBe('range');
            expect([1899, 9999], value).toContain(expected.getUTCFullYear());
          } else expect(parsed.value.toISOString(), value).toBe(expected.toISOString());
        }
      }
    }
    // An offset of hours alone is not one of the accepted forms.
    expect(problem('2026-03-08T14:00:00+05')).toBe('format');
  });
});

describe('parseDay', () => {
  it('takes real days in range; refuses the rest by kind', () => {
    expect(parseDay('2028-02-29')).toEqual({ ok: true, value: '2028-02-29' });
    expect(parseDay('2027-02-29')).toEqual({ ok: false, problem: 'calendar' });
    expect(parseDay('2027-11-31')).toEqual({ ok: false, problem: 'calendar' });
    expect(parseDay('9999-12-31')).toEqual({ ok: false, problem: 'range' });
    expect(parseDay('1899-12-31')).toEqual({ ok: false, problem: 'range' });
    expect(parseDay('2027-1-01')).toEqual({ ok: false, problem: 'format' });
    expect(parseDay('2027-01-01T00:00:00Z')).toEqual({ ok: false, problem: 'format' });
  });
});
