import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { DAILY_PLANNER_SETTINGS, dailyMetricsSql, summaryMetricsSql } from '../../src/analytics/metrics.service.js';
import { rowsOf } from '../../src/db/raw.js';
import { request } from '../helpers/http.js';
import type { Tenant } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { importRecords, message } from './fixtures.js';

const { server, tenant } = useServer({ tenant: { scopes: ['analytics:read'] } });

beforeAll(async () => {
  // A rollup bucket in every quarter hour of the 90 days, as a busy app has (the plan, not the
  // counts, is under test), and fresh statistics for the planner.
  const { db } = server.runtime.database;
  await db.execute(sql`
    insert into message_rollups (app_id, bucket_start, sent, delivered, read, failed, cost)
    select ${tenant.appId}, b, 1, 0, 0, 0, 0.5
    from generate_series(timestamptz '2026-08-27 05:00:00+00', timestamptz '2026-11-25 04:45:00+00', interval '15 minutes') as b`);
  await db.execute(sql`analyze message_rollups`);
});

/** The plan of the daily read over 90 New York days, with or without the read's planner settings. */
async function plan(withSettings: boolean, verbose = false): Promise<string> {
  const { db } = server.runtime.database;
  const end = new Date('2026-11-25T05:00:00Z');
  const start = new Date(end.getTime() - 90 * 86_400_000);
  return db.transaction(async (tx) => {
    if (withSettings) await tx.execute(DAILY_PLANNER_SETTINGS);
    const rows = rowsOf<Record<string, string>>(await tx.execute(sql`explain ${sql.raw(verbose ? '(verbose)' : '')} ${dailyMetricsSql(tenant.appId, start, end, 'America/New_York')}`));
    return rows.map((row) => Object.values(row)[0]).join('\n');
  });
}

describe('the daily metrics read', () => {
  it('joins rollup buckets to their hours without a merge join (no sort of every bucket)', async () => {
    // Left to itself the planner sorts both sides for a merge join...
    expect(await plan(false)).toContain('Merge Join');
    // ...which the read's own transaction turns off.
    const chosen = await plan(true);
    expect(chosen).not.toContain('Merge Join');
    expect(chosen).toContain('Hash Join');
  });

  it('converts each hour of the range to local time twice, and reads buckets one by one only when some hour needs it', async () => {
    const lines = (await plan(true, true)).split('\n');
    // The hours' series: its output holds the hour's local start and end, each converted once.
    const series = lines.findIndex((line) => line.includes('Function Scan on pg_catalog.generate_series hour'));
    expect(series).toBeGreaterThan(-1);
    expect(lines[series + 1]!.match(/AT TIME ZONE/g)).toHaveLength(2);
    // No New York hour of these days is split by a local midnight: the bucket-by-bucket branch is gated off.
    expect(lines.join('\n')).toContain('One-Time Filter');
  });

  it('counts every bucket once, by New York day, through the REST read', async () => {
    const res = await request(
      `${server.url}/api/v1/analytics/${tenant.appId}/metrics/daily?startDate=2026-08-27T04:00:00Z&endDate=2026-11-25T05:00:00Z&timezone=America/New_York`,
      { token: tenant.accessToken },
    );
    expect(res.status).toBe(200);
    const days = res.body.data as { date: string; sent: number }[];
    expect(days).toHaveLength(90);
    expect(days.reduce((sum, day) => sum + day.sent, 0)).toBe(90 * 96);
    // The first day starts at 01:00 EDT (the first bucket); the day New York falls back has 25 hours.
    expect(days[0]).toMatchObject({ date: '2026-08-27', sent: 92 });
    expect(days.find((day) => day.date === '2026-11-01')!.sent).toBe(100);
    expect(days.find((day) => day.date === '2026-10-01')!.sent).toBe(96);
  });
});

describe("the summary's contacts", () => {
  let app: Tenant;
  const at = (day: number, hour = 12) => new Date(Date.UTC(2026, 2, day, hour)).toISOString();
  const phone = (group: string, i: number) => `44700${group}${String(i).padStart(5, '0')}`;
  const outbound = (n: number, userPhone: string, createdAt: string) =>
    message(n, { id: `c-${n}`, direction: 'outbound', status: 'sent', user_phone: userPhone, created_at: createdAt, sent_at: createdAt, failed_at: null, error_message: null });

  beforeAll(async () => {
    app = await server.tenant({ scopes: ['analytics:read'] });
    let n = 0;
    const records = [];
    // 5 contacts active on 5, 15 and 25 March; 5 on 5 and 25 March only; 20 with five messages
    // each on 14-16 March.
    for (let i = 0; i < 5; i++) for (const day of [5, 15, 25]) records.push(outbound(n++, phone('1', i), at(day)));
    for (let i = 0; i < 5; i++) for (const day of [5, 25]) records.push(outbound(n++, phone('2', i), at(day)));
    for (let i = 0; i < 20; i++) for (let k = 0; k < 5; k++) records.push(outbound(n++, phone('3', i), at(14 + (k % 3), 3 + k)));
    await importRecords(server, app.appId, records);
  });

  const summary = async (start: string, end: string) => {
    const res = await request(`${server.url}/api/v1/analytics/${app.appId}/metrics/summary?startDate=${start}&endDate=${end}`, { token: app.accessToken });
    expect(res.status).toBe(200);
    return res.body.data as { sent: number; contacts: number };
  };

  it('is exact whichever way it is counted', async () => {
    // No contact seen both before and after: the rollups and contact ranges answer alone.
    expect(await summary(at(10), at(31))).toEqual(expect.objectContaining({ sent: 115, contacts: 30 }));
    // 10 contacts span 10-20 March against 105 messages inside: each is probed.
    expect(await summary(at(10), at(20))).toEqual(expect.objectContaining({ sent: 105, contacts: 25 }));
    // The same 10 against the 5 messages of 15 March at noon: one distinct over those messages.
    expect(await summary(at(15, 11), at(15, 13))).toEqual(expect.objectContaining({ sent: 5, contacts: 5 }));
  });

  it('counts the spanning contacts once, and only as far as the choice needs', async () => {
    const { db } = server.runtime.database;
    const plan = rowsOf<Record<string, string>>(
      await db.execute(sql`explain (analyze, buffers off, costs off, timing off, summary off) ${summaryMetricsSql(app.appId, new Date(at(15, 11)), new Date(at(15, 13)))}`),
    )
      .map((row) => Object.values(row)[0])
      .join('\n');
    // One scan of the spanning contacts, stopped after 5 / 8 + 1 = 1 row of the 10.
    expect(plan.match(/CTE seen/g)).toHaveLength(1);
    // (PostgreSQL 18, PGlite's, prints row counts with two decimals.)
    expect(plan).toMatch(/CTE seen\n\s+->  Aggregate \(actual rows=1(\.00)? loops=1\)\n\s+->  Limit \(actual rows=1(\.00)? loops=1\)/);
  });
});
