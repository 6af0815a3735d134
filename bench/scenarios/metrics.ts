import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { DateTime } from 'luxon';
import { DAILY_PLANNER_SETTINGS, dailyMetricsSql, summaryMetricsSql } from '../../src/analytics/metrics.service.js';
import type { Scenario } from '../types.js';
import { floorGet, get } from './common.js';

const ZONE = 'America/New_York';
const dialect = new PgDialect();
/** A drizzle SQL object as text and positional parameters, for postgres.js or PGlite. */
const toQuery = (query: SQL) => {
  const { sql, params } = dialect.sqlToQuery(query);
  return { sql, params };
};

/** The 90 whole New York days before the day of seeding (DST ends inside the window for a November seed). */
export function days90(seededAt: string) {
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
    sql: '',
    params: () => [],
    // The service's own daily query (rollups plus the partial buckets at the ends), built by the
    // same function, run raw in a read-only transaction with the same planner setting.
    build: (q) => ({
      ...toQuery(dailyMetricsSql(q.get('app')!, new Date(q.get('start')!), new Date(q.get('end')!), q.get('tz')!)),
      settings: [toQuery(DAILY_PLANNER_SETTINGS).sql],
    }),
    respond: (rows) => ({ data: toNumbers(rows.map(({ split: _split, ...r }) => r)), meta: { timestamp: new Date().toISOString() } }),
  },
  compare: { service: (body: { data: unknown[] }) => body.data, floor: (body: { data: unknown[] }) => body.data },
};

const DAY = 86_400_000;
export const last30 = (seededAt: string) => ({ start: new Date(Date.parse(seededAt) - 30 * DAY).toISOString(), end: seededAt });

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
    sql: '',
    params: () => [],
    build: (q) => toQuery(summaryMetricsSql(q.get('app')!, new Date(q.get('start')!), new Date(q.get('end')!))),
    respond: (rows) => ({ data: toNumbers(rows)[0], meta: { timestamp: new Date().toISOString() } }),
  },
  compare: { service: (body: { data: unknown }) => body.data, floor: (body: { data: unknown }) => body.data },
};

/** The same read one request at a time: the latency a dashboard sees when nothing else runs. */
export const dailyMetricsAlone: Scenario = {
  ...dailyMetrics,
  name: 'metrics_daily_90d_1conn',
  title: 'Daily metrics, 90 days, America/New_York, one connection (REST)',
  connections: 1,
};
