/**
 * The "Rows of ... (re)measured ..." lines of docs/BENCHMARKS.md: one per partial run, naming the
 * scenarios and storages whose rows it wrote. A line whose every row a later run measured again
 * names rows the table no longer holds, so it goes.
 */
const RUN_LINE = /^Rows of (.+?) on (.+?) \(re\)measured (\d{4}-\d\d-\d\d \d\d:\d\d) UTC/;

const list = (text: string) => text.split(',').map((s) => s.trim()).filter(Boolean);

/** Removes, in place, the run lines (and the blank line before each) that later runs superseded. */
export function dropSupersededRunLines(lines: string[]): void {
  const runs = lines.flatMap((line, index) => {
    const m = RUN_LINE.exec(line);
    if (!m) return [];
    const rows = list(m[1]!).flatMap((scenario) => list(m[2]!).map((storage) => `${scenario} on ${storage}`));
    return [{ index, at: m[3]!, rows }];
  });
  const remeasured = new Set<string>();
  const superseded: number[] = [];
  // Newest first: a line is superseded when newer lines cover all of its rows.
  for (const run of [...runs].sort((a, b) => b.at.localeCompare(a.at) || b.index - a.index)) {
    if (run.rows.every((row) => remeasured.has(row))) superseded.push(run.index);
    for (const row of run.rows) remeasured.add(row);
  }
  for (const index of superseded.sort((a, b) => b - a)) {
    const blankBefore = index > 0 && lines[index - 1] === '';
    lines.splice(blankBefore ? index - 1 : index, blankBefore ? 2 : 1);
  }
}
