import { inArray, lt, sql } from 'drizzle-orm';
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

/** Deletes events older than `cutoff`, oldest first, in bounded batches; returns how many. */
export async function pruneEvents(db: Db, cutoff: Date, batches = PRUNE_BATCHES_PER_RUN): Promise<number> {
  let deleted = 0;
  for (let i = 0; i < batches; i++) {
    const oldest = db.select({ id: appEvents.id }).from(appEvents).where(lt(appEvents.occurredAt, cutoff)).orderBy(appEvents.occurredAt).limit(PRUNE_BATCH);
    const rows = await db.delete(appEvents).where(inArray(appEvents.id, oldest)).returning({ one: sql`1` });
    deleted += rows.length;
    if (rows.length < PRUNE_BATCH) break;
  }
  return deleted;
}

/** Every instance prunes every 10 minutes (and once at start); concurrent runs delete disjoint or no rows. */
export function schedulePruning(db: Db, config: Pick<Config, 'EVENT_RETENTION_DAYS'>, clock: Clock, logger: Logger): NodeJS.Timeout {
  const run = () =>
    void pruneEvents(db, new Date(clock.now().getTime() - config.EVENT_RETENTION_DAYS * DAY_MS))
      .then((deleted) => deleted > 0 && logger.info({ deleted }, 'expired events pruned'))
      .catch((error: unknown) => logger.warn({ err: error }, 'event pruning failed'));
  const timer = setInterval(run, PRUNE_EVERY_MS);
  timer.unref();
  setImmediate(run);
  return timer;
}
