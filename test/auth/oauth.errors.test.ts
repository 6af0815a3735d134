import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope, request, requestOnce } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';

const { server, tenant } = useServer({ overrides: { TOKEN_FAILURES_PER_15MIN: '3' }, tenant: { scopes: ['oauth:revoke'] } });

const token = (init: Parameters<typeof request>[1]) => request(`${server.url}/api/v1/oauth/token`, { method: 'POST', ...init });

// Every documented error of the token and revoke endpoints (docs/rest.md).
describe('POST /oauth/token errors', () => {
  it('400 invalid_request for a body that is not JSON', async () => {
    const res = await token({ body: '{"grant_type": ', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'invalid_request');
  });

  it.each([['password'], ['authorization_code'], [undefined]])('400 unsupported_grant_type for grant_type %s', async (grant) => {
    const res = await token({ json: { grant_type: grant, client_id: tenant.clientId, client_secret: tenant.clientSecret } });
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'unsupported_grant_type');
  });

  it.each([
    [{ client_secret: 'x' }, 'client_id'],
    [{ client_id: 'x' }, 'client_secret'],
    [{}, 'client_id'],
  ])('400 invalid_client when a credential is missing (%j)', async (fields, field) => {
    const res = await token({ json: { grant_type: 'client_credentials', ...fields } });
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'invalid_client');
    expect(res.body.error.details).toContainEqual({ field, code: 'required', message: expect.any(String) });
  });

  it.each([
    [{ grant_type: ['client_credentials'] }, 'unsupported_grant_type', 'grant_type'],
    [{ grant_type: 7 }, 'unsupported_grant_type', 'grant_type'],
    [{ client_id: 5 }, 'invalid_client', 'client_id'],
    [{ client_secret: { a: 1 } }, 'invalid_client', 'client_secret'],
  ])('400 with code invalid_type, not required, for a field that is not a string (%j)', async (fields, type, field) => {
    const res = await token({ json: { grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret, ...fields } });
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, type);
    expect(res.body.error.details).toEqual([{ field, code: 'invalid_type', message: 'must be a string' }]);
  });

  it('400 invalid_client with code too_long for an over-long client_id or client_secret, in JSON, a form or Basic', async () => {
    const longId = `sbc_${'i'.repeat(125)}`;
    const longSecret = 's'.repeat(257);
    const json = await token({ json: { grant_type: 'client_credentials', client_id: longId, client_secret: 'x' } });
    expect(json.status).toBe(400);
    expectErrorEnvelope(json.body, 'invalid_client');
    expect(json.body.error.details).toEqual([{ field: 'client_id', code: 'too_long', message: expect.any(String) }]);
    const form = await token({ body: `grant_type=client_credentials&client_id=${tenant.clientId}&client_secret=${longSecret}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(400);
    expect(form.body.error.details).toEqual([{ field: 'client_secret', code: 'too_long', message: expect.any(String) }]);
    const basic = Buffer.from(`${longId}:${longSecret}`).toString('base64');
    const viaBasic = await token({ body: 'grant_type=client_credentials', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` } });
    expect(viaBasic.status).toBe(400);
    expect(viaBasic.body.error.details.map((d: { field: string; code: string }) => [d.field, d.code])).toEqual([
      ['client_id', 'too_long'],
      ['client_secret', 'too_long'],
    ]);
    // The longest values allowed are looked up as usual.
    const atLimit = await token({ json: { grant_type: 'client_credentials', client_id: longId.slice(0, 128), client_secret: longSecret.slice(0, 256) } });
    expect(atLimit.status).toBe(401);
  });

  it('413 payload_too_large for a token request body over 16 KiB, before it is read', async () => {
    const body = JSON.stringify({ grant_type: 'client_credentials', client_id: 'x'.repeat(20_000), client_secret: 's' });
    const res = await requestOnce(`${server.url}/api/v1/oauth/token`, { headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(413);
    expectErrorEnvelope(res.body, 'payload_too_large');
  });

  it('a body starting with a byte-order mark is read as without it, JSON and form alike', async () => {
    const json = await requestOnce(`${server.url}/api/v1/oauth/token`, {
      headers: { 'content-type': 'application/json' },
      body: `\uFEFF${JSON.stringify({ grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret })}`,
    });
    expect(json.status).toBe(200);
    const form = await request(`${server.url}/api/v1/oauth/token`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `\uFEFFgrant_type=client_credentials&client_id=${encodeURIComponent(tenant.clientId)}&client_secret=${encodeURIComponent(tenant.clientSecret)}`,
    });
    expect(form.status).toBe(200);
  });

  it('413 payload_too_large for a chunked token request body once it passes 16 KiB', async () => {
    const chunked = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = httpRequest(`${server.url}/api/v1/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      });
      req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
      // No Content-Length: Node sends it chunked. A valid request but for its padding.
      req.write(`{"grant_type":"client_credentials","client_id":"${tenant.clientId}","client_secret":"${tenant.clientSecret}","pad":"`);
      for (let i = 0; i < 30; i++) req.write('a'.repeat(1024));
      req.end('"}');
    });
    expect(chunked.status).toBe(413);
    expectErrorEnvelope(chunked.body, 'payload_too_large');
  });

  it('400 invalid_request for an empty body sent as JSON', async () => {
    const res = await token({ body: '', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'invalid_request');
  });

  it('401 invalid_client for an unknown client', async () => {
    const res = await token({ json: { grant_type: 'client_credentials', client_id: 'sbc_nobody', client_secret: 'x' } });
    expect(res.status).toBe(401);
    expectErrorEnvelope(res.body, 'invalid_client');
  });

  it('401 invalid_client for a client id no client can have (a NUL), in JSON, a form or Basic', async () => {
    const json = await token({ json: { grant_type: 'client_credentials', client_id: 'sbc_a\u0000b', client_secret: 'x' } });
    expect(json.status).toBe(401);
    expectErrorEnvelope(json.body, 'invalid_client');
    const form = await token({ body: 'grant_type=client_credentials&client_id=sbc_c%00d&client_secret=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(401);
    expectErrorEnvelope(form.body, 'invalid_client');
    const basic = Buffer.from('sbc_e%00f:x').toString('base64');
    const viaBasic = await token({ body: 'grant_type=client_credentials', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` } });
    expect(viaBasic.status).toBe(401);
  });

  it('401 invalid_client for a wrong secret, with a Basic challenge when Basic was used', async () => {
    const res = await token({ json: { grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: 'wrong' } });
    expect(res.status).toBe(401);
    expectErrorEnvelope(res.body, 'invalid_client');
    const basic = Buffer.from(`${tenant.clientId}:wrong`).toString('base64');
    const viaBasic = await token({ body: 'grant_type=client_credentials', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` } });
    expect(viaBasic.status).toBe(401);
    expect(viaBasic.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('429 after repeated failures for one client id from one address, even with the right secret, with Retry-After', async () => {
    const victim = await server.tenant({ scopes: ['oauth:revoke'] });
    for (let i = 0; i < 3; i++) {
      const res = await token({ json: { grant_type: 'client_credentials', client_id: victim.clientId, client_secret: `guess-${i}` } });
      expect(res.status).toBe(401);
    }
    const res = await token({ json: { grant_type: 'client_credentials', client_id: victim.clientId, client_secret: victim.clientSecret } });
    expect(res.status).toBe(429);
    expectErrorEnvelope(res.body, 'rate_limit_exceeded');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('concurrent guesses: only the budget of them is answered 401, the rest 429, and a right secret among the late ones too', async () => {
    const victim = await server.tenant({ scopes: ['oauth:revoke'] });
    const attempt = (secret: string) => token({ json: { grant_type: 'client_credentials', client_id: victim.clientId, client_secret: secret } });
    // All 12 pass the budget check before any has failed (the secret hash takes tens of ms).
    const statuses = (await Promise.all(Array.from({ length: 12 }, (_, i) => attempt(`guess-${i}`)))).map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(9);
    expect((await attempt(victim.clientSecret)).status).toBe(429);
  });

  it('valid requests do not use the budget: a burst of them all get tokens', async () => {
    const busy = await server.tenant({ scopes: ['oauth:revoke'] });
    const statuses = await Promise.all(
      Array.from({ length: 8 }, () => token({ json: { grant_type: 'client_credentials', client_id: busy.clientId, client_secret: busy.clientSecret } }).then((r) => r.status)),
    );
    expect(statuses).toEqual(Array(8).fill(200));
  });
});

describe('POST /oauth/revoke errors', () => {
  const revoke = (init: Parameters<typeof request>[1]) => request(`${server.url}/api/v1/oauth/revoke`, { method: 'POST', ...init });

  it('400 invalid_request when token is missing', async () => {
    const res = await revoke({ token: tenant.accessToken, json: {} });
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'invalid_request');
    expect(res.body.error.details).toEqual([{ field: 'token', code: 'required', message: expect.any(String) }]);
  });

  it('400 invalid_request for an empty token or a token of the wrong type', async () => {
    for (const value of ['', 42]) {
      const res = await revoke({ token: tenant.accessToken, json: { token: value } });
      expect(res.status).toBe(400);
      expectErrorEnvelope(res.body, 'invalid_request');
      expect(res.body.error.details[0].field).toBe('token');
    }
  });

  it('400 invalid_request for a token_type_hint that is not a string of at most 64 characters; the token stays valid', async () => {
    const kept = await tenant.token();
    for (const [hint, code] of [[5, 'invalid_type'], [{ kind: 'access_token' }, 'invalid_type'], ['h'.repeat(65), 'too_long']] as const) {
      const res = await revoke({ token: tenant.accessToken, json: { token: kept, token_type_hint: hint } });
      expect(res.status, JSON.stringify(hint)).toBe(400);
      expectErrorEnvelope(res.body, 'invalid_request');
      expect(res.body.error.details).toEqual([{ field: 'token_type_hint', code, message: expect.any(String) }]);
    }
    expect((await request(`${server.url}/graphql`, { token: kept, json: { query: '{ viewer { clientId } }' } })).status).toBe(200);
  });

  it('400 invalid_request for a body that is not JSON', async () => {
    const res = await revoke({ token: tenant.accessToken, body: 'token=', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'invalid_request');
  });

  it('401 unauthorized without a bearer token, with WWW-Authenticate: Bearer', async () => {
    const res = await revoke({ json: { token: 'x' } });
    expect(res.status).toBe(401);
    expectErrorEnvelope(res.body, 'unauthorized');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('a token wrapped in white space is revoked, not ignored', async () => {
    const second = await tenant.token();
    expect((await request(`${server.url}/graphql`, { token: second, json: { query: '{ viewer { clientId } }' } })).status).toBe(200);
    const res = await revoke({ token: tenant.accessToken, json: { token: `  ${second}\n` } });
    expect(res.status).toBe(200);
    const after = await request(`${server.url}/graphql`, { token: second, json: { query: '{ viewer { clientId } }' } });
    expect(after.status).toBe(401);
  });

  it('400 invalid_request for a token of white space only', async () => {
    const res = await revoke({ token: tenant.accessToken, json: { token: '   ' } });
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'invalid_request');
    expect(res.body.error.details[0].field).toBe('token');
  });

  it('403 forbidden without the oauth:revoke scope', async () => {
    const reader = await server.tenant({ scopes: ['messages:read'] });
    const res = await revoke({ token: reader.accessToken, json: { token: reader.accessToken } });
    expect(res.status).toBe(403);
    expectErrorEnvelope(res.body, 'forbidden');
  });
});
