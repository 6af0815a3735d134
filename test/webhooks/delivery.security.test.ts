import { beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { webhookDeliveries } from '../../src/webhooks/tables.js';
import { WebhookWorker } from '../../src/webhooks/worker.js';
import { gql } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { futureDay } from '../scheduling/fixtures.js';
import { booking, deliveriesOf, DELIVERIES, schedulingTenant, secondsAfter, subscribe, webhookTestBed, type Receiver } from './fixtures.js';

// Outbound webhooks end to end: a REST write, the outbox row written with it, the worker
// (driven with an explicit clock: WEBHOOK_POLL_MS=0 keeps the poller off) and a real receiver.
const bed = webhookTestBed();
let server: TestServer;
let receiver: Receiver;
beforeEach(() => {
  ({ server, receiver } = bed);
});

describe('scheduled.cancelled webhooks', () => {
  it("another app's subscription receives nothing; a repeated DELETE queues nothing more", async () => {
    const first = await schedulingTenant(server);
    const second = await schedulingTenant(server);
    await subscribe(server, first.tenant, receiver.url, ['scheduled.cancelled']);
    await subscribe(server, second.tenant, receiver.url, ['scheduled.cancelled', 'scheduled.created']);
    const call = (await first.a.create(booking(futureDay(4, 12)))).body.data.call;
    expect((await first.a.cancel(call.id)).status).toBe(200);
    expect((await first.a.cancel(call.id)).status).toBe(200);
    expect((await deliveriesOf(server, first.tenant.appId)).map((d) => d.eventType)).toEqual(['scheduled.cancelled']);
    expect(await deliveriesOf(server, second.tenant.appId)).toEqual([]);
    // The second app cannot read the first app's deliveries either.
    const foreign = await gql(server.url, second.tenant.accessToken, DELIVERIES, { appId: first.tenant.appId });
    expect(foreign.body.errors![0]!.extensions!.code).toBe('forbidden');
  });
});

describe('retries', () => {
  it('refuses at delivery time an address that is private by then (DNS rebinding), leaving it pending', async () => {
    const { tenant, a } = await schedulingTenant(server);
    await subscribe(server, tenant, receiver.url, ['scheduled.cancelled']);
    await a.cancel((await a.create(booking(futureDay(5, 14)))).body.data.call.id);
    const guarded = new WebhookWorker({
      database: server.runtime.database,
      logger: createLogger('silent'),
      config: { ...server.runtime.config, WEBHOOK_ALLOW_PRIVATE: false },
    });
    const before = receiver.received.length;
    await guarded.runOnce(new Date());
    const [row] = await deliveriesOf(server, tenant.appId);
    expect(receiver.received).toHaveLength(before);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, lastResponseCode: null });
    expect(row!.lastError).toBe('address_refused');
  });

  it('refuses at delivery time the NAT64 local-use, IPv4-compatible and site-local forms of an internal address', async () => {
    const port = new URL(receiver.url).port;
    const guarded = new WebhookWorker({
      database: server.runtime.database,
      logger: createLogger('silent'),
      config: { ...server.runtime.config, WEBHOOK_ALLOW_PRIVATE: false, WEBHOOK_TIMEOUT_MS: 1000 },
    });
    for (const [i, host] of ['[64:ff9b:1::7f00:1]', '[::127.0.0.1]', '[fec0::1]'].entries()) {
      const { tenant, a } = await schedulingTenant(server);
      await subscribe(server, tenant, `http://${host}:${port}/hooks`, ['scheduled.cancelled']); // allowed here: WEBHOOK_ALLOW_PRIVATE=1
      await a.cancel((await a.create(booking(futureDay(5, 15 + i)))).body.data.call.id);
      await guarded.runOnce(secondsAfter(new Date(), 1));
      const [row] = await deliveriesOf(server, tenant.appId);
      expect(row, host).toMatchObject({ status: 'pending', attempts: 1, lastResponseCode: null });
      expect(row!.lastError, host).toBe('address_refused');
    }
    expect(receiver.received).toHaveLength(0);
  });
});

describe('subscriptions: validation, scopes and tenancy', () => {
  it('needs webhooks:write and the app: every field refuses other tokens with forbidden', async () => {
    const owner = await schedulingTenant(server);
    const { id } = await subscribe(server, owner.tenant, receiver.url, ['scheduled.cancelled']);
    const noScope = await server.tenant({ scopes: ['scheduling:read', 'scheduling:write'] });
    const noScopeSameApp = await (await server.client({ apps: [owner.tenant.appId], scopes: ['scheduling:write'] })).token();
    const otherApp = await server.tenant();
    const appId = owner.tenant.appId;
    const operations: [string, Record<string, unknown>][] = [
      [`mutation($appId: UUID!, $url: String!) { createWebhookSubscription(appId: $appId, url: $url, eventTypes: [scheduled_cancelled]) { secret } }`, { appId, url: receiver.url }],
      [`query($appId: UUID!) { webhookSubscriptions(appId: $appId) { id: subscriptionId } }`, { appId }],
      [`query($appId: UUID!) { webhookDeliveries(appId: $appId) { nodes { id: deliveryId } } }`, { appId }],
      [`mutation($appId: UUID!, $id: UUID!) { deleteWebhookSubscription(appId: $appId, id: $id) { id: subscriptionId } }`, { appId, id }],
      [`mutation($appId: UUID!, $id: UUID!) { setWebhookSubscriptionStatus(appId: $appId, id: $id, active: false) { id: subscriptionId } }`, { appId, id }],
    ];
    for (const token of [noScope.accessToken, noScopeSameApp, otherApp.accessToken]) {
      for (const [query, variables] of operations) {
        const res = await gql(server.url, token, query, variables);
        expect(res.body.errors?.[0]?.extensions?.code, query).toBe('forbidden');
      }
    }
    for (const [query, variables] of operations) {
      expect((await gql(server.url, undefined, query, variables)).status).toBe(401);
    }
    // Another app's subscription id under one's own app is not found, and stays.
    const foreignDelete = await gql(server.url, otherApp.accessToken, operations[3]![0], { appId: otherApp.appId, id });
    expect(foreignDelete.body.errors![0]!.extensions!.code).toBe('not_found');
    const owned = await gql(server.url, owner.tenant.accessToken, operations[3]![0], { appId, id });
    expect(owned.body.data.deleteWebhookSubscription).toEqual({ id });
  });
});

describe('SSRF guard at subscription time (WEBHOOK_ALLOW_PRIVATE unset)', () => {
  const { server: guarded } = useServer({ overrides: { WEBHOOK_ALLOW_PRIVATE: '0', WEBHOOK_POLL_MS: '0' } });

  it.each([
    'http://127.0.0.1:8080/hooks',
    'http://localhost/hooks',
    'http://[::1]/hooks',
    'http://10.1.2.3/hooks',
    'http://172.20.0.5/hooks',
    'http://192.168.1.10/hooks',
    'http://169.254.169.254/latest/meta-data',
    'http://[::ffff:127.0.0.1]/hooks',
    'http://[::ffff:a9fe:a9fe]/hooks',
    'http://[fd12:3456::1]/hooks',
    'http://[fe80::1]/hooks',
    'http://0.0.0.0/hooks',
    'http://[64:ff9b:1::7f00:1]/hooks',
    'http://[::127.0.0.1]/hooks',
    'http://[fec0::1]/hooks',
  ])('refuses %s with a validation error on url', async (url) => {
    const tenant = await guarded.tenant();
    const { SUBSCRIBE } = await import('./fixtures.js');
    const res = await gql(guarded.url, tenant.accessToken, SUBSCRIBE, { appId: tenant.appId, url, eventTypes: ['scheduled_cancelled'] });
    expect(res.body.errors![0]!.extensions!.code).toBe('validation_error');
    expect(res.body.errors![0]!.extensions!.details).toEqual([
      { field: 'url', code: 'invalid_value', message: expect.stringMatching(/private, loopback or link-local|WEBHOOK_ALLOW_PRIVATE/) },
    ]);
  });

  it('accepts a public address literal', async () => {
    const tenant = await guarded.tenant();
    const { SUBSCRIBE } = await import('./fixtures.js');
    const res = await gql(guarded.url, tenant.accessToken, SUBSCRIBE, { appId: tenant.appId, url: 'https://93.184.215.14/hooks', eventTypes: ['scheduled_cancelled'] });
    expect(res.body.data.createWebhookSubscription.subscription.status).toBe('active');
  });
});
