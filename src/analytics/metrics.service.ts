import { sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { rowsOf } from '../db/raw.js';
import { validationFailed } from '../errors/app-error.js';
import { parseInput } from '../errors/zod-details.js';
import { ianaTimeZone } from '../validation/time-zone.js';
import type { RequestContext } from '../runtime.js';
import { funnelColumns, funnelFlags, type FunnelCounts } from './funnel.js';
import { BUCKET_MS, inRanges, localBuckets, rawMessagesIn, splitRange } from './rollups.js';
import { contactRanges, contactRollups, messageRollups, messages } from './tables.js';

const DAY_MS = 86_400_000;
const MAX_DAYS = 400;

export const metricsArgs = z.object({
  appId: z.uuid(),
  startDate: z.date().nullish(),
  endDate: z.date().nullish(),
  timezone: ianaTimeZone.nullish().transform((v) => v ?? 'UTC'),
});

/**
 * ISO datetimes, half-open [start, end); default the last 30 days. A start
 * alone runs until now ("since"), or 30 days when it is still to come; an end alone has the 30
 * days before it.
 */
function range(args: { startDate?: Date | null; endDate?: Date | null }, now: Date): { start: Date; end: Date } {
  const since = args.startDate && args.startDate < now ? now : undefined;
  const end = args.endDate ?? since ?? (args.startDate ? new Date(args.startDate.getTime() + 30 * DAY_MS) : now);
  const start = args.startDate ?? new Date(end.getTime() - 30 * DAY_MS);
  if (start >= end) throw validationFailed([{ field: 'endDate', code: 'invalid_value', message: 'must be after startDate' }]);
  if (end.getTime() - start.getTime() > MAX_DAYS * DAY_MS) {
    // A start alone that is too early names the start: no end was given.
    throw validationFailed([{ field: args.endDate ? 'endDate' : 'startDate', code: 'too_big', message: `the range may span at most ${MAX_DAYS} days` }]);
  }
  return { start, end };
}

export interface DailyMetric extends FunnelCounts {
  date: string;
}

/** The daily query of dailyMetrics (exported for the benchmark floor, which runs the same SQL). */
export function dailyMetricsSql(appId: string, start: Date, end: Date, tz: string): SQL {
  const { inner, edges } = splitRange(start, end);
  return sql`
    with days as (
      select d::date as day
      from generate_series((${start.toISOString()}::timestamptz at time zone ${tz})::date,
                           ((${end.toISOString()}::timestamptz - interval '1 microsecond') at time zone ${tz})::date,
                           interval '1 day') as d
    ),
    rolled as (${localBuckets(appId, inner, tz)}),
    contributions as (
      select day, sent, delivered, read, failed, cost from rolled where whole
      union all
      select (${messages.createdAt} at time zone ${tz})::date, ${funnelFlags(messages.status, messages.cost)}
      from ${rawMessagesIn(appId, edges)}
    ),
    buckets as (
      select day, sum(sent) as sent, sum(delivered) as delivered, sum(read) as read, sum(failed) as failed, sum(cost) as cost
      from contributions group by day
    )
    select to_char(days.day, 'YYYY-MM-DD') as date,
           coalesce(b.sent, 0)::int as sent, coalesce(b.delivered, 0)::int as delivered, coalesce(b.read, 0)::int as read,
           coalesce(b.failed, 0)::int as failed, b.cost::text as cost,
           (select string_agg(to_char(bucket_start at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), ',') from rolled where not whole) as split
    from days left join buckets b on b.day = days.day
    order by days.day`;
}

/**
 * The daily read's planner setting, for its own (read-only) transaction. The planner joins the
 * rollup buckets to their hours with a merge join, which sorts every bucket of the range (~8,600
 * for 90 days); a hash join needs no sort, so long ranges read faster. Exported for the
 * benchmark floor, which runs the same statements.
 */
export const DAILY_PLANNER_SETTINGS = sql`set local enable_mergejoin = off`;

/**
 * Outbound messages bucketed by created_at in `timezone`, every calendar day of the range
 * present (zero days included); the bucketing happens in SQL, DST days included. Whole
 * 15-minute buckets come from message_rollups; the partial buckets at the ends of the range
 * (and any bucket split by a local midnight, see localBuckets) from messages.
 */
export async function dailyMetrics(ctx: RequestContext, input: z.input<typeof metricsArgs>): Promise<DailyMetric[]> {
  const args = parseInput(metricsArgs, input);
  const { start, end } = range(args, ctx.runtime.clock.now());
  const tz = args.timezone;
  const db = ctx.runtime.database.analyticsDb;
  const { rows, extra } = await db.transaction(
    async (tx) => {
      await tx.execute(DAILY_PLANNER_SETTINGS);
      const rows = rowsOf<Omit<DailyMetric, 'cost'> & { cost: string | null; split: string | null }>(await tx.execute(dailyMetricsSql(args.appId, start, end, tz)));
      const split = rows[0]?.split;
      // Buckets a local midnight cuts in two (offsets off the quarter hour): their messages, by local day.
      const extra = split
        ? rowsOf<Omit<DailyMetric, 'cost'> & { cost: string }>(
            await tx.execute(sql`
              select to_char((${messages.createdAt} at time zone ${tz})::date, 'YYYY-MM-DD') as date, ${funnelColumns().sent} as sent,
                     ${funnelColumns().delivered} as delivered, ${funnelColumns().read} as read, ${funnelColumns().failed} as failed,
                     coalesce(sum(${messages.cost}), 0)::text as cost
              from ${rawMessagesIn(args.appId, split.split(',').map((from) => ({ from, to: new Date(Date.parse(from) + BUCKET_MS).toISOString() })))}
              group by 1`),
          )
        : [];
      return { rows, extra };
    },
    { accessMode: 'read only' },
  );
  if (extra.length > 0) {
    const byDate = new Map(rows.map((r) => [r.date, r]));
    for (const x of extra) {
      const day = byDate.get(x.date)!;
      Object.assign(day, {
        sent: day.sent + x.sent,
        delivered: day.delivered + x.delivered,
        read: day.read + x.read,
        failed: day.failed + x.failed,
        cost: addDecimals(day.cost ?? '0', x.cost),
      });
    }
  }
  return rows.map(({ split: _split, ...r }) => ({ ...r, cost: Number(r.cost ?? 0) }));
}

/**
 * Exact sum of two non-negative decimal strings (numeric sums from SQL): summing in float could
 * differ in the last bit from the database's numeric sum that the raw definition produces.
 */
function addDecimals(a: string, b: string): string {
  const scale = Math.max(a.split('.')[1]?.length ?? 0, b.split('.')[1]?.length ?? 0);
  const units = (v: string) => {
    const [whole, fraction = ''] = v.split('.');
    return BigInt(whole! + fraction.padEnd(scale, '0'));
  };
  const digits = (units(a) + units(b)).toString().padStart(scale + 1, '0');
  return scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
}

export interface SummaryMetrics extends FunnelCounts {
  contacts: number;
}

/**
 * Contacts that span the range (first seen before it, last seen after it) are probed one by one
 * for a message inside it; when there are many, one distinct over the range's messages is
 * cheaper. The ratio is the cost of a probe against a row of the distinct, roughly; the spanning
 * contacts are counted only as far as this ratio needs to decide.
 */
const PROBE_COST_IN_ROWS = 8;

/** The query of summaryMetrics (exported for the benchmark floor, which runs the same SQL). */
export function summaryMetricsSql(app: string, start: Date, end: Date): SQL {
  const { inner, edges } = splitRange(start, end);
  const [s, e] = [sql`${start.toISOString()}::timestamptz`, sql`${end.toISOString()}::timestamptz`];
  const f = funnelColumns();
  const inRange = sql`${messages.createdAt} >= ${s} and ${messages.createdAt} < ${e}`;
  const contacts = (where: SQL) => sql`(select count(*) from ${contactRanges} where ${contactRanges.appId} = ${app} and ${where})`;
  // Last seen inside the range (whole buckets from contact_rollups, the partial ones at the ends
  // from contact_ranges), plus first seen inside it and last seen after it. Only evaluated when
  // used: PostgreSQL runs an uncorrelated subquery (an InitPlan) on first reference.
  const certain = sql`(
    (select coalesce(sum(${contactRollups.contacts}), 0) from ${contactRollups}
     where ${contactRollups.appId} = ${app} and ${contactRollups.bucketStart} >= ${inner.from}::timestamptz
       and ${contactRollups.bucketStart} < ${inner.to}::timestamptz)
    + (select count(*) from ${contactRanges} where ${contactRanges.appId} = ${app} and ${inRanges(contactRanges.lastSeen, edges)})
    + ${contacts(sql`${contactRanges.firstSeen} >= ${s} and ${contactRanges.firstSeen} < ${e} and ${contactRanges.lastSeen} >= ${e}`)})`;
  return sql`
    with rolled as (
      select coalesce(sum(${messageRollups.sent}), 0) as sent, coalesce(sum(${messageRollups.delivered}), 0) as delivered,
             coalesce(sum(${messageRollups.read}), 0) as read, coalesce(sum(${messageRollups.failed}), 0) as failed,
             coalesce(sum(${messageRollups.cost}), 0) as cost
      from ${messageRollups}
      where ${messageRollups.appId} = ${app} and ${messageRollups.bucketStart} >= ${inner.from}::timestamptz
        and ${messageRollups.bucketStart} < ${inner.to}::timestamptz
    ),
    raw as (
      select ${f.sent} as sent, ${f.delivered} as delivered, ${f.read} as read, ${f.failed} as failed,
             coalesce(sum(${messages.cost}), 0) as cost
      from ${rawMessagesIn(app, edges)}
    ),
    -- Counted once (materialized: each reference below would run it again), and only up to
    -- the count past which the distinct is cheaper than the probes.
    seen as materialized (
      select count(*) as spanning from (
        select 1 from ${contactRanges}
        where ${contactRanges.appId} = ${app} and ${contactRanges.lastSeen} >= ${e} and ${contactRanges.firstSeen} < ${s}
        limit (select floor((rolled.sent + rolled.failed + raw.sent + raw.failed) / ${PROBE_COST_IN_ROWS})::bigint + 1 from rolled, raw)
      ) as spanning_contacts
    )
    select (rolled.sent + raw.sent)::int as sent, (rolled.delivered + raw.delivered)::int as delivered,
           (rolled.read + raw.read)::int as read, (rolled.failed + raw.failed)::int as failed,
           (rolled.cost + raw.cost)::float8 as cost,
           (case
              when seen.spanning = 0 then ${certain}
              when seen.spanning * ${PROBE_COST_IN_ROWS} <= rolled.sent + rolled.failed + raw.sent + raw.failed then ${certain} + (
                select count(*) from ${contactRanges}
                where ${contactRanges.appId} = ${app} and ${contactRanges.lastSeen} >= ${e} and ${contactRanges.firstSeen} < ${s}
                  and exists (select 1 from ${messages} where ${messages.appId} = ${app} and ${messages.userPhone} = ${contactRanges.userPhone}
                              and ${messages.direction} = 'outbound' and ${inRange}))
              -- distinct as a subquery, not count(distinct): the planner reads the phones in the
              -- order of messages_app_outbound_phone_idx and skips repeats, with no sort to spill.
              else (select count(*) from (select distinct ${messages.userPhone} from ${messages}
                    where ${messages.appId} = ${app} and ${messages.direction} = 'outbound' and ${inRange}) as phones)
            end)::int as contacts
    from rolled, raw, seen`;
}

/**
 * The funnel over [start, end) from message_rollups plus the partial buckets at its ends, and
 * contacts (distinct user_phone) exactly, from contact_rollups and contact_ranges (see their
 * comments in tables.ts).
 */
export async function summaryMetrics(ctx: RequestContext, input: z.input<typeof metricsArgs>): Promise<SummaryMetrics> {
  const args = parseInput(metricsArgs, input);
  const { start, end } = range(args, ctx.runtime.clock.now());
  const result = await ctx.runtime.database.analyticsDb.execute(summaryMetricsSql(args.appId, start, end));
  const [row] = rowsOf<SummaryMetrics>(result);
  return { sent: row!.sent, delivered: row!.delivered, read: row!.read, failed: row!.failed, cost: Number(row!.cost), contacts: row!.contacts };
}
