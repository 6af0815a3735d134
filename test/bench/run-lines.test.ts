import { describe, expect, it } from 'vitest';
import { dropSupersededRunLines } from '../../bench/run-lines.js';

const run = (scenarios: string, storages: string, at: string) =>
  `Rows of ${scenarios} on ${storages} (re)measured ${at} UTC with \`npm run bench -- ${scenarios}\` on a machine; same method; the other rows are from the run above.`;

const doc = (...runLines: string[]) => ['# Benchmarks', '', 'Measured 2026-11-24 22:47 UTC with `npm run bench`.', ...runLines.flatMap((l) => ['', l]), '', '**Machine:** x'];

describe('docs/BENCHMARKS.md run lines', () => {
  it('drops a line whose rows a later run all measured again, with its blank line', () => {
    const lines = doc(run('a, b', 'postgres', '2026-11-25 03:03'), run('b', 'postgres', '2026-11-25 06:04'), run('a, b, c', 'postgres', '2026-11-25 08:02'));
    dropSupersededRunLines(lines);
    expect(lines).toEqual(doc(run('a, b, c', 'postgres', '2026-11-25 08:02')));
  });

  it('keeps a line that still holds a row: another storage, or a scenario not run again', () => {
    const kept = [run('a', 'postgres, pglite', '2026-11-25 03:03'), run('a, b', 'postgres', '2026-11-25 04:00'), run('a', 'postgres', '2026-11-25 08:02')];
    const lines = doc(...kept);
    dropSupersededRunLines(lines);
    expect(lines).toEqual(doc(...kept));
  });

  it('goes by the time in the line, not its place: a rerun replaces its old line where it stood', () => {
    // The 08:02 line took the place of an older run of the same scenarios (mergeInto), above 06:04.
    const lines = doc(run('a, b', 'postgres', '2026-11-25 08:02'), run('b', 'postgres', '2026-11-25 06:04'));
    dropSupersededRunLines(lines);
    expect(lines).toEqual(doc(run('a, b', 'postgres', '2026-11-25 08:02')));
  });

  it('drops a line that two later runs cover between them', () => {
    const lines = doc(run('a, b', 'postgres', '2026-11-25 03:03'), run('a', 'postgres', '2026-11-25 05:00'), run('b', 'postgres', '2026-11-25 06:00'));
    dropSupersededRunLines(lines);
    expect(lines).toEqual(doc(run('a', 'postgres', '2026-11-25 05:00'), run('b', 'postgres', '2026-11-25 06:00')));
  });

  it('leaves a document without run lines as it was', () => {
    const lines = doc();
    dropSupersededRunLines(lines);
    expect(lines).toEqual(doc());
  });
});
