import { beforeAll, describe, expect, it } from 'vitest';
import { request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { campaign, seedTemplatesAndTags, template } from './fixtures.js';

const { server, tenant } = useServer({ tenant: { scopes: ['analytics:read'] } });
const get = (path: string, token = tenant.accessToken, appId = tenant.appId) =>
  request(`${server.url}/api/v1/analytics/${appId}${path}`, { token });

beforeAll(() => seedTemplatesAndTags(server, tenant.appId));

describe('GET /analytics/{appId}/templates', () => {
  it('lists full records without the analytics-only fields', async () => {
    const res = await get('/templates?limit=2');
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ limit: 2, hasMore: true, nextCursor: expect.any(String) });
    const item = res.body.data[0];
    expect(item).toMatchObject({ id: template(6).id, app_id: tenant.appId, name: 'order_update_6', header_type: 'TEXT', provider_rejection_reason: null });
    expect(item.body_variables).toEqual(template(6).body_variables);
    expect(item.buttons).toEqual(template(6).buttons);
    expect(item).not.toHaveProperty('button_count');
    expect(item).not.toHaveProperty('quick_reply_count');
  });

  it.each([
    ['?search=UPDATE_3', ['order_update_3']],
    ['?category=MARKETING&language=pt_BR', ['order_update_6']],
    ['?status=PAUSED', []],
  ])('filters %s', async (query, names) => {
    const res = await get(`/templates${query}`);
    expect(res.body.data.map((t: any) => t.name)).toEqual(names);
  });

  it('the detail adds button_count and quick_reply_count', async () => {
    const res = await get(`/templates/${template(2).id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: template(2).id, button_count: 3, quick_reply_count: 2 });
    expect(res.body.meta.timestamp).toBeTruthy();
  });
});

describe('tags', () => {
  it('GET /tags lists distinct tags, sorted', async () => {
    const res = await get('/tags');
    expect(res.body.data).toEqual(['black friday', 'unused-by-messages', 'été']);
  });

  it('GET /tags/{tag}/stats works for tags with spaces and non-ASCII characters', async () => {
    const res = await get(`/tags/${encodeURIComponent('été')}/stats`);
    expect(res.status).toBe(200);
    // Campaign 1: sent, read, read (i = 0, 2, 4); campaign 2: delivered, failed.
    expect(res.body.data).toEqual({ campaign_count: 2, sent: 4, delivered: 3, read: 2, failed: 1, last_used: campaign(2).created_at });
    const spaced = await get(`/tags/${encodeURIComponent('black friday')}/stats`);
    expect(spaced.body.data).toMatchObject({ campaign_count: 1, sent: 3, delivered: 2, read: 2, failed: 0 });
  });
});
