import { beforeEach, describe, expect, it } from 'vitest';
import { gql } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { futureDay } from '../scheduling/fixtures.js';
import { booking, deliveriesOf, schedulingTenant, subscribe, webhookTestBed, type Receiver } from './fixtures.js';

// Outbound webhooks end to end: a REST write, the outbox row written with it, the worker
// (driven with an explicit clock: WEBHOOK_POLL_MS=0 keeps the poller off) and a real receiver.
const bed = webhookTestBed();
let server: TestServer;
let receiver: Receiver;
beforeEach(() => {
  ({ server, receiver } = bed);
});

const run = (at: Date) => server.runtime.webhooks.runOnce(at);

describe('retries', () => {
  it('410 Gone disables the subscription: no more deliveries until it is enabled again', async () => {
    const { tenant, a } = await schedulingTenant(server);
    const { id } = await subscribe(server, tenant, receiver.url, ['scheduled.cancelled']);
    await a.cancel((await a.create(booking(futureDay(5, 10)))).body.data.call.id);
    receiver.reply({ status: 410 });
    await run(new Date());
    const [row] = await deliveriesOf(server, tenant.appId);
    expect(row).toMatchObject({ status: 'failed', attempts: 1, lastResponseCode: 410 });
    const LIST = `query($appId: UUID!) { webhookSubscriptions(appId: $appId) { id: subscriptionId status disabledReason } }`;
    expect((await gql(server.url, tenant.accessToken, LIST, { appId: tenant.appId })).body.data.webhookSubscriptions).toEqual([
      { id, status: 'disabled', disabledReason: 'the endpoint answered 410 Gone' },
    ]);
    await a.cancel((await a.create(booking(futureDay(5, 11)))).body.data.call.id);
    expect(await deliveriesOf(server, tenant.appId)).toHaveLength(1);

    const ENABLE = `mutation($appId: UUID!, $id: UUID!) { setWebhookSubscriptionStatus(appId: $appId, id: $id, active: true) { status } }`;
    expect((await gql(server.url, tenant.accessToken, ENABLE, { appId: tenant.appId, id })).body.data.setWebhookSubscriptionStatus.status).toBe('active');
    await a.cancel((await a.create(booking(futureDay(5, 12)))).body.data.call.id);
    expect(await deliveriesOf(server, tenant.appId)).toHaveLength(2);
  });
});

describe('subscriptions: validation, scopes and tenancy', () => {
  it.each([
    ['an unknown event type', { eventTypes: ['scheduled_exploded'] }, 'eventTypes.0'],
    ['no event type', { eventTypes: [] }, 'eventTypes'],
    ['a non-http scheme', { url: 'ftp://example.com/hooks' }, 'url'],
    ['not a URL', { url: 'hooks here' }, 'url'],
    ['credentials in the URL', { url: 'http://user:pw@127.0.0.1/hooks' }, 'url'],
    ['port 0', { url: 'http://127.0.0.1:0/hooks' }, 'url'],
  ])('refuses %s with validation_error on field %s', async (_name, change, field) => {
    const { tenant } = await schedulingTenant(server);
    const { SUBSCRIBE } = await import('./fixtures.js');
    const res = await gql(server.url, tenant.accessToken, SUBSCRIBE, { appId: tenant.appId, url: receiver.url, eventTypes: ['scheduled_cancelled'], ...change });
    // A value outside the enum fails before execution (no data entry); the others in the resolver (data null).
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors![0]!.extensions!.code).toBe('validation_error');
    expect(res.body.errors![0]!.extensions!.details.map((d: { field: string }) => d.field)).toContain(field);
  });
});
