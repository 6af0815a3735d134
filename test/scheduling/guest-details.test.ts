import { describe, expect, it } from 'vitest';
import { answersOrNone, mergeMetadata, metadataOrNone, sameAnswers, sameMetadata } from '../../src/scheduling/guest-details.js';

describe('mergeMetadata (JSON Merge Patch on a flat object)', () => {
  it.each([
    ['sets new keys and keeps the others', { a: 1 }, { b: 'x' }, { a: 1, b: 'x' }],
    ['overwrites a key', { a: 1 }, { a: false }, { a: false }],
    ['removes a key given as null', { a: 1, b: 2 }, { b: null }, { a: 1 }],
    ['removing the last key leaves none (null)', { a: 1 }, { a: null }, null],
    ['null for the whole clears it', { a: 1 }, null, null],
    ['starts from none', null, { a: 1 }, { a: 1 }],
    ['an empty patch changes nothing', { a: 1 }, {}, { a: 1 }],
  ])('%s', (_name, stored, patch, expected) => {
    expect(mergeMetadata(stored, patch)).toEqual({ metadata: expected });
  });

  it('reports a result over 50 keys', () => {
    const stored = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    expect(mergeMetadata(stored, { extra: 1 }).tooMany).toBe(51);
    expect(mergeMetadata(stored, { extra: 1, k0: null }).tooMany).toBeUndefined();
  });
});

describe('none and sameness', () => {
  it('{} and [] are none', () => {
    expect(metadataOrNone({})).toBeNull();
    expect(answersOrNone([])).toBeNull();
    expect(metadataOrNone(undefined)).toBeNull();
  });
  it('metadata is the same whatever the key order; answers only in the same order', () => {
    expect(sameMetadata({ a: 1, b: 'x' }, { b: 'x', a: 1 })).toBe(true);
    expect(sameMetadata({ a: 1 }, { a: '1' })).toBe(false);
    expect(sameMetadata({ a: 1 }, null)).toBe(false);
    const q = (question: string, answer = 'A') => ({ question, answer });
    expect(sameAnswers([q('1'), q('2')], [q('1'), q('2')])).toBe(true);
    expect(sameAnswers([q('1'), q('2')], [q('2'), q('1')])).toBe(false);
    expect(sameAnswers(null, null)).toBe(true);
  });
});
