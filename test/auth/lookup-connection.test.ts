import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/raw.js';
import { useServer } from '../helpers/use-server.js';

// On PostgreSQL the per-request revocation/quota lookup has a connection of its own
// (Database.authDb, src/db/client.ts): planned once instead of on every request, and never
// queued behind the pool's reads. Revocation stays strict (test/auth/lookup-batch.test.ts).
const onPostgres = Boolean(process.env.DATABASE_URL);

describe.skipIf(!onPostgres)('the authentication lookup on PostgreSQL', () => {
  // Inside the skipped describe: no server is started on PGlite.
  const { server } = useServer({ overrides: { DB_POOL_MAX: '2', DB_PREPARE: '1', RATE_LIMIT_MINUTE: '100000' } });

  it('runs on its own connection with one generic plan, the pool planning each statement anew', async () => {
    const tenant = await server.tenant({ scopes: ['messages:read'] });
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`${server.url}/api/v1/analytics/${tenant.appId}/messages?limit=1`, { headers: { authorization: `Bearer ${tenant.accessToken}` } });
      expect(res.status).toBe(200);
    }
    const { authDb, db } = server.runtime.database;
    // One connection: this statement runs in the session that prepared the lookup (postgres.js
    // names its statements itself, so the lookup is found by its text).
    const [plans] = rowsOf<{ generic_plans: string; custom_plans: string; pid: number }>(
      await authDb.execute(
        sql`select generic_plans, custom_plans, pg_backend_pid() as pid from pg_prepared_statements where statement like '%unnest(%' and statement like '%"revoked_tokens"%'`,
      ),
    );
    expect(Number(plans!.generic_plans)).toBeGreaterThanOrEqual(8);
    expect(Number(plans!.custom_plans)).toBe(0);
    const [authMode] = rowsOf<{ plan_cache_mode: string }>(await authDb.execute(sql`show plan_cache_mode`));
    const [poolMode] = rowsOf<{ plan_cache_mode: string }>(await db.execute(sql`show plan_cache_mode`));
    expect(authMode!.plan_cache_mode).toBe('force_generic_plan');
    expect(poolMode!.plan_cache_mode).toBe('force_custom_plan');
    const [pool] = rowsOf<{ pid: number }>(await db.execute(sql`select pg_backend_pid() as pid`));
    expect(pool!.pid).not.toBe(plans!.pid);
  });

  it('authenticates while every pooled connection is busy', async () => {
    const tenant = await server.tenant({ scopes: ['messages:read'] });
    const { db } = server.runtime.database;
    const order: string[] = [];
    // Both pooled connections (DB_POOL_MAX=2) held, each by a transaction (a query alone could be
    // pipelined behind the other on one connection).
    const holders = [1, 2].map(() => db.transaction((tx) => tx.execute(sql`select pg_sleep(1.5)`)));
    // On the pool, the lookup would get the first connection given back.
    const held = Promise.race(holders).then(() => order.push('pool released'));
    await new Promise((r) => setTimeout(r, 100));
    // A request that needs only the token's lookup: another app's path is 403 once the token holds.
    const refused = fetch(`${server.url}/api/v1/analytics/00000000-0000-4000-8000-000000000000/messages`, {
      headers: { authorization: `Bearer ${tenant.accessToken}` },
    }).then((res) => {
      order.push(`answered ${res.status}`);
    });
    await Promise.all([held, refused, ...holders]);
    expect(order).toEqual(['answered 403', 'pool released']);
  });
});
