import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, unstorableTextIssues } from '../../src/validation/storable.js';

const nested = (levels: number, leaf: unknown = {}) => {
  let value: unknown = leaf;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
};

describe('unstorableTextIssues', () => {
  it('names each unstorable string and key by its path, in document order', () => {
    expect(unstorableTextIssues({ a: 'ok', b: ['x\u0000', { 'k\u0000': 1, c: '\ud800' }] }, ['metadata'])).toEqual([
      { path: ['metadata', 'b', 0], message: expect.stringMatching(/NUL/), code: 'invalid_format' },
      { path: ['metadata', 'b', 1, 'k\u0000'], message: expect.stringMatching(/^key .*NUL/), code: 'invalid_format' },
      { path: ['metadata', 'b', 1, 'c'], message: expect.stringMatching(/surrogate/), code: 'invalid_format' },
    ]);
  });

  it(`refuses nesting past ${MAX_JSON_DEPTH} levels once, where it starts, without walking the rest`, () => {
    expect(unstorableTextIssues(nested(MAX_JSON_DEPTH, 'x\u0000'))).toHaveLength(1);
    expect(unstorableTextIssues(nested(MAX_JSON_DEPTH - 1, {}))).toEqual([]);
    // A million levels: refused at the limit (the walk stops there).
    const deep = unstorableTextIssues(nested(1_000_000));
    expect(deep).toEqual([{ path: Array(MAX_JSON_DEPTH).fill(0), message: `must not nest deeper than ${MAX_JSON_DEPTH} levels`, code: 'too_big' }]);
  });

  it('names each number that is not finite (1e999 parses as Infinity)', () => {
    expect(unstorableTextIssues({ a: 1e308, b: [Infinity, { c: -Infinity }], d: NaN })).toEqual([
      { path: ['b', 0], message: expect.stringMatching(/finite/), code: 'invalid_value' },
      { path: ['b', 1, 'c'], message: expect.stringMatching(/finite/), code: 'invalid_value' },
      { path: ['d'], message: expect.stringMatching(/finite/), code: 'invalid_value' },
    ]);
  });

  it('reports at most 50 issues of one value', () => {
    expect(unstorableTextIssues(Array.from({ length: 100_000 }, () => 'x\u0000'))).toHaveLength(50);
  });
});
