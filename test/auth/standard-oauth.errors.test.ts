import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/apps/service.js';
import { expectErrorEnvelope, request, requestOnce } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';

// Every refusal of the standard endpoints in RFC 6749 5.2 form, and of scope and app_id on the
// v1 endpoint in the service's envelope. Bounded inputs are refused before any lookup.

const { server, tenant } = useServer({ overrides: { TOKEN_FAILURES_PER_15MIN: '3' }, tenant: { scopes: ['oauth:revoke', 'messages:read'] } });

const form = (fields: Record<string, string>, headers: Record<string, string> = {}) => ({
  body: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
});
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const token = (fields: Record<string, string>, headers: Record<string, string> = {}) => request(`${server.url}/oauth/token`, form(fields, headers));
const good = () => ({ grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret });

function expectOAuthError(res: { status: number; body: any; headers: Headers }, status: number, error: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toEqual({ error, error_description: expect.any(String) });
  expect(res.headers.get('cache-control')).toBe('no-store');
}

describe('POST /oauth/token errors (RFC 6749 5.2)', () => {
  it.each([['password'], ['authorization_code'], ['']])('400 unsupported_grant_type for grant_type %j', async (grant) => {
    expectOAuthError(await token({ ...good(), grant_type: grant }), 400, 'unsupported_grant_type');
  });

  it('401 invalid_client without credentials, or with a wrong secret, and no challenge when Basic was not used', async () => {
    const none = await token({ grant_type: 'client_credentials' });
    expectOAuthError(none, 401, 'invalid_client');
    expect(none.headers.get('www-authenticate')).toBeNull();
    const wrong = await token({ ...good(), client_secret: 'wrong' });
    expectOAuthError(wrong, 401, 'invalid_client');
    expect(wrong.headers.get('www-authenticate')).toBeNull();
  });

  it('401 invalid_client with a Basic challenge (not Bearer) when Basic was used, on both token endpoints', async () => {
    const victim = await server.tenant({ scopes: ['messages:read'] });
    const wrong = await token({ grant_type: 'client_credentials' }, { authorization: basic(victim.clientId, 'wrong') });
    expectOAuthError(wrong, 401, 'invalid_client');
    expect(wrong.headers.get('www-authenticate')).toBe('Basic realm="switchboard"');
    const malformed = await token({ grant_type: 'client_credentials' }, { authorization: 'Basic bm8tY29sb24=' });
    expectOAuthError(malformed, 401, 'invalid_client');
    expect(malformed.headers.get('www-authenticate')).toBe('Basic realm="switchboard"');
    const v1 = await request(`${server.url}/api/v1/oauth/token`, form({ grant_type: 'client_credentials' }, { authorization: basic(victim.clientId, 'wrong') }));
    expect(v1.status).toBe(401);
    expectErrorEnvelope(v1.body, 'invalid_client');
    expect(v1.headers.get('www-authenticate')).toBe('Basic realm="switchboard"');
    // A failed client_secret_post on v1 is no bearer matter either.
    const post = await request(`${server.url}/api/v1/oauth/token`, { json: { grant_type: 'client_credentials', client_id: 'sbc_nobody', client_secret: 'x' } });
    expect(post.status).toBe(401);
    expect(post.headers.get('www-authenticate')).toBeNull();
  });

  it('400 invalid_scope for a scope the client lacks, an unknown scope, or a malformed one', async () => {
    for (const scope of ['messages:read campaigns:read', 'nonsense', 'messages:read\tx', 'bad"quote']) {
      expectOAuthError(await token({ ...good(), scope }), 400, 'invalid_scope');
    }
  });

  it('400 invalid_scope for an app_id that is not one of the client apps, or not an app id at all', async () => {
    const other = await createApp(server.runtime.database.db, { name: 'Not yours' });
    for (const appId of [other.id, `${tenant.appId} ${other.id}`, 'not-a-uuid']) {
      expectOAuthError(await token({ ...good(), app_id: appId }), 400, 'invalid_scope');
    }
  });

  it('400 invalid_request for a JSON body, a parameter given twice, or two client authentication methods', async () => {
    const json = await request(`${server.url}/oauth/token`, { json: good() });
    expectOAuthError(json, 400, 'invalid_request');
    const twice = await request(`${server.url}/oauth/token`, {
      body: `grant_type=client_credentials&client_id=${tenant.clientId}&client_secret=${tenant.clientSecret}&scope=messages:read&scope=oauth:revoke`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectOAuthError(twice, 400, 'invalid_request');
    expectOAuthError(await token(good(), { authorization: basic(tenant.clientId, tenant.clientSecret) }), 400, 'invalid_request');
    expectOAuthError(await token({ grant_type: 'client_credentials', client_id: 'sbc_other' }, { authorization: basic(tenant.clientId, tenant.clientSecret) }), 400, 'invalid_request');
  });

  it('405 with Allow: POST for another method', async () => {
    const res = await request(`${server.url}/oauth/token`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.body.error).toBe('invalid_request');
  });

  it('429 temporarily_unavailable with Retry-After once the failure budget is spent, shared with the v1 endpoint', async () => {
    const victim = await server.tenant({ scopes: ['messages:read'] });
    for (let i = 0; i < 2; i++) expectOAuthError(await token({ grant_type: 'client_credentials', client_id: victim.clientId, client_secret: `guess-${i}` }), 401, 'invalid_client');
    const v1 = await request(`${server.url}/api/v1/oauth/token`, { json: { grant_type: 'client_credentials', client_id: victim.clientId, client_secret: 'guess-v1' } });
    expect(v1.status).toBe(401);
    const blocked = await token({ grant_type: 'client_credentials', client_id: victim.clientId, client_secret: victim.clientSecret });
    expectOAuthError(blocked, 429, 'temporarily_unavailable');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    const blockedV1 = await request(`${server.url}/api/v1/oauth/token`, { json: { grant_type: 'client_credentials', client_id: victim.clientId, client_secret: victim.clientSecret } });
    expect(blockedV1.status).toBe(429);
  });
});

describe('bounded inputs', () => {
  it('a scope over 1024 characters is refused before any lookup, on both endpoints', async () => {
    const huge = 'messages:read '.repeat(1_000);
    // Even with a wrong secret: no lookup, no budget spent.
    expectOAuthError(await token({ ...good(), client_secret: 'wrong', scope: huge }), 400, 'invalid_scope');
    const v1 = await request(`${server.url}/api/v1/oauth/token`, { json: { ...good(), scope: huge.slice(0, 1100) } });
    expect(v1.status).toBe(400);
    expectErrorEnvelope(v1.body, 'invalid_request');
    expect(v1.body.error.details).toEqual([{ field: 'scope', code: 'too_long', message: expect.any(String) }]);
  });

  it('many scopes within the length limit are read once each', async () => {
    const many = Array.from({ length: 70 }, () => 'messages:read').join(' ');
    const res = await token({ ...good(), scope: many });
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('messages:read');
  });

  it('more than 100 app ids are refused as too many', async () => {
    const ids = Array.from({ length: 101 }, () => tenant.appId).join(' ');
    const res = await request(`${server.url}/api/v1/oauth/token`, { json: { ...good(), app_id: ids } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'app_id', code: 'too_big', message: expect.any(String) }]);
  });

  it('413 for a form body over 16 KiB, announced or chunked, without reading it all', async () => {
    const body = `grant_type=client_credentials&client_id=${'x'.repeat(20_000)}`;
    const announced = await requestOnce(`${server.url}/oauth/token`, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    expectOAuthError(announced, 413, 'invalid_request');
    const chunked = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = httpRequest(`${server.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      });
      req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
      for (let i = 0; i < 40; i++) req.write('a'.repeat(1024));
      req.end();
    });
    expect(chunked.status).toBe(413);
    expect(chunked.body.error).toBe('invalid_request');
  });
});

describe('scope and app_id errors on /api/v1/oauth/token (the v1 error envelope)', () => {
  it('400 invalid_request naming scope for a scope the client lacks', async () => {
    const res = await request(`${server.url}/api/v1/oauth/token`, { json: { ...good(), scope: 'messages:read campaigns:read' } });
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'invalid_request');
    expect(res.body.error.details).toEqual([{ field: 'scope', code: 'invalid_value', message: expect.stringContaining('campaigns:read') }]);
  });

  it('400 invalid_request naming app_id for an app that is not the client’s', async () => {
    const other = await createApp(server.runtime.database.db, { name: 'Foreign' });
    const res = await request(`${server.url}/api/v1/oauth/token`, { json: { ...good(), app_id: other.id } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'app_id', code: 'invalid_value', message: expect.any(String) }]);
  });

  it('400 invalid_request with invalid_type for a scope that is not a string', async () => {
    const res = await request(`${server.url}/api/v1/oauth/token`, { json: { ...good(), scope: ['messages:read'] } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'scope', code: 'invalid_type', message: 'must be a string' }]);
  });
});

describe('POST /oauth/revoke errors (RFC 7009)', () => {
  const revoke = (fields: Record<string, string>, headers: Record<string, string> = {}) => request(`${server.url}/oauth/revoke`, form(fields, headers));

  it('401 invalid_client for wrong credentials, with a Basic challenge when Basic was used', async () => {
    const client = await server.tenant({ scopes: ['oauth:revoke'] });
    expectOAuthError(await revoke({ token: 'x', client_id: client.clientId, client_secret: 'wrong' }), 401, 'invalid_client');
    const viaBasic = await revoke({ token: 'x' }, { authorization: basic(client.clientId, 'wrong') });
    expectOAuthError(viaBasic, 401, 'invalid_client');
    expect(viaBasic.headers.get('www-authenticate')).toBe('Basic realm="switchboard"');
  });

  it('400 invalid_request without a token; 400 unauthorized_client for a client without oauth:revoke', async () => {
    expectOAuthError(await revoke({ client_id: tenant.clientId, client_secret: tenant.clientSecret }), 400, 'invalid_request');
    const reader = await server.tenant({ scopes: ['messages:read'] });
    expectOAuthError(await revoke({ token: reader.accessToken, client_id: reader.clientId, client_secret: reader.clientSecret }), 400, 'unauthorized_client');
    expect((await request(`${server.url}/graphql`, { token: reader.accessToken, json: { query: '{ viewer { clientId } }' } })).status).toBe(200);
  });

  it('/api/v1/oauth/revoke refuses a form key given twice or one it does not know', async () => {
    const twice = await request(`${server.url}/api/v1/oauth/revoke`, { token: tenant.accessToken, ...form({}), body: 'token=a&token=b' });
    expect(twice.status).toBe(400);
    expect(twice.body.error.details).toEqual([{ field: 'token', code: 'invalid_value', message: expect.any(String) }]);
    const unknown = await request(`${server.url}/api/v1/oauth/revoke`, { token: tenant.accessToken, ...form({ token: 'a', tokn: 'b' }) });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details).toEqual([{ field: 'tokn', code: 'unrecognized', message: expect.any(String) }]);
  });
});
