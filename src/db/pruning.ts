import type { Logger } from '../log.js';
import type { Clock } from '../time/clock.js';

/** Rows deleted per statement: short transactions that never hold many locks at once. */
export const PRUNE_BATCH = 1000;
/** Statements per run: a backlog is worked off over several runs rather than in one long one. */
export const PRUNE_BATCHES_PER_RUN = 50;
const PRUNE_EVERY_MS = 10 * 60_000;

/** Rows a table keeps only for a while, deleted in bounded batches; returns how many went. */
export interface PruneJob {
  /** Names the rows in the log line ("expired events"). */
  what: string;
  prune(now: Date, stopped: () => boolean): Promise<number>;
}

/**
 * Runs `deleteBatch` (which deletes at most PRUNE_BATCH rows and returns how many) until a batch
 * comes back short, `batches` statements ran, or `stopped()` says so; returns the rows deleted.
 */
export async function deleteInBatches(deleteBatch: () => Promise<number>, batches: number, stopped: () => boolean): Promise<number> {
  let deleted = 0;
  for (let i = 0; i < batches && !stopped(); i++) {
    const count = await deleteBatch();
    deleted += count;
    if (count < PRUNE_BATCH) break;
  }
  return deleted;
}

export interface Pruning {
  /** Stops the schedule and waits for a run under way (it ends after its current batch). */
  stop(): Promise<void>;
}

/**
 * Every instance runs every job every 10 minutes (and once at start), one job after the other;
 * concurrent runs on several instances delete disjoint or no rows. Stopping waits for the run
 * under way, so the database is never closed beneath it.
 */
export function schedulePruning(jobs: readonly PruneJob[], clock: Clock, logger: Logger): Pruning {
  let stopped = false;
  let running: Promise<void> | undefined;
  const runJobs = async () => {
    for (const job of jobs) {
      if (stopped) return;
      try {
        const deleted = await job.prune(clock.now(), () => stopped);
        if (deleted > 0) logger.info({ deleted }, `${job.what} pruned`);
      } catch (error) {
        logger.warn({ err: error }, `pruning ${job.what} failed`);
      }
    }
  };
  const run = () => {
    if (stopped || running) return;
    running = runJobs().finally(() => (running = undefined));
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
