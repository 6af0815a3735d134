import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { message, importRecords } from '../analytics/fixtures.js';
import { request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { agent, agentIdOf, api, everyDay, futureDay } from '../scheduling/fixtures.js';

// Analytics reads on a real streaming replica (scripts/replica-check.sh makes one with
// pg_basebackup and runs this file with DATABASE_REPLICA_URL). Pausing the replica's replay
// separates the two connections: what still sees a new write read it on the primary.
const replicaUrl = process.env.DATABASE_REPLICA_URL;

const waitFor = async (what: string, probe: () => Promise<boolean>, ms = 15_000) => {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe.skipIf(!replicaUrl || !process.env.DATABASE_URL)('analytics reads on a streaming replica (DATABASE_REPLICA_URL)', () => {
  const { server, tenant } = useServer({ overrides: { METRICS: '1' }, tenant: true });
  let replica: postgres.Sql;
  let primaryMessages: () => Promise<number>;

  const listed = async (token = tenant.accessToken) => {
    const res = await request(`${server.url}/api/v1/analytics/${tenant.appId}/messages?limit=100`, { token });
    expect(res.status).toBe(200);
    return (res.body.data as { id: string }[]).map((m) => m.id).sort();
  };
  const metrics = async () => (await fetch(`${server.url}/metrics`)).text();
  const gauge = (text: string, name: string) => Number(new RegExp(`^${name}\\{replica="[^"]+"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

  beforeAll(async () => {
    const name = new URL(server.databaseUrl!).pathname.slice(1);
    // The replica's own admin connection: pausing and resuming replay needs no app database.
    replica = postgres(replicaUrl!, { max: 1, onnotice: () => {} });
    // The test server's database was created on the primary: wait for the replica to replay it.
    await waitFor('the new database on the replica', async () => (await replica`select 1 from pg_database where datname = ${name}`).length === 1);
    const primary = server.runtime.database.pg!;
    primaryMessages = async () => Number((await primary`select count(*)::int as n from messages where app_id = ${tenant.appId}`)[0]!.n);
  });

  afterAll(async () => {
    if (replica) {
      await replica`select pg_wal_replay_resume()`.catch(() => {});
      await replica.end({ timeout: 5 });
    }
  });

  it('is a replica, and analytics lists show what the primary wrote once it is replayed', async () => {
    expect((await replica`select pg_is_in_recovery() as r`)[0]!.r).toBe(true);
    await importRecords(server, tenant.appId, [message(1), message(2), message(3)]);
    await waitFor('three messages on the replica', async () => (await listed()).length === 3);
    expect(await listed()).toEqual(['msg-00001', 'msg-00002', 'msg-00003']);
    const text = await metrics();
    expect(gauge(text, 'switchboard_db_replica_up')).toBe(1);
    expect(text).toMatch(new RegExp(`switchboard_db_replica_up\\{replica="127\\.0\\.0\\.1:\\d+/${new URL(server.databaseUrl!).pathname.slice(1)}"\\} 1`));
  });

  it('replay paused: lists miss new writes (and the lag shows on /metrics); tokens, bookings and revocation read their own writes', async () => {
    await replica`select pg_wal_replay_pause()`;
    try {
      await waitFor('replay to pause', async () => (await replica`select pg_get_wal_replay_pause_state() as s`)[0]!.s === 'paused');
      await importRecords(server, tenant.appId, [message(4), message(5)]);
      expect(await primaryMessages()).toBe(5);
      // The list is read on the replica, which has not applied the import.
      expect(await listed()).toEqual(['msg-00001', 'msg-00002', 'msg-00003']);

      // Received but not applied: the lag gauges say so.
      await waitFor('the lag on /metrics', async () => gauge(await metrics(), 'switchboard_db_replica_replay_behind_bytes') > 0);
      const text = await metrics();
      expect(gauge(text, 'switchboard_db_replica_lag_seconds')).toBeGreaterThan(0);
      expect(gauge(text, 'switchboard_db_replica_up')).toBe(1);

      // A client created now gets a token at once, and it works (keys and clients: primary).
      const fresh = await server.client({ apps: [tenant.appId], scopes: ['messages:read', 'oauth:revoke', 'scheduling:read', 'scheduling:write'] });
      const token = await fresh.token();
      expect(await listed(token)).toHaveLength(3);

      // A booking is read back at once, and a second booking of the slot is refused.
      const { importRecords: importAgents } = await import('../video/fixtures.js');
      await importAgents(server, tenant.appId, [agent(1, 'UTC', everyDay('00:00', '24:00'))]);
      const calls = api(server, { appId: tenant.appId, accessToken: token });
      const slot = { scheduledAtUtc: futureDay(2, 10).toISOString(), durationMinutes: 30, guestName: 'Replica', assignedAgentId: agentIdOf(1) };
      const booked = await calls.create(slot);
      expect(booked.status).toBe(201);
      expect((await calls.get(booked.body.data.call.id)).status).toBe(200);
      expect((await calls.create(slot)).status).toBe(409);

      // Revocation takes effect on the next request.
      expect((await request(`${server.url}/api/v1/oauth/revoke`, { token, json: { token } })).status).toBe(200);
      expect((await request(`${server.url}/api/v1/analytics/${tenant.appId}/messages`, { token })).status).toBe(401);
    } finally {
      await replica`select pg_wal_replay_resume()`;
    }
    // Replay resumed: the list catches up.
    await waitFor('five messages on the replica', async () => (await listed()).length === 5);
    await waitFor('the lag back to 0', async () => gauge(await metrics(), 'switchboard_db_replica_replay_behind_bytes') === 0);
  });
});
