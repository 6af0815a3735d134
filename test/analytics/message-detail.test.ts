import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorEnvelope, gql, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { importRecords, message } from './fixtures.js';

// GET /analytics/{appId}/messages/{id} and GraphQL message(appId, id): one message as the
// list shows it, plus the delivery timestamps (the current state; no history is stored).
const { server, tenant } = useServer({ tenant: { scopes: ['messages:read'] } });
const detail = (id: string, token = tenant.accessToken, appId = tenant.appId) =>
  request(`${server.url}/api/v1/analytics/${appId}/messages/${encodeURIComponent(id)}`, { token });

const read = message(2, { status: 'read', delivered_at: '2026-03-01T14:01:00.000Z', read_at: '2026-03-01T14:05:00.000Z' });

beforeAll(async () => {
  await importRecords(server, tenant.appId, [message(1), read, message(3, { id: 'with space/and%' })]);
});

describe('GET /analytics/{appId}/messages/{id}: happy', () => {
  it('answers data.message with the list fields, delivered_at and read_at, and meta.timestamp', async () => {
    const res = await detail(read.id);
    expect(res.status).toBe(200);
    expect(Date.parse(res.body.meta.timestamp)).not.toBeNaN();
    const listed = (await request(`${server.url}/api/v1/analytics/${tenant.appId}/messages?search=${read.provider_message_id}`, { token: tenant.accessToken })).body.data;
    const item = listed.find((m: { id: string }) => m.id === read.id);
    expect(res.body.data.message).toEqual({ ...item, delivered_at: '2026-03-01T14:01:00.000Z', read_at: '2026-03-01T14:05:00.000Z' });
    expect(res.body.data.message).toMatchObject({ id: read.id, status: 'read', sent_at: read.sent_at, failed_at: null, error_message: null });
  });

  it('a failed message has failed_at and its error, no delivered_at or read_at; an id with reserved characters works encoded', async () => {
    const failed = message(3);
    const res = await detail('with space/and%');
    expect(res.status).toBe(200);
    expect(res.body.data.message).toMatchObject({ id: 'with space/and%', status: failed.status, failed_at: failed.failed_at, error_message: failed.error_message, delivered_at: null, read_at: null });
  });

  it('GraphQL message(appId, id) returns the same record', async () => {
    const res = await gql(server.url, tenant.accessToken, 'query($appId: UUID!, $id: String!) { message(appId: $appId, id: $id) { messageId status deliveredAt readAt } }', {
      appId: tenant.appId,
      id: read.id,
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.message).toEqual({ messageId: read.id, status: 'read', deliveredAt: '2026-03-01T14:01:00.000Z', readAt: '2026-03-01T14:05:00.000Z' });
  });
});

describe('GET /analytics/{appId}/messages/{id}: errors', () => {
  it('an unknown id is 404 not_found, over REST and GraphQL', async () => {
    const res = await detail('msg-nope');
    expect(res.status).toBe(404);
    expectErrorEnvelope(res.body, 'not_found');
    const graphql = await gql(server.url, tenant.accessToken, 'query($appId: UUID!) { message(appId: $appId, id: "msg-nope") { messageId } }', { appId: tenant.appId });
    expect(graphql.body.errors?.[0]?.extensions?.code).toBe('not_found');
  });

  it('a malformed id (over 200 characters, or a NUL) is 400 validation_error naming `id`', async () => {
    for (const id of ['x'.repeat(201), 'a\u0000b']) {
      const res = await detail(id);
      expect(res.status).toBe(400);
      expectErrorEnvelope(res.body, 'validation_error');
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(['id']);
    }
  });

  it('a malformed appId is 400 validation_error', async () => {
    const res = await detail(read.id, tenant.accessToken, 'not-a-uuid');
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'validation_error');
  });
});

describe('GET /analytics/{appId}/messages/{id}: security', () => {
  it("another app's token gets 403 for this app's message, and 404 in its own app for the same id", async () => {
    const other = await server.tenant({ scopes: ['messages:read'] });
    const foreign = await detail(read.id, other.accessToken);
    expect(foreign.status).toBe(403);
    expectErrorEnvelope(foreign.body, 'forbidden');
    const own = await detail(read.id, other.accessToken, other.appId);
    expect(own.status).toBe(404);
  });

  it('needs messages:read: analytics:read alone is 403; no token is 401', async () => {
    const analytics = await server.tenant({ scopes: ['analytics:read'] });
    await importRecords(server, analytics.appId, [message(1)]);
    const res = await detail(message(1).id, analytics.accessToken, analytics.appId);
    expect(res.status).toBe(403);
    expectErrorEnvelope(res.body, 'forbidden');
    const anonymous = await request(`${server.url}/api/v1/analytics/${tenant.appId}/messages/${read.id}`);
    expect(anonymous.status).toBe(401);
  });
});
