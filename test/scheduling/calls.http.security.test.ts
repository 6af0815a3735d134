import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { api, booking, callIdOf, futureDay, tenantSetUp } from './fixtures.js';

const { server } = useServer();


const setUp = tenantSetUp(server);


describe('GET /video/{appId}/scheduled-calls (list)', () => {
  it("a cursor of another app's list is refused as invalid_request on cursor", async () => {
    const { a } = await setUp();
    const { a: b } = await setUp();
    for (const hour of [9, 10]) {
      await a.create(booking(futureDay(10, hour)));
      await b.create(booking(futureDay(10, hour)));
    }
    const theirs = (await b.list('?limit=1')).body.pagination.nextCursor as string;
    expect(theirs).toBeTruthy();
    expect((await b.list(`?limit=1&cursor=${theirs}`)).status).toBe(200);
    const res = await a.list(`?limit=1&cursor=${theirs}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request', details: [{ field: 'cursor', code: 'invalid_value' }] });
  });
});

describe('tenancy and scopes', () => {
  it("another app's call is 404 on GET, PATCH and DELETE, and stays untouched", async () => {
    const { a: mine } = await setUp();
    const { tenant: them, a: theirs } = await setUp();
    const id = (await mine.create(booking(futureDay(16, 10)))).body.data.call.id;
    for (const res of [await theirs.get(id), await theirs.patch(id, { guestName: 'Mallory' }), await theirs.cancel(id)]) {
      expect(res.status).toBe(404);
      expectErrorEnvelope(res.body, 'not_found');
    }
    expect((await mine.get(id)).body.data.call).toMatchObject({ guest_name: 'Ann Lee', status: 'scheduled' });
    expect((await theirs.list()).body.data).toEqual([]);
    // An unknown id is the same 404; a malformed one is invalid_request.
    expect((await mine.get(callIdOf(999))).status).toBe(404);
    const malformed = await mine.get('not-a-uuid');
    expect(malformed.status).toBe(400);
    expectErrorEnvelope(malformed.body, 'invalid_request');
    expect(them.appId).not.toBe(undefined);
  });

  it('403: read scope cannot write, write scope cannot read, nobody reaches another app', async () => {
    const { tenant, a } = await setUp();
    const id = (await a.create(booking(futureDay(17, 10)))).body.data.call.id;
    const reader = await (await server.client({ apps: [tenant.appId], scopes: ['scheduling:read'] })).token();
    const writer = await (await server.client({ apps: [tenant.appId], scopes: ['scheduling:write'] })).token();
    for (const res of [
      await a.patch(id, { guestName: 'X' }, reader),
      await a.cancel(id, {}, reader),
      await a.create(booking(futureDay(17, 12)), reader),
      await a.get(id, writer),
      await a.list('', writer),
    ]) {
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expectErrorEnvelope(res.body, 'forbidden');
    }
    const stranger = await server.tenant();
    expect((await api(server, { appId: tenant.appId, accessToken: stranger.accessToken }).get(id)).status).toBe(403);
  });
});
