import { describe, expect, it } from 'vitest';
import { MAX_RECONNECT_DELAY_S, reconnectBackoff } from '../../src/db/reconnect-backoff.js';

describe('reconnectBackoff (postgres.js backoff option, seconds)', () => {
  it('starts at 25-50 ms and doubles with each failed attempt', () => {
    expect(reconnectBackoff(1, () => 0)).toBeCloseTo(0.025);
    expect(reconnectBackoff(1, () => 1)).toBeCloseTo(0.05);
    expect(reconnectBackoff(2, () => 1)).toBeCloseTo(0.1);
    expect(reconnectBackoff(4, () => 1)).toBeCloseTo(0.4);
  });

  it('never waits more than a second, however long the outage (postgres.js: up to 20 s)', () => {
    for (const retries of [6, 7, 10, 50, 5000]) {
      expect(reconnectBackoff(retries, () => 1)).toBeLessThanOrEqual(MAX_RECONNECT_DELAY_S);
      expect(reconnectBackoff(retries, () => 0)).toBeGreaterThanOrEqual(MAX_RECONNECT_DELAY_S / 2);
    }
  });

  it('spreads instances apart (jitter) and is never negative', () => {
    const delays = new Set(Array.from({ length: 50 }, () => reconnectBackoff(8)));
    expect(delays.size).toBeGreaterThan(40);
    expect(reconnectBackoff(0, () => 0)).toBeGreaterThan(0);
  });
});
