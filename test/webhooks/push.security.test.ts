import { describe, expect, it } from 'vitest';
import { webhookSubscriptions } from '../../src/webhooks/tables.js';
import { eq } from 'drizzle-orm';
import { gql } from '../helpers/http.js';
import { allScopes } from '../helpers/server.js';
import { deliveriesOf, webhookTestBed } from './fixtures.js';

// Tenancy and scopes of the push side: another app's token cannot rotate, ping or read a
// subscription, and a token without webhooks:write cannot touch its own.
const bed = webhookTestBed();

const CREATE = `mutation($appId: UUID!, $url: String!, $events: [String!]) { createWebhookSubscription(appId: $appId, url: $url, events: $events) { secret subscription { id: subscriptionId } } }`;
const ROTATE = `mutation($appId: UUID!, $id: UUID!) { rotateWebhookSecret(appId: $appId, id: $id) { secret } }`;
const PING = `mutation($appId: UUID!, $id: UUID!) { pingWebhookSubscription(appId: $appId, id: $id) { id: deliveryId } }`;
const LIST = `query($appId: UUID!) { webhookSubscriptions(appId: $appId) { id: subscriptionId events } }`;

async function owned() {
  const owner = await bed.server.tenant();
  const res = await gql(bed.server.url, owner.accessToken, CREATE, { appId: owner.appId, url: 'http://127.0.0.1:9/x', events: ['message.*'] });
  const { secret, subscription } = res.body.data.createWebhookSubscription;
  return { owner, id: subscription.id as string, secret: secret as string };
}

const codeOf = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;

describe.each([
  ['rotateWebhookSecret', ROTATE],
  ['pingWebhookSubscription', PING],
])('%s', (_name, document) => {
  it("another app's token is forbidden on the owner's app, and finds nothing naming its own", async () => {
    const { owner, id, secret } = await owned();
    const stranger = await bed.server.tenant();
    expect(codeOf(await gql(bed.server.url, stranger.accessToken, document, { appId: owner.appId, id }))).toBe('forbidden');
    expect(codeOf(await gql(bed.server.url, stranger.accessToken, document, { appId: stranger.appId, id }))).toBe('not_found');
    const [row] = await bed.server.runtime.database.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, id));
    expect(row).toMatchObject({ secret, previousSecret: null });
    expect(await deliveriesOf(bed.server, owner.appId)).toEqual([]);
  });

  it('a token of the app without webhooks:write is forbidden', async () => {
    const { owner, id } = await owned();
    const client = await bed.server.client({ apps: [owner.appId], scopes: allScopes.filter((s) => s !== 'webhooks:write') });
    const sameApp = await client.token();
    expect(codeOf(await gql(bed.server.url, sameApp, document, { appId: owner.appId, id }))).toBe('forbidden');
    expect(await deliveriesOf(bed.server, owner.appId)).toEqual([]);
  });
});

it("another app's token cannot list the subscriptions or their patterns", async () => {
  const { owner } = await owned();
  const stranger = await bed.server.tenant();
  expect(codeOf(await gql(bed.server.url, stranger.accessToken, LIST, { appId: owner.appId }))).toBe('forbidden');
});
