import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { DAILY_PLANNER_SETTINGS, dailyMetricsSql } from '../../src/analytics/metrics.service.js';
import { rowsOf } from '../../src/db/raw.js';
import { request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';

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
async function plan(withSettings: boolean): Promise<string> {
  const { db } = server.runtime.database;
  const end = new Date('2026-11-25T05:00:00Z');
  const start = new Date(end.getTime() - 90 * 86_400_000);
  return db.transaction(async (tx) => {
    if (withSettings) await tx.execute(DAILY_PLANNER_SETTINGS);
    const rows = rowsOf<Record<string, string>>(await tx.execute(sql`explain ${dailyMetricsSql(tenant.appId, start, end, 'America/New_York')}`));
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
