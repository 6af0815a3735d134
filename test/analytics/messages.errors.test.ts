import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorEnvelope, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { importRecords, message } from './fixtures.js';

const { server, tenant } = useServer({ tenant: { scopes: ['messages:read', 'analytics:read'] } });

beforeAll(async () => {
  await importRecords(server, tenant.appId, [message(1), message(2)]);
});

const list = (appId: string, query: string, token = tenant.accessToken) =>
  request(`${server.url}/api/v1/analytics/${appId}/messages${query}`, { token });

describe('GET /analytics/{appId}/messages: bad input is 400 validation_error naming the parameter', () => {
  it.each([
    ['?limit=0', 'limit', 'too_small'],
    ['?limit=201', 'limit', 'too_big'],
    ['?limit=99999999999999', 'limit', 'too_big'],
    ['?limit=-99999999999999', 'limit', 'too_small'],
    ['?limit=abc', 'limit', 'invalid_type'],
    ['?limit=1.5', 'limit', 'invalid_type'],
    ['?cursor=garbage', 'cursor', 'invalid_value'],
    ['?status=lost', 'status', 'invalid_value'],
    ['?direction=sideways', 'direction', 'invalid_value'],
    ['?startDate=2026-13-01', 'startDate', 'invalid_value'],
    ['?endDate=yesterday', 'endDate', 'invalid_format'],
    ['?startDate=2026-03-05&endDate=2026-03-01', 'endDate', 'invalid_value'],
    [`?search=${'x'.repeat(201)}`, 'search', 'too_long'],
    [`?channel=${'x'.repeat(101)}`, 'channel', 'too_long'],
    [`?messageType=${'x'.repeat(101)}`, 'messageType', 'too_long'],
    [`?source=${'x'.repeat(101)}`, 'source', 'too_long'],
    [`?destination=${'x'.repeat(101)}`, 'destination', 'too_long'],
    ['?channel=whats%00app', 'channel', 'invalid_format'],
    ['?messageType=te%00xt', 'messageType', 'invalid_format'],
    ['?source=%00', 'source', 'invalid_format'],
    ['?destination=crm%00', 'destination', 'invalid_format'],
    ['?search=447%00', 'search', 'invalid_format'],
  ])('%s', async (query, field, code) => {
    const res = await list(tenant.appId, query);
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'validation_error');
    expect(res.body.error.details).toContainEqual({ field, code, message: expect.any(String) });
  });

  it('a query parameter it does not know is refused, not ignored (a misspelt filter would give an unfiltered page)', async () => {
    for (const [query, fields] of [
      ['?statuss=failed', ['statuss']],
      ['?limt=5&statuss=failed&limt=6', ['limt', 'statuss']],
      // The GraphQL argument names are not REST's: `limit` and `cursor` are.
      ['?first=1', ['first']],
      ['?after=x', ['after']],
      ['?appId=x', ['appId']],
    ] as const) {
      const res = await list(tenant.appId, query);
      expect(res.status, query).toBe(400);
      expectErrorEnvelope(res.body, 'validation_error');
      expect(res.body.error.details).toEqual(fields.map((field) => ({ field, code: 'unrecognized', message: 'Unrecognized query parameter' })));
    }
    expect((await list(tenant.appId, '?limit=1&status=sent')).status).toBe(200);
  });

  it('a parameter of one value given twice takes the last: a client that appends the next cursor keeps paging', async () => {
    const first = await list(tenant.appId, '?limit=1');
    const cursor = first.body.pagination.nextCursor as string;
    const second = await list(tenant.appId, `?limit=1&cursor=${encodeURIComponent(cursor)}`);
    expect(second.body.data).toHaveLength(1);
    // The earlier values would be refused on their own (not a cursor, a limit over 100).
    const appended = await list(tenant.appId, `?limit=500&limit=1&cursor=not-a-cursor&cursor=${encodeURIComponent(cursor)}`);
    expect(appended.status, JSON.stringify(appended.body)).toBe(200);
    expect(appended.body.data).toEqual(second.body.data);
  });

  it('a cursor of another filter set still works, but an edited one is refused', async () => {
    const first = await list(tenant.appId, '?limit=1');
    const cursor: string = first.body.pagination.nextCursor;
    expect((await list(tenant.appId, `?limit=1&cursor=${cursor}`)).status).toBe(200);
    const edited = cursor.slice(0, -2) + (cursor.endsWith('A') ? 'BB' : 'AA');
    const res = await list(tenant.appId, `?cursor=${edited}`);
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'validation_error');
  });

  it("a cursor of another app's page is refused, on REST and GraphQL", async () => {
    const other = await server.tenant({ scopes: ['messages:read', 'analytics:read', 'campaigns:read'] });
    await importRecords(server, other.appId, [message(3), message(4)]);
    const theirs = (await list(other.appId, '?limit=1', other.accessToken)).body.pagination.nextCursor as string;
    expect(theirs).toBeTruthy();
    // The same list and a well-formed cursor, but issued for the other app's page.
    const res = await list(tenant.appId, `?limit=1&cursor=${theirs}`);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual({ field: 'cursor', code: 'invalid_value', message: expect.any(String) });
    const both = await server.client({ apps: [tenant.appId, other.appId], scopes: ['messages:read', 'campaigns:read', 'analytics:read'] });
    const token = await both.token();
    expect((await list(tenant.appId, `?limit=1&cursor=${theirs}`, token)).status).toBe(400);
    expect((await list(other.appId, `?limit=1&cursor=${theirs}`, token)).status).toBe(200);
    const gqlRes = await request(`${server.url}/graphql`, {
      token,
      json: { query: 'query($app: UUID!, $after: String) { messages(appId: $app, first: 1, after: $after) { limit } }', variables: { app: tenant.appId, after: theirs } },
    });
    expect(gqlRes.body.errors?.[0]?.extensions?.code).toBe('validation_error');
  });
});

describe('GET /analytics/{appId}/messages: security', () => {
  it('401 without a token', async () => {
    const res = await request(`${server.url}/api/v1/analytics/${tenant.appId}/messages`);
    expect(res.status).toBe(401);
  });

  it('403 without messages:read', async () => {
    const other = await server.client({ apps: [tenant.appId], scopes: ['analytics:read'] });
    const res = await list(tenant.appId, '', await other.token());
    expect(res.status).toBe(403);
    expectErrorEnvelope(res.body, 'forbidden');
  });

  it("403 for another app's id; its messages never leak", async () => {
    const stranger = await server.tenant({ scopes: ['messages:read'] });
    await importRecords(server, stranger.appId, [message(1, { id: 'stranger-secret' })]);
    const res = await list(stranger.appId, '', tenant.accessToken);
    expect(res.status).toBe(403);
    const own = await list(tenant.appId, '?limit=200');
    expect(own.body.data.map((m: any) => m.id)).not.toContain('stranger-secret');
    // The same id imported into two apps stays two rows.
    await importRecords(server, stranger.appId, [message(2, { status: 'failed' })]);
    const mine = (await list(tenant.appId, '?limit=200')).body.data.find((m: any) => m.id === 'msg-00002');
    expect(mine.status).toBe(message(2).status);
  });
});

describe('GET /analytics/{appId}/messages: path parameters', () => {
  it('a non-UUID appId is 400 validation_error naming appId', async () => {
    const res = await list('not-a-uuid', '');
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'validation_error');
    expect(res.body.error.details[0].field).toBe('appId');
  });
});
