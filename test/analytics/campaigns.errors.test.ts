import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorEnvelope, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { campaignsApi, seedCampaigns } from './fixtures.js';

const { server, tenant } = useServer({ tenant: { scopes: ['campaigns:read'] } });

beforeAll(() => seedCampaigns(server, tenant.appId));

const { get, search } = campaignsApi(server, tenant);

describe('GET /analytics/{appId}/campaigns', () => {
  it.each([
    ['?status=archived', 'status', 'invalid_value'],
    ['?limit=500', 'limit', 'too_big'],
    ['?cursor=xyz', 'cursor', 'invalid_value'],
    ['?startDate=03/02/2026', 'startDate', 'invalid_format'],
    ['?search=spr%00ing', 'search', 'invalid_format'],
    ['?tags=a%00b', 'tags.0', 'invalid_format'],
  ])('%s is 400 validation_error on %s', async (query, field, code) => {
    const res = await get(query);
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'validation_error');
    expect(res.body.error.details).toContainEqual({ field, code, message: expect.any(String) });
  });
});

describe('POST /analytics/{appId}/campaigns/search', () => {
  it('400 invalid_json for a body that is not JSON', async () => {
    const res = await request(`${server.url}/api/v1/analytics/${tenant.appId}/campaigns/search`, {
      token: tenant.accessToken,
      body: '{"filter": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'invalid_json');
  });

  it.each([
    [{ filter: { startDate: 'yesterday' } }, 'filter.startDate', 'invalid_format'],
    [{ filter: { status: ['nope'] } }, 'filter.status.0', 'invalid_value'],
    [{ filter: { tags: 'spring' } }, 'filter.tags', 'invalid_type'],
    [{ limit: 'ten' }, 'limit', 'invalid_type'],
    [{ filter: { name: 'a\u0000b' } }, 'filter.name', 'invalid_format'],
    [{ filter: { startDate: '2026-03-10T00:00:00Z', endDate: '2026-03-01T00:00:00Z' } }, 'filter.endDate', 'invalid_value'],
    // Misspelt keys are refused, not dropped (the OpenAPI document says additionalProperties: false).
    [{ limt: 1 }, 'limt', 'unrecognized'],
    [{ filter: { status: ['paused'], nmae: 'x' } }, 'filter.nmae', 'unrecognized'],
  ])('%j is 400 validation_error on %s', async (body, field, code) => {
    const res = await search(body);
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'validation_error');
    expect(res.body.error.details).toContainEqual({ field, code, message: expect.any(String) });
  });
});
