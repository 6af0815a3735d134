import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoInstant } from '../../src/time/iso-instant.js';

const SEED = Number(process.env.PROPERTY_SEED ?? 20261123);

describe('isoInstant', () => {
  it('is toISOString for any instant in years 1000-9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: -30_610_224_000_000, max: 253_402_300_799_999 }), (ms) => {
        expect(isoInstant(new Date(ms))).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 20_000, seed: SEED },
    );
  });

  it('matches at the edges: epoch, leap days, century rules, millisecond and year bounds', () => {
    const edges = [
      '1970-01-01T00:00:00.000Z', '1969-12-31T23:59:59.999Z', '2000-02-29T12:00:00.001Z', '1900-03-01T00:00:00.000Z',
      '2100-02-28T23:59:59.999Z', '2024-12-31T23:59:59.999Z', '1000-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z',
      '2026-03-08T07:00:00.000Z', '2026-11-01T05:59:59.500Z',
    ];
    for (const iso of edges) expect(isoInstant(new Date(iso))).toBe(iso);
  });

  it('leaves other years to the builtin, and an invalid date throws like it', () => {
    for (const iso of ['0999-12-31T23:59:59.999Z', '+010000-01-01T00:00:00.000Z', '-000001-01-01T00:00:00.000Z']) {
      expect(isoInstant(new Date(iso))).toBe(new Date(iso).toISOString());
    }
    expect(() => isoInstant(new Date(NaN))).toThrow(RangeError);
  });
});
