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

// 0018 turns the '' that stood for "none" in provider_from, provider_to and
// cancellation_reason into null, and keeps it so with checks.
const MIGRATION = '0019_guest_details_and_none_is_null';
let database: Database;
let before: { dir: string; remove: () => void } | undefined;
let appId: string;
const query = async <T>(q: ReturnType<typeof sql>) => rowsOf<T>(await database.db.execute(q));

beforeAll(async () => {
  database = await openDatabase({ DATA_DIR: 'memory', DATABASE_URL: undefined, DB_POOL_MAX: 1, DB_PREPARE: false }, createLogger('silent'));
  before = migrationsBefore(MIGRATION);
  await migrate(database.db as unknown as PgliteDatabase, { migrationsFolder: before.dir });
  appId = (await createApp(database.db, { name: 'migration test' })).id;
  const records = [1, 2].map((n) => message(n, { id: `m-${n}` }));
  await importNdjson({ db: database.db, appId, input: Readable.from([records.map((r) => JSON.stringify(r)).join('\n')]), types: importTypes });
  await database.db.execute(sql`update messages set provider_from = '', provider_to = case id when 'm-1' then '' else provider_to end where app_id = ${appId}`);
  const [agent] = await query<{ id: string }>(sql`insert into agents (app_id, name, timezone) values (${appId}, 'Ana', 'UTC') returning id`);
  for (const reason of ['', 'guest asked']) {
    await database.db.execute(sql`insert into scheduled_calls (app_id, assigned_agent_id, booking_source, guest_name, guest_timezone,
        scheduled_at, ends_at, duration_minutes, app_timezone, status, cancelled_at, cancellation_reason)
      values (${appId}, ${agent!.id}, 'api', ${reason || 'none'}, 'UTC', now(), now() + interval '30 minutes', 30, 'UTC', 'cancelled', now(), ${reason})`);
  }
});
afterAll(async () => {
  await database?.close();
  before?.remove();
});

describe(`migration ${MIGRATION}`, () => {
  it("turns '' into null and keeps the values there were", async () => {
    await runMigrations(database);
    expect(await query(sql`select id, provider_from, provider_to from messages where app_id = ${appId} order by id`)).toEqual([
      { id: 'm-1', provider_from: null, provider_to: null },
      { id: 'm-2', provider_from: null, provider_to: '447700900000' },
    ]);
    expect(await query(sql`select guest_name, cancellation_reason from scheduled_calls where app_id = ${appId} order by guest_name`)).toEqual([
      { guest_name: 'guest asked', cancellation_reason: 'guest asked' },
      { guest_name: 'none', cancellation_reason: null },
    ]);
  });

  it("refuses '' from any writer from then on", async () => {
    await expect(database.db.execute(sql`update messages set provider_from = '' where app_id = ${appId}`)).rejects.toThrow();
    await expect(database.db.execute(sql`update messages set provider_to = '' where app_id = ${appId}`)).rejects.toThrow();
    await expect(database.db.execute(sql`update scheduled_calls set cancellation_reason = '' where app_id = ${appId}`)).rejects.toThrow();
  });
});
