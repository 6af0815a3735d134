import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { enqueueMessages } from '../../src/webhooks/outbox.js';
import { webhookSubscriptions } from '../../src/webhooks/tables.js';
import { checkWebhookContract } from '../helpers/contract.js';
import { gql, request } from '../helpers/http.js';
import type { Tenant, TestServer } from '../helpers/server.js';
import { futureDay } from '../scheduling/fixtures.js';
import { videoCallLifecycle } from '../video/fixtures.js';
import { booking, deliveriesOf, DELIVERIES, schedulingTenant, secondsAfter, startReceiver, verifyAt, webhookTestBed, type Receiver } from './fixtures.js';

// The push side of the event stream through the real server: subscriptions by pattern, every
// catalogue type signed through the outbox, secret rotation, test deliveries, and endpoints
// disabled after failing. One retry (1 s), and two deliveries failing in a row disable.
const bed = webhookTestBed({ WEBHOOK_RETRY_SCHEDULE: '1', WEBHOOK_DISABLE_AFTER_FAILURES: '2' });
let server: TestServer;
let receiver: Receiver;
beforeEach(() => {
  ({ server, receiver } = bed);
});

const run = (at: Date) => server.runtime.webhooks.runOnce(at);
const HOUR = 3600;

const CREATE = `mutation($appId: UUID!, $url: String!, $events: [String!]) {
  createWebhookSubscription(appId: $appId, url: $url, events: $events) {
    secret subscription { id: subscriptionId events eventTypes status consecutiveFailures previousSecretExpiresAt }
  }
}`;
const ROTATE = `mutation($appId: UUID!, $id: UUID!, $overlapSeconds: Int) {
  rotateWebhookSecret(appId: $appId, id: $id, overlapSeconds: $overlapSeconds) {
    secret previousSecretExpiresAt subscription { id: subscriptionId previousSecretExpiresAt }
  }
}`;
const PING = `mutation($appId: UUID!, $id: UUID!) { pingWebhookSubscription(appId: $appId, id: $id) { id: deliveryId eventType status subscriptionId } }`;
const SUBSCRIPTIONS = `query($appId: UUID!) { webhookSubscriptions(appId: $appId) { id: subscriptionId status disabledReason consecutiveFailures events } }`;
const SET_STATUS = `mutation($appId: UUID!, $id: UUID!, $active: Boolean!) { setWebhookSubscriptionStatus(appId: $appId, id: $id, active: $active) { status consecutiveFailures } }`;

async function subscribeTo(tenant: Pick<Tenant, 'appId' | 'accessToken'>, url: string, events: string[]) {
  const res = await gql(server.url, tenant.accessToken, CREATE, { appId: tenant.appId, url, events });
  if (!res.body.data) throw new Error(`subscribe failed: ${JSON.stringify(res.body)}`);
  const created = res.body.data.createWebhookSubscription as { secret: string; subscription: { id: string; events: string[]; eventTypes: string[] } };
  return { id: created.subscription.id, secret: created.secret, subscription: created.subscription };
}

/** What a producer does: announce events in its own transaction. */
const announce = (appId: string, messages: { type: string; at: Date; data: Record<string, unknown> }[]) =>
  server.runtime.database.db.transaction((tx) => enqueueMessages(tx, appId, messages));

const bodies = (r: Receiver) => r.received.map((m) => JSON.parse(m.body) as { type: string; timestamp: string; data: Record<string, unknown> });

describe('subscriptions by pattern', () => {
  it('a message.received enqueued in a transaction arrives signed, verifiable with standardwebhooks, and matches the document', async () => {
    const tenant = await server.tenant();
    const { secret, subscription } = await subscribeTo(tenant, receiver.url, ['message.received']);
    expect(subscription).toMatchObject({ events: ['message.received'], eventTypes: ['message_received'], status: 'active', consecutiveFailures: 0, previousSecretExpiresAt: null });
    const at = new Date();
    // What recordEvents() enqueues for an inbound message: the event record, its message as resource.
    const resource = {
      id: '0b5e7c5e-0000-4000-8000-000000000001', source: 'whatsapp', destination: 'switchboard', provider_from: '447700900001', provider_to: null,
      channel: 'whatsapp', direction: 'inbound', message_type: 'text', user_phone: '447700900001', conversation_key: '447700900001',
      provider_message_id: 'wamid.1', status: 'received', sent_at: at.toISOString(), delivered_at: null, read_at: null, failed_at: null,
      error_message: null, created_at: at.toISOString(),
    };
    const data = { id: '01890a5d-ac96-774b-bcce-b302099a8057', type: 'message.received', occurred_at: at.toISOString(), actor_type: 'system', actor_id: 'system', resource };
    expect(await announce(tenant.appId, [{ type: 'message.received', at, data }])).toBe(1);

    expect(await run(at)).toMatchObject({ succeeded: 1 });
    expect(receiver.received).toHaveLength(1);
    const [message] = receiver.received;
    expect(message!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(verifyAt(secret, message!, at)).toEqual({ type: 'message.received', timestamp: at.toISOString(), data });
    checkWebhookContract(message!.headers, message!.body);
    const [row] = await deliveriesOf(server, tenant.appId);
    expect(row).toMatchObject({ eventType: 'message.received', status: 'succeeded', attempts: 1 });
    expect(message!.headers['webhook-id']).toBe(row!.id);
  });

  it('exact types, group wildcards and * select their types; * leaves the legacy scheduled.* types to those who list them', async () => {
    const { tenant, a } = await schedulingTenant(server);
    const group = await startReceiver();
    const all = await startReceiver();
    const exact = await startReceiver();
    const legacy = await startReceiver();
    try {
      const groupSub = await subscribeTo(tenant, group.url, ['video_call.*']);
      expect(groupSub.subscription.eventTypes).toEqual(['video_call_created', 'video_call_participant_joined', 'video_call_participant_left', 'video_call_ended']);
      const allSub = await subscribeTo(tenant, all.url, ['*']);
      await subscribeTo(tenant, exact.url, ['message.received', 'scheduled_call.cancelled', 'message.received']);
      await subscribeTo(tenant, legacy.url, ['scheduled.cancelled']);
      const at = new Date();
      await announce(tenant.appId, [
        { type: 'video_call.ended', at, data: { video_call: { id: 'v1' } } },
        { type: 'message.received', at, data: { message: { id: 'm1' } } },
        { type: 'scheduled_call.cancelled', at, data: { call: { id: 'c1' } } },
        { type: 'recording.updated', at, data: { recording: { id: 'r1' } } },
      ]);
      const call = (await a.create(booking(futureDay(3, 11)))).body.data.call;
      expect((await a.cancel(call.id)).status).toBe(200);
      await run(new Date());

      const types = (r: Receiver) => bodies(r).map((b) => b.type).sort();
      expect(types(group)).toEqual(['video_call.ended']);
      expect(types(all)).toEqual(['message.received', 'recording.updated', 'scheduled_call.cancelled', 'video_call.ended']);
      expect(types(exact)).toEqual(['message.received', 'scheduled_call.cancelled']);
      expect(types(legacy)).toEqual(['scheduled.cancelled']);
      // The bodies announced above are stand-ins; the legacy ones come from the real cancel.
      for (const m of legacy.received) checkWebhookContract(m.headers, m.body);
      for (const m of all.received) expect(verifyAt(allSub.secret, m)).toEqual(JSON.parse(m.body));
      // Duplicates are dropped when stored.
      const listed = await gql(server.url, tenant.accessToken, SUBSCRIPTIONS, { appId: tenant.appId });
      expect(listed.body.data.webhookSubscriptions.map((s: any) => s.events)).toEqual([['video_call.*'], ['*'], ['message.received', 'scheduled_call.cancelled'], ['scheduled.cancelled']]);
    } finally {
      await Promise.all([group, all, exact, legacy].map((r) => r.close()));
    }
  });

  it('real changes of each resource arrive typed as the webhooks section says, none as null', async () => {
    const { tenant, a } = await schedulingTenant(server);
    const all = await startReceiver();
    try {
      await subscribeTo(tenant, all.url, ['*']);
      const call = (await a.create({ ...booking(futureDay(4, 11)), guestName: 'Ann Lee' })).body.data.call;
      expect((await a.patch(call.id, { guestName: 'Ann B. Lee' })).status).toBe(200);
      expect((await a.cancel(call.id)).status).toBe(200);
      const video = async (query: string, variables: Record<string, unknown> = {}) => {
        const res = await gql(server.url, tenant.accessToken, query, { app: tenant.appId, ...variables });
        expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
        return res.body.data;
      };
      const videoId = await videoCallLifecycle(video);
      const inbound = await fetch(`${server.url}/api/v1/messaging/${tenant.appId}/inbound`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'message', id: `wamid.typed.${Date.now()}`, from: '447700900123', text: 'hi' }),
      });
      expect(inbound.status).toBe(200);
      // A run sends a bounded batch per endpoint: run until all nine are in.
      for (let i = 0; i < 10 && all.received.length < 9; i++) await run(new Date());

      const received = bodies(all);
      expect(received.map((b) => b.type).sort()).toEqual([
        'scheduled_call.created',
        'scheduled_call.updated',
        'scheduled_call.cancelled',
        'video_call.created',
        'video_call.participant_joined',
        'video_call.participant_left',
        'recording.updated',
        'video_call.ended',
        'message.received',
      ].sort());
      for (const m of all.received) checkWebhookContract(m.headers, m.body);
      const byType = Object.fromEntries(received.map((b) => [b.type, b.data as any]));
      expect(byType['message.received'].resource).toMatchObject({ provider_to: null, direction: 'inbound', status: 'received' });
      expect(byType['video_call.participant_left'].resource).toMatchObject({ video_call_id: videoId, provider_participant_id: 'g-1', left_at: expect.any(String) });
      // Every field of the call, none as null: not yet cancelled, or cancelled without a reason.
      expect(byType['scheduled_call.created'].resource).toMatchObject({ id: call.id, cancelled_at: null, cancellation_reason: null });
      expect(byType['scheduled_call.cancelled'].resource).toMatchObject({ id: call.id, status: 'cancelled', cancelled_at: expect.any(String), cancellation_reason: null });
    } finally {
      await all.close();
    }
  });

  it('the enum input still subscribes to legacy types, and may name catalogue types too', async () => {
    const tenant = await server.tenant();
    const res = await gql(server.url, tenant.accessToken, `mutation($appId: UUID!, $url: String!) { createWebhookSubscription(appId: $appId, url: $url, eventTypes: [scheduled_cancelled, message_received]) { subscription { events eventTypes } } }`, {
      appId: tenant.appId,
      url: receiver.url,
    });
    expect(res.body.data.createWebhookSubscription.subscription).toEqual({ events: ['scheduled.cancelled', 'message.received'], eventTypes: ['scheduled_cancelled', 'message_received'] });
  });
});

describe('secret rotation', () => {
  it('signs with both secrets during the overlap, then with the new one only, and erases the old one', async () => {
    const tenant = await server.tenant();
    const { id, secret: oldSecret } = await subscribeTo(tenant, receiver.url, ['message.*']);
    const before = Date.now();
    const rotated = await gql(server.url, tenant.accessToken, ROTATE, { appId: tenant.appId, id });
    const { secret: newSecret, previousSecretExpiresAt, subscription } = rotated.body.data.rotateWebhookSecret;
    expect(newSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(newSecret).not.toBe(oldSecret);
    // The default overlap: 24 hours.
    const expires = Date.parse(previousSecretExpiresAt);
    expect(expires - before).toBeGreaterThanOrEqual(24 * HOUR * 1000 - 1000);
    expect(expires - before).toBeLessThanOrEqual(24 * HOUR * 1000 + 60_000);
    expect(subscription.previousSecretExpiresAt).toBe(previousSecretExpiresAt);

    const during = new Date();
    await announce(tenant.appId, [{ type: 'message.received', at: during, data: { n: 1 } }]);
    await run(during);
    const [first] = receiver.received;
    expect(first!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+ v1,[A-Za-z0-9+/=]+$/);
    expect(verifyAt(oldSecret, first!, during)).toMatchObject({ data: { n: 1 } });
    expect(verifyAt(newSecret, first!, during)).toMatchObject({ data: { n: 1 } });

    const after = secondsAfter(new Date(expires), 1);
    await announce(tenant.appId, [{ type: 'message.received', at: after, data: { n: 2 } }]);
    await run(after);
    const second = receiver.received[1]!;
    expect(second.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(verifyAt(newSecret, second, after)).toMatchObject({ data: { n: 2 } });
    expect(() => verifyAt(oldSecret, second, after)).toThrow();
    const [row] = await server.runtime.database.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, id));
    expect(row).toMatchObject({ secret: newSecret, previousSecret: null, previousSecretExpiresAt: null });
  });

  it('overlapSeconds 0 switches at once; rotating again keeps only the two newest secrets', async () => {
    const tenant = await server.tenant();
    const { id, secret: s1 } = await subscribeTo(tenant, receiver.url, ['message.received']);
    const r2 = (await gql(server.url, tenant.accessToken, ROTATE, { appId: tenant.appId, id, overlapSeconds: 600 })).body.data.rotateWebhookSecret;
    const r3 = (await gql(server.url, tenant.accessToken, ROTATE, { appId: tenant.appId, id, overlapSeconds: 600 })).body.data.rotateWebhookSecret;
    const at = new Date();
    await announce(tenant.appId, [{ type: 'message.received', at, data: {} }]);
    await run(at);
    const [m] = receiver.received;
    expect(m!.headers['webhook-signature']!.toString().split(' ')).toHaveLength(2);
    expect(verifyAt(r3.secret, m!, at)).toBeTruthy();
    expect(verifyAt(r2.secret, m!, at)).toBeTruthy();
    expect(() => verifyAt(s1, m!, at)).toThrow();

    const r4 = (await gql(server.url, tenant.accessToken, ROTATE, { appId: tenant.appId, id, overlapSeconds: 0 })).body.data.rotateWebhookSecret;
    expect(r4.previousSecretExpiresAt).toBeNull();
    const next = new Date();
    await announce(tenant.appId, [{ type: 'message.received', at: next, data: {} }]);
    await run(next);
    const m2 = receiver.received[1]!;
    expect(verifyAt(r4.secret, m2, next)).toBeTruthy();
    expect(() => verifyAt(r3.secret, m2, next)).toThrow();
  });
});

describe('test deliveries', () => {
  it('ping queues a signed webhook.ping to that endpoint alone, whatever it lists; its id finds its status', async () => {
    const tenant = await server.tenant();
    const other = await startReceiver();
    try {
      const target = await subscribeTo(tenant, receiver.url, ['scheduled.cancelled']);
      await subscribeTo(tenant, other.url, ['*']);
      const res = await gql(server.url, tenant.accessToken, PING, { appId: tenant.appId, id: target.id });
      const delivery = res.body.data.pingWebhookSubscription;
      expect(delivery).toMatchObject({ eventType: 'webhook_ping', status: 'pending', subscriptionId: target.id });
      await run(new Date());
      expect(other.received).toEqual([]);
      expect(receiver.received).toHaveLength(1);
      const [m] = receiver.received;
      expect(m!.headers['webhook-id']).toBe(delivery.id);
      const body = verifyAt(target.secret, m!) as any;
      expect(body).toMatchObject({ type: 'webhook.ping', data: { endpoint: { id: target.id, app_id: tenant.appId, url: receiver.url, events: ['scheduled.cancelled'], status: 'active' } } });
      expect(body.data.endpoint).not.toHaveProperty('secret');
      checkWebhookContract(m!.headers, m!.body);
      const listed = await gql(server.url, tenant.accessToken, DELIVERIES, { appId: tenant.appId });
      expect(listed.body.data.webhookDeliveries.nodes).toEqual([expect.objectContaining({ id: delivery.id, eventType: 'webhook_ping', status: 'succeeded' })]);
    } finally {
      await other.close();
    }
  });
});

describe('endpoints that keep failing', () => {
  it('two deliveries failing every attempt disable the endpoint and tell the app’s other endpoints; enabling resets the count', async () => {
    const tenant = await server.tenant();
    const failing = await startReceiver({ status: 500 });
    try {
      const bad = await subscribeTo(tenant, failing.url, ['message.*']);
      const watcher = await subscribeTo(tenant, receiver.url, ['webhook_endpoint.disabled']);
      const t0 = new Date();
      await announce(tenant.appId, [{ type: 'message.received', at: t0, data: { n: 1 } }]);
      await run(t0);
      await run(secondsAfter(t0, 2)); // the last attempt: failed for good, one in a row
      let subs = (await gql(server.url, tenant.accessToken, SUBSCRIPTIONS, { appId: tenant.appId })).body.data.webhookSubscriptions;
      expect(subs[0]).toMatchObject({ status: 'active', consecutiveFailures: 1 });
      expect(receiver.received).toEqual([]);

      const t1 = secondsAfter(t0, 3);
      await announce(tenant.appId, [{ type: 'message.received', at: t1, data: { n: 2 } }]);
      await run(t1);
      await run(secondsAfter(t1, 2));
      expect(failing.received).toHaveLength(4);
      subs = (await gql(server.url, tenant.accessToken, SUBSCRIPTIONS, { appId: tenant.appId })).body.data.webhookSubscriptions;
      expect(subs[0]).toMatchObject({ id: bad.id, status: 'disabled', consecutiveFailures: 2, disabledReason: '2 deliveries in a row failed after all their attempts' });

      // The announcement, to the other endpoint only.
      await run(secondsAfter(t1, 3));
      expect(receiver.received).toHaveLength(1);
      const [m] = receiver.received;
      checkWebhookContract(m!.headers, m!.body);
      expect(verifyAt(watcher.secret, m!)).toMatchObject({
        type: 'webhook_endpoint.disabled',
        data: {
          type: 'webhook_endpoint.disabled',
          actor_type: 'system',
          resource: { reason: 'consecutive_failures', consecutive_failures: 2, endpoint: { id: bad.id, status: 'disabled', disabled_reason: '2 deliveries in a row failed after all their attempts' } },
        },
      });
      // The same event in the app's event log, under the id the delivery carried.
      const logged = await request(`${server.url}/api/v1/events/${tenant.appId}?types=webhook_endpoint.*`, { token: tenant.accessToken });
      expect(logged.status).toBe(200);
      expect(logged.body.data).toEqual([(verifyAt(watcher.secret, m!) as { data: unknown }).data]);
      // Nothing more goes to the disabled endpoint.
      await announce(tenant.appId, [{ type: 'message.received', at: secondsAfter(t1, 4), data: { n: 3 } }]);
      await run(secondsAfter(t1, 5));
      expect(failing.received).toHaveLength(4);

      const enabled = await gql(server.url, tenant.accessToken, SET_STATUS, { appId: tenant.appId, id: bad.id, active: true });
      expect(enabled.body.data.setWebhookSubscriptionStatus).toEqual({ status: 'active', consecutiveFailures: 0 });
    } finally {
      await failing.close();
    }
  });

  it('a success between failures starts the count again', async () => {
    const tenant = await server.tenant();
    const flaky = await startReceiver({ status: 500 });
    try {
      const sub = await subscribeTo(tenant, flaky.url, ['flow.completed']);
      const t0 = new Date();
      await announce(tenant.appId, [{ type: 'flow.completed', at: t0, data: {} }]);
      await run(t0);
      await run(secondsAfter(t0, 2));
      flaky.reply({ status: 200 });
      await announce(tenant.appId, [{ type: 'flow.completed', at: secondsAfter(t0, 3), data: {} }]);
      await run(secondsAfter(t0, 3));
      await announce(tenant.appId, [{ type: 'flow.completed', at: secondsAfter(t0, 4), data: {} }]);
      await run(secondsAfter(t0, 4));
      await run(secondsAfter(t0, 6));
      const [row] = await server.runtime.database.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, sub.id));
      expect(row).toMatchObject({ status: 'active', consecutiveFailures: 1 });
    } finally {
      await flaky.close();
    }
  });

  it('a 410 disables the endpoint and announces it with reason gone', async () => {
    const tenant = await server.tenant();
    const gone = await startReceiver({ status: 410 });
    try {
      const sub = await subscribeTo(tenant, gone.url, ['message.received']);
      const watcher = await subscribeTo(tenant, receiver.url, ['webhook_endpoint.*']);
      const at = new Date();
      await announce(tenant.appId, [{ type: 'message.received', at, data: {} }]);
      await run(at);
      await run(secondsAfter(at, 1));
      expect(verifyAt(watcher.secret, receiver.received[0]!)).toMatchObject({
        type: 'webhook_endpoint.disabled',
        data: { resource: { reason: 'gone', endpoint: { id: sub.id, disabled_reason: 'the endpoint answered 410 Gone' } } },
      });
    } finally {
      await gone.close();
    }
  });
});
