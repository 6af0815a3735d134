import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorEnvelope, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { seedTemplatesAndTags } from './fixtures.js';

const { server, tenant } = useServer({ tenant: { scopes: ['analytics:read'] } });
const get = (path: string, token = tenant.accessToken, appId = tenant.appId) =>
  request(`${server.url}/api/v1/analytics/${appId}${path}`, { token });

beforeAll(() => seedTemplatesAndTags(server, tenant.appId));

describe('GET /analytics/{appId}/templates', () => {
  it('a NUL byte in a filter is 400 validation_error, not a database error', async () => {
    const res = await get('/templates?search=order%00');
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'validation_error');
    expect(res.body.error.details).toContainEqual({ field: 'search', code: 'invalid_format', message: expect.any(String) });
    const tag = await get('/tags/vi%00p/stats');
    expect(tag.status).toBe(400);
    expect(tag.body.error.details).toContainEqual({ field: 'tag', code: 'invalid_format', message: expect.any(String) });
  });

  it('an unknown template is 404 not_found; a malformed id is 400', async () => {
    const missing = await get('/templates/00000000-0000-4000-9000-999999999999');
    expect(missing.status).toBe(404);
    expectErrorEnvelope(missing.body, 'not_found');
    const malformed = await get('/templates/xyz');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.details[0]).toMatchObject({ field: 'templateId', code: 'invalid_format' });
  });
});

describe('tags', () => {
  it('a tag no campaign carries is 404; a tag without messages has zero counts', async () => {
    expect((await get('/tags/nothing/stats')).status).toBe(404);
    const quiet = await get('/tags/unused-by-messages/stats');
    expect(quiet.body.data).toMatchObject({ campaign_count: 1, sent: 0, delivered: 0, read: 0, failed: 0 });
  });
});
