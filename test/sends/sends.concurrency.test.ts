import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';
import { message } from '../analytics/fixtures.js';
import { request } from '../helpers/http.js';
import { flowBody, importRecords, newPhone, newToken, send, statusUpdate, userWrote } from './fixtures.js';

// PGlite is one connection, so requests never truly race there: races are proven on PostgreSQL only.
const onPostgres = Boolean(process.env.DATABASE_URL);

describe.skipIf(!onPostgres)('concurrent sends on PostgreSQL', () => {
  const { server, tenant } = useServer({ overrides: { DB_POOL_MAX: '10' }, tenant: true });

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

  it('receipts racing for one imported message apply one after the other: read, each stage counted once', async () => {
    const t = await server.tenant();
    const created = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
    const at = (s: number) => new Date(created.getTime() + s * 1000).toISOString();
    await importRecords(server, t.appId, [
      message(2, { id: 'race-imported', direction: 'outbound', status: 'queued', provider_message_id: 'wamid.race', created_at: created.toISOString(), sent_at: null, failed_at: null, error_message: null }),
    ]);
    const receipts = [['read', 3], ['sent', 1], ['delivered', 2], ['read', 3], ['sent', 1], ['delivered', 2], ['read', 3], ['sent', 1]] as const;
    const results = await Promise.all(receipts.map(([status, s]) => statusUpdate(server, t, 'wamid.race', status, at(s))));
    expect(results.map((r) => r.status)).toEqual(receipts.map(() => 200));
    // Exactly the updates that moved the status forward report applied; read is reached once.
    expect(results.filter((r) => r.body.data.applied && r.body.data.message.status === 'read')).toHaveLength(1);
    const summary = await request(`${server.url}/api/v1/analytics/${t.appId}/metrics/summary`, { token: t.accessToken });
    expect(summary.body.data).toMatchObject({ sent: 1, delivered: 1, read: 1, failed: 0 });
    const list = await request(`${server.url}/api/v1/analytics/${t.appId}/messages?search=wamid.race`, { token: t.accessToken });
    expect(list.body.data).toMatchObject([{ id: 'race-imported', status: 'read', sent_at: at(1) }]);
  });
});
