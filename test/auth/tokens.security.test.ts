import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope, gql, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';

const { server, tenant } = useServer({ tenant: { scopes: ['oauth:revoke', 'messages:read'] } });

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function claimsOf(token: string) {
  return decodeJwt(token) as Record<string, unknown>;
}

async function signWith(key: CryptoKey, kid: string, claims: Record<string, unknown>) {
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid }).sign(key);
}

const attacks: [string, () => Promise<string>][] = [
  ['no token at all', async () => ''],
  ['garbage', async () => 'not.a.jwt'],
  ['alg none', async () => `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claimsOf(tenant.accessToken))}.`],
  [
    'tampered claims (extra app) with the original signature',
    async () => {
      const [h, , s] = tenant.accessToken.split('.');
      const claims = { ...claimsOf(tenant.accessToken), apps: [tenant.appId, '00000000-0000-4000-8000-000000000000'], scope: 'scheduling:write' };
      return `${h}.${b64(claims)}.${s}`;
    },
  ],
  [
    'signed by a foreign key with the real kid',
    async () => {
      const { privateKey } = await generateKeyPair('ES256');
      return signWith(privateKey, decodeProtectedHeader(tenant.accessToken).kid!, claimsOf(tenant.accessToken));
    },
  ],
  [
    'HS256 signed with the public JWK as the secret (algorithm confusion)',
    async () => {
      const jwks = (await request(`${server.url}/.well-known/jwks.json`)).body;
      const secret = new TextEncoder().encode(JSON.stringify(jwks.keys[0]));
      return new SignJWT(claimsOf(tenant.accessToken)).setProtectedHeader({ alg: 'HS256', kid: jwks.keys[0].kid }).sign(secret);
    },
  ],
  [
    'expired (signed by the real key)',
    async () => {
      const now = Math.floor(Date.now() / 1000);
      return signWith(server.runtime.keys.privateKey, server.runtime.keys.kid, { ...claimsOf(tenant.accessToken), iat: now - 7200, exp: now - 3600 });
    },
  ],
  [
    'wrong audience (signed by the real key)',
    async () => signWith(server.runtime.keys.privateKey, server.runtime.keys.kid, { ...claimsOf(tenant.accessToken), aud: 'someone-else' }),
  ],
  [
    'wrong issuer (signed by the real key)',
    async () => signWith(server.runtime.keys.privateKey, server.runtime.keys.kid, { ...claimsOf(tenant.accessToken), iss: 'evil' }),
  ],
];

describe('JWT attacks are 401 unauthorized on REST and GraphQL', () => {
  it.each(attacks)('%s', async (_name, make) => {
    const token = await make();
    const rest = await request(`${server.url}/api/v1/oauth/revoke`, { token: token || undefined, json: { token: 'x' } });
    expect(rest.status).toBe(401);
    expectErrorEnvelope(rest.body, 'unauthorized');
    expect(rest.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const graph = await gql(server.url, token || undefined, '{ viewer { clientId } }');
    expect(graph.status).toBe(401);
    expect(graph.body.errors?.[0]?.extensions?.code).toBe('unauthorized');
  });

  it('the untampered token works (control)', async () => {
    const graph = await gql(server.url, tenant.accessToken, '{ viewer { clientId } }');
    expect(graph.status).toBe(200);
  });
});

describe('scopes and tenancy are 403 forbidden on REST and GraphQL', () => {
  it('REST: missing scope', async () => {
    const res = await request(`${server.url}/api/v1/oauth/revoke`, { token: (await server.tenant({ scopes: ['messages:read'] })).accessToken, json: { token: 'x' } });
    expect(res.status).toBe(403);
    expectErrorEnvelope(res.body, 'forbidden');
  });

  it('GraphQL: missing scope', async () => {
    const reader = await server.tenant({ scopes: ['messages:read'] });
    const res = await gql(server.url, reader.accessToken, 'mutation { revokeToken(token: "x") }');
    expect(res.status).toBe(200);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('forbidden');
  });

  it('REST: scope and app are checked before the input, so bad input from such a caller is 403, not 400', async () => {
    const reader = await server.tenant({ scopes: ['messages:read'] });
    const other = await server.tenant();
    const cases: [string, string, object | undefined, string][] = [
      // No scheduling:write, a body that would be 400 for a caller with it.
      ['POST', `/api/v1/video/${reader.appId}/scheduled-calls`, { scheduledAtUtc: '2027-02-30T10:00:00Z' }, reader.accessToken],
      // No campaigns:read, a filter that would be 400.
      ['POST', `/api/v1/analytics/${reader.appId}/campaigns/search`, { filter: 5 }, reader.accessToken],
      // The right scope, another app's id, a bad limit.
      ['GET', `/api/v1/analytics/${other.appId}/messages?limit=0&startDate=2026-02-30`, undefined, reader.accessToken],
      ['GET', `/api/v1/analytics/${other.appId.toUpperCase()}/messages?limit=0`, undefined, reader.accessToken],
    ];
    for (const [method, path, json, token] of cases) {
      const res = await request(`${server.url}${path}`, { method, token, json });
      expect(res.status, `${method} ${path}`).toBe(403);
      expectErrorEnvelope(res.body, 'forbidden');
    }
    // With the scope and the app, the same input is the 400 it always was; a malformed app id too.
    const own = await request(`${server.url}/api/v1/analytics/${reader.appId}/messages?limit=0`, { token: reader.accessToken });
    expect(own.status).toBe(400);
    expectErrorEnvelope(own.body, 'validation_error');
    const malformed = await request(`${server.url}/api/v1/analytics/not-a-uuid/messages`, { token: reader.accessToken });
    expect(malformed.status).toBe(400);
  });

  it("GraphQL: another app's id", async () => {
    const other = await server.tenant();
    const res = await gql(server.url, tenant.accessToken, 'query($id: UUID!) { app(appId: $id) { id: appId name } }', { id: other.appId });
    expect(res.status).toBe(200);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('forbidden');
    expect(res.body.data).toBeNull();
    const own = await gql(server.url, tenant.accessToken, 'query($id: UUID!) { app(appId: $id) { id: appId } }', { id: tenant.appId });
    expect(own.body.data.app.id).toBe(tenant.appId);
  });
});
