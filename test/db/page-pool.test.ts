import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';
import { rowsOf } from '../../src/db/raw.js';
import { createLogger } from '../../src/log.js';
import { importRecords, message } from '../analytics/fixtures.js';
import { createFreshDatabase } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

// On PostgreSQL an app's list with no filter (Database.pageDb, src/db/keyset.ts) runs on a pool
// of its own whose statements are planned once; every filtered page is planned for its values.
const onPostgres = Boolean(process.env.DATABASE_URL);

interface Plans {
  statement: string;
  generic_plans: string;
  custom_plans: string;
}

const plansOf = async (db: Database['db']) =>
  rowsOf<Plans>(await db.execute(sql`select statement, generic_plans, custom_plans from pg_prepared_statements where statement like '%from "messages"%'`));

describe.skipIf(!onPostgres)('unfiltered pages on their own pool', () => {
  const { server, tenant } = useServer({
    tenant: { scopes: ['messages:read'] },
    overrides: { DB_POOL_MAX: '1', DB_PAGE_POOL_MAX: '1', DB_PREPARE: '1', RATE_LIMIT_MINUTE: '100000' },
  });

  beforeAll(() => importRecords(server, tenant.appId, Array.from({ length: 12 }, (_, i) => message(i + 1))));

  const list = async (query: string) => {
    const res = await fetch(`${server.url}/api/v1/analytics/${tenant.appId}/messages?${query}`, { headers: { authorization: `Bearer ${tenant.accessToken}` } });
    expect(res.status).toBe(200);
    return (await res.json()) as { data: { id: string }[]; pagination: { nextCursor: string | null } };
  };

  it('plans an unfiltered page once, a filtered one for its values each time', async () => {
    const first = await list('limit=5');
    expect(first.data).toHaveLength(5);
    const next = await list(`limit=5&cursor=${first.pagination.nextCursor}`);
    expect(next.data.map((m) => m.id)).not.toContain(first.data[0]!.id);
    for (let i = 0; i < 4; i++) await list('limit=5');
    for (let i = 0; i < 3; i++) await list('limit=5&status=delivered');

    const { pageDb, db } = server.runtime.database;
    expect(pageDb).not.toBe(db);
    const onPages = await plansOf(pageDb);
    const onPool = await plansOf(db);
    // The unfiltered page (first, then after a cursor) on the page pool, with generic plans only.
    const unfiltered = onPages.filter((p) => !p.statement.includes('"status" ='));
    expect(unfiltered.length).toBeGreaterThanOrEqual(2);
    for (const p of unfiltered) expect([Number(p.custom_plans), Number(p.generic_plans) > 0]).toEqual([0, true]);
    expect(onPages.some((p) => p.statement.includes('"status" ='))).toBe(false);
    // The filtered one on the pool, planned for its values every time.
    const filtered = onPool.filter((p) => p.statement.includes('"status" ='));
    expect(filtered).toHaveLength(1);
    expect([Number(filtered[0]!.custom_plans), Number(filtered[0]!.generic_plans)]).toEqual([3, 0]);

    const [mode] = rowsOf<{ plan_cache_mode: string; jit: string }>(await pageDb.execute(sql`select current_setting('plan_cache_mode') as plan_cache_mode, current_setting('jit') as jit`));
    expect(mode).toEqual({ plan_cache_mode: 'force_generic_plan', jit: 'off' });
  });
});

describe.skipIf(!onPostgres)('where there is no page pool', () => {
  let fresh: Awaited<ReturnType<typeof createFreshDatabase>>;
  const opened: Database[] = [];
  beforeAll(async () => {
    fresh = await createFreshDatabase(process.env.DATABASE_URL!);
  });
  afterAll(async () => {
    await Promise.all(opened.map((d) => d.close()));
    await fresh.drop();
  });

  it.each([
    ['DB_PAGE_POOL_MAX=0', { DB_PAGE_POOL_MAX: 0, DB_PREPARE: true }],
    ['DB_PREPARE=0 (a transaction pooler keeps no plan)', { DB_PAGE_POOL_MAX: 5, DB_PREPARE: false }],
    ['a replica, whose pool the analytics reads use', { DB_PAGE_POOL_MAX: 5, DB_PREPARE: true, DATABASE_REPLICA_URL: process.env.DATABASE_URL ?? '' }],
  ])('%s: the pages share the analytics reads’ handle', async (_name, settings) => {
    const database = await openDatabase({ DATABASE_URL: fresh.url, DATA_DIR: 'memory', DB_POOL_MAX: 1, ...settings }, createLogger('silent'));
    opened.push(database);
    expect(database.pageDb).toBe(database.analyticsDb);
  });
});
