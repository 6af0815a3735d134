import { describe, expect, it } from 'vitest';
import { schedulePruning, type PruneJob } from '../../src/db/pruning.js';
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
