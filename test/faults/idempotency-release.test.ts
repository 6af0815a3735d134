// Its server runs on a private cluster (usePrivatePostgresServer), not useServer()'s.
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { request } from '../helpers/http.js';
import { booking, futureDay, tenantSetUp } from '../scheduling/fixtures.js';
import { usePrivatePostgresServer } from './private-postgres.js';

// A keyed write whose database goes away under it answers 503 and stores nothing; its key must be
// free for the retry once the database is back, not held "in progress" until the claim goes
// stale minutes later (the release that failed with the database is tried again).
const cluster = usePrivatePostgresServer(55000, { DB_POOL_MAX: '2' });
const { available } = cluster;

describe.skipIf(!available)('an Idempotency-Key after its request lost the database', () => {
  it('the write fails 503 with nothing stored, and a retry with the key runs once the database is back', async () => {
    const { pg, server } = cluster;
    const { tenant, a } = await tenantSetUp(server)();
    const id = (await a.create(booking(futureDay(4, 10)))).body.data.call.id as string;
    const patch = () =>
      request(`${a.base}/scheduled-calls/${id}`, { method: 'PATCH', token: tenant.accessToken, json: { guestName: 'Retried' }, headers: { 'Idempotency-Key': `release-${id}` } });

    const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
    let pending: ReturnType<typeof patch> | undefined;
    // The write waits on this lock (its key already claimed); the database then stops under it.
    await admin
      .begin(async (tx) => {
        await tx`lock table scheduled_calls in access exclusive mode`;
        pending = patch();
        let waiting: { pid: number }[] = [];
        for (let i = 0; i < 100 && waiting.length === 0; i++) {
          await new Promise((r) => setTimeout(r, 50));
          waiting = await tx`select pid from pg_stat_activity where wait_event_type = 'Lock' and pid <> pg_backend_pid()`;
        }
        expect(waiting.length).toBeGreaterThan(0);
        pg.stop();
      })
      .catch(() => {});
    const first = await pending;
    await admin.end({ timeout: 1 }).catch(() => {});
    expect(first!.status, JSON.stringify(first!.body)).toBe(503);
    pg.start();

    // Once the database answers, the key is free: the retry runs, once.
    let retry = await patch();
    for (let i = 0; i < 100 && (retry.status === 503 || retry.status === 409); i++) {
      await new Promise((r) => setTimeout(r, 100));
      retry = await patch();
    }
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    const { call, events } = (await a.get(id)).body.data;
    expect(call.guest_name).toBe('Retried');
    expect(events.map((e: { event_type: string }) => e.event_type)).toEqual(['created', 'updated']);
    const replay = await patch();
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });
});
