import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { webhookDeliveries } from '../../src/webhooks/tables.js';
import { checkWebhookContract } from '../helpers/contract.js';
import { gql } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { futureDay } from '../scheduling/fixtures.js';
import { booking, deliveriesOf, DELIVERIES, schedulingTenant, secondsAfter, subscribe, verifyAt, webhookTestBed, type Receiver } from './fixtures.js';

// Outbound webhooks end to end: a REST write, the outbox row written with it, the worker
// (driven with an explicit clock: WEBHOOK_POLL_MS=0 keeps the poller off) and a real receiver.
const bed = webhookTestBed();
let server: TestServer;
let receiver: Receiver;
beforeEach(() => {
  ({ server, receiver } = bed);
});

const schedule = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400];
const run = (at: Date) => server.runtime.webhooks.runOnce(at);
const receivedFor = (id: string) => receiver.received.filter((m) => m.headers['webhook-id'] === id);

describe('scheduled.cancelled webhooks', () => {
  it('DELETE over REST queues scheduled.cancelled; a 500 is retried within seconds; both attempts verify with the same webhook-id', async () => {
    const { tenant, a } = await schedulingTenant(server);
    const { secret } = await subscribe(server, tenant, receiver.url, ['scheduled.cancelled']);
    const created = await a.create(booking(futureDay(4, 10)));
    expect(created.status).toBe(201);
    const callId = created.body.data.call.id as string;
    expect(await deliveriesOf(server, tenant.appId)).toEqual([]); // not subscribed to scheduled.created

    const cancelled = await a.cancel(callId, { json: { reason: 'Guest asked' } });
    expect(cancelled.status).toBe(200);
    const [queued] = await deliveriesOf(server, tenant.appId);
    expect(queued).toMatchObject({ eventType: 'scheduled.cancelled', status: 'pending', attempts: 0 });

    receiver.reply({ status: 500 });
    const t0 = new Date();
    expect(await run(t0)).toMatchObject({ claimed: 1, retrying: 1 });
    const [afterFirst] = await deliveriesOf(server, tenant.appId);
    expect(afterFirst).toMatchObject({ status: 'pending', attempts: 1, lastResponseCode: 500, lastError: 'http_500' });
    const delay = afterFirst!.nextAttemptAt.getTime() - t0.getTime();
    expect(delay).toBeGreaterThanOrEqual(4500);
    expect(delay).toBeLessThanOrEqual(5500);

    expect((await run(secondsAfter(t0, 4))).claimed).toBe(0); // not due yet
    const t1 = secondsAfter(t0, 6);
    expect(await run(t1)).toMatchObject({ claimed: 1, succeeded: 1 });

    const messages = receivedFor(queued!.id);
    expect(messages).toHaveLength(2);
    expect(messages[0]!.headers['webhook-timestamp']).toBe(String(Math.floor(t0.getTime() / 1000)));
    expect(messages[1]!.headers['webhook-timestamp']).toBe(String(Math.floor(t1.getTime() / 1000)));
    expect(messages[1]!.headers['content-type']).toBe('application/json');
    expect(messages[1]!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    const payload = verifyAt(secret, messages[1]!, t1) as any;
    for (const m of messages) checkWebhookContract(m.headers, m.body);
    expect(verifyAt(secret, messages[0]!, t0)).toEqual(payload);
    expect(payload).toEqual({
      type: 'scheduled.cancelled',
      timestamp: queued!.createdAt.toISOString(),
      data: {
        call: {
          id: callId,
          app_id: tenant.appId,
          assigned_agent_id: created.body.data.call.assigned_agent_id,
          booking_source: 'api',
          guest_name: 'Ann Lee',
          guest_phone: null,
          guest_email: null,
          guest_timezone: 'UTC',
          guest_intake_notes: null,
          metadata: null,
          answers: null,
          scheduled_at: created.body.data.call.scheduled_at,
          duration_minutes: 30,
          app_timezone: 'UTC',
          status: 'cancelled',
          created_at: created.body.data.call.created_at,
          cancelled_at: cancelled.body.data.call.cancelled_at,
          cancellation_reason: 'Guest asked',
        },
        event: {
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          event_type: 'cancelled',
          actor_type: 'client',
          actor_id: tenant.clientId,
          payload: { reason: 'Guest asked' },
          created_at: cancelled.body.data.call.cancelled_at,
        },
      },
    });

    // The same message with its body altered fails verification; so does another secret.
    const tampered = { ...messages[1]!, body: messages[1]!.body.replace('Guest asked', 'Guest asked!') };
    expect(() => verifyAt(secret, tampered, t1)).toThrow();
    const other = await subscribe(server, tenant, receiver.url, ['scheduled.reminder']);
    expect(() => verifyAt(other.secret, messages[1]!, t1)).toThrow();

    const listed = await gql(server.url, tenant.accessToken, DELIVERIES, { appId: tenant.appId });
    expect(listed.body.data.webhookDeliveries.nodes).toEqual([
      {
        id: queued!.id,
        eventType: 'scheduled_cancelled', // the enum's name; the delivered body's type keeps the dot
        status: 'succeeded',
        attempts: 2,
        lastResponseCode: 200,
        lastError: null,
        nextAttemptAt: null,
        deliveredAt: t1.toISOString(),
        payload,
      },
    ]);
  });

  it('each timeline event maps to its webhook type; a PATCH with two changes queues two', async () => {
    const { tenant, a } = await schedulingTenant(server);
    await subscribe(server, tenant, receiver.url, ['scheduled.created', 'scheduled.rescheduled', 'scheduled.updated', 'scheduled.cancelled']);
    const call = (await a.create(booking(futureDay(4, 14)))).body.data.call;
    expect((await a.patch(call.id, { scheduledAtUtc: futureDay(4, 15).toISOString(), guestName: 'Bo', reason: 'moved' })).status).toBe(200);
    const rows = await deliveriesOf(server, tenant.appId);
    expect(rows.map((d) => d.eventType).sort()).toEqual(['scheduled.created', 'scheduled.rescheduled', 'scheduled.updated']);
    const rescheduled = rows.find((d) => d.eventType === 'scheduled.rescheduled')!.payload as any;
    expect(rescheduled.data.call).toMatchObject({ guest_name: 'Bo', scheduled_at: futureDay(4, 15).toISOString() });
    expect(rescheduled.data.event.payload).toEqual({ from: futureDay(4, 14).toISOString(), to: futureDay(4, 15).toISOString(), reason: 'moved' });
  });
});

describe('retries', () => {
  it('follow 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h (+-10%) and end failed after the 10th attempt', async () => {
    const { tenant, a } = await schedulingTenant(server);
    await subscribe(server, tenant, receiver.url, ['scheduled.cancelled']);
    const call = (await a.create(booking(futureDay(4, 16)))).body.data.call;
    await a.cancel(call.id);
    const [delivery] = await deliveriesOf(server, tenant.appId);
    let at = new Date();
    receiver.reply(...Array.from({ length: 10 }, () => ({ status: 503 })));
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      expect((await run(at)).claimed).toBeGreaterThanOrEqual(1);
      const [row] = await deliveriesOf(server, tenant.appId);
      expect(row!.attempts).toBe(attempt);
      if (attempt === 10) {
        expect(row).toMatchObject({ status: 'failed', lastResponseCode: 503, lastError: 'http_503' });
        break;
      }
      expect(row!.status).toBe('pending');
      const delay = (row!.nextAttemptAt.getTime() - at.getTime()) / 1000;
      expect(delay).toBeGreaterThanOrEqual(schedule[attempt - 1]! * 0.9 - 0.001);
      expect(delay).toBeLessThanOrEqual(schedule[attempt - 1]! * 1.1 + 0.001);
      // Not a moment early.
      const early = await run(new Date(row!.nextAttemptAt.getTime() - 1));
      expect(receivedFor(delivery!.id)).toHaveLength(attempt);
      expect(early.claimed).toBe(0);
      at = row!.nextAttemptAt;
    }
    expect(receivedFor(delivery!.id)).toHaveLength(10);
    await run(secondsAfter(at, 200_000));
    expect(receivedFor(delivery!.id)).toHaveLength(10);
    const listed = await gql(server.url, tenant.accessToken, DELIVERIES, { appId: tenant.appId, status: 'failed' });
    expect(listed.body.data.webhookDeliveries.nodes).toMatchObject([{ id: delivery!.id, status: 'failed', attempts: 10, nextAttemptAt: null }]);

    // A failed delivery can be queued again, same id.
    const RETRY = `mutation($appId: UUID!, $id: UUID!) { retryWebhookDelivery(appId: $appId, id: $id) { id: deliveryId status attempts } }`;
    const retried = await gql(server.url, tenant.accessToken, RETRY, { appId: tenant.appId, id: delivery!.id });
    expect(retried.body.data.retryWebhookDelivery).toEqual({ id: delivery!.id, status: 'pending', attempts: 0 });
    await run(new Date(Date.now() + 1000));
    expect(receivedFor(delivery!.id)).toHaveLength(11);
    expect((await deliveriesOf(server, tenant.appId))[0]).toMatchObject({ status: 'succeeded', attempts: 1 });
    const again = await gql(server.url, tenant.accessToken, RETRY, { appId: tenant.appId, id: delivery!.id });
    expect(again.body.errors![0]!.extensions!.code).toBe('conflict');
  });

  it('Retry-After postpones the next attempt beyond the schedule', async () => {
    const { tenant, a } = await schedulingTenant(server);
    await subscribe(server, tenant, receiver.url, ['scheduled.cancelled']);
    await a.cancel((await a.create(booking(futureDay(4, 18)))).body.data.call.id);
    receiver.reply({ status: 429, headers: { 'retry-after': '120' } });
    const t0 = new Date();
    await run(t0);
    const [row] = await deliveriesOf(server, tenant.appId);
    expect(row).toMatchObject({ status: 'pending', lastResponseCode: 429 });
    expect(row!.nextAttemptAt.getTime() - t0.getTime()).toBe(120_000);
  });
});

describe('subscriptions: validation, scopes and tenancy', () => {
  it('returns the whsec_ secret once; the list never shows it', async () => {
    const { tenant } = await schedulingTenant(server);
    const { secret, id } = await subscribe(server, tenant, receiver.url, ['scheduled.cancelled', 'scheduled.reminder']);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    const res = await gql(server.url, tenant.accessToken, `query($appId: UUID!) { webhookSubscriptions(appId: $appId) { id: subscriptionId url eventTypes status secret } }`, {
      appId: tenant.appId,
    });
    expect(res.body.errors![0]!.message).toMatch(/secret/);
    const list = await gql(server.url, tenant.accessToken, `query($appId: UUID!) { webhookSubscriptions(appId: $appId) { id: subscriptionId url eventTypes status } }`, {
      appId: tenant.appId,
    });
    expect(list.body.data.webhookSubscriptions).toEqual([{ id, url: receiver.url, eventTypes: ['scheduled_cancelled', 'scheduled_reminder'], status: 'active' }]);
  });

  it('pages deliveries newest first with a keyset cursor', async () => {
    const { tenant, a } = await schedulingTenant(server);
    await subscribe(server, tenant, receiver.url, ['scheduled.created']);
    for (const hour of [6, 7, 8]) expect((await a.create(booking(futureDay(6, hour)))).status).toBe(201);
    const first = await gql(server.url, tenant.accessToken, DELIVERIES, { appId: tenant.appId, first: 2 });
    const page1 = first.body.data.webhookDeliveries;
    expect(page1.nodes).toHaveLength(2);
    expect(page1.pageInfo.hasNextPage).toBe(true);
    const second = await gql(server.url, tenant.accessToken, DELIVERIES, { appId: tenant.appId, first: 2, after: page1.pageInfo.endCursor });
    const page2 = second.body.data.webhookDeliveries;
    expect(page2.nodes).toHaveLength(1);
    expect(page2.pageInfo.hasNextPage).toBe(false);
    const scheduledAt = [...page1.nodes, ...page2.nodes].map((n: any) => n.payload.data.call.scheduled_at);
    expect(scheduledAt).toEqual([futureDay(6, 8), futureDay(6, 7), futureDay(6, 6)].map((d) => d.toISOString()));
    const bad = await gql(server.url, tenant.accessToken, DELIVERIES, { appId: tenant.appId, after: 'bogus' });
    expect(bad.body.errors![0]!.extensions!.details[0].field).toBe('after');
  });
});

describe('the poller, on the real clock', () => {
  const { server: live } = useServer({ overrides: { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '50', WEBHOOK_RETRY_SCHEDULE: '0.2,0.2', WEBHOOK_TIMEOUT_MS: '500' } });

  const until = async (what: () => Promise<boolean>, ms = 20_000) => {
    const deadline = Date.now() + ms;
    while (!(await what())) {
      if (Date.now() > deadline) throw new Error('timed out waiting');
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('delivers on its own: a 500, then the retry 0.2 s later succeeds', async () => {
    const { tenant, a } = await schedulingTenant(live);
    await subscribe(live, tenant, receiver.url, ['scheduled.cancelled']);
    receiver.reply({ status: 500 });
    await a.cancel((await a.create(booking(futureDay(4, 10)))).body.data.call.id);
    await until(async () => (await deliveriesOf(live, tenant.appId))[0]?.status === 'succeeded');
    expect(receiver.received).toHaveLength(2);
    expect((await deliveriesOf(live, tenant.appId))[0]).toMatchObject({ attempts: 2, lastResponseCode: 200 });
  });

  it('an endpoint that never answers times out on every attempt and ends failed', async () => {
    const { tenant, a } = await schedulingTenant(live);
    await subscribe(live, tenant, receiver.url, ['scheduled.cancelled']);
    receiver.hold();
    await a.cancel((await a.create(booking(futureDay(4, 11)))).body.data.call.id);
    await until(async () => (await deliveriesOf(live, tenant.appId))[0]?.status === 'failed');
    expect((await deliveriesOf(live, tenant.appId))[0]).toMatchObject({ attempts: 3, lastResponseCode: null, lastError: 'timeout' });
    expect(receiver.received).toHaveLength(3);
    receiver.release();
  });
});

describe('the outbox shares the transaction of the event', () => {
  it('an event written in a transaction that rolls back leaves no delivery', async () => {
    const { appendEvents } = await import('../../src/scheduling/timeline.js');
    const { tenant, a } = await schedulingTenant(server);
    await subscribe(server, tenant, receiver.url, ['scheduled.updated']);
    const call = (await a.create(booking(futureDay(4, 13)))).body.data.call;
    const event = { eventType: 'updated' as const, payload: { fields: ['guest_name'] } };
    await expect(
      server.runtime.database.db.transaction(async (tx) => {
        await appendEvents(tx, { appId: tenant.appId, id: call.id }, { actorType: 'system', actorId: 'system' }, [event], new Date());
        expect(await tx.select().from(webhookDeliveries).where(eq(webhookDeliveries.appId, tenant.appId))).toHaveLength(1);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await deliveriesOf(server, tenant.appId)).toEqual([]);
    // Committed, the same write queues its delivery.
    await server.runtime.database.db.transaction((tx) =>
      appendEvents(tx, { appId: tenant.appId, id: call.id }, { actorType: 'system', actorId: 'system' }, [event], new Date()),
    );
    expect((await deliveriesOf(server, tenant.appId)).map((d) => d.eventType)).toEqual(['scheduled.updated']);
  });
});
