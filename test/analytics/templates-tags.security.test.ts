import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorEnvelope, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { campaign, importRecords, message, template } from './fixtures.js';

const { server, tenant } = useServer({ tenant: { scopes: ['analytics:read'] } });
const get = (path: string, token = tenant.accessToken, appId = tenant.appId) =>
  request(`${server.url}/api/v1/analytics/${appId}${path}`, { token });

beforeAll(async () => {
  await importRecords(server, tenant.appId, [
    ...Array.from({ length: 6 }, (_, i) => template(i + 1)),
    campaign(1, { tags: ['black friday', 'été'] }),
    campaign(2, { tags: ['été'] }),
    campaign(3, { tags: ['unused-by-messages'] }),
    // Outbound messages of campaigns 1 and 2; an inbound one and one of no campaign do not count.
    ...['sent', 'delivered', 'read', 'failed', 'read'].map((status, i) =>
      message(i * 2, { campaign_id: campaign(i % 2 ? 2 : 1).id, status, direction: 'outbound' }),
    ),
    message(101, { campaign_id: campaign(1).id, direction: 'inbound', status: 'received' }),
    message(102, { campaign_id: null, direction: 'outbound', status: 'read' }),
  ]);
});

describe('GET /analytics/{appId}/templates', () => {
  it("another app's template is 404 through its own app and 403 through the other's path", async () => {
    const stranger = await server.tenant({ scopes: ['analytics:read'] });
    await importRecords(server, stranger.appId, [template(50)]);
    expect((await get(`/templates/${template(50).id}`)).status).toBe(404);
    expect((await get(`/templates/${template(50).id}`, tenant.accessToken, stranger.appId)).status).toBe(403);
  });
});

describe('tags', () => {
  it('403 without analytics:read', async () => {
    const other = await server.client({ apps: [tenant.appId], scopes: ['messages:read'] });
    const res = await get('/tags', await other.token());
    expect(res.status).toBe(403);
    expectErrorEnvelope(res.body, 'forbidden');
  });
});
