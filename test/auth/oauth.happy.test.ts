import { and, eq, inArray } from 'drizzle-orm';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/apps/service.js';
import { pruneRevocations } from '../../src/auth/revocation-pruning.js';
import { oauthClientApps, revokedTokens } from '../../src/auth/tables.js';
import { request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';

const { server, tenant } = useServer({ tenant: { scopes: ['oauth:revoke', 'messages:read'] } });

const tokenUrl = () => `${server.url}/api/v1/oauth/token`;

describe('POST /oauth/token', () => {
  it('issues a Bearer token from a JSON body, enveloped with meta.timestamp', async () => {
    const res = await request(tokenUrl(), {
      json: { grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600 });
    expect(Date.parse(res.body.meta.timestamp)).not.toBeNaN();
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('signs with ES256 and carries iss, aud, sub, scope, apps, jti and a one-hour exp', async () => {
    const token = await tenant.token();
    expect(decodeProtectedHeader(token).alg).toBe('ES256');
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({ iss: 'switchboard', aud: 'switchboard-api', sub: tenant.clientId, scope: 'oauth:revoke messages:read', apps: [tenant.appId] });
    expect(typeof claims.jti).toBe('string');
    expect(claims.exp! - claims.iat!).toBe(3600);
  });

  it("carries every app of a client of several apps, and an app's removal shows in the next token", async () => {
    const { db } = server.runtime.database;
    const [a, b] = [await createApp(db, { name: 'Multi A' }), await createApp(db, { name: 'Multi B' })];
    const multi = await server.client({ apps: [a.id, b.id], scopes: ['messages:read'] });
    expect((decodeJwt(await multi.token()).apps as string[]).sort()).toEqual([a.id, b.id].sort());
    await db.delete(oauthClientApps).where(and(eq(oauthClientApps.clientId, multi.clientId), eq(oauthClientApps.appId, a.id)));
    expect(decodeJwt(await multi.token()).apps).toEqual([b.id]);
    await db.delete(oauthClientApps).where(eq(oauthClientApps.clientId, multi.clientId));
    expect(decodeJwt(await multi.token()).apps).toEqual([]);
  });

  it('accepts a form-urlencoded body', async () => {
    const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret });
    const res = await request(tokenUrl(), { body: body.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(200);
    expect(res.body.data.token_type).toBe('Bearer');
  });

  it('accepts HTTP Basic client authentication', async () => {
    const basic = Buffer.from(`${encodeURIComponent(tenant.clientId)}:${encodeURIComponent(tenant.clientSecret)}`).toString('base64');
    const res = await request(tokenUrl(), {
      body: 'grant_type=client_credentials',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
    });
    expect(res.status).toBe(200);
    expect(decodeJwt(res.body.data.access_token).sub).toBe(tenant.clientId);
  });

  it('publishes the verification keys at /.well-known/jwks.json', async () => {
    const res = await request(`${server.url}/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    const kid = decodeProtectedHeader(tenant.accessToken).kid;
    expect(res.body.keys).toContainEqual(expect.objectContaining({ kid, kty: 'EC', crv: 'P-256', alg: 'ES256' }));
    expect(res.body.keys.every((k: { d?: string }) => k.d === undefined)).toBe(true);
  });
});

describe('POST /oauth/revoke', () => {
  it('revokes a token: 200 with an empty data object, then the token is refused', async () => {
    const victim = await tenant.token();
    const before = await request(`${server.url}/graphql`, { token: victim, json: { query: '{ viewer { clientId } }' } });
    expect(before.status).toBe(200);
    const res = await request(`${server.url}/api/v1/oauth/revoke`, { token: tenant.accessToken, json: { token: victim } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: {}, meta: { timestamp: expect.any(String) } });
    const after = await request(`${server.url}/graphql`, { token: victim, json: { query: '{ viewer { clientId } }' } });
    expect(after.status).toBe(401);
  });

  it('revocations of expired tokens are pruned; a live token stays revoked', async () => {
    const { db } = server.runtime.database;
    const live = await tenant.token();
    expect((await request(`${server.url}/api/v1/oauth/revoke`, { token: tenant.accessToken, json: { token: live } })).status).toBe(200);
    const expired = ['pruned-1', 'pruned-2', 'pruned-3'];
    await db.insert(revokedTokens).values(expired.map((jti) => ({ jti, clientId: tenant.clientId, expiresAt: new Date(Date.now() - 60_000) })));
    const jti = decodeJwt(live).jti!;
    expect(await pruneRevocations(db, new Date())).toBeGreaterThanOrEqual(expired.length);
    const left = await db.select({ jti: revokedTokens.jti }).from(revokedTokens).where(inArray(revokedTokens.jti, [...expired, jti]));
    expect(left).toEqual([{ jti }]);
    expect((await request(`${server.url}/graphql`, { token: live, json: { query: '{ viewer { clientId } }' } })).status).toBe(401);
  });

  it('a token can revoke itself and is refused on the next request', async () => {
    const self = await tenant.token();
    expect((await request(`${server.url}/api/v1/oauth/revoke`, { token: self, json: { token: self } })).status).toBe(200);
    const again = await request(`${server.url}/api/v1/oauth/revoke`, { token: self, json: { token: self } });
    expect(again.status).toBe(401);
    expect(again.body.error.type).toBe('unauthorized');
  });

  it("takes RFC 7009's token_type_hint and refuses any other unknown key", async () => {
    const hinted = await tenant.token();
    const ok = await request(`${server.url}/api/v1/oauth/revoke`, { token: tenant.accessToken, json: { token: hinted, token_type_hint: 'access_token' } });
    expect(ok.status).toBe(200);
    // A JSON null is no hint, as leaving it out is.
    const unhinted = await request(`${server.url}/api/v1/oauth/revoke`, { token: tenant.accessToken, json: { token: await tenant.token(), token_type_hint: null } });
    expect(unhinted.status).toBe(200);
    expect((await request(`${server.url}/graphql`, { token: hinted, json: { query: '{ viewer { clientId } }' } })).status).toBe(401);
    const other = await tenant.token();
    const refused = await request(`${server.url}/api/v1/oauth/revoke`, { token: tenant.accessToken, json: { token: other, tokn: other } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ type: 'invalid_request', details: [{ field: 'tokn', code: 'unrecognized' }] });
  });

  it('succeeds for an invalid or already revoked token', async () => {
    for (const token of ['not-a-jwt', 'a.b.c', tenant.accessToken.slice(0, -4) + 'AAAA']) {
      const res = await request(`${server.url}/api/v1/oauth/revoke`, { token: tenant.accessToken, json: { token } });
      expect(res.status).toBe(200);
    }
  });

  it("revoking another client's token succeeds and changes nothing", async () => {
    const other = await server.tenant({ scopes: ['oauth:revoke'] });
    const res = await request(`${server.url}/api/v1/oauth/revoke`, { token: tenant.accessToken, json: { token: other.accessToken } });
    expect(res.status).toBe(200);
    const still = await request(`${server.url}/graphql`, { token: other.accessToken, json: { query: '{ viewer { clientId } }' } });
    expect(still.status).toBe(200);
  });
});
