import { DateTime } from 'luxon';
import type { Scenario } from '../types.js';
import { floorGet, get } from './common.js';

const ZONE = 'America/New_York';
const FUNNEL_PARAMS = ['sent', 'delivered', 'read', 'delivered', 'read', 'read', 'failed'];
const FUNNEL =
  'count(*) filter (where "messages"."status" in ($6, $7, $8))::int as sent, count(*) filter (where "messages"."status" in ($9, $10))::int as delivered, ' +
  'count(*) filter (where "messages"."status" in ($11))::int as read, count(*) filter (where "messages"."status" in ($12))::int as failed, ' +
  'coalesce(sum("messages"."cost"), 0)::float8 as cost';

/** The 90 whole New York days before the day of seeding (DST ends inside the window for a November seed). */
function days90(seededAt: string) {
  const end = DateTime.fromISO(seededAt, { zone: ZONE }).startOf('day');
  const start = end.minus({ days: 90 });
  return { start: start.toUTC().toISO()!, end: end.toUTC().toISO()! };
}

const toNumbers = (rows: Record<string, unknown>[]) =>
  rows.map((r) => ({ ...r, sent: Number(r.sent), delivered: Number(r.delivered), read: Number(r.read), failed: Number(r.failed), cost: Number(r.cost) }));

export const dailyMetrics: Scenario = {
  name: 'metrics_daily_90d',
  title: 'Daily metrics, 90 days, America/New_York (REST)',
  // An aggregate over up to 90 days of rows: a dashboard's few parallel loads, not 32.
  connections: 8,
  request: (ctx) => {
    const { start, end } = days90(ctx.dataset.seededAt);
    return get(`/api/v1/analytics/${ctx.dataset.appId}/metrics/daily?startDate=${start}&endDate=${end}&timezone=${ZONE}`, ctx);
  },
  floorRequest: (ctx) => floorGet('metrics_daily_90d', { app: ctx.dataset.appId, tz: ZONE, ...days90(ctx.dataset.seededAt) }),
  floor: {
    sql: `
    with days as (
      select d::date as day
      from generate_series(($1::timestamptz at time zone $2)::date,
                           (($3::timestamptz - interval '1 microsecond') at time zone $4)::date,
                           interval '1 day') as d
    ),
    buckets as (
      select ("messages"."created_at" at time zone $5)::date as day,
             ${FUNNEL}
      from "messages"
      where ("messages"."app_id" = $13 and "messages"."direction" = $14 and "messages"."created_at" >= $15 and "messages"."created_at" < $16)
      group by 1
    )
    select to_char(days.day, 'YYYY-MM-DD') as date,
           coalesce(b.sent, 0)::int as sent, coalesce(b.delivered, 0)::int as delivered, coalesce(b.read, 0)::int as read,
           coalesce(b.failed, 0)::int as failed, coalesce(b.cost, 0)::float8 as cost
    from days left join buckets b on b.day = days.day
    order by days.day`,
    params: (q) => {
      const [start, end, tz] = [q.get('start'), q.get('end'), q.get('tz')];
      return [start, tz, end, tz, tz, ...FUNNEL_PARAMS, q.get('app'), 'outbound', start, end];
    },
    respond: (rows) => ({ data: toNumbers(rows), meta: { timestamp: new Date().toISOString() } }),
  },
  compare: { service: (body: { data: unknown[] }) => body.data, floor: (body: { data: unknown[] }) => body.data },
};

const DAY = 86_400_000;
const last30 = (seededAt: string) => ({ start: new Date(Date.parse(seededAt) - 30 * DAY).toISOString(), end: seededAt });

export const summaryMetrics: Scenario = {
  name: 'metrics_summary',
  title: 'Summary metrics, 30 days (REST)',
  connections: 8,
  request: (ctx) => {
    const { start, end } = last30(ctx.dataset.seededAt);
    return get(`/api/v1/analytics/${ctx.dataset.appId}/metrics/summary?startDate=${start}&endDate=${end}`, ctx);
  },
  floorRequest: (ctx) => floorGet('metrics_summary', { app: ctx.dataset.appId, ...last30(ctx.dataset.seededAt) }),
  floor: {
    sql:
      'select count(*) filter (where "status" in ($1, $2, $3))::int as sent, count(*) filter (where "status" in ($4, $5))::int as delivered, ' +
      'count(*) filter (where "status" in ($6))::int as read, count(*) filter (where "status" in ($7))::int as failed, ' +
      'coalesce(sum("cost"), 0)::float8 as cost, count(distinct "user_phone")::int as contacts from "messages" ' +
      'where ("messages"."app_id" = $8 and "messages"."direction" = $9 and "messages"."created_at" >= $10 and "messages"."created_at" < $11)',
    params: (q) => [...FUNNEL_PARAMS, q.get('app'), 'outbound', q.get('start'), q.get('end')],
    respond: (rows) => ({ data: toNumbers(rows)[0], meta: { timestamp: new Date().toISOString() } }),
  },
  compare: { service: (body: { data: unknown }) => body.data, floor: (body: { data: unknown }) => body.data },
};
