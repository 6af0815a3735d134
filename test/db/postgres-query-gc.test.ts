import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// postgres.js 3.4.9 gives every Query two arrow closures over `this`, created in its derived
// constructor, and on V8 a settled Query and its rows then survive young-generation GCs until the
// next full GC, so each scavenge copies and pauses for a whole page of garbage.
// patches/postgres+3.4.9.patch makes resolve/reject prototype methods (docs/performance.md).

const execFileAsync = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const FIXTURE = path.join(import.meta.dirname, 'fixtures/query-survival.mjs');

/** Bytes of the young generation that survived each scavenge, from --trace-gc-nvp. */
async function survival(queryModule: string): Promise<{ settled: number; scavenges: number; averageSurvived: number }> {
  const { stdout } = await execFileAsync(process.execPath, ['--trace-gc-nvp', FIXTURE, queryModule], { cwd: ROOT, timeout: 30_000 });
  const survived = [...stdout.matchAll(/gc=s .*?new_space_survived=(\d+)/g)].map((m) => Number(m[1]));
  const settled = Number(/SETTLED (\d+)/.exec(stdout)?.[1] ?? 0);
  const averageSurvived = survived.reduce((sum, n) => sum + n, 0) / Math.max(1, survived.length);
  return { settled, scavenges: survived.length, averageSurvived };
}

describe('postgres.js settled queries are garbage at once (patches/postgres+3.4.9.patch)', () => {
  // The ESM build is what the service loads; the CommonJS and workerd builds carry the same patch.
  it.each(['src/query.js', 'cjs/src/query.js', 'cf/src/query.js'])(
    '%s: a settled, dropped query does not survive young-generation GCs',
    async (file) => {
      const result = await survival(path.join(ROOT, 'node_modules/postgres', file));
      expect(result.settled).toBe(900);
      expect(result.scavenges).toBeGreaterThan(5);
      // Unpatched, most of each page allocated since the last scavenge survives: several times this.
      expect(result.averageSurvived).toBeLessThan(1_000_000);
    },
    40_000,
  );
});
