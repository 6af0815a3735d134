import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// postgres.js 3.4.9 declares `static get [Symbol.species]()` on its Result (an Array subclass)
// and Query (a Promise subclass). That getter makes V8's optimizing compiler give up on the
// functions around these classes ("Bailed out due to dependency change") and retry without end,
// spending CPU on every request. patches/postgres+3.4.9.patch defines the same species as plain
// data properties: map() still answers an Array and then() a Promise.

const execFileAsync = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const FIXTURE = path.join(import.meta.dirname, 'fixtures/species-optimization.mjs');

async function run(build: string): Promise<{ aborted: string[]; settled: number; kept: number }> {
  const { stdout } = await execFileAsync(process.execPath, ['--trace-opt', FIXTURE, path.join(ROOT, 'node_modules/postgres', build)], {
    cwd: ROOT,
    timeout: 30_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const aborted = [...stdout.matchAll(/aborted optimizing \S+ <JSFunction (Result|Query) /g)].map((m) => m[1]!);
  return { aborted, settled: Number(/SETTLED (\d+)/.exec(stdout)?.[1] ?? 0), kept: Number(/KEPT (\d+)/.exec(stdout)?.[1] ?? 0) };
}

describe('postgres.js Result and Query stay optimized (patches/postgres+3.4.9.patch)', () => {
  it.each(['src', 'cjs/src', 'cf/src'])(
    '%s: no endless optimization aborts, and species still gives plain arrays and promises',
    async (build) => {
      const { aborted, settled, kept } = await run(build);
      expect(settled).toBeGreaterThan(1000);
      expect(kept).toBeGreaterThan(0);
      // Unpatched, Result and Query are aborted again and again within this short run.
      expect(aborted.length).toBeLessThan(3);
    },
    40_000,
  );

  it('Result#map answers an Array and a Query settles as a plain Promise chain', async () => {
    const { default: Result } = await import('../../node_modules/postgres/src/result.js' as string);
    const { Query } = await import('../../node_modules/postgres/src/query.js' as string);
    const result = new Result();
    result.push({ id: 1 }, { id: 2 });
    const mapped = result.map((row: { id: number }) => row.id);
    expect(mapped).toEqual([1, 2]);
    expect(mapped.constructor).toBe(Array);
    expect(result.slice().constructor).toBe(Array);
    const query = new Query([''], [], (q: { resolve: (rows: unknown) => void }) => q.resolve(result), () => {}, {});
    const chained = query.then((rows: unknown[]) => rows.length);
    expect(chained.constructor).toBe(Promise);
    await expect(chained).resolves.toBe(2);
  });
});
