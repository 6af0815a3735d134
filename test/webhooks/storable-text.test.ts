import { describe, expect, it } from 'vitest';
import { gql } from '../helpers/http.js';
import type { Tenant } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

// Text PostgreSQL cannot store is refused with a 400 in the endpoint's own error type, naming
// its field, and nothing is written (docs/rest.md). Unchecked, a lone UTF-16 surrogate in url or
// description would be stored silently as U+FFFD, and a NUL would fail only at the insert (a 400
// with details[].field ""). Its url and description are its only free text: eventTypes is an
// enum, and the other webhook mutations take ids and a boolean.

const { server } = useServer({ overrides: { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '0' } });

const CREATE = `mutation($appId: UUID!, $url: String!, $eventTypes: [WebhookEventType!]!, $description: String) {
  createWebhookSubscription(appId: $appId, url: $url, eventTypes: $eventTypes, description: $description) {
    subscription { id: subscriptionId url description }
  }
}`;
const LIST = `query($appId: UUID!) { webhookSubscriptions(appId: $appId) { id: subscriptionId url description } }`;

const create = (tenant: Tenant, change: { url?: string; description?: string }) =>
  gql(server.url, tenant.accessToken, CREATE, {
    appId: tenant.appId,
    url: 'http://example.com/hooks',
    eventTypes: ['scheduled_cancelled'],
    description: 'ok',
    ...change,
  });

describe('createWebhookSubscription refuses text PostgreSQL cannot store', () => {
  it.each([
    ['a lone surrogate in url', 'url', { url: 'http://example.com/\ud800x' }, /lone UTF-16 surrogate/],
    ['a lone surrogate in description', 'description', { description: 'lone\udc00' }, /lone UTF-16 surrogate/],
    ['a NUL in url', 'url', { url: 'http://example.com/a\u0000b' }, /NUL/],
    ['a NUL in description', 'description', { description: 'a\u0000b' }, /NUL/],
  ])('%s: validation_error on field %s, nothing stored', async (_name, field, change, message) => {
    const tenant = await server.tenant();
    const res = await create(tenant, change);
    expect(res.status).toBe(200);
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors![0]!.extensions).toMatchObject({ code: 'validation_error' });
    expect(res.body.errors![0]!.extensions!.details).toEqual([{ field, code: 'invalid_format', message: expect.stringMatching(message) }]);
    expect((await gql(server.url, tenant.accessToken, LIST, { appId: tenant.appId })).body.data.webhookSubscriptions).toEqual([]);
  });

  it('stores well-formed text (a surrogate pair) as sent', async () => {
    const tenant = await server.tenant();
    const res = await create(tenant, { description: 'hooks 👋' });
    expect(res.body.data.createWebhookSubscription.subscription).toMatchObject({ url: 'http://example.com/hooks', description: 'hooks 👋' });
  });
});
