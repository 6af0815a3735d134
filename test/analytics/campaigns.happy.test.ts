import { beforeAll, describe, expect, it } from 'vitest';
import { gql } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { campaignsApi, seedCampaigns } from './fixtures.js';

const { server, tenant } = useServer({ tenant: { scopes: ['campaigns:read'] } });

beforeAll(() => seedCampaigns(server, tenant.appId));

const { get, search } = campaignsApi(server, tenant);
const ids = (res: { body: { data: { name: string }[] } }) => res.body.data.map((c) => c.name);

describe('GET /analytics/{appId}/campaigns', () => {
  it('returns list items with pagination, newest first', async () => {
    const res = await get('?limit=5');
    expect(res.status).toBe(200);
    expect(res.body.data[0]).toEqual({
      id: '00000000-0000-4000-8000-000000000030',
      name: 'Campaign 30',
      status: 'active',
      total_contacts: 130,
      sent_count: 120,
      created_at: '2026-03-31T00:00:00.000Z',
    });
    expect(res.body.pagination).toEqual({ limit: 5, hasMore: true, nextCursor: expect.any(String) });
    expect(res.body.meta.timestamp).toBeTruthy();
  });

  it('walks all pages once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...ids(res));
      cursor = res.body.pagination.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(30);
    expect(new Set(seen).size).toBe(30);
  });

  it.each([
    ['?status=paused', 5],
    ['?status=all', 30],
    ['?search=campaign 1', 11],
    ['?tags=t1,t2', 10],
    // Repeated, as OpenAPI's form style (and so generated clients) write an array.
    ['?tags=t1&tags=t2', 10],
    ['?tags=t1,t2&tags=autumn', 25],
    ['?tags=autumn', 15],
    ['?startDate=2026-03-02&endDate=2026-03-03', 2],
  ])('%s matches %i', async (query, count) => {
    const res = await get(`${query}&limit=200`);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(count);
  });
});

describe('POST /analytics/{appId}/campaigns/search', () => {
  it('filters by status list, name, tags and a half-open datetime range', async () => {
    const res = await search({
      limit: 50,
      filter: { status: ['active', 'paused'], name: 'CAMPAIGN', tags: ['spring', 'autumn'], startDate: '2026-03-05T00:00:00Z', endDate: '2026-03-13T00:00:00Z' },
    });
    expect(res.status).toBe(200);
    // Campaigns 4..11 fall in [03-05, 03-13); statuses cycle by n % 6 (0 active, 2 paused): 6 and 8.
    expect(ids(res)).toEqual(['Campaign 8', 'Campaign 6']);
    expect(res.body.pagination.limit).toBe(50);
  });

  it('an empty body lists everything with the default page size', async () => {
    const res = await search({});
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(30);
    expect(res.body.pagination).toEqual({ limit: 50, hasMore: false, nextCursor: null });
  });

  it('paginates with the cursor in the body', async () => {
    const first = await search({ limit: 20 });
    const second = await search({ limit: 20, cursor: first.body.pagination.nextCursor });
    expect(second.body.data).toHaveLength(10);
    expect(new Set([...ids(first), ...ids(second)]).size).toBe(30);
  });

  it('GraphQL campaigns agrees with the search', async () => {
    const res = await gql(server.url, tenant.accessToken, 'query($app: UUID!) { campaigns(appId: $app, first: 3, tags: ["t0"]) { nodes { name tags } } }', { app: tenant.appId });
    const rest = await search({ limit: 3, filter: { tags: ['t0'] } });
    expect(res.body.data.campaigns.nodes.map((c: any) => c.name)).toEqual(ids(rest));
    expect(res.body.data.campaigns.nodes.every((c: any) => c.tags.includes('t0'))).toBe(true);
  });
});
