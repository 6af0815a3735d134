/**
 * Where services read the current time. The runtime owns one (`runtime.clock`, the system clock
 * in production); a test server can be given a fixed or settable one, so "now" is known.
 * Durations (timeouts, rate-limit windows, latency metrics) use real time, not this.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that stays at `at` until it is set or advanced. */
export interface SettableClock extends Clock {
  set(at: Date | string): void;
  advance(ms: number): void;
}

export function fixedClock(at: Date | string): SettableClock {
  let ms = instantOf(at);
  return {
    now: () => new Date(ms),
    set: (next) => void (ms = instantOf(next)),
    advance: (by) => void (ms += by),
  };
}

function instantOf(at: Date | string): number {
  const ms = new Date(at).getTime();
  if (Number.isNaN(ms)) throw new RangeError(`Not an instant: ${String(at)}`);
  return ms;
}
