import { and, eq, gte, lt, sql } from 'drizzle-orm';
import { z } from 'zod';
import { validationFailed } from '../errors/app-error.js';
import { ianaTimeZone, parseInput } from '../errors/zod-details.js';
import type { RequestContext } from '../runtime.js';
import { funnelColumns, type FunnelCounts } from './funnel.js';
import { messages } from './tables.js';

const DAY_MS = 86_400_000;
const MAX_DAYS = 400;

export const metricsArgs = z.object({
  appId: z.uuid(),
  startDate: z.date().nullish(),
  endDate: z.date().nullish(),
  timezone: ianaTimeZone.nullish().transform((v) => v ?? 'UTC'),
});

/** ISO datetimes, half-open [start, end); default the last 30 days (DESIGN section 6). */
function range(args: { startDate?: Date | null; endDate?: Date | null }, now = new Date()): { start: Date; end: Date } {
  const end = args.endDate ?? (args.startDate ? new Date(args.startDate.getTime() + 30 * DAY_MS) : now);
  const start = args.startDate ?? new Date(end.getTime() - 30 * DAY_MS);
  if (start >= end) throw validationFailed([{ field: 'endDate', code: 'invalid_value', message: 'must be after startDate' }]);
  if (end.getTime() - start.getTime() > MAX_DAYS * DAY_MS) {
    throw validationFailed([{ field: 'endDate', code: 'too_big', message: `the range may span at most ${MAX_DAYS} days` }]);
  }
  return { start, end };
}

export interface DailyMetric extends FunnelCounts {
  date: string;
}

/**
 * Outbound messages bucketed by created_at in `timezone`, every calendar day of the range
 * present (zero days included); the bucketing happens in SQL, DST days included.
 */
export async function dailyMetrics(ctx: RequestContext, input: z.input<typeof metricsArgs>): Promise<DailyMetric[]> {
  const args = parseInput(metricsArgs, input);
  const { start, end } = range(args);
  const tz = args.timezone;
  const f = funnelColumns();
  const result = await ctx.runtime.database.db.execute(sql`
    with days as (
      select d::date as day
      from generate_series((${start.toISOString()}::timestamptz at time zone ${tz})::date,
                           ((${end.toISOString()}::timestamptz - interval '1 microsecond') at time zone ${tz})::date,
                           interval '1 day') as d
    ),
    buckets as (
      select (${messages.createdAt} at time zone ${tz})::date as day,
             ${f.sent} as sent, ${f.delivered} as delivered, ${f.read} as read, ${f.failed} as failed, ${f.cost} as cost
      from ${messages}
      where ${and(eq(messages.appId, args.appId), eq(messages.direction, 'outbound'), gte(messages.createdAt, start), lt(messages.createdAt, end))}
      group by 1
    )
    select to_char(days.day, 'YYYY-MM-DD') as date,
           coalesce(b.sent, 0)::int as sent, coalesce(b.delivered, 0)::int as delivered, coalesce(b.read, 0)::int as read,
           coalesce(b.failed, 0)::int as failed, coalesce(b.cost, 0)::float8 as cost
    from days left join buckets b on b.day = days.day
    order by days.day`);
  return rowsOf<DailyMetric>(result).map((r) => ({ ...r, cost: Number(r.cost) }));
}

export interface SummaryMetrics extends FunnelCounts {
  contacts: number;
}

export async function summaryMetrics(ctx: RequestContext, input: z.input<typeof metricsArgs>): Promise<SummaryMetrics> {
  const args = parseInput(metricsArgs, input);
  const { start, end } = range(args);
  const [row] = await ctx.runtime.database.db
    .select({ ...funnelColumns(), contacts: sql<number>`count(distinct ${messages.userPhone})::int` })
    .from(messages)
    .where(and(eq(messages.appId, args.appId), eq(messages.direction, 'outbound'), gte(messages.createdAt, start), lt(messages.createdAt, end)));
  return { sent: row!.sent, delivered: row!.delivered, read: row!.read, failed: row!.failed, cost: Number(row!.cost), contacts: row!.contacts };
}

/** postgres.js returns an array of rows, PGlite an object with `rows`. */
export function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
