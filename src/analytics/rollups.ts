import { sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { messageRollups, messages } from './tables.js';

/**
 * message_rollups buckets: 15 minutes on UTC quarter hours (analytics_bucket() in the migration
 * analytics_rollup_triggers). The Unix epoch is a quarter hour, so ms arithmetic agrees.
 */
export const BUCKET_MS = 15 * 60_000;

export interface SplitRange {
  /** Whole buckets inside [start, end): read from message_rollups (may be empty). */
  inner: { from: string; to: string };
  /** The rest of [start, end), less than a bucket at each end: read from messages. */
  edges: Array<{ from: string; to: string }>;
}

/** Splits a half-open range into whole rollup buckets and the partial ones at its ends. */
export function splitRange(start: Date, end: Date): SplitRange {
  const s = start.getTime();
  const e = end.getTime();
  const s15 = Math.ceil(s / BUCKET_MS) * BUCKET_MS;
  const e15 = Math.floor(e / BUCKET_MS) * BUCKET_MS;
  const iso = (ms: number) => new Date(ms).toISOString();
  if (s15 >= e15) return { inner: { from: iso(s), to: iso(s) }, edges: [{ from: iso(s), to: iso(e) }] };
  return {
    inner: { from: iso(s15), to: iso(e15) },
    edges: [
      { from: iso(s), to: iso(s15) },
      { from: iso(e15), to: iso(e) },
    ],
  };
}

/**
 * `column` in any of the ranges, as constant bounds: the planner estimates them from the column
 * statistics (a join against a list of ranges is estimated blind, high enough to switch on JIT
 * compilation, which alone costs hundreds of ms) and scans the index once per range.
 */
export function inRanges(column: AnyPgColumn, ranges: Array<{ from: string; to: string }>): SQL {
  return sql`(${sql.join(
    ranges.map((r) => sql`(${column} >= ${r.from}::timestamptz and ${column} < ${r.to}::timestamptz)`),
    sql` or `,
  )})`;
}

/** Outbound messages of an app with created_at in one of the ranges. */
export function rawMessagesIn(appId: string, ranges: Array<{ from: string; to: string }>): SQL {
  return sql`${messages} where ${messages.appId} = ${appId} and ${messages.direction} = 'outbound' and ${inRanges(messages.createdAt, ranges)}`;
}

/**
 * The rollup buckets of [from, to) by local day in `tz`, as rows (bucket_start, sent, delivered,
 * read, failed, cost, day, whole). `whole` is false for a bucket that may not lie within one
 * local day at one UTC offset, which only happens for offsets that are not a multiple of 15
 * minutes (local mean time before ~1900, a few zones until the 1970s) or near a transition off
 * the hour: such buckets are read from messages instead (bucket_start says which).
 *
 * Time zone conversion is the cost here (8,640 buckets in 90 days), so it is done per UTC hour,
 * not per bucket: twice, the hour's local start and end, behind an `offset 0` fence (flattened,
 * each use of those columns repeated its conversion: seven a row). An hour is `clean` when its
 * offset does not change within it and it lies within one local day: its buckets are summed
 * straight into that day (one row per day, no bucket_start), which is nearly every hour of every
 * zone. The buckets of the other hours are placed one by one: within an hour whose offset does
 * not change (`steady`), local time is the hour's local start plus the elapsed time, exactly;
 * that branch reads the range only when some hour is not clean (a one-time filter).
 */
export function localBuckets(appId: string, inner: SplitRange['inner'], tz: string): SQL {
  const r = messageRollups;
  const bucket = sql`interval '${sql.raw(String(BUCKET_MS / 60_000))} minutes'`;
  const local = sql`(hours.local_start + (${r.bucketStart} - hours.hour))`;
  const hourOf = sql`date_bin('1 hour', ${r.bucketStart}, timestamptz '2000-01-01 00:00:00+00')`;
  const inRange = sql`${r.appId} = ${appId} and ${r.bucketStart} >= ${inner.from}::timestamptz and ${r.bucketStart} < ${inner.to}::timestamptz`;
  return sql`
    with hours as (
      select hour, local_start, local_start::date as day, steady,
             steady and local_start::date = (local_start + interval '1 hour' - interval '1 microsecond')::date as clean
      from (
        select hour, local_start, local_end - local_start = interval '1 hour' - interval '1 microsecond' as steady
        from (
          select hour, hour at time zone ${tz} as local_start, (hour + interval '1 hour' - interval '1 microsecond') at time zone ${tz} as local_end
          from generate_series(date_bin('1 hour', ${inner.from}::timestamptz, timestamptz '2000-01-01 00:00:00+00'), ${inner.to}::timestamptz,
                               interval '1 hour') as hour
          offset 0
        ) h
      ) s
    )
    select null::timestamptz as bucket_start, sum(${r.sent}) as sent, sum(${r.delivered}) as delivered, sum(${r.read}) as read,
           sum(${r.failed}) as failed, sum(${r.cost}) as cost, hours.day, true as whole
    from ${r} join hours on hours.hour = ${hourOf} and hours.clean
    where ${inRange}
    group by hours.day
    union all
    select ${r.bucketStart}, ${r.sent}, ${r.delivered}, ${r.read}, ${r.failed}, ${r.cost}, ${local}::date,
           hours.steady and ${local}::date = (${local} + ${bucket} - interval '1 microsecond')::date
    from ${r} join hours on hours.hour = ${hourOf} and not hours.clean
    where ${inRange} and exists (select from hours where not clean)`;
}
