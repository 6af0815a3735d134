import { describe, expect, it } from 'vitest';
import { request } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

// Security review: CORS closed by default and configurable; no version, stack or
// internals in any response.
const { server: closed, tenant } = useServer({ tenant: true });
const { server: open } = useServer({ overrides: { CORS_ORIGINS: 'https://dash.example.com, https://admin.example.com' } });

const preflight = (server: TestServer, origin: string) =>
  fetch(`${server.url}/api/v1/analytics/${tenant.appId}/messages`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
  });

describe('CORS', () => {
  it('is closed by default: no Access-Control-Allow-Origin on a preflight or a response', async () => {
    const res = await preflight(closed, 'https://evil.example.com');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const get = await fetch(`${closed.url}/healthz`, { headers: { origin: 'https://dash.example.com' } });
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
    // GraphQL too: yoga's own CORS handling must not answer for the gateway.
    const graphql = await fetch(`${closed.url}/graphql`, {
      method: 'POST',
      headers: { origin: 'https://evil.example.com', authorization: `Bearer ${tenant.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { clientId } }' }),
    });
    expect(graphql.status).toBe(200);
    expect(graphql.headers.get('access-control-allow-origin')).toBeNull();
    expect(graphql.headers.get('access-control-allow-credentials')).toBeNull();
    const graphqlPreflight = await fetch(`${closed.url}/graphql`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });
    expect(graphqlPreflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('CORS_ORIGINS allows exactly the origins it names', async () => {
    const allowed = await preflight(open, 'https://dash.example.com');
    expect(allowed.status).toBeLessThan(300);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://dash.example.com');
    expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    const other = await preflight(open, 'https://evil.example.com');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const graphql = await fetch(`${open.url}/graphql`, {
      method: 'POST',
      headers: { origin: 'https://evil.example.com', authorization: `Bearer ${tenant.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(graphql.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('responses say nothing of internals', () => {
  it('no X-Powered-By or Server version; error bodies carry no stack or file paths', async () => {
    const responses = [
      await request(`${closed.url}/nope`),
      await request(`${closed.url}/api/v1/analytics/${tenant.appId}/messages?limit=abc`, { token: tenant.accessToken }),
      await request(`${closed.url}/api/v1/analytics/${tenant.appId}/messages`, { token: 'garbage' }),
      await request(`${closed.url}/api/v1/oauth/token`, { json: { grant_type: 'client_credentials', client_id: 'x', client_secret: 'y' } }),
      await request(`${closed.url}/graphql`, { token: tenant.accessToken, json: { query: '{ nope }' } }),
      await request(`${closed.url}/api/v1/video/${tenant.appId}/scheduled-calls`, { token: tenant.accessToken, method: 'POST', body: '{bad json' }),
    ];
    for (const res of responses) {
      expect(res.headers.get('x-powered-by')).toBeNull();
      expect(res.headers.get('server') ?? '').not.toMatch(/\d/);
      const text = JSON.stringify(res.body);
      expect(text).not.toMatch(/\bat \S+ \(|node_modules|\/src\/|\.ts:\d+|stack/i);
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
  });
});
