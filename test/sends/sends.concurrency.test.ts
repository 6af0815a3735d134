import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type Tenant, type TestServer } from '../helpers/server.js';
import { flowBody, newPhone, newToken, send, userWrote } from './fixtures.js';

// PGlite is one connection (PITFALLS): races are proven on PostgreSQL only.
const onPostgres = Boolean(process.env.DATABASE_URL);

describe.skipIf(!onPostgres)('concurrent sends on PostgreSQL', () => {
  let server: TestServer;
  let tenant: Tenant;
  beforeAll(async () => {
    server = await startTestServer({ DB_POOL_MAX: '10' });
    tenant = await server.tenant();
  });
  afterAll(() => server?.close());

  it('of sends racing with one flow_token exactly one wins; the rest get 409', async () => {
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    for (let round = 0; round < 3; round++) {
      const token = newToken();
      const results = await Promise.all(Array.from({ length: 6 }, () => send(server, tenant, flowBody(phone, { flow_token: token }))));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([202, 409, 409, 409, 409, 409]);
      for (const r of results.filter((x) => x.status === 409)) expect(r.body.error.type).toBe('conflict');
    }
  });

  it('of requests racing with one Idempotency-Key one sends; the others replay it or get 409 in flight', async () => {
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    const body = flowBody(phone);
    const results = await Promise.all(Array.from({ length: 6 }, () => send(server, tenant, body, { 'Idempotency-Key': 'race-1' })));
    const accepted = results.filter((r) => r.status === 202);
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    expect(new Set(accepted.map((r) => r.body.data.message.id)).size).toBe(1);
    for (const r of results.filter((x) => x.status !== 202)) {
      expect(r.status).toBe(409);
      expect(r.body.error.message).toContain('in progress');
    }
    const list = await fetch(`${server.url}/api/v1/analytics/${tenant.appId}/messages?search=${phone}&direction=outbound`, {
      headers: { authorization: `Bearer ${tenant.accessToken}` },
    });
    expect(((await list.json()) as { data: unknown[] }).data).toHaveLength(1);
  });
});
