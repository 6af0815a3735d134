import { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { migrate } from 'drizzle-orm/pglite/migrator';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/apps/service.js';
import { openDatabase, type Database } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { rowsOf } from '../../src/db/raw.js';
import { importNdjson } from '../../src/importer/ndjson.js';
import { importTypes } from '../../src/importer/types.js';
import { createLogger } from '../../src/log.js';
import { message } from '../analytics/fixtures.js';
import { migrationsBefore } from '../helpers/migrations.js';

/*
 * 0012 stores keyset instants as timestamptz(3). Rows another writer stored with microseconds
 * before it are rounded by an UPDATE, so that the rollup triggers move a row whose rounding
 * crosses a 15-minute bucket; scheduled calls keep their ends_at check and stay apart.
 */

const MIGRATION = '0012_keyset_instants_milliseconds';
let database: Database;
let before: { dir: string; remove: () => void } | undefined;
let appId: string;
const query = async <T>(q: ReturnType<typeof sql>) => rowsOf<T>(await database.db.execute(q));

/** message_rollups recomputed from messages (0009's definition of a bucket's counts). */
const recomputed = () =>
  query<{ bucket: string; sent: number; failed: number }>(sql`
    select to_char(analytics_bucket(created_at) at time zone 'UTC', 'HH24:MI') as bucket,
           count(*) filter (where status in ('sent', 'delivered', 'read'))::int as sent,
           count(*) filter (where status = 'failed')::int as failed
    from messages where app_id = ${appId} and direction = 'outbound' group by 1 order by 1`);
const kept = () =>
  query<{ bucket: string; sent: number; failed: number }>(sql`
    select to_char(bucket_start at time zone 'UTC', 'HH24:MI') as bucket, sent, failed
    from message_rollups where app_id = ${appId} and (sent <> 0 or failed <> 0) order by 1`);

beforeAll(async () => {
  database = await openDatabase({ DATA_DIR: 'memory', DATABASE_URL: undefined, DB_POOL_MAX: 1, DB_PREPARE: false }, createLogger('silent'));
  before = migrationsBefore(MIGRATION);
  await migrate(database.db as unknown as PgliteDatabase, { migrationsFolder: before.dir });
  appId = (await createApp(database.db, { name: 'migration test' })).id;
  const records = [1, 2, 3].map((n) => message(n, { id: `m-${n}`, direction: 'outbound', status: n === 3 ? 'failed' : 'sent' }));
  await importNdjson({ db: database.db, appId, input: Readable.from([records.map((r) => JSON.stringify(r)).join('\n')]), types: importTypes });
  // Another writer's microseconds: m-1 rounds up across the 10:15 bucket boundary, m-2 and m-3 stay in 10:00.
  await database.db.execute(sql`update messages set created_at = case id
      when 'm-1' then '2026-10-20 10:14:59.9996+00'::timestamptz
      when 'm-2' then '2026-10-20 10:00:00.0004+00'::timestamptz
      else '2026-10-20 10:07:00.0005+00'::timestamptz end
    where app_id = ${appId}`);
  const [agent] = await query<{ id: string }>(sql`insert into agents (app_id, name, timezone) values (${appId}, 'Ana', 'UTC') returning id`);
  // One after the other, with different microseconds: [09:00:00.0004, 09:30:00.0004) then [09:30:00.0009, 10:00:00.0009).
  for (const start of ['2026-10-20 09:00:00.0004+00', '2026-10-20 09:30:00.0009+00']) {
    await database.db.execute(sql`insert into scheduled_calls (app_id, assigned_agent_id, booking_source, guest_name, guest_timezone,
        scheduled_at, ends_at, duration_minutes, app_timezone, status)
      values (${appId}, ${agent!.id}, 'api', 'Guest', 'UTC', ${start}::timestamptz, ${start}::timestamptz + interval '30 minutes', 30, 'UTC', 'scheduled')`);
  }
});
afterAll(async () => {
  await database?.close();
  before?.remove();
});

describe(`migration ${MIGRATION}`, () => {
  it('rounds stored microseconds, keeping the rollups exact and scheduled calls apart', async () => {
    expect(await kept()).toEqual([{ bucket: '10:00', sent: 2, failed: 1 }]);
    await runMigrations(database);

    const messages = await query<{ id: string; at: string }>(sql`select id, to_char(created_at at time zone 'UTC', 'HH24:MI:SS.US') as at from messages where app_id = ${appId} order by id`);
    expect(messages).toEqual([
      { id: 'm-1', at: '10:15:00.000000' },
      { id: 'm-2', at: '10:00:00.000000' },
      { id: 'm-3', at: '10:07:00.001000' },
    ]);
    expect(await kept()).toEqual([
      { bucket: '10:00', sent: 1, failed: 1 },
      { bucket: '10:15', sent: 1, failed: 0 },
    ]);
    expect(await kept()).toEqual(await recomputed());

    const calls = await query<{ at: string; ends: string }>(sql`select to_char(scheduled_at at time zone 'UTC', 'HH24:MI:SS.US') as at,
      to_char(ends_at at time zone 'UTC', 'HH24:MI:SS.US') as ends from scheduled_calls where app_id = ${appId} order by scheduled_at`);
    expect(calls).toEqual([
      { at: '09:00:00.000000', ends: '09:30:00.000000' },
      { at: '09:30:00.001000', ends: '10:00:00.001000' },
    ]);
  });

  it('rounds what any writer stores from then on', async () => {
    await database.db.execute(sql`update messages set created_at = '2026-10-20 10:20:00.0002+00' where app_id = ${appId} and id = 'm-2'`);
    const [row] = await query<{ at: string }>(sql`select to_char(created_at at time zone 'UTC', 'HH24:MI:SS.US') as at from messages where app_id = ${appId} and id = 'm-2'`);
    expect(row!.at).toBe('10:20:00.000000');
    expect(await kept()).toEqual(await recomputed());
  });
});
