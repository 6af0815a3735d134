import { sql } from 'drizzle-orm';
import type { Queryable } from '../db/client.js';
import { rowsOf } from '../db/raw.js';
import { effectiveRules, type AgentPolicyOverrides } from './policy.js';
import { noBookingRules, type AgentCalendar, type BookingRules, type BusyInterval, type BusyKind } from './slots.js';
import type { WeeklyHours } from './working-hours.js';

export interface CalendarQuery {
  appId: string;
  /** One agent (even one without working hours); otherwise every agent with working hours. */
  agentId?: string;
  /** Busy intervals and exceptions that overlap [fromMs, toMs) are loaded. */
  fromMs: number;
  toMs: number;
  /** A call left out of the busy intervals and the counts (the one being rescheduled). */
  excludeCallId?: string;
  /** The app's rules, which each agent's overrides go on top of; absent: no rules. */
  appRules?: BookingRules;
  /** Starts of calls (not cancelled) in [countFromMs, countToMs) are loaded, for daily and weekly limits. */
  countFromMs?: number;
  countToMs?: number;
}

/** An agent's calendar with its round-robin settings. */
export interface LoadedCalendar extends AgentCalendar {
  priority: number;
  weight: number;
}

interface CalendarRow {
  id: string;
  timezone: string;
  working_hours: WeeklyHours;
  booking_policy: AgentPolicyOverrides;
  assignment_priority: number;
  assignment_weight: number;
  intervals: [kind: BusyKind | 'extra', id: string, startMs: number | string, endMs: number | string, fromMs: number | string, untilMs: number | string][];
  call_starts: (number | string)[] | string | null;
}

/**
 * The calendars of the agents considered, in ONE query (the engine stays pure and costs one
 * round trip per request): each agent with its scheduled calls, blocked and
 * available_extra exceptions and do-not-disturb windows overlapping the window (a call by the
 * range it keeps with its buffers), its rules, and the call starts its limits count.
 * Calls are found through the exclusion constraint's GiST index (same predicate).
 */
export async function loadCalendars(db: Queryable, query: CalendarQuery): Promise<LoadedCalendar[]> {
  const from = new Date(query.fromMs).toISOString();
  const to = new Date(query.toMs).toISOString();
  const range = sql`tstzrange(${from}::timestamptz, ${to}::timestamptz)`;
  const agentFilter = query.agentId
    ? sql`a.id = ${query.agentId}::uuid`
    : sql`exists (select 1 from jsonb_each(a.working_hours) d where jsonb_typeof(d.value) = 'array' and jsonb_array_length(d.value) > 0)`;
  const excludeCall = query.excludeCallId ? sql`and c.id <> ${query.excludeCallId}::uuid` : sql``;
  const callStarts =
    query.countFromMs !== undefined && query.countToMs !== undefined
      ? sql`(select json_agg(extract(epoch from c.scheduled_at) * 1000) from scheduled_calls c
          where c.app_id = a.app_id and c.assigned_agent_id = a.id and c.status <> 'cancelled' ${excludeCall}
            and c.scheduled_at >= ${new Date(query.countFromMs).toISOString()}::timestamptz
            and c.scheduled_at < ${new Date(query.countToMs).toISOString()}::timestamptz)`
      : sql`null::json`;
  const result = await db.execute(sql`
    select a.id, a.timezone, a.working_hours, a.booking_policy, a.assignment_priority, a.assignment_weight,
      coalesce((
        select json_agg(json_build_array(b.kind, b.id, extract(epoch from b.start_at) * 1000, extract(epoch from b.end_at) * 1000,
          extract(epoch from b.from_at) * 1000, extract(epoch from b.until_at) * 1000))
        from (
          select 'call' as kind, c.id, c.scheduled_at as start_at, c.ends_at as end_at,
              coalesce(c.buffered_from, c.scheduled_at) as from_at, coalesce(c.buffered_until, c.ends_at) as until_at
            from scheduled_calls c
            where c.app_id = a.app_id and c.assigned_agent_id = a.id and c.status = 'scheduled'
              and tstzrange(coalesce(c.buffered_from, c.scheduled_at), coalesce(c.buffered_until, c.ends_at)) && ${range} ${excludeCall}
          union all
          select case e.kind when 'blocked' then 'blocked' else 'extra' end, e.id, e.start_at, e.end_at, e.start_at, e.end_at
            from availability_exceptions e
            where e.app_id = a.app_id and e.agent_id = a.id and e.end_at > ${from}::timestamptz and e.start_at < ${to}::timestamptz
          union all
          select 'dnd', d.id, d.start_at, d.end_at, d.start_at, d.end_at
            from dnd_windows d
            where d.app_id = a.app_id and d.agent_id = a.id and d.end_at > ${from}::timestamptz and d.start_at < ${to}::timestamptz
        ) b
      ), '[]'::json) as intervals,
      ${callStarts} as call_starts
    from agents a
    where a.app_id = ${query.appId}::uuid and a.deleted_at is null and ${agentFilter}
    order by a.id`);
  return rowsOf<CalendarRow>(result).map((row) => {
    const busy: BusyInterval[] = [];
    const availableExtra: BusyInterval[] = [];
    const intervals = typeof row.intervals === 'string' ? (JSON.parse(row.intervals) as CalendarRow['intervals']) : row.intervals;
    for (const [kind, id, startMs, endMs, fromMs, untilMs] of intervals) {
      if (kind === 'extra') {
        availableExtra.push({ startMs: Number(startMs), endMs: Number(endMs), id });
        continue;
      }
      const interval: BusyInterval = { startMs: Number(startMs), endMs: Number(endMs), id, kind };
      if (kind === 'call' && (Number(fromMs) < Number(startMs) || Number(untilMs) > Number(endMs))) {
        interval.bufferBeforeMs = Number(startMs) - Number(fromMs);
        interval.bufferAfterMs = Number(untilMs) - Number(endMs);
      }
      busy.push(interval);
    }
    const starts = typeof row.call_starts === 'string' ? (JSON.parse(row.call_starts) as (number | string)[]) : row.call_starts;
    const calendar: LoadedCalendar = {
      agentId: row.id,
      timezone: row.timezone,
      workingHours: row.working_hours,
      availableExtra,
      busy,
      rules: effectiveRules(query.appRules ?? noBookingRules, row.booking_policy ?? {}),
      priority: row.assignment_priority,
      weight: row.assignment_weight,
    };
    if (starts) calendar.callStarts = starts.map(Number);
    return calendar;
  });
}
