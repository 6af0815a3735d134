import { beforeAll, describe, expect, it } from 'vitest';
import { request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { campaign, importRecords } from './fixtures.js';

const { server, tenant } = useServer({ tenant: { scopes: ['campaigns:read'] } });

beforeAll(async () => {
  // 30 campaigns, one a day from 2026-03-02.
  await importRecords(server, tenant.appId, Array.from({ length: 30 }, (_, i) => campaign(i + 1)));
});

const get = (query = '', token = tenant.accessToken, appId = tenant.appId) =>
  request(`${server.url}/api/v1/analytics/${appId}/campaigns${query}`, { token });

describe('GET /analytics/{appId}/campaigns', () => {
  it('403 without campaigns:read or for another app', async () => {
    const reader = await server.client({ apps: [tenant.appId], scopes: ['messages:read'] });
    expect((await get('', await reader.token())).status).toBe(403);
    const stranger = await server.tenant({ scopes: ['campaigns:read'] });
    expect((await get('', tenant.accessToken, stranger.appId)).status).toBe(403);
  });
});
