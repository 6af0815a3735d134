import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_PENDING_PINGS } from '../../src/webhooks/service.js';
import { gql } from '../helpers/http.js';
import { webhookTestBed } from './fixtures.js';

// Refused input on the push side: unknown patterns, oversized lists, bad overlaps, and the
// conflicts of ping; each a validation error with its field, never a 500.
const bed = webhookTestBed();

const CREATE = `mutation($appId: UUID!, $url: String!, $events: [String!], $eventTypes: [WebhookEventType!]) {
  createWebhookSubscription(appId: $appId, url: $url, events: $events, eventTypes: $eventTypes) { subscription { id: subscriptionId } }
}`;
const ROTATE = `mutation($appId: UUID!, $id: UUID!, $overlapSeconds: Int) { rotateWebhookSecret(appId: $appId, id: $id, overlapSeconds: $overlapSeconds) { secret } }`;
const PING = `mutation($appId: UUID!, $id: UUID!) { pingWebhookSubscription(appId: $appId, id: $id) { id: deliveryId } }`;
const PAUSE = `mutation($appId: UUID!, $id: UUID!) { setWebhookSubscriptionStatus(appId: $appId, id: $id, active: false) { status } }`;

const errorOf = (res: { body: any }) => res.body.errors?.[0]?.extensions as { code: string; details?: { field: string; code: string; message: string }[] };

describe('createWebhookSubscription', () => {
  it.each([
    ['an unknown type', { events: ['message.received', 'message.bogus'] }, 'events.1', 'invalid_value', /"message\.bogus" is no event type or pattern/],
    ['a group that does not exist', { events: ['scheduled.*'] }, 'events.0', 'invalid_value', /no event type or pattern/],
    ['the test delivery type', { events: ['webhook.ping'] }, 'events.0', 'invalid_value', /no event type or pattern/],
    ['an entry of 10,000 characters', { events: ['x'.repeat(10_000)] }, 'events.0', 'too_long', /./],
    ['65 entries', { events: Array.from({ length: 65 }, () => '*') }, 'events', 'too_big', /./],
    ['no entry', { events: [] }, 'events', 'too_small', /./],
    ['the test delivery from the enum', { eventTypes: ['webhook_ping'] }, 'eventTypes.0', 'invalid_value', /no event type or pattern/],
    ['both lists', { events: ['*'], eventTypes: ['scheduled_cancelled'] }, 'eventTypes', 'invalid_value', /not both/],
    ['neither list', {}, 'events', 'required', /Required/],
  ])('%s is refused at %s (%s)', async (_label, input, field, code, message) => {
    const tenant = await bed.server.tenant();
    const res = await gql(bed.server.url, tenant.accessToken, CREATE, { appId: tenant.appId, url: 'http://127.0.0.1:9/x', ...input });
    expect(res.status).toBe(200);
    const error = errorOf(res);
    expect(error.code).toBe('validation_error');
    expect(error.details).toContainEqual(expect.objectContaining({ field, code }));
    expect(error.details!.find((d) => d.field === field)!.message).toMatch(message);
    expect(JSON.stringify(res.body).length).toBeLessThan(2000);
  });
});

describe('rotateWebhookSecret', () => {
  it.each([-1, 7 * 24 * 3600 + 1])('overlapSeconds %d is refused at overlapSeconds', async (overlapSeconds) => {
    const tenant = await bed.server.tenant();
    const created = await gql(bed.server.url, tenant.accessToken, CREATE, { appId: tenant.appId, url: 'http://127.0.0.1:9/x', events: ['*'] });
    const id = created.body.data.createWebhookSubscription.subscription.id;
    const res = await gql(bed.server.url, tenant.accessToken, ROTATE, { appId: tenant.appId, id, overlapSeconds });
    expect(errorOf(res)).toMatchObject({ code: 'validation_error', details: [expect.objectContaining({ field: 'overlapSeconds' })] });
  });

  it('an unknown subscription is not_found', async () => {
    const tenant = await bed.server.tenant();
    expect(errorOf(await gql(bed.server.url, tenant.accessToken, ROTATE, { appId: tenant.appId, id: randomUUID() })).code).toBe('not_found');
  });
});

describe('pingWebhookSubscription', () => {
  it('an unknown subscription is not_found; a disabled one a conflict', async () => {
    const tenant = await bed.server.tenant();
    expect(errorOf(await gql(bed.server.url, tenant.accessToken, PING, { appId: tenant.appId, id: randomUUID() })).code).toBe('not_found');
    const created = await gql(bed.server.url, tenant.accessToken, CREATE, { appId: tenant.appId, url: 'http://127.0.0.1:9/x', events: ['*'] });
    const id = created.body.data.createWebhookSubscription.subscription.id;
    await gql(bed.server.url, tenant.accessToken, PAUSE, { appId: tenant.appId, id });
    const res = await gql(bed.server.url, tenant.accessToken, PING, { appId: tenant.appId, id });
    expect(errorOf(res).code).toBe('conflict');
    expect(res.body.errors![0]!.message).toMatch(/disabled: enable it first/);
  });

  it(`refuses a ping while ${MAX_PENDING_PINGS} are pending`, async () => {
    const tenant = await bed.server.tenant();
    const created = await gql(bed.server.url, tenant.accessToken, CREATE, { appId: tenant.appId, url: 'http://127.0.0.1:9/x', events: ['*'] });
    const id = created.body.data.createWebhookSubscription.subscription.id;
    for (let i = 0; i < MAX_PENDING_PINGS; i++) expect((await gql(bed.server.url, tenant.accessToken, PING, { appId: tenant.appId, id })).body.data.pingWebhookSubscription.id).toBeTruthy();
    const res = await gql(bed.server.url, tenant.accessToken, PING, { appId: tenant.appId, id });
    expect(errorOf(res).code).toBe('conflict');
    expect(res.body.errors![0]!.message).toMatch(/still pending/);
  });
});
