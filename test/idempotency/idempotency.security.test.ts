import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope, gql } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { agent, allDay, importRecords } from '../scheduling/fixtures.js';
import { booking, futureDay, keyedApi, keyedTenant, keysOf } from './fixtures.js';

const { server } = useServer();

describe('Idempotency-Key tenancy', () => {
  it("another client's key of the same value is its own: its request runs, and gets its own answer", async () => {
    const t = await keyedTenant(server);
    const colleague = await server.client({ apps: [t.tenant.appId], scopes: ['scheduling:write', 'scheduling:read'] });
    const body = booking(futureDay(60, 10));
    const mine = await t.create(body, 'shared-key');
    const theirs = await t.create(body, 'shared-key', await colleague.token());
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.data.call.id).not.toBe(mine.body.data.call.id);
    expect(await t.calls()).toHaveLength(2);
  });

  it("another app's stored answer never leaks: a caller without that app is 403 before any replay", async () => {
    const t = await keyedTenant(server);
    const body = booking(futureDay(61, 10), { guestName: 'Private Guest' });
    expect((await t.create(body, 'app-key')).status).toBe(201);
    // A client of another app sends the very same request (same path, body and key).
    const stranger = await server.tenant();
    const res = await keyedApi(server, { appId: t.tenant.appId, accessToken: stranger.accessToken }).create(body, 'app-key');
    expect(res.status).toBe(403);
    expectErrorEnvelope(res.body, 'forbidden');
    expect(JSON.stringify(res.body)).not.toContain('Private Guest');
    // Over GraphQL alike.
    const viaGraphql = await gql(
      server.url,
      stranger.accessToken,
      `mutation($appId: UUID!, $input: CreateScheduledCallInput!) { createScheduledCall(appId: $appId, input: $input) { guestName } }`,
      { appId: t.tenant.appId, input: body },
      { 'Idempotency-Key': 'app-key' },
    );
    expect(viaGraphql.body.errors?.[0]?.extensions?.code).toBe('forbidden');
    expect(JSON.stringify(viaGraphql.body)).not.toContain('Private Guest');
  });

  it('one client on two apps: a key is per app, so the same key books on each app once', async () => {
    const one = await server.tenant();
    const two = await server.tenant();
    for (const appId of [one.appId, two.appId]) await importRecords(server, appId, [agent(1, 'UTC', allDay)]);
    const both = await server.client({ apps: [one.appId, two.appId], scopes: ['scheduling:write', 'scheduling:read'] });
    const token = await both.token();
    const body = booking(futureDay(62, 10));
    const a = await keyedApi(server, { appId: one.appId, accessToken: token }).create(body, 'per-app');
    const b = await keyedApi(server, { appId: two.appId, accessToken: token }).create(body, 'per-app');
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.data.call.app_id).toBe(two.appId);
    expect((await keysOf(server, one.appId)).map((r) => r.key)).toEqual(['per-app']);
    expect((await keysOf(server, two.appId)).map((r) => r.key)).toEqual(['per-app']);
  });

  it('a caller without the scope is 403 whatever its key, and claims nothing', async () => {
    const t = await keyedTenant(server);
    const reader = await server.client({ apps: [t.tenant.appId], scopes: ['scheduling:read'] });
    const res = await t.create(booking(futureDay(63, 10)), 'x'.repeat(300), await reader.token());
    expect(res.status).toBe(403);
    expect(await keysOf(server, t.tenant.appId)).toEqual([]);
  });
});
