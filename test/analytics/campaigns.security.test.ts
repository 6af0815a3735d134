import { beforeAll, describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';
import { campaignsApi, seedCampaigns } from './fixtures.js';

const { server, tenant } = useServer({ tenant: { scopes: ['campaigns:read'] } });

beforeAll(() => seedCampaigns(server, tenant.appId));

const { get } = campaignsApi(server, tenant);

describe('GET /analytics/{appId}/campaigns', () => {
  it('403 without campaigns:read or for another app', async () => {
    const reader = await server.client({ apps: [tenant.appId], scopes: ['messages:read'] });
    expect((await get('', await reader.token())).status).toBe(403);
    const stranger = await server.tenant({ scopes: ['campaigns:read'] });
    expect((await get('', tenant.accessToken, stranger.appId)).status).toBe(403);
  });
});
