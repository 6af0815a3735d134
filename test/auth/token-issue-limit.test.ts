import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope, gql, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';

// Tokens issued per client are capped per minute (TOKENS_PER_CLIENT_MINUTE), on both token
// endpoints, apart from the client's request windows; only a right secret counts.

const PER_MINUTE = 3;
const { server } = useServer({ overrides: { TOKENS_PER_CLIENT_MINUTE: String(PER_MINUTE) } });

const v1Token = (clientId: string, clientSecret: string) =>
  request(`${server.url}/api/v1/oauth/token`, { json: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } });
const standardToken = (clientId: string, clientSecret: string) =>
  request(`${server.url}/oauth/token`, {
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });

describe('tokens issued per client per minute', () => {
  it('past the cap both endpoints answer 429 with Retry-After; the tokens issued work, and another client is unaffected', async () => {
    const client = await server.client({ apps: [(await server.tenant()).appId], scopes: ['messages:read'] });
    const issued: string[] = [];
    for (let i = 0; i < PER_MINUTE; i++) {
      const res = i % 2 ? await standardToken(client.clientId, client.clientSecret) : await v1Token(client.clientId, client.clientSecret);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      issued.push(res.body.data?.access_token ?? res.body.access_token);
    }
    const v1 = await v1Token(client.clientId, client.clientSecret);
    expect(v1.status).toBe(429);
    expectErrorEnvelope(v1.body, 'rate_limit_exceeded');
    expect(v1.body.error.message).toContain(`at most ${PER_MINUTE} a minute`);
    const retryAfter = Number(v1.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const standard = await standardToken(client.clientId, client.clientSecret);
    expect(standard.status).toBe(429);
    expect(standard.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.stringContaining('Too many tokens') });
    expect(Number(standard.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // The tokens already issued keep working, and the client's request windows did not count the token requests.
    for (const token of issued) expect((await gql(server.url, token, '{ viewer { clientId } }')).status).toBe(200);
    const counted = await gql(server.url, issued[0]!, '{ viewer { clientId } }');
    expect(counted.headers.get('x-ratelimit-remaining')).toBe(String(600 - PER_MINUTE - 1));

    const other = await server.tenant();
    expect((await v1Token(other.clientId, other.clientSecret)).status).toBe(200);
  });

  it('a wrong secret does not spend the client\'s token budget: no one else can lock a client out of its tokens', async () => {
    const tenant = await server.tenant();
    for (let i = 0; i < PER_MINUTE + 2; i++) expect((await v1Token(tenant.clientId, `${tenant.clientSecret}x`)).status).toBe(401);
    // The tenant's own token (issued at set-up) is one; the rest of the budget is still there.
    for (let i = 1; i < PER_MINUTE; i++) expect((await v1Token(tenant.clientId, tenant.clientSecret)).status).toBe(200);
    expect((await v1Token(tenant.clientId, tenant.clientSecret)).status).toBe(429);
  });

  it('a request refused for its scope mints no token and spends nothing', async () => {
    const tenant = await server.tenant({ scopes: ['messages:read'] });
    for (let i = 0; i < PER_MINUTE + 1; i++) {
      const res = await request(`${server.url}/api/v1/oauth/token`, {
        json: { grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret, scope: 'campaigns:read' },
      });
      expect(res.status).toBe(400);
    }
    expect((await v1Token(tenant.clientId, tenant.clientSecret)).status).toBe(200);
  });
});
