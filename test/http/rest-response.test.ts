import { request as httpRequest } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';
import { importRecords, message } from '../analytics/fixtures.js';

const { server, tenant } = useServer({ tenant: { scopes: ['messages:read'], rate: { minute: 40 } } });

beforeAll(async () => {
  // A non-ASCII value in the body: its characters and its bytes differ.
  await importRecords(server, tenant.appId, [message(3, { error_message: 'rejeté ✓ 配信' })]);
});

interface RawResponse {
  status: number;
  /** Header names lower-cased, in the order they came, repeated ones repeated. */
  names: string[];
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

function get(path: string, headers: Record<string, string>): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, server.url), { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          names: res.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase()),
          headers: res.headers,
          bytes: Buffer.concat(chunks),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

const once = (res: RawResponse, name: string) => res.names.filter((n) => n === name).length;

// A v1 route writes its response with the request's headers in one plain object
// (src/rest/adapter.ts, jsonResponse); an error response gets them from the middleware.
describe('REST responses on the wire', () => {
  it('carry the media type, a Content-Length in bytes, the request id and the rate-limit window, each once', async () => {
    const res = await get(`/api/v1/analytics/${tenant.appId}/messages`, { authorization: `Bearer ${tenant.accessToken}`, 'x-request-id': 'trace.42' });
    expect(res.status).toBe(200);
    const text = res.bytes.toString('utf8');
    expect(JSON.parse(text).data[0].error_message).toBe('rejeté ✓ 配信');
    expect(res.headers['content-length']).toBe(String(res.bytes.length));
    expect(res.bytes.length).toBeGreaterThan(text.length);
    expect(res.headers['transfer-encoding']).toBeUndefined();
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['x-request-id']).toBe('trace.42');
    expect(res.headers['x-ratelimit-limit']).toBe('40');
    expect(res.headers['x-ratelimit-remaining']).toBe('39');
    expect(res.headers['x-ratelimit-window']).toBe('minute');
    expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
    for (const name of ['content-type', 'content-length', 'x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-ratelimit-window']) {
      expect(once(res, name), name).toBe(1);
    }
  });

  it('give each request its own headers: a second request counts down and gets a new id', async () => {
    const auth = { authorization: `Bearer ${tenant.accessToken}` };
    const [a, b] = [await get(`/api/v1/analytics/${tenant.appId}/messages`, auth), await get(`/api/v1/analytics/${tenant.appId}/messages`, auth)];
    expect(a.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
    expect(Number(a.headers['x-ratelimit-remaining']) - Number(b.headers['x-ratelimit-remaining'])).toBe(1);
  });

  it('keep them on an error the route throws, still once each', async () => {
    const res = await get(`/api/v1/analytics/${tenant.appId}/messages?limit=0`, { authorization: `Bearer ${tenant.accessToken}`, 'x-request-id': 'trace.43' });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.bytes.toString('utf8')).error.details[0].field).toBe('limit');
    expect(res.headers['x-request-id']).toBe('trace.43');
    expect(res.headers['x-ratelimit-window']).toBe('minute');
    for (const name of ['content-type', 'x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining']) expect(once(res, name), name).toBe(1);
  });
});

describe('REST responses with CORS_ORIGINS', () => {
  const { server: open } = useServer({ overrides: { CORS_ORIGINS: 'https://dash.example.com' } });

  it("carry the CORS middleware's headers beside the route's own, for an allowed origin only", async () => {
    const owner = await open.tenant({ scopes: ['messages:read'], rate: { minute: 40 } });
    const path = `${open.url}/api/v1/analytics/${owner.appId}/messages`;
    const allowed = await fetch(path, { headers: { origin: 'https://dash.example.com', authorization: `Bearer ${owner.accessToken}` } });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://dash.example.com');
    expect(allowed.headers.get('access-control-expose-headers')).toContain('X-RateLimit-Remaining');
    expect(allowed.headers.get('x-ratelimit-remaining')).toBe('39');
    expect(allowed.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(allowed.headers.get('content-type')).toBe('application/json');
    const other = await fetch(path, { headers: { origin: 'https://evil.example.com', authorization: `Bearer ${owner.accessToken}` } });
    expect(other.status).toBe(200);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(other.headers.get('x-ratelimit-remaining')).toBe('38');
  });
});
