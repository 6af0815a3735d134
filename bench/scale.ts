/**
 * The scale curve: the same scenarios on PostgreSQL at the run's size (BENCH_MESSAGES) and at
 * BENCH_SCALE messages, side by side, with the ratio of their req/s. Keyset pages and rollup
 * metrics should not slow down as the table grows; search and campaign lists are shown too.
 */
import type { LoadResult } from './procs.js';

/** The scenarios measured at both sizes. */
export const SCALE_SCENARIOS = [
  'messages_page',
  'messages_filtered',
  'messages_deep_cursor',
  'messages_search',
  'metrics_daily_90d',
  'metrics_summary',
  'campaigns_search',
] as const;

/** Those that must stay flat: an index walk of one page, or rollups whose size is the range, not the table. */
export const FLAT_SCENARIOS: readonly string[] = ['messages_page', 'messages_filtered', 'messages_deep_cursor', 'metrics_daily_90d', 'metrics_summary'];

/** How much slower the larger size may be for a flat scenario. */
export const FLAT_LIMIT = 1.2;

export interface ScaleRow {
  scenario: string;
  messages: number;
  service?: LoadResult;
}

/** How the section starts whatever its sizes: a new run's section replaces the old one. */
export const SCALE_HEADING_START = '## Scale: ';

/** 1,000,000 → 1M, 1,500,000 → 1.5M, 200,000 → 200k; other counts in full. */
export function shortCount(n: number): string {
  if (n >= 1_000_000 && n % 100_000 === 0) return `${n / 1_000_000}M`;
  if (n >= 1_000 && n % 1_000 === 0) return `${n / 1_000}k`;
  return n.toLocaleString('en');
}

export const scaleHeading = (small: number, large: number) => `${SCALE_HEADING_START}${shortCount(small)} against ${shortCount(large)} messages`;

export const scaleMethod = (small: number, large: number) =>
  `PostgreSQL only; the rows at ${small.toLocaleString('en')} messages are the main table's, the rows at ${large.toLocaleString('en')} come from a second ` +
  'dataset seeded the same way (ten times the messages in the big app and in the second app), measured after them in the same run with the same method. ' +
  'Slowdown = req/s at the smaller size ÷ req/s at the larger (1.00: no slower). PostgreSQL CPU µs/req as in the main table.';

const fmt = (n: number | undefined, digits = 0) => (n === undefined ? '—' : n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits }));

/** req/s at the smaller size ÷ req/s at the larger; undefined when either is missing. */
export function slowdown(small: ScaleRow | undefined, large: ScaleRow | undefined): number | undefined {
  if (!small?.service?.rps || !large?.service?.rps) return undefined;
  return small.service.rps / large.service.rps;
}

export function scaleTable(small: ScaleRow[], large: ScaleRow[]): string {
  const sizeOf = (rows: ScaleRow[]) => rows.find((r) => r.service)?.messages;
  const [a, b] = [sizeOf(small), sizeOf(large)];
  const lines = [
    `| Scenario | req/s at ${fmt(a)} | p99 ms | PostgreSQL CPU µs/req | req/s at ${fmt(b)} | p99 ms | PostgreSQL CPU µs/req | Slowdown |`,
    '|---|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const name of SCALE_SCENARIOS) {
    const s = small.find((r) => r.scenario === name);
    const l = large.find((r) => r.scenario === name);
    if (!s && !l) continue;
    const ratio = slowdown(s, l);
    lines.push(
      `| ${name} | ${fmt(s?.service?.rps)} | ${fmt(s?.service?.p99)} | ${fmt(s?.service?.dbCpuUs)} | ${fmt(l?.service?.rps)} | ${fmt(l?.service?.p99)} | ${fmt(l?.service?.dbCpuUs)} | ${ratio === undefined ? '—' : `${ratio.toFixed(2)}×`} |`,
    );
  }
  return lines.join('\n');
}

/** One target line per flat scenario measured at both sizes. */
export function scaleTargets(small: ScaleRow[], large: ScaleRow[]): string[] {
  const out: string[] = [];
  for (const name of FLAT_SCENARIOS) {
    const s = small.find((r) => r.scenario === name);
    const l = large.find((r) => r.scenario === name);
    const ratio = slowdown(s, l);
    if (ratio === undefined) continue;
    const met = ratio <= FLAT_LIMIT;
    out.push(
      `- ${name} on postgres from ${fmt(s!.messages)} to ${fmt(l!.messages)} messages: ${ratio.toFixed(2)}× slower (${fmt(s!.service!.rps)} → ${fmt(l!.service!.rps)} req/s) (target ≤ ${FLAT_LIMIT}×): ${met ? 'met' : '**not met**'}`,
    );
  }
  return out;
}
