import { asc, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/raw.js';
import { createLogger } from '../../src/log.js';
import { webhookDeliveries } from '../../src/webhooks/tables.js';
import { dueDeliveries, WebhookWorker } from '../../src/webhooks/worker.js';
import { gql } from '../helpers/http.js';
import { schedulingTenant, subscribe, webhookTestBed } from './fixtures.js';

// A poll's cost must not grow with the deliveries waiting for a disabled subscription: a claim
// that probed every due delivery's subscription would pay for each of them on every poll. They
// are flagged `paused` with the subscription's status, and the due index leaves them out.
const bed = webhookTestBed();
const WAITING = 5000;
const SET_STATUS = `mutation($appId: UUID!, $id: UUID!, $active: Boolean!) { setWebhookSubscriptionStatus(appId: $appId, id: $id, active: $active) { status } }`;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

describe('the claim with many deliveries waiting for a paused subscription', () => {
  it(`reads only the others' rows (${WAITING} waiting), through the due index; enabling resumes them oldest first`, async () => {
    const { server, receiver } = bed;
    const db = server.runtime.database.db;
    const { tenant } = await schedulingTenant(server);
    const paused = await subscribe(server, tenant, receiver.url, ['scheduled.cancelled']);
    const active = await subscribe(server, tenant, receiver.url, ['scheduled.cancelled']);
    const now = new Date();
    const insert = (subscriptionId: string, count: number) =>
      db.execute(sql`insert into webhook_deliveries (app_id, subscription_id, event_type, payload, next_attempt_at)
        select ${tenant.appId}, ${subscriptionId}, 'scheduled.cancelled', '{"type": "scheduled.cancelled", "timestamp": "", "data": {}}'::jsonb,
               ${now.toISOString()}::timestamptz - make_interval(secs => g)
        from generate_series(1, ${count}) g`);
    await insert(paused.id, WAITING);
    const setActive = (id: string, on: boolean) => gql(server.url, tenant.accessToken, SET_STATUS, { appId: tenant.appId, id, active: on });
    expect((await setActive(paused.id, false)).body.data.setWebhookSubscriptionStatus).toEqual({ status: 'disabled' });
    // Due later than every waiting one: a scan in due order reaches them last.
    await insert(active.id, 3);
    await db.execute(sql`update webhook_deliveries set next_attempt_at = next_attempt_at - interval '1 second' * ${WAITING}
      where subscription_id = ${paused.id}`);
    await db.execute(sql`analyze webhook_deliveries`);

    const [explained] = rowsOf<{ 'QUERY PLAN': string | [{ Plan: PlanNode }] }>(
      await db.execute(sql`explain (analyze, format json) ${dueDeliveries(db, now, 20)}`),
    );
    const plan = explained!['QUERY PLAN'];
    const scans = nodesOf((typeof plan === 'string' ? (JSON.parse(plan) as [{ Plan: PlanNode }]) : plan)[0].Plan).filter((n) => n['Relation Name'] === 'webhook_deliveries');
    expect(scans.map((n) => [n['Node Type'], n['Index Name']])).toEqual([['Index Scan', 'webhook_deliveries_due_idx']]);
    const examined = scans.reduce((sum, n) => sum + (n['Actual Rows'] + (n['Rows Removed by Filter'] ?? 0) + (n['Rows Removed by Index Recheck'] ?? 0)) * n['Actual Loops'], 0);
    expect(examined).toBe(3);

    const worker = new WebhookWorker({ database: server.runtime.database, logger: createLogger('silent'), config: server.runtime.config });
    const claimed = await worker.claim(now);
    expect(claimed.map((c) => c.subscription?.id)).toEqual([active.id, active.id, active.id]);

    expect((await setActive(paused.id, true)).body.data.setWebhookSubscriptionStatus).toEqual({ status: 'active' });
    const oldest = await db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.subscriptionId, paused.id))
      .orderBy(asc(webhookDeliveries.nextAttemptAt))
      .limit(server.runtime.config.WEBHOOK_BATCH);
    const resumed = await worker.claim(now);
    expect(resumed.map((c) => c.delivery.id).sort()).toEqual(oldest.map((r) => r.id).sort());
    expect(resumed.every((c) => c.delivery.attempts === 1)).toBe(true);
  }, 60_000);
});
