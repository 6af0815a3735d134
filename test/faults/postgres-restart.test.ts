// Its server runs on a private cluster (usePrivatePostgresServer), not useServer()'s.
import { beforeAll, describe, expect, it } from 'vitest';
import { request } from '../helpers/http.js';
import type { Tenant, TestServer } from '../helpers/server.js';
import { usePrivatePostgresServer, type PrivatePostgres } from './private-postgres.js';

// Fault injection: PostgreSQL stopped and restarted under load. Requests fail fast with
// 503 service_unavailable, /readyz turns red, then everything recovers without restarting the
// service, within seconds of the database's return. Runs on a private cluster so the shared
// server is never touched. pg_ctl runs synchronously, so this process's event loop stalls while
// the database stops and starts and the driver's socket events arrive in bursts: harsher than a
// real outage. It covers postgres.js's reconnect backoff (src/db/reconnect-backoff.ts) and how a
// connection starts over (test/db/postgres-reconnect.test.ts, patches/postgres+3.4.9.patch).
const cluster = usePrivatePostgresServer(54000, { DB_POOL_MAX: '4' });
const { available } = cluster;
let pg: PrivatePostgres;
let server: TestServer;
let tenant: Tenant;

beforeAll(async () => {
  if (!available) return;
  ({ pg, server } = cluster);
  tenant = await server.tenant({ rate: { minute: 100_000, hour: 100_000, day: 100_000 } });
});

describe.skipIf(!available)('PostgreSQL stopped and restarted under load', () => {
  it('fails fast with 503, /readyz turns red, and recovers without a restart', async () => {
    const messages = `${server.url}/api/v1/analytics/${tenant.appId}/messages?limit=5`;
    const statuses: number[] = [];
    const transportErrors: string[] = [];
    let running = true;
    const load = (async () => {
      while (running) {
        const res = await request(messages, { token: tenant.accessToken }).catch((error: Error) => {
          transportErrors.push(String(error.cause ?? error));
          return undefined;
        });
        if (!res) continue;
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
    // In GraphQL's own shape, whichever step met the outage (the token check or a resolver).
    expect(graph.body.errors?.[0]?.extensions?.code).toBe('service_unavailable');
    if (graph.status === 503) expect(graph.headers.get('retry-after')).toBe('1');

    pg.start();
    await expectRecovery(messages);
    expect((await request(`${server.url}/readyz`)).status).toBe(200);

    // Twice more, quicker: every pooled connection must come back each time, none left hanging.
    for (let round = 0; round < 2; round++) {
      pg.stop();
      expect((await request(messages, { token: tenant.accessToken })).status).toBe(503);
      await new Promise((r) => setTimeout(r, 500));
      pg.start();
      await expectRecovery(messages);
      expect((await request(`${server.url}/readyz`)).status).toBe(200);
    }
    running = false;
    await load;
    // Every answer under load was 200 or 503: nothing else, no 500, no dropped connection.
    expect(transportErrors).toEqual([]);
    expect(new Set(statuses.filter((s) => s !== 200 && s !== 503))).toEqual(new Set());
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
  }, 90_000);
});

/**
 * Five seconds from the database's return to a 200, then ten 200s in a row. This catches a slow
 * reconnect backoff, a connection that hangs on a write buffered before its socket closed, and a
 * shutdown's FATAL error replayed onto the first query of a reconnected connection (a 503 after
 * recovery).
 */
async function expectRecovery(url: string): Promise<void> {
  const back = Date.now();
  const trace: string[] = [];
  let recovered = false;
  while (Date.now() - back < 5000 && !recovered) {
    const res = await request(url, { token: tenant.accessToken });
    trace.push(`${res.status} at ${Date.now() - back} ms`);
    recovered = res.status === 200;
    if (!recovered) await new Promise((r) => setTimeout(r, 100));
  }
  expect(recovered, trace.join(', ')).toBe(true);
  for (let i = 0; i < 10; i++) expect((await request(url, { token: tenant.accessToken })).status).toBe(200);
}
