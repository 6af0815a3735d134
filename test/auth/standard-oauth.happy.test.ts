import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/apps/service.js';
import { request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';

// The standard OAuth 2.0 endpoints at the listener root (RFC 6749 section 5, RFC 7009, RFC 8414),
// and what they share with the v1 token endpoint: scope narrowing and the RFC 9068 claims.

const { server, tenant } = useServer({ tenant: { scopes: ['oauth:revoke', 'messages:read', 'analytics:read'] } });

const form = (fields: Record<string, string>, headers: Record<string, string> = {}) => ({
  body: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
});
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const viewer = (token: string) => request(`${server.url}/graphql`, { token, json: { query: '{ viewer { clientId scopes appIds } }' } });

describe('POST /oauth/token (RFC 6749)', () => {
  it('client_secret_post: a bare RFC 6749 token response with scope, not cached', async () => {
    const res = await request(`${server.url}/oauth/token`, form({ grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'oauth:revoke messages:read analytics:read' });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await viewer(res.body.access_token)).body.data.viewer.clientId).toBe(tenant.clientId);
  });

  it('client_secret_basic: the credentials in an Authorization: Basic header', async () => {
    const res = await request(`${server.url}/oauth/token`, form({ grant_type: 'client_credentials' }, { authorization: basic(tenant.clientId, tenant.clientSecret) }));
    expect(res.status).toBe(200);
    expect(decodeJwt(res.body.access_token).sub).toBe(tenant.clientId);
  });

  it('a client_id in the body beside Basic is accepted when it names the same client', async () => {
    const res = await request(
      `${server.url}/oauth/token`,
      form({ grant_type: 'client_credentials', client_id: tenant.clientId }, { authorization: basic(tenant.clientId, tenant.clientSecret) }),
    );
    expect(res.status).toBe(200);
  });

  it('scope narrows the token to a subset of the client scopes; the answer and the claims say which', async () => {
    const res = await request(`${server.url}/oauth/token`, form({ grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret, scope: 'messages:read  oauth:revoke messages:read' }));
    expect(res.status).toBe(200);
    // In the client's order, each once, whatever order and repetitions were asked for.
    expect(res.body.scope).toBe('oauth:revoke messages:read');
    expect(decodeJwt(res.body.access_token).scope).toBe('oauth:revoke messages:read');
    expect((await viewer(res.body.access_token)).body.data.viewer.scopes).toEqual(['oauth:revoke', 'messages:read']);
  });

  it('carries the RFC 9068 claims: iss, sub, aud, exp, iat, jti, client_id, scope; typ at+jwt', async () => {
    const res = await request(`${server.url}/oauth/token`, form({ grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret }));
    const claims = decodeJwt(res.body.access_token);
    expect(claims).toMatchObject({ iss: 'switchboard', aud: 'switchboard-api', sub: tenant.clientId, client_id: tenant.clientId, scope: res.body.scope });
    expect(typeof claims.jti).toBe('string');
    expect(claims.exp! - claims.iat!).toBe(3600);
    // The v1 endpoint signs the same claims.
    expect(decodeJwt(await tenant.token()).client_id).toBe(tenant.clientId);
  });
});

describe('scope and app_id on the v1 endpoint', () => {
  it('narrows scopes in the v1 envelope, whose data keeps its three fields', async () => {
    const res = await request(`${server.url}/api/v1/oauth/token`, {
      json: { grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret, scope: 'messages:read' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600 });
    expect(decodeJwt(res.body.data.access_token).scope).toBe('messages:read');
  });

  it('narrows apps with app_id, in JSON and in a form', async () => {
    const { db } = server.runtime.database;
    const [a, b] = [await createApp(db, { name: 'Narrow A' }), await createApp(db, { name: 'Narrow B' })];
    const multi = await server.client({ apps: [a.id, b.id], scopes: ['messages:read'] });
    const json = await request(`${server.url}/api/v1/oauth/token`, {
      json: { grant_type: 'client_credentials', client_id: multi.clientId, client_secret: multi.clientSecret, app_id: b.id },
    });
    expect(json.status).toBe(200);
    expect(decodeJwt(json.body.data.access_token).apps).toEqual([b.id]);
    const standard = await request(`${server.url}/oauth/token`, form({ grant_type: 'client_credentials', client_id: multi.clientId, client_secret: multi.clientSecret, app_id: `${a.id.toUpperCase()} ${b.id}` }));
    expect(standard.status).toBe(200);
    expect((decodeJwt(standard.body.access_token).apps as string[]).sort()).toEqual([a.id, b.id].sort());
  });
});

describe('GET /.well-known/oauth-authorization-server (RFC 8414)', () => {
  it('points at the token, revocation and key endpoints of this listener', async () => {
    const res = await request(`${server.url}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      issuer: server.url,
      token_endpoint: `${server.url}/oauth/token`,
      revocation_endpoint: `${server.url}/oauth/revoke`,
      jwks_uri: `${server.url}/.well-known/jwks.json`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    });
    expect(res.body.scopes_supported).toContain('messages:read');
    // Every URL it names answers.
    expect((await request(res.body.jwks_uri)).status).toBe(200);
  });
});

describe('revocation', () => {
  it('POST /oauth/revoke (RFC 7009): client authentication, a form body, 200 with an empty body', async () => {
    const victim = await tenant.token();
    const res = await fetch(`${server.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(tenant.clientId, tenant.clientSecret) },
      body: new URLSearchParams({ token: victim, token_type_hint: 'access_token' }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    expect((await viewer(victim)).status).toBe(401);
  });

  it('POST /oauth/revoke with client_secret_post; an invalid token is a success too', async () => {
    const victim = await tenant.token();
    for (const token of [victim, 'not-a-token']) {
      const res = await request(`${server.url}/oauth/revoke`, form({ token, client_id: tenant.clientId, client_secret: tenant.clientSecret }));
      expect(res.status).toBe(200);
    }
    expect((await viewer(victim)).status).toBe(401);
  });

  it('/api/v1/oauth/revoke takes a form body beside JSON, answering in its envelope', async () => {
    const victim = await tenant.token();
    const res = await request(`${server.url}/api/v1/oauth/revoke`, { token: tenant.accessToken, ...form({ token: victim, token_type_hint: 'access_token' }) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: {}, meta: { timestamp: expect.any(String) } });
    expect((await viewer(victim)).status).toBe(401);
  });
});
