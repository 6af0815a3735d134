/**
 * How long a pooled PostgreSQL connection waits before it tries to connect again after a failed
 * attempt, in seconds (postgres.js's `backoff` option; `retries` counts failed attempts across the
 * pool since the last success).
 *
 * postgres.js's default grows to many seconds after a few failures, and under load a pool fails
 * that often within a second of an outage, so a database soon back would stay unusable (and
 * requests queued on a waiting connection hang) long after. Here the wait doubles from 50 ms and
 * stops at one second, with jitter so a fleet of instances does not reconnect in step: at most
 * DB_POOL_MAX + DB_PAGE_POOL_MAX + 2 attempts a second per instance (the pools, the token lookup's
 * connection and the timeline's LISTEN connection) while the database is down, and service again within
 * about a second of its return.
 */
export const MAX_RECONNECT_DELAY_S = 1;

export function reconnectBackoff(retries: number, random: () => number = Math.random): number {
  const ceiling = Math.min(0.05 * 2 ** Math.max(0, retries - 1), MAX_RECONNECT_DELAY_S);
  return ceiling * (0.5 + random() / 2);
}
