import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorEnvelope, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { importRecords, seedTemplatesAndTags, template } from './fixtures.js';

const { server, tenant } = useServer({ tenant: { scopes: ['analytics:read'] } });
const get = (path: string, token = tenant.accessToken, appId = tenant.appId) =>
  request(`${server.url}/api/v1/analytics/${appId}${path}`, { token });

beforeAll(() => seedTemplatesAndTags(server, tenant.appId));

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
