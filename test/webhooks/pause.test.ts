import { eq, sql } from 'drizzle-orm';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/raw.js';
import { createLogger } from '../../src/log.js';
import { webhookDeliveries, webhookSubscriptions } from '../../src/webhooks/tables.js';
import { WebhookWorker } from '../../src/webhooks/worker.js';
import { gql } from '../helpers/http.js';
import { futureDay } from '../scheduling/fixtures.js';
import { booking, deliveriesOf, schedulingTenant, secondsAfter, subscribe, webhookTestBed } from './fixtures.js';

// A disabled subscription (paused by the app, or after its endpoint answered 410 Gone) gets no new
// deliveries, and the ones it already has wait: not attempted, their attempts not consumed, until
// it is enabled again, so a pause loses nothing. Deleting a subscription still deletes them.
const bed = webhookTestBed();
const run = (at: Date) => bed.server.runtime.webhooks.runOnce(at);

const SET_STATUS = `mutation($appId: UUID!, $id: UUID!, $active: Boolean!) { setWebhookSubscriptionStatus(appId: $appId, id: $id, active: $active) { status disabledReason } }`;
const RETRY = `mutation($appId: UUID!, $id: UUID!) { retryWebhookDelivery(appId: $appId, id: $id) { id: deliveryId status attempts } }`;
const DELETE = `mutation($appId: UUID!, $id: UUID!) { deleteWebhookSubscription(appId: $appId, id: $id) { id: subscriptionId } }`;

/** A subscribed tenant with one scheduled.cancelled delivery queued. */
async function queued(hour: number) {
  const { server, receiver } = bed;
  const { tenant, a } = await schedulingTenant(server);
  const { id } = await subscribe(server, tenant, receiver.url, ['scheduled.cancelled']);
  await a.cancel((await a.create(booking(futureDay(7, hour)))).body.data.call.id);
  const setActive = async (active: boolean) =>
    (await gql(server.url, tenant.accessToken, SET_STATUS, { appId: tenant.appId, id, active })).body.data.setWebhookSubscriptionStatus;
  return { tenant, a, id, setActive, deliveries: () => deliveriesOf(server, tenant.appId) };
}

describe('a paused subscription', () => {
  it('keeps its pending delivery waiting, unsent and with its attempts, and sends it once re-activated', async () => {
    const { receiver } = bed;
    const { setActive, deliveries } = await queued(9);
    receiver.reply({ status: 500 });
    const t0 = new Date();
    expect(await run(t0)).toMatchObject({ claimed: 1, retrying: 1 });
    const [first] = await deliveries();
    expect(first).toMatchObject({ status: 'pending', attempts: 1, lastResponseCode: 500, paused: false });

    expect(await setActive(false)).toEqual({ status: 'disabled', disabledReason: 'disabled by the app' });
    // Due, and due again an hour later: never picked while paused.
    for (const at of [secondsAfter(t0, 10), secondsAfter(t0, 3600)]) expect((await run(at)).claimed).toBe(0);
    const [paused] = await deliveries();
    expect(paused).toMatchObject({ status: 'pending', attempts: 1, lastResponseCode: 500, lastError: 'http_500', lockedUntil: null, paused: true });
    expect(paused!.nextAttemptAt).toEqual(first!.nextAttemptAt);
    expect(receiver.received).toHaveLength(1);

    expect(await setActive(true)).toEqual({ status: 'active', disabledReason: null });
    expect((await deliveries())[0]).toMatchObject({ status: 'pending', attempts: 1, paused: false });
    expect(await run(secondsAfter(t0, 3601))).toMatchObject({ claimed: 1, succeeded: 1 });
    expect((await deliveries())[0]).toMatchObject({ status: 'succeeded', attempts: 2, lastResponseCode: 200 });
    expect(receiver.received).toHaveLength(2);
  });

  it('paused before its first attempt: nothing is sent until re-activated', async () => {
    const { receiver } = bed;
    const { setActive, deliveries } = await queued(10);
    await setActive(false);
    expect((await run(secondsAfter(new Date(), 60))).claimed).toBe(0);
    expect((await deliveries())[0]).toMatchObject({ status: 'pending', attempts: 0, paused: true });
    await setActive(true);
    expect(await run(secondsAfter(new Date(), 60))).toMatchObject({ claimed: 1, succeeded: 1 });
    expect(receiver.received).toHaveLength(1);
  });

  it('a claim that races with the pause puts the delivery back without using an attempt', async () => {
    const { server, receiver } = bed;
    const { id, setActive, deliveries } = await queued(11);
    const worker = new WebhookWorker({ database: server.runtime.database, logger: createLogger('silent'), config: server.runtime.config });
    const now = secondsAfter(new Date(), 60);
    const claimed = await worker.claim(now);
    expect(claimed.map((c) => c.subscription?.id)).toEqual([id]);
    // The pause committed between the claim and the send: the claimed copy says disabled.
    await setActive(false);
    const attempt = (worker as unknown as { attempt: (c: unknown, time: () => Date) => Promise<string> }).attempt.bind(worker);
    expect(await attempt({ ...claimed[0]!, subscription: { ...claimed[0]!.subscription!, status: 'disabled' } }, () => now)).toBe('pending');
    expect(receiver.received).toHaveLength(0);
    const [row] = await deliveries();
    // The pause flagged it while it was leased; putting it back keeps the flag.
    expect(row).toMatchObject({ status: 'pending', attempts: 0, lockedUntil: null, leaseId: null, lastError: null, paused: true });
    expect(row!.nextAttemptAt.getTime()).toBeLessThanOrEqual(now.getTime());
    await setActive(true);
    expect(await run(now)).toMatchObject({ claimed: 1, succeeded: 1 });
  });

  it('a delivery written as the pause committed (its event read the subscription active) is flagged by the claim, unsent', async () => {
    const { server, receiver } = bed;
    const { id, setActive, deliveries } = await queued(15);
    // The pause's flagging did not see it: only the status changed.
    await server.runtime.database.db.update(webhookSubscriptions).set({ status: 'disabled' }).where(eq(webhookSubscriptions.id, id));
    expect((await deliveries())[0]).toMatchObject({ status: 'pending', paused: false });
    expect((await run(secondsAfter(new Date(), 60))).claimed).toBe(0);
    expect((await deliveries())[0]).toMatchObject({ status: 'pending', attempts: 0, lockedUntil: null, leaseId: null, paused: true });
    expect(receiver.received).toHaveLength(0);
    await setActive(true);
    expect(await run(secondsAfter(new Date(), 60))).toMatchObject({ claimed: 1, succeeded: 1 });
    expect(receiver.received).toHaveLength(1);
  });

  it('deleted: its deliveries go with it and nothing is sent', async () => {
    const { server, receiver } = bed;
    const { tenant, id, setActive, deliveries } = await queued(12);
    await setActive(false);
    expect((await gql(server.url, tenant.accessToken, DELETE, { appId: tenant.appId, id })).body.data.deleteWebhookSubscription).toEqual({ id });
    expect(await deliveries()).toEqual([]);
    expect((await run(secondsAfter(new Date(), 60))).claimed).toBe(0);
    expect(receiver.received).toHaveLength(0);
  });
});

describe('a subscription disabled by 410 Gone', () => {
  it('fails the delivery that got the 410; its other pending deliveries wait and resume when it is enabled again', async () => {
    const { server, receiver } = bed;
    const { tenant, a, setActive, deliveries } = await queued(13);
    await a.cancel((await a.create(booking(futureDay(7, 14)))).body.data.call.id);
    const [gone, other] = await deliveries();
    // The first one gets 410; the second is not due yet (it waits for a later time).
    await server.runtime.database.db
      .update(webhookDeliveries)
      .set({ nextAttemptAt: secondsAfter(new Date(), 30) })
      .where(eq(webhookDeliveries.id, other!.id));
    receiver.reply({ status: 410 });
    const t0 = secondsAfter(new Date(), 1);
    expect(await run(t0)).toMatchObject({ claimed: 1, failed: 1 });
    // Flagged too: it was still pending, under its lease, when the 410 disabled the subscription.
    expect((await deliveries()).find((d) => d.id === gone!.id)).toMatchObject({ status: 'failed', attempts: 1, lastResponseCode: 410, paused: true });

    expect((await run(secondsAfter(t0, 120))).claimed).toBe(0);
    // Flagged in the 410's transaction, with the subscription's status.
    expect((await deliveries()).find((d) => d.id === other!.id)).toMatchObject({ status: 'pending', attempts: 0, lastError: null, paused: true });

    expect(await setActive(true)).toEqual({ status: 'active', disabledReason: null });
    expect((await deliveries()).find((d) => d.id === other!.id)).toMatchObject({ status: 'pending', paused: false });
    expect(await run(secondsAfter(t0, 121))).toMatchObject({ claimed: 1, succeeded: 1 });
    expect((await deliveries()).find((d) => d.id === other!.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(receiver.received.map((m) => m.headers['webhook-id'])).toEqual([gone!.id, other!.id]);

    // The 410'd one, flagged while it was being sent, goes out again when retried.
    const retried = await gql(server.url, tenant.accessToken, RETRY, { appId: tenant.appId, id: gone!.id });
    expect(retried.body.data.retryWebhookDelivery).toEqual({ id: gone!.id, status: 'pending', attempts: 0 });
    expect((await deliveries()).find((d) => d.id === gone!.id)).toMatchObject({ status: 'pending', paused: false });
    expect(await run(secondsAfter(t0, 122))).toMatchObject({ claimed: 1, succeeded: 1 });
    expect(receiver.received.map((m) => m.headers['webhook-id'])).toEqual([gone!.id, other!.id, gone!.id]);
  });
});

describe.runIf(process.env.DATABASE_URL)('enabling while a claim flags a delivery (PostgreSQL)', () => {
  it('waits for the claim and clears the flag it wrote', async () => {
    const { server } = bed;
    const { id, setActive, deliveries } = await queued(16);
    await server.runtime.database.db.update(webhookSubscriptions).set({ status: 'disabled' }).where(eq(webhookSubscriptions.id, id));
    const [delivery] = await deliveries();
    const waitingOnLocks = async () =>
      rowsOf<{ n: number }>(
        await server.runtime.database.db.execute(
          sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
        ),
      )[0]!.n;
    // What a claim that read the subscription as disabled does, on a connection of its own, held
    // open until the enable waits for it (or 3 s, when it does not wait: the flag would stay).
    const claim = postgres(server.databaseUrl!, { max: 1, onnotice: () => {} });
    let enabled: ReturnType<typeof setActive> | undefined;
    try {
      await claim.begin(async (tx) => {
        await tx`select id from webhook_deliveries where id = ${delivery!.id} for update skip locked`;
        await tx`update webhook_deliveries set paused = true where id = ${delivery!.id}`;
        enabled = setActive(true);
        for (let waited = 0; waited < 3000 && (await waitingOnLocks()) === 0; waited += 20) await new Promise((r) => setTimeout(r, 20));
      });
      expect(await enabled).toEqual({ status: 'active', disabledReason: null });
    } finally {
      await claim.end();
    }
    expect((await deliveries())[0]).toMatchObject({ status: 'pending', paused: false });
    expect(await run(secondsAfter(new Date(), 60))).toMatchObject({ claimed: 1, succeeded: 1 });
  });
});
