import type { Logger } from '../log.js';

/**
 * postgres.js runs a query for the array types on every new connection and drops its promise
 * (an open upstream bug, docs/performance.md): when the database goes away during that query,
 * as in a restart under load, the rejection is unhandled and Node ends the process, though the
 * user's own query fails on its own terms (503 here) and the pool reconnects. That one rejection
 * is logged and survived; every other unhandled rejection keeps Node's default, a crash.
 */
const TYPE_QUERY = /from pg_catalog\.pg_type a\s+left join pg_catalog\.pg_type b on b\.oid = a\.typelem/;

export function isTypeFetchFailure(reason: unknown): boolean {
  const query = (reason as { query?: unknown } | null)?.query;
  return typeof query === 'string' && TYPE_QUERY.test(query);
}

export function typeFetchGuard(logger: Logger) {
  return (reason: unknown) => {
    if (!isTypeFetchFailure(reason)) throw reason;
    logger.warn({ err: reason }, 'postgres: a new connection failed while reading array types; it is retried');
  };
}

let installed = false;

/** Once per process, for the first PostgreSQL handle opened. */
export function guardTypeFetch(logger: Logger): void {
  if (installed) return;
  installed = true;
  process.on('unhandledRejection', typeFetchGuard(logger));
}
