import { get } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';

// GraphiQL's page (megabytes) and Swagger UI's assets: compressed per Accept-Encoding, with an
// ETag that answers 304, served from memory after the first request.
const { server } = useServer();

function raw(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(`${server.url}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

describe('GraphiQL page', () => {
  it('brotli, gzip or none per Accept-Encoding, the same page each way, with an ETag that answers 304', async () => {
    const plain = await raw('/graphql', { accept: 'text/html' });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toMatch(/<title>Switchboard GraphQL<\/title>/);
    const etag = plain.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(plain.headers['cache-control']).toBe('no-cache');
    expect(plain.headers.vary).toBe('Accept-Encoding');

    const br = await raw('/graphql', { accept: 'text/html', 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.body.length).toBeLessThan(plain.body.length / 3);
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(br.headers.etag).toBe(etag);

    const gz = await raw('/graphql', { accept: 'text/html', 'accept-encoding': 'gzip, br;q=0' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);

    const cached = await raw('/graphql', { accept: 'text/html', 'accept-encoding': 'br', 'if-none-match': etag });
    expect(cached.status).toBe(304);
    expect(cached.body.length).toBe(0);
    expect((await raw('/graphql', { accept: 'text/html', 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('16 parallel page loads get the one compressed copy, and /healthz answers meanwhile', async () => {
    const first = await raw('/graphql', { accept: 'text/html', 'accept-encoding': 'br' });
    const loads = Array.from({ length: 16 }, () => raw('/graphql', { accept: 'text/html', 'accept-encoding': 'br' }));
    expect((await raw('/healthz', {})).status).toBe(200);
    const pages = await Promise.all(loads);
    expect(pages.every((r) => r.status === 200 && r.headers.etag === first.headers.etag && r.body.equals(first.body))).toBe(true);
  });
});

describe('Swagger UI assets', () => {
  it('gzip with an ETag and a day of caching; 304 on a match', async () => {
    const res = await raw('/docs/assets/swagger-ui-bundle.js', { 'accept-encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    expect(gunzipSync(res.body).toString()).toMatch(/SwaggerUIBundle/);
    expect((await raw('/docs/assets/swagger-ui-bundle.js', { 'if-none-match': res.headers.etag as string })).status).toBe(304);
    expect((await raw('/docs/assets/nope.js', {})).status).toBe(404);
  });
});
