import { decodeJwt, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/apps/service.js';
import { expectErrorEnvelope, gql, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';

// A narrowed token reaches no more than it was narrowed to, scope errors tell nothing before the
// client is authenticated, and bearer refusals carry RFC 6750 challenges without changing their bodies.

const { server, tenant } = useServer({ tenant: { scopes: ['oauth:revoke', 'messages:read', 'analytics:read'] } });

const form = (fields: Record<string, string>) => ({ body: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
const standardToken = async (clientId: string, clientSecret: string, extra: Record<string, string>) => {
  const res = await request(`${server.url}/oauth/token`, form({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, ...extra }));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.access_token as string;
};
const messages = (appId: string, token: string) => request(`${server.url}/api/v1/analytics/${appId}/messages`, { token });

describe('tenancy of narrowed tokens', () => {
  it('a token narrowed to one app cannot reach the client’s other app, on REST and GraphQL', async () => {
    const { db } = server.runtime.database;
    const [a, b] = [await createApp(db, { name: 'Kept' }), await createApp(db, { name: 'Dropped' })];
    const multi = await server.client({ apps: [a.id, b.id], scopes: ['messages:read'] });
    const narrow = await standardToken(multi.clientId, multi.clientSecret, { app_id: a.id });
    expect((await messages(a.id, narrow)).status).toBe(200);
    const refused = await messages(b.id, narrow);
    expect(refused.status).toBe(403);
    expectErrorEnvelope(refused.body, 'forbidden');
    // Another app is no scope matter: no challenge to get a wider token.
    expect(refused.headers.get('www-authenticate')).toBeNull();
    const graph = await gql(server.url, narrow, 'query($app: UUID!) { messages(appId: $app) { limit } }', { app: b.id });
    expect(graph.body.errors?.[0]?.extensions?.code).toBe('forbidden');
    // The unnarrowed token of the same client reaches both (control).
    const wide = await standardToken(multi.clientId, multi.clientSecret, {});
    expect((await messages(b.id, wide)).status).toBe(200);
  });

  it('a token narrowed to some scopes cannot use the ones it lost', async () => {
    const narrow = await standardToken(tenant.clientId, tenant.clientSecret, { scope: 'analytics:read' });
    const refused = await messages(tenant.appId, narrow);
    expect(refused.status).toBe(403);
    expectErrorEnvelope(refused.body, 'forbidden');
    // RFC 6750 3.1: which scope was missing.
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="switchboard", error="insufficient_scope", scope="messages:read"');
    const revoke = await request(`${server.url}/api/v1/oauth/revoke`, { token: narrow, json: { token: narrow } });
    expect(revoke.status).toBe(403);
    expect((await request(`${server.url}/api/v1/analytics/${tenant.appId}/tags`, { token: narrow })).status).toBe(200);
  });

  it('narrowing never widens: another client’s app or a scope the client lacks is refused, not granted', async () => {
    const other = await server.tenant({ scopes: ['scheduling:write'] });
    const res = await request(`${server.url}/oauth/token`, form({ grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret, app_id: other.appId, scope: 'scheduling:write' }));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_scope');
  });

  it('a scope or app_id error is told only to an authenticated client: wrong credentials are invalid_client first', async () => {
    const res = await request(`${server.url}/oauth/token`, form({ grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: 'wrong', scope: 'campaigns:read' }));
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });

  it('the standard revoke endpoint leaves another client’s token alone', async () => {
    const other = await server.tenant({ scopes: ['messages:read'] });
    const res = await request(`${server.url}/oauth/revoke`, form({ token: other.accessToken, client_id: tenant.clientId, client_secret: tenant.clientSecret }));
    expect(res.status).toBe(200);
    expect((await messages(other.appId, other.accessToken)).status).toBe(200);
  });

  it('a token whose client_id differs from its subject is refused, even signed by the real key', async () => {
    const claims = decodeJwt(tenant.accessToken);
    const forged = await new SignJWT({ ...claims, client_id: 'sbc_someone_else' })
      .setProtectedHeader({ alg: 'ES256', kid: server.runtime.keys.kid, typ: 'at+jwt' })
      .sign(server.runtime.keys.privateKey);
    expect((await messages(tenant.appId, forged)).status).toBe(401);
    // A token without client_id (as issued before the claim existed) still verifies.
    const { client_id: _dropped, ...legacy } = claims;
    const old = await new SignJWT({ ...legacy, jti: crypto.randomUUID() })
      .setProtectedHeader({ alg: 'ES256', kid: server.runtime.keys.kid, typ: 'at+jwt' })
      .sign(server.runtime.keys.privateKey);
    expect((await messages(tenant.appId, old)).status).toBe(200);
  });
});

describe('RFC 6750 challenges on bearer-protected paths', () => {
  const paths = () => [
    { name: 'REST', url: `${server.url}/api/v1/analytics/${tenant.appId}/messages`, init: {} },
    { name: 'GraphQL', url: `${server.url}/graphql`, init: { json: { query: '{ viewer { clientId } }' } } },
    { name: 'video host', url: `${server.videoUrl}/api/calls/00000000-0000-4000-8000-000000000000`, init: {} },
  ];

  it('no token sent: the scheme and realm only, and the bodies as before', async () => {
    for (const { name, url, init } of paths()) {
      const res = await request(url, init);
      expect(res.status, name).toBe(401);
      expect(res.headers.get('www-authenticate'), name).toBe('Bearer realm="switchboard"');
    }
    const rest = await request(paths()[0]!.url);
    expectErrorEnvelope(rest.body, 'unauthorized');
    expect(Object.keys(rest.body.error).sort()).toEqual(['message', 'timestamp', 'type']);
  });

  it('another scheme is no bearer token: no error code', async () => {
    const res = await request(paths()[0]!.url, { headers: { authorization: 'Basic eDp5' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="switchboard"');
  });

  it('a bad, expired or revoked token: invalid_token and why, on every listener', async () => {
    const revoked = await tenant.token();
    expect((await request(`${server.url}/api/v1/oauth/revoke`, { token: tenant.accessToken, json: { token: revoked } })).status).toBe(200);
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({ ...decodeJwt(tenant.accessToken), iat: now - 7200, exp: now - 3600 })
      .setProtectedHeader({ alg: 'ES256', kid: server.runtime.keys.kid })
      .sign(server.runtime.keys.privateKey);
    const cases: [string, string][] = [
      ['not.a.jwt', 'Invalid token'],
      [expired, 'Token expired'],
      [revoked, 'Token revoked'],
    ];
    for (const [token, description] of cases) {
      for (const { name, url, init } of paths()) {
        const res = await request(url, { ...init, token });
        expect(res.status, name).toBe(401);
        expect(res.headers.get('www-authenticate'), `${name}: ${description}`).toBe(`Bearer realm="switchboard", error="invalid_token", error_description="${description}"`);
      }
    }
    const rest = await request(paths()[0]!.url, { token: 'not.a.jwt' });
    expectErrorEnvelope(rest.body, 'unauthorized');
    expect(rest.body.error.message).toBe('Invalid token');
  });
});
