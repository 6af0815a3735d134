import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope, request, requestOnce } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';

const { server, tenant } = useServer({ tenant: true });

/** Sends raw bytes and reads the whole answer (the server closes the connection). */
function raw(base: string, bytes: string): Promise<{ status: number; headers: Record<string, string>; body: any }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(bytes));
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: body ? JSON.parse(body) : undefined });
    });
  });
}

describe('requests the HTTP parser refuses', () => {
  it('431 in the envelope, with X-Request-Id, for a URL over the header limit', async () => {
    const res = await raw(server.url, `GET /api/v1/analytics/x/tags/${'a'.repeat(20_000)}/stats HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    expect(res.status).toBe(431);
    expectErrorEnvelope(res.body, 'invalid_request');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.connection).toBe('close');
  });

  it('400 in the envelope for a malformed request line; the video host answers in its own format', async () => {
    const res = await raw(server.url, 'NOT A REQUEST\r\n\r\n');
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'invalid_request');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const video = await raw(server.videoUrl, `GET /api/calls/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    expect(video.status).toBe(431);
    expect(video.body).toEqual({ ok: false, error: { type: 'invalid_request', message: expect.any(String) } });
  });

  it.each([
    ['an HTTP/1.1 request without Host', 'GET /healthz HTTP/1.1\r\n\r\n', 400],
    ['a request target that is not a path', 'GET * HTTP/1.1\r\nHost: localhost\r\n\r\n', 400],
    ['OPTIONS *', 'OPTIONS * HTTP/1.1\r\nHost: localhost\r\n\r\n', 400],
    ['an Expect other than 100-continue', 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nExpect: foo\r\n\r\n', 417],
  ])('%s: the status in the envelope, with X-Request-Id, on both listeners', async (_what, bytes, status) => {
    const res = await raw(server.url, bytes);
    expect(res.status).toBe(status);
    expectErrorEnvelope(res.body, 'invalid_request');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const video = await raw(server.videoUrl, bytes);
    expect(video.status).toBe(status);
    expect(video.body).toEqual({ ok: false, error: { type: 'invalid_request', message: expect.any(String) } });
  });

  it("keeps the caller's X-Request-Id on such an answer, as on every other", async () => {
    const res = await raw(server.url, 'GET * HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: trace-1\r\n\r\n');
    expect(res.status).toBe(400);
    expect(res.headers['x-request-id']).toBe('trace-1');
  });

  it('HTTP/1.0 without Host and an absolute URL still reach the routes', async () => {
    expect((await raw(server.url, 'GET /healthz HTTP/1.0\r\n\r\n')).status).toBe(200);
    const { host } = new URL(server.url);
    expect((await raw(server.url, `GET http://${host}/healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)).status).toBe(200);
  });
});

describe('the HTTP edge', () => {
  it('GET /healthz and /readyz on both listeners', async () => {
    for (const base of [server.url, server.videoUrl]) {
      expect((await request(`${base}/healthz`)).status).toBe(200);
      const ready = await request(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('ready');
    }
  });

  it('every response carries X-Request-Id; a sane incoming one is echoed', async () => {
    const res = await request(`${server.url}/healthz`);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await request(`${server.url}/healthz`, { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-abc.123');
    const refused = await request(`${server.url}/healthz`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(refused.headers.get('x-request-id')).not.toBe('bad id with spaces');
  });

  it('404 not_found for an unknown path, in the envelope', async () => {
    const res = await request(`${server.url}/nowhere`);
    expect(res.status).toBe(404);
    expectErrorEnvelope(res.body, 'not_found');
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('without a token: an unknown /api/v1 path is 404, a known one with another method 405, a route 401', async () => {
    const unknown = await request(`${server.url}/api/v1/analytics/${tenant.appId}/nowhere`);
    expect(unknown.status).toBe(404);
    expectErrorEnvelope(unknown.body, 'not_found');
    const wrongMethod = await request(`${server.url}/api/v1/analytics/${tenant.appId}/messages`, { method: 'DELETE' });
    expect(wrongMethod.status).toBe(405);
    expectErrorEnvelope(wrongMethod.body, 'method_not_allowed');
    const route = await request(`${server.url}/api/v1/analytics/${tenant.appId}/messages`);
    expect(route.status).toBe(401);
    expectErrorEnvelope(route.body, 'unauthorized');
    expect(route.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('405 method_not_allowed for a known path with another method', async () => {
    const revoke = await request(`${server.url}/api/v1/oauth/revoke`, { method: 'GET', token: tenant.accessToken });
    expect(revoke.status).toBe(405);
    expectErrorEnvelope(revoke.body, 'method_not_allowed');
    const token = await request(`${server.url}/api/v1/oauth/token`, { method: 'DELETE' });
    expect(token.status).toBe(405);
    expectErrorEnvelope(token.body, 'method_not_allowed');
    const graphql = await request(`${server.url}/graphql`, { method: 'PUT', token: tenant.accessToken, body: '{}' });
    expect(graphql.status).toBe(405);
  });

  it('405 before 401 on GraphQL, and for the other GET-only paths of both hosts', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      expect((await request(`${server.url}/graphql`, { method, body: '{}' })).status, method).toBe(405);
      expect((await request(`${server.url}/graphql/stream`, { method })).status, method).toBe(405);
    }
    for (const path of ['/api/v1/openapi.json', '/.well-known/jwks.json', '/healthz', '/readyz', '/docs']) {
      const res = await request(`${server.url}${path}`, { method: 'POST', body: '{}' });
      expect(res.status, path).toBe(405);
      expectErrorEnvelope(res.body, 'method_not_allowed');
    }
    const video = await request(`${server.videoUrl}/healthz`, { method: 'POST', body: '{}' });
    expect(video.status).toBe(405);
    expect(video.body).toMatchObject({ ok: false, error: { type: 'method_not_allowed' } });
  });

  it.each([
    ['main', '/api/v1/analytics/{app}/messages', 'DELETE', 'GET'],
    ['main', '/api/v1/video/{app}/scheduled-calls/00000000-0000-4000-8000-000000000000', 'PUT', 'GET, PATCH, DELETE'],
    ['main', '/api/v1/video/{app}/scheduled-calls', 'DELETE', 'GET, POST'],
    ['main', '/api/v1/oauth/token', 'GET', 'POST'],
    ['main', '/api/v1/oauth/revoke', 'GET', 'POST'],
    ['main', '/graphql', 'PUT', 'GET, POST'],
    ['main', '/graphql/stream', 'DELETE', 'GET, POST'],
    ['main', '/api/v1/openapi.json', 'POST', 'GET'],
    ['main', '/.well-known/jwks.json', 'POST', 'GET'],
    ['main', '/healthz', 'POST', 'GET'],
    ['video', '/api/calls/00000000-0000-4000-8000-000000000000', 'POST', 'GET'],
    ['video', '/readyz', 'DELETE', 'GET'],
  ])('405 on the %s listener carries Allow: %s %s -> %s', async (listener, path, method, allow) => {
    const base = listener === 'main' ? server.url : server.videoUrl;
    const res = await fetch(`${base}${path.replace('{app}', tenant.appId)}`, { method, headers: { authorization: `Bearer ${tenant.accessToken}`, 'content-type': 'application/json' }, body: method === 'GET' ? undefined : '{}' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
  });

  it('GraphQL over GET: variables or extensions that are not JSON are a 400, not a 500', async () => {
    for (const name of ['variables', 'extensions']) {
      const url = `${server.url}/graphql?query=${encodeURIComponent('{ viewer { clientId } }')}&${name}=${encodeURIComponent('{bad')}`;
      const res = await request(url, { token: tenant.accessToken, headers: { accept: 'application/json' } });
      expect(res.status, name).toBe(400);
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'invalid_request', details: [{ field: name }] });
    }
    const fine = `${server.url}/graphql?query=${encodeURIComponent('query($skip: Boolean!) { viewer @skip(if: $skip) { clientId } }')}&variables=${encodeURIComponent('{"skip":false}')}`;
    const ok = await request(fine, { token: tenant.accessToken, headers: { accept: 'application/json' } });
    expect(ok.status).toBe(200);
    expect(ok.body.data.viewer.clientId).toBe(tenant.clientId);
  });

  it('GraphQL: a POST body that is not JSON is 415 unsupported_media_type in the GraphQL envelope, with the request id', async () => {
    const res = await request(`${server.url}/graphql`, {
      token: tenant.accessToken,
      body: JSON.stringify({ query: '{ viewer { clientId } }' }),
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    expect(res.body.errors[0]).toMatchObject({ message: expect.stringContaining('application/json'), extensions: { code: 'unsupported_media_type' } });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('413 payload_too_large for a body over 1 MiB, on REST and GraphQL', async () => {
    const big = JSON.stringify({ token: 'x'.repeat(1024 * 1024 + 10) });
    const json = { 'content-type': 'application/json' };
    const rest = await requestOnce(`${server.url}/api/v1/oauth/revoke`, { body: big, headers: { ...json, authorization: `Bearer ${tenant.accessToken}` } });
    expect(rest.status).toBe(413);
    expectErrorEnvelope(rest.body, 'payload_too_large');
    expect(rest.headers.get('connection')).toBe('close');
    const tokenEndpoint = await requestOnce(`${server.url}/api/v1/oauth/token`, { body: big, headers: json });
    expect(tokenEndpoint.status).toBe(413);
    const graphql = await requestOnce(`${server.url}/graphql`, {
      body: JSON.stringify({ query: `{ viewer { clientId } } #${'x'.repeat(1024 * 1024)}` }),
      headers: { ...json, authorization: `Bearer ${tenant.accessToken}` },
    });
    expect(graphql.status).toBe(413);
    // Just under the limit is read and answered normally.
    const fits = await request(`${server.url}/api/v1/oauth/revoke`, { token: tenant.accessToken, json: { token: 'x'.repeat(1024 * 1000) } });
    expect(fits.status).toBe(200);
  });

  it('malformed JSON is a 400, never a 500', async () => {
    for (const body of ['{', '[1,', 'null', '"str"', '[]', '\u0000']) {
      const res = await request(`${server.url}/api/v1/oauth/revoke`, { token: tenant.accessToken, body, headers: { 'content-type': 'application/json' } });
      expect(res.status, body).toBe(400);
      expectErrorEnvelope(res.body, 'invalid_request');
    }
  });

  it('GraphiQL is served to a browser without a token', async () => {
    const res = await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Switchboard GraphQL');
  });
});
