import { sql } from 'drizzle-orm';
import type { Queryable } from '../db/client.js';
import { rowsOf } from '../db/raw.js';
import type { AgentCalendar, BusyInterval, BusyKind } from './slots.js';
import type { WeeklyHours } from './working-hours.js';

export interface CalendarQuery {
  appId: string;
  /** One agent (even one without working hours); otherwise every agent with working hours. */
  agentId?: string;
  /** Busy intervals and exceptions that overlap [fromMs, toMs) are loaded. */
  fromMs: number;
  toMs: number;
  /** A call left out of the busy intervals (the one being rescheduled). */
  excludeCallId?: string;
}

interface CalendarRow {
  id: string;
  timezone: string;
  working_hours: WeeklyHours;
  intervals: [kind: BusyKind | 'extra', id: string, startMs: number | string, endMs: number | string][];
}

/**
 * The calendars of the agents considered, in ONE query (the engine stays pure and costs one
 * round trip per request): each agent with its scheduled calls, blocked and
 * available_extra exceptions and do-not-disturb windows overlapping the window.
 * Calls are found through the exclusion constraint's GiST index (same predicate).
 */
export async function loadCalendars(db: Queryable, query: CalendarQuery): Promise<AgentCalendar[]> {
  const from = new Date(query.fromMs).toISOString();
  const to = new Date(query.toMs).toISOString();
  const range = sql`tstzrange(${from}::timestamptz, ${to}::timestamptz)`;
  const agentFilter = query.agentId
    ? sql`a.id = ${query.agentId}::uuid`
    : sql`exists (select 1 from jsonb_each(a.working_hours) d where jsonb_typeof(d.value) = 'array' and jsonb_array_length(d.value) > 0)`;
  const excludeCall = query.excludeCallId ? sql`and c.id <> ${query.excludeCallId}::uuid` : sql``;
  const result = await db.execute(sql`
    select a.id, a.timezone, a.working_hours,
      coalesce((
        select json_agg(json_build_array(b.kind, b.id, extract(epoch from b.start_at) * 1000, extract(epoch from b.end_at) * 1000))
        from (
          select 'call' as kind, c.id, c.scheduled_at as start_at, c.ends_at as end_at
            from scheduled_calls c
            where c.app_id = a.app_id and c.assigned_agent_id = a.id and c.status = 'scheduled'
              and tstzrange(c.scheduled_at, c.ends_at) && ${range} ${excludeCall}
          union all
          select case e.kind when 'blocked' then 'blocked' else 'extra' end, e.id, e.start_at, e.end_at
            from availability_exceptions e
            where e.app_id = a.app_id and e.agent_id = a.id and e.end_at > ${from}::timestamptz and e.start_at < ${to}::timestamptz
          union all
          select 'dnd', d.id, d.start_at, d.end_at
            from dnd_windows d
            where d.app_id = a.app_id and d.agent_id = a.id and d.end_at > ${from}::timestamptz and d.start_at < ${to}::timestamptz
        ) b
      ), '[]'::json) as intervals
    from agents a
    where a.app_id = ${query.appId}::uuid and a.deleted_at is null and ${agentFilter}
    order by a.id`);
  return rowsOf<CalendarRow>(result).map((row) => {
    const busy: BusyInterval[] = [];
    const availableExtra: BusyInterval[] = [];
    const intervals = typeof row.intervals === 'string' ? (JSON.parse(row.intervals) as CalendarRow['intervals']) : row.intervals;
    for (const [kind, id, startMs, endMs] of intervals) {
      if (kind === 'extra') availableExtra.push({ startMs: Number(startMs), endMs: Number(endMs), id });
      else busy.push({ startMs: Number(startMs), endMs: Number(endMs), id, kind });
    }
    return { agentId: row.id, timezone: row.timezone, workingHours: row.working_hours, availableExtra, busy };
  });
}
