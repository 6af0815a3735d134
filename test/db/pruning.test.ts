import { describe, expect, it } from 'vitest';
import { deleteInBatches, PRUNE_BATCH, schedulePruning, type PruneJob } from '../../src/db/pruning.js';
import type { Logger } from '../../src/log.js';
import { systemClock } from '../../src/time/clock.js';

describe('schedulePruning', () => {
  it('runs every job once at start, one after the other; a failing job is logged and the next still runs', async () => {
    const ran: string[] = [];
    const lines: string[] = [];
    const logger = { info: (_: unknown, msg: string) => lines.push(msg), warn: (_: unknown, msg: string) => lines.push(msg) } as unknown as Logger;
    const job = (what: string, result: () => Promise<number>): PruneJob => ({ what, prune: () => (ran.push(what), result()) });
    const pruning = schedulePruning(
      [job('first rows', () => Promise.reject(new Error('down'))), job('second rows', () => Promise.resolve(3)), job('third rows', () => Promise.resolve(0))],
      systemClock,
      logger,
    );
    await new Promise((r) => setImmediate(r));
    await pruning.stop();
    expect(ran).toEqual(['first rows', 'second rows', 'third rows']);
    expect(lines).toEqual(['pruning first rows failed', 'second rows pruned']);
  });
});

describe('deleteInBatches', () => {
  const batchesOf = (...counts: number[]) => {
    let calls = 0;
    return { run: () => Promise.resolve(counts[calls++] ?? 0), calls: () => calls };
  };

  it('stops on the first short batch and sums what went', async () => {
    const batches = batchesOf(PRUNE_BATCH, PRUNE_BATCH, 7, PRUNE_BATCH);
    expect(await deleteInBatches(batches.run, 50, () => false)).toBe(2 * PRUNE_BATCH + 7);
    expect(batches.calls()).toBe(3);
  });

  it('runs at most the given number of statements, and none once stopped', async () => {
    const full = batchesOf(...Array(10).fill(PRUNE_BATCH));
    expect(await deleteInBatches(full.run, 4, () => false)).toBe(4 * PRUNE_BATCH);
    expect(full.calls()).toBe(4);
    let stop = false;
    const stopping = batchesOf(...Array(10).fill(PRUNE_BATCH));
    const count = deleteInBatches(() => ((stop = stopping.calls() === 1), stopping.run()), 10, () => stop);
    expect(await count).toBe(2 * PRUNE_BATCH);
    expect(stopping.calls()).toBe(2);
  });
});
