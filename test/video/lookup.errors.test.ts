import { sql } from 'drizzle-orm';
import { decodeJwt, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { request, type JsonResponse } from '../helpers/http.js';
import type { Tenant } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { callIdOf, importRecords, videoCall } from './fixtures.js';

const { server, tenant } = useServer({ tenant: { scopes: ['video:read'] } });
let stranger: Tenant;

beforeAll(async () => {
  stranger = await server.tenant({ scopes: ['video:read'] });
  await importRecords(server, tenant.appId, [videoCall(1)]);
  await importRecords(server, stranger.appId, [videoCall(2, { title: 'stranger secret' })]);
});

const lookup = (callId: string, init: { token?: string; headers?: Record<string, string>; method?: string } = {}) =>
  request(`${server.videoUrl}/api/calls/${callId}`, { token: tenant.accessToken, ...init });

/** The video host's own envelope: `{ "ok": false, "error": { "type", "message" } }` and nothing else. */
function expectVideoError(res: JsonResponse, status: number, type: string) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ ok: false, error: { type, message: expect.any(String) } });
  expect(res.body.error.message.length).toBeGreaterThan(0);
  expect(res.headers.get('x-request-id')).toBeTruthy();
}

describe('video lookup: 401 unauthorized, with WWW-Authenticate: Bearer', () => {
  const claims = () => decodeJwt(tenant.accessToken) as Record<string, unknown>;
  it.each<[string, () => Promise<Record<string, string>>]>([
    ['no Authorization header', async () => ({})],
    ['an empty bearer', async () => ({ authorization: 'Bearer ' })],
    ['Basic instead of Bearer', async () => ({ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` })],
    ['garbage', async () => ({ authorization: 'Bearer not.a.jwt' })],
    [
      'signed by a foreign key',
      async () => {
        const { privateKey } = await generateKeyPair('ES256');
        return { authorization: `Bearer ${await new SignJWT(claims()).setProtectedHeader({ alg: 'ES256', kid: 'x' }).sign(privateKey)}` };
      },
    ],
    [
      'expired',
      async () => {
        const now = Math.floor(Date.now() / 1000);
        const token = await new SignJWT({ ...claims(), iat: now - 7200, exp: now - 3600 })
          .setProtectedHeader({ alg: 'ES256', kid: server.runtime.keys.kid })
          .sign(server.runtime.keys.privateKey);
        return { authorization: `Bearer ${token}` };
      },
    ],
  ])('%s', async (_name, headers) => {
    const res = await lookup(callIdOf(1), { token: undefined, headers: await headers() });
    expectVideoError(res, 401, 'unauthorized');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('a revoked token', async () => {
    const client = await server.client({ apps: [tenant.appId], scopes: ['video:read', 'oauth:revoke'] });
    const token = await client.token();
    expect((await lookup(callIdOf(1), { token })).status).toBe(200);
    const revoke = await request(`${server.url}/api/v1/oauth/revoke`, { token, json: { token } });
    expect(revoke.status).toBe(200);
    const res = await lookup(callIdOf(1), { token });
    expectVideoError(res, 401, 'unauthorized');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });
});

describe('video lookup: scope and tenancy', () => {
  it('403 forbidden without video:read, even for a call of its own app', async () => {
    const client = await server.client({ apps: [tenant.appId], scopes: ['scheduling:read', 'scheduling:write', 'analytics:read'] });
    expectVideoError(await lookup(callIdOf(1), { token: await client.token() }), 403, 'forbidden');
  });

  it("404 for another app's call, indistinguishable from an unknown one; nothing of it leaks", async () => {
    const foreign = await lookup(callIdOf(2));
    expectVideoError(foreign, 404, 'not_found');
    expect(JSON.stringify(foreign.body)).not.toContain('stranger secret');
    const unknown = await lookup(callIdOf(999));
    expect(unknown.body).toEqual(foreign.body);
    // The owner sees it.
    expect((await lookup(callIdOf(2), { token: stranger.accessToken })).body.data.title).toBe('stranger secret');
  });
});

describe('video lookup: bad paths and methods', () => {
  it.each([['not-a-uuid'], ['1234'], [`${callIdOf(1)}0`], ['%20'], ["1'%20or%20'1'='1"]])('404 not_found for callId %s', async (callId) => {
    expectVideoError(await lookup(callId), 404, 'not_found');
  });

  it('404 for a versioned path (the lookup has no version segment) and unknown paths', async () => {
    expectVideoError(await request(`${server.videoUrl}/api/v1/calls/${callIdOf(1)}`, { token: tenant.accessToken }), 404, 'not_found');
    expectVideoError(await request(`${server.videoUrl}/nope`), 404, 'not_found');
  });

  it('without a token: an unknown /api path is 404, the lookup path with another method 405, the lookup 401', async () => {
    expectVideoError(await request(`${server.videoUrl}/api/v1/calls/${callIdOf(1)}`), 404, 'not_found');
    expectVideoError(await request(`${server.videoUrl}/api/nowhere`), 404, 'not_found');
    expectVideoError(await request(`${server.videoUrl}/api/calls/${callIdOf(1)}`, { method: 'DELETE' }), 405, 'method_not_allowed');
    const lookupWithout = await request(`${server.videoUrl}/api/calls/${callIdOf(1)}`);
    expectVideoError(lookupWithout, 401, 'unauthorized');
    expect(lookupWithout.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('405 for another method on the lookup path', async () => {
    expectVideoError(await lookup(callIdOf(1), { method: 'DELETE' }), 405, 'method_not_allowed');
  });
});

describe('video lookup: rate limits and internal errors', () => {
  it('429 rate_limit_exceeded with Retry-After once the window is spent', async () => {
    const client = await server.client({ apps: [tenant.appId], scopes: ['video:read'], rate: { minute: 1 } });
    const token = await client.token();
    const first = await lookup(callIdOf(1), { token });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-remaining')).toBe('0');
    const second = await lookup(callIdOf(1), { token });
    expectVideoError(second, 429, 'rate_limit_exceeded');
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('500 server_error says nothing of internals', async () => {
    const { db } = server.runtime.database;
    await db.execute(sql`alter table video_recordings rename to video_recordings_away`);
    try {
      const res = await lookup(callIdOf(1));
      expectVideoError(res, 500, 'server_error');
      expect(res.body.error.message).toBe('Internal server error');
      expect(JSON.stringify(res.body)).not.toMatch(/video_recordings|relation|select/i);
    } finally {
      await db.execute(sql`alter table video_recordings_away rename to video_recordings`);
    }
    expect((await lookup(callIdOf(1))).status).toBe(200);
  });
});
