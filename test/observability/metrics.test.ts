import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createClient } from 'graphql-sse';
import { describe, expect, it } from 'vitest';
import { webhookDeliveries } from '../../src/observability/metrics.js';
import { gql, request } from '../helpers/http.js';
import { startTestServer } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

// /metrics scraped over HTTP: Prometheus text format, route templates (never raw URLs),
// GraphQL operations by name, rate-limit rejections, open SSE streams, webhook deliveries, the pool.

const { server, tenant } = useServer({ overrides: { METRICS: '1' }, tenant: true });

async function scrape(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** The value of one sample, matched by name and exact label set; 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.keys(found).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return 0;
}

describe('/metrics with METRICS=1', () => {
  it('needs no bearer token and speaks the Prometheus text format', async () => {
    const text = await scrape(server.url);
    expect(text).toContain('# TYPE switchboard_http_requests_total counter');
    expect(text).toContain('# TYPE switchboard_http_request_duration_seconds histogram');
    expect(text).toContain('# TYPE switchboard_webhook_deliveries_total counter');
    expect(text).toMatch(/^switchboard_process_cpu_user_seconds_total /m);
  });

  it('counts and times HTTP requests by route template, method and status', async () => {
    const route = '/api/v1/analytics/:appId/tags';
    const labels = { listener: 'main', route, method: 'GET', status: '200' };
    const before = await scrape(server.url);
    for (let i = 0; i < 3; i++) expect((await request(`${server.url}/api/v1/analytics/${tenant.appId}/tags`, { token: tenant.accessToken })).status).toBe(200);
    expect((await request(`${server.url}/api/v1/analytics/not-a-uuid/tags`, { token: tenant.accessToken })).status).toBe(400);
    expect((await request(`${server.url}/nowhere/${tenant.appId}`)).status).toBe(404);
    const after = await scrape(server.url);
    expect(sample(after, 'switchboard_http_requests_total', labels) - sample(before, 'switchboard_http_requests_total', labels)).toBe(3);
    expect(sample(after, 'switchboard_http_requests_total', { ...labels, status: '400' }) - sample(before, 'switchboard_http_requests_total', { ...labels, status: '400' })).toBe(1);
    expect(sample(after, 'switchboard_http_request_duration_seconds_count', labels) - sample(before, 'switchboard_http_request_duration_seconds_count', labels)).toBe(3);
    expect(sample(after, 'switchboard_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(sample(after, 'switchboard_http_request_duration_seconds_count', labels));
    expect(sample(after, 'switchboard_http_requests_total', { listener: 'main', route: 'unmatched', method: 'GET', status: '404' })).toBeGreaterThan(0);
    // Raw URLs never become label values.
    expect(after).not.toContain(tenant.appId);
    expect(after).not.toContain('not-a-uuid');
  });

  it('labels the video host by its route too', async () => {
    const labels = { listener: 'video', route: '/api/calls/:callId', method: 'GET', status: '404' };
    const before = sample(await scrape(server.url), 'switchboard_http_requests_total', labels);
    const res = await request(`${server.videoUrl}/api/calls/00000000-0000-4000-8000-000000000000`, { token: tenant.accessToken });
    expect(res.status).toBe(404);
    expect(sample(await scrape(server.url), 'switchboard_http_requests_total', labels) - before).toBe(1);
  });

  it('counts GraphQL operations by operation name and result', async () => {
    const ok = { operation: 'MetricsProbe', type: 'query', result: 'ok' };
    const failed = { operation: 'MetricsProbeForbidden', type: 'query', result: 'error' };
    const before = await scrape(server.url);
    expect((await gql(server.url, tenant.accessToken, 'query MetricsProbe { viewer { clientId } }')).body.errors).toBeUndefined();
    expect((await gql(server.url, tenant.accessToken, 'query MetricsProbe { viewer { clientId } }')).status).toBe(200);
    const other = '00000000-0000-4000-8000-000000000000';
    const refused = await gql(server.url, tenant.accessToken, 'query MetricsProbeForbidden($a: UUID!) { campaignTags(appId: $a) }', { a: other });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('forbidden');
    const after = await scrape(server.url);
    expect(sample(after, 'switchboard_graphql_operations_total', ok) - sample(before, 'switchboard_graphql_operations_total', ok)).toBe(2);
    expect(sample(after, 'switchboard_graphql_operations_total', failed) - sample(before, 'switchboard_graphql_operations_total', failed)).toBe(1);
  });

  it('counts rate-limit rejections by listener', async () => {
    const limited = await server.tenant({ rate: { minute: 1 } });
    const before = sample(await scrape(server.url), 'switchboard_rate_limit_rejections_total', { listener: 'rest' });
    expect((await request(`${server.url}/api/v1/analytics/${limited.appId}/tags`, { token: limited.accessToken })).status).toBe(200);
    expect((await request(`${server.url}/api/v1/analytics/${limited.appId}/tags`, { token: limited.accessToken })).status).toBe(429);
    expect((await request(`${server.url}/api/v1/analytics/${limited.appId}/tags`, { token: limited.accessToken })).status).toBe(429);
    expect(sample(await scrape(server.url), 'switchboard_rate_limit_rejections_total', { listener: 'rest' }) - before).toBe(2);
  });

  it('shows open SSE subscription streams while they are open', async () => {
    expect(sample(await scrape(server.url), 'switchboard_sse_connections_open')).toBe(0);
    const client = createClient({ url: `${server.url}/graphql/stream`, headers: { authorization: `Bearer ${tenant.accessToken}` }, retryAttempts: 0 });
    const streams = [0, 1].map(() =>
      client.subscribe({ query: 'subscription($a: UUID!) { scheduledCallEvents(appId: $a) { id: eventId } }', variables: { a: tenant.appId } }, { next: () => {}, error: () => {}, complete: () => {} }),
    );
    const deadline = Date.now() + 5000;
    let open = 0;
    while (Date.now() < deadline && (open = sample(await scrape(server.url), 'switchboard_sse_connections_open')) < 2) await new Promise((r) => setTimeout(r, 50));
    expect(open).toBe(2);
    expect(server.runtime.timeline.size).toBe(2);
    for (const stop of streams) stop();
    client.dispose();
    // The gauge is the bus's subscriber count at scrape time. (A stream whose client went away
    // leaves the bus only when its generator resumes, at the app's next event: see the report.)
    await new Promise((r) => setTimeout(r, 200));
    expect(sample(await scrape(server.url), 'switchboard_sse_connections_open')).toBe(server.runtime.timeline.size);
  });

  it('exports webhook deliveries by outcome for the webhook worker to record', async () => {
    const before = sample(await scrape(server.url), 'switchboard_webhook_deliveries_total', { outcome: 'delivered' });
    webhookDeliveries.inc({ outcome: 'delivered' });
    expect(sample(await scrape(server.url), 'switchboard_webhook_deliveries_total', { outcome: 'delivered' }) - before).toBe(1);
  });

  it('reports the used heap after the latest major GC: it follows what is retained, not garbage', async () => {
    // The server runs in this process: a forced full collection here is the server's.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const afterGc = async () => {
      gc();
      await new Promise((r) => setTimeout(r, 50)); // GC entries reach the observer in batches
      return sample(await scrape(server.url), 'switchboard_nodejs_heap_used_after_major_gc_bytes');
    };
    const MB = 1048576;
    let retained: number[][] | undefined = Array.from({ length: 64 }, () => Array.from({ length: 65536 }, (_, i) => i + 0.5)); // ~32 MB of doubles
    const holding = await afterGc();
    expect(holding).toBeGreaterThan(32 * MB);
    expect(retained.length).toBe(64);
    retained = undefined;
    const released = await afterGc();
    expect(holding - released).toBeGreaterThan(24 * MB);
  });

  it('reports the database pool size (postgres.js: DB_POOL_MAX; PGlite: 1)', async () => {
    const text = await scrape(server.url);
    const driver = server.runtime.database.kind;
    expect(sample(text, 'switchboard_db_pool_max_connections', { driver })).toBe(driver === 'postgres' ? server.runtime.config.DB_POOL_MAX : 1);
    expect(sample(text, 'switchboard_db_queries', { driver })).toBeGreaterThan(0);
  });
});

describe('/metrics is off by default and can move to its own port', () => {
  it('404 without METRICS', async () => {
    const plain = await startTestServer({ METRICS: '0' });
    try {
      const res = await request(`${plain.url}/metrics`);
      expect(res.status).toBe(404);
      expect(plain.servers.metricsPort).toBeUndefined();
    } finally {
      await plain.close();
    }
  });

  it('METRICS_PORT serves it on a listener of its own, not on the main one', async () => {
    const separate = await startTestServer({ METRICS_PORT: '0' });
    try {
      expect(separate.servers.metricsPort).toBeGreaterThan(0);
      expect((await request(`${separate.url}/metrics`)).status).toBe(404);
      const text = await scrape(`http://127.0.0.1:${separate.servers.metricsPort}`);
      expect(text).toContain('switchboard_http_requests_total');
      expect((await fetch(`http://127.0.0.1:${separate.servers.metricsPort}/api/v1/openapi.json`)).status).toBe(404);
    } finally {
      await separate.close();
    }
  });
});
