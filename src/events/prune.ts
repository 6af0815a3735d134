import { and, inArray, isNull, lt, sql } from 'drizzle-orm';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import type { Logger } from '../log.js';
import type { Clock } from '../time/clock.js';
import { appEvents } from './tables.js';

const DAY_MS = 86_400_000;
/** Rows deleted per statement: short transactions that never hold many locks at once. */
export const PRUNE_BATCH = 1000;
/** Statements per run: a backlog is worked off over several runs rather than in one long one. */
const PRUNE_BATCHES_PER_RUN = 50;
const PRUNE_EVERY_MS = 10 * 60_000;

/**
 * Deletes events older than `cutoff`, oldest first, in bounded batches; returns how many. Events
 * with a subject (those of a scheduled call, its timeline) stay for the subject's life; the pull
 * API and the events subscription show only the retention window whatever is stored.
 */
export async function pruneEvents(db: Db, cutoff: Date, batches = PRUNE_BATCHES_PER_RUN, stopped: () => boolean = () => false): Promise<number> {
  let deleted = 0;
  for (let i = 0; i < batches && !stopped(); i++) {
    const oldest = db.select({ id: appEvents.id }).from(appEvents).where(and(isNull(appEvents.subjectId), lt(appEvents.occurredAt, cutoff))).orderBy(appEvents.occurredAt).limit(PRUNE_BATCH);
    const rows = await db.delete(appEvents).where(inArray(appEvents.id, oldest)).returning({ one: sql`1` });
    deleted += rows.length;
    if (rows.length < PRUNE_BATCH) break;
  }
  return deleted;
}

export interface Pruning {
  /** Stops the schedule and waits for a run under way (it ends after its current batch). */
  stop(): Promise<void>;
}

/**
 * Every instance prunes every 10 minutes (and once at start); concurrent runs delete disjoint or
 * no rows. Stopping waits for the run under way, so the database is never closed beneath it.
 */
export function schedulePruning(db: Db, config: Pick<Config, 'EVENT_RETENTION_DAYS'>, clock: Clock, logger: Logger): Pruning {
  let stopped = false;
  let running: Promise<void> | undefined;
  const run = () => {
    if (stopped || running) return;
    running = pruneEvents(db, new Date(clock.now().getTime() - config.EVENT_RETENTION_DAYS * DAY_MS), PRUNE_BATCHES_PER_RUN, () => stopped)
      .then((deleted) => void (deleted > 0 && logger.info({ deleted }, 'expired events pruned')))
      .catch((error: unknown) => logger.warn({ err: error }, 'event pruning failed'))
      .finally(() => (running = undefined));
  };
  const timer = setInterval(run, PRUNE_EVERY_MS);
  timer.unref();
  const first = setImmediate(run);
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      clearImmediate(first);
      await running;
    },
  };
}
