import { and, inArray, isNull, lt, sql } from 'drizzle-orm';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import { deleteInBatches, PRUNE_BATCH, PRUNE_BATCHES_PER_RUN, type PruneJob } from '../db/pruning.js';
import { appEvents } from './tables.js';

const DAY_MS = 86_400_000;

/**
 * Deletes events older than `cutoff`, oldest first, in bounded batches; returns how many. Events
 * with a subject (those of a scheduled call, its timeline) stay for the subject's life; the pull
 * API and the events subscription show only the retention window whatever is stored.
 */
export async function pruneEvents(db: Db, cutoff: Date, batches = PRUNE_BATCHES_PER_RUN, stopped: () => boolean = () => false): Promise<number> {
  const deleteBatch = async () => {
    const oldest = db.select({ id: appEvents.id }).from(appEvents).where(and(isNull(appEvents.subjectId), lt(appEvents.occurredAt, cutoff))).orderBy(appEvents.occurredAt).limit(PRUNE_BATCH);
    const rows = await db.delete(appEvents).where(inArray(appEvents.id, oldest)).returning({ one: sql`1` });
    return rows.length;
  };
  return deleteInBatches(deleteBatch, batches, stopped);
}

/** Events past EVENT_RETENTION_DAYS. */
export const eventPruneJob = (db: Db, config: Pick<Config, 'EVENT_RETENTION_DAYS'>): PruneJob => ({
  what: 'expired events',
  prune: (now, stopped) => pruneEvents(db, new Date(now.getTime() - config.EVENT_RETENTION_DAYS * DAY_MS), PRUNE_BATCHES_PER_RUN, stopped),
});
