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
 * The rollup buckets of [from, to) with their local day in `tz`; `whole` is false for a bucket
 * that does not lie within one local day at one UTC offset, which only happens for offsets
 * that are not a multiple of 15 minutes (local mean time before ~1900, a few zones until the
 * 1970s) or a transition off the quarter hour: such buckets are read from messages instead.
 */
export function localBuckets(appId: string, inner: SplitRange['inner'], tz: string): SQL {
  const last = sql`(${messageRollups.bucketStart} + interval '${sql.raw(String(BUCKET_MS / 60_000))} minutes' - interval '1 microsecond')`;
  return sql`
    select bucket_start, sent, delivered, read, failed, cost, local::date as day,
           local::date = local_last::date and local_last - local = interval '${sql.raw(String(BUCKET_MS / 60_000))} minutes' - interval '1 microsecond' as whole
    from (
      select ${messageRollups.bucketStart} as bucket_start, ${messageRollups.sent} as sent, ${messageRollups.delivered} as delivered,
             ${messageRollups.read} as read, ${messageRollups.failed} as failed, ${messageRollups.cost} as cost,
             ${messageRollups.bucketStart} at time zone ${tz} as local, ${last} at time zone ${tz} as local_last
      from ${messageRollups}
      where ${messageRollups.appId} = ${appId} and ${messageRollups.bucketStart} >= ${inner.from}::timestamptz
        and ${messageRollups.bucketStart} < ${inner.to}::timestamptz
    ) b`;
}
