import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/apps/service.js';
import { runMigrations } from '../../src/db/migrate.js';
import { rowsOf } from '../../src/db/raw.js';
import { createLogger } from '../../src/log.js';
import { WebhookWorker } from '../../src/webhooks/worker.js';
import { databaseBefore as databaseBeforeMigration, storageKinds, type StorageKind } from '../helpers/migrations.js';

/*
 * 0013 flags the pending deliveries of disabled subscriptions `paused` and rebuilds the worker's
 * due index without them. Deliveries stored before it (the app paused, or a 410 disabled, their
 * subscription) must come out flagged, on PGlite and on PostgreSQL, so the worker still leaves
 * them waiting and they resume when the subscription is enabled.
 */

const MIGRATION = '0013_webhook_deliveries_paused';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const databaseBefore = (kind: StorageKind) => databaseBeforeMigration(MIGRATION, kind, cleanups);
const kinds = storageKinds;

describe(`migration ${MIGRATION}`, () => {
  it.each(kinds)('on %s: flags the pending deliveries of disabled subscriptions, and the worker leaves them waiting', async (kind) => {
    const database = await databaseBefore(kind);
    const db = database.db;
    const query = async <T>(q: ReturnType<typeof sql>) => rowsOf<T>(await db.execute(q));
    const appId = (await createApp(db, { name: 'migration test' })).id;
    const subscription = async (name: string, status: string, reason: string | null) =>
      (
        await query<{ id: string }>(sql`insert into webhook_subscriptions (app_id, url, event_types, secret, description, status, disabled_reason)
          values (${appId}, 'http://127.0.0.1:9/hooks', '{scheduled.cancelled}', 'whsec_x', ${name}, ${status}, ${reason}) returning id`)
      )[0]!.id;
    const subscriptions = {
      active: await subscription('active', 'active', null),
      paused: await subscription('paused', 'disabled', 'disabled by the app'),
      gone: await subscription('gone', 'disabled', 'the endpoint answered 410 Gone'),
    };
    const due = new Date(Date.now() - 60_000).toISOString();
    const deliveries: [keyof typeof subscriptions, string, string][] = [
      ['active', 'pending', 'active pending'],
      ['active', 'succeeded', 'active succeeded'],
      ['paused', 'pending', 'paused pending 1'],
      ['paused', 'pending', 'paused pending 2'],
      ['paused', 'failed', 'paused failed'],
      ['paused', 'succeeded', 'paused succeeded'],
      ['gone', 'pending', 'gone pending'],
      ['gone', 'failed', 'gone failed'],
    ];
    for (const [sub, status, name] of deliveries) {
      await db.execute(sql`insert into webhook_deliveries (app_id, subscription_id, event_type, payload, status, next_attempt_at)
        values (${appId}, ${subscriptions[sub]}, 'scheduled.cancelled', ${JSON.stringify({ type: 'scheduled.cancelled', timestamp: due, data: { name } })}::jsonb,
                ${status}, ${due}::timestamptz)`);
    }

    await runMigrations(database);

    const flags = await query<{ name: string; paused: boolean }>(
      sql`select payload->'data'->>'name' as name, paused from webhook_deliveries where app_id = ${appId} order by 1`,
    );
    expect(Object.fromEntries(flags.map((f) => [f.name, f.paused]))).toEqual({
      'active pending': false,
      'active succeeded': false,
      'gone failed': false,
      'gone pending': true,
      'paused failed': false,
      'paused pending 1': true,
      'paused pending 2': true,
      'paused succeeded': false,
    });
    const [index] = await query<{ indexdef: string }>(sql`select indexdef from pg_indexes where indexname = 'webhook_deliveries_due_idx'`);
    expect(index!.indexdef).toMatch(/WHERE \(\(status = 'pending'::text\) AND \(NOT paused\)\)/);

    const worker = new WebhookWorker({
      database,
      logger: createLogger('silent'),
      config: { WEBHOOK_POLL_MS: 0, WEBHOOK_TIMEOUT_MS: 1000, WEBHOOK_BATCH: 20, WEBHOOK_RETRY_SCHEDULE: [5000], WEBHOOK_ALLOW_PRIVATE: true, SHUTDOWN_GRACE_MS: 1000, WEBHOOK_CONCURRENCY: 32, WEBHOOK_APP_CONCURRENCY: 8, WEBHOOK_ENDPOINT_CONCURRENCY: 4, WEBHOOK_DISABLE_AFTER_FAILURES: 5 },
    });
    const claimed = await worker.claim(new Date());
    expect(claimed.map((c) => c.delivery.payload.data.name)).toEqual(['active pending']);
  });
});
