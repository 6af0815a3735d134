import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../helpers/http.js';
import { startTestServer, type Tenant, type TestServer } from '../helpers/server.js';
import { privatePostgresAvailable, startPrivatePostgres, type PrivatePostgres } from './private-postgres.js';

// Issue 11, fault injection: PostgreSQL stopped and restarted under load. Requests fail fast with
// 503 service_unavailable, /readyz turns red, then everything recovers without restarting the
// service. Runs on a private cluster so the shared server is never touched.
const available = privatePostgresAvailable();
let pg: PrivatePostgres;
let server: TestServer;
let tenant: Tenant;

beforeAll(async () => {
  if (!available) return;
  pg = startPrivatePostgres(54000 + (process.pid % 1000));
  server = await startTestServer({ DATABASE_URL: pg.url, DB_POOL_MAX: '4' });
  tenant = await server.tenant({ rate: { minute: 100_000, hour: 100_000, day: 100_000 } });
}, 60_000);
afterAll(async () => {
  await server?.close().catch(() => {});
  pg?.destroy();
});

describe.skipIf(!available)('PostgreSQL stopped and restarted under load', () => {
  it('fails fast with 503, /readyz turns red, and recovers without a restart', async () => {
    const messages = `${server.url}/api/v1/analytics/${tenant.appId}/messages?limit=5`;
    const statuses: number[] = [];
    let running = true;
    const load = (async () => {
      while (running) {
        const res = await request(messages, { token: tenant.accessToken });
        statuses.push(res.status);
        if (res.status >= 500) {
          expect(res.status).toBe(503);
          expect(res.body.error.type).toBe('service_unavailable');
          expect(res.headers.get('retry-after')).toBe('1');
        }
      }
    })();
    await new Promise((r) => setTimeout(r, 300));
    expect((await request(`${server.url}/readyz`)).status).toBe(200);

    pg.stop();
    const down = Date.now();
    const during = await request(messages, { token: tenant.accessToken });
    expect(during.status).toBe(503);
    // Fast: a refused connection, not a hang until some timeout.
    expect(Date.now() - down).toBeLessThan(3000);
    const ready = await request(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.body.status).toBe('unavailable');
    // GraphQL says so too.
    const graph = await request(`${server.url}/graphql`, { token: tenant.accessToken, json: { query: '{ viewer { clientId } }' } });
    expect([503, 200]).toContain(graph.status);
    if (graph.status === 200) expect(graph.body.errors?.[0]?.extensions?.code).toBe('service_unavailable');

    pg.start();
    const deadline = Date.now() + 20_000;
    let recovered = false;
    while (Date.now() < deadline && !recovered) {
      recovered = (await request(messages, { token: tenant.accessToken })).status === 200;
      if (!recovered) await new Promise((r) => setTimeout(r, 200));
    }
    expect(recovered).toBe(true);
    expect((await request(`${server.url}/readyz`)).status).toBe(200);
    running = false;
    await load;
    // Every answer under load was 200 or 503: nothing else, no 500.
    expect(new Set(statuses.filter((s) => s !== 200 && s !== 503))).toEqual(new Set());
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
  }, 90_000);
});
