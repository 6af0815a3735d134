import { beforeAll, describe, expect, it, vi } from 'vitest';
import { signAccessToken } from '../../src/auth/tokens.js';
import { appendEvents } from '../../src/scheduling/timeline.js';
import { startTestServer } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { agent, agentIdOf, api, everyDay, futureDay, importRecords } from '../scheduling/fixtures.js';
import { APP_EVENTS, booker, seedAgents, settle, subscribe, TIMELINE } from './timeline.fixtures.js';

// Live timelines through a real graphql-sse client (distinct-connections mode) at /graphql/stream.
const { server, tenant } = useServer({ tenant: true });
beforeAll(() => seedAgents(server, tenant.appId));

const book = booker(server);

describe('scheduledCallTimeline and scheduledCallEvents over graphql-sse', () => {
  it('a subscriber receives rescheduled, assigned, updated and cancelled as they commit', async () => {
    const id = await book(tenant, 3, 10);
    const sub = subscribe(server.url, tenant.accessToken, TIMELINE, { app: tenant.appId, id });
    await settle();
    const a = api(server, tenant);
    expect((await a.patch(id, { scheduledAtUtc: futureDay(3, 12).toISOString(), assignedAgentId: agentIdOf(2), guestName: 'New', reason: 'swap' })).status).toBe(200);
    expect((await a.cancel(id, { json: { reason: 'bye' } })).status).toBe(200);
    await sub.until(4);
    const events = sub.received.map((r) => r.data!.scheduledCallTimeline!);
    expect(events.map((e) => e.eventType)).toEqual(['rescheduled', 'assigned', 'updated', 'cancelled']);
    expect(events[1]).toMatchObject({ callId: id, actorType: 'client', payload: { from: agentIdOf(1), to: agentIdOf(2), reason: 'swap' } });
    expect(events[3]!.payload).toEqual({ reason: 'bye' });
    // Exactly the stored timeline after `created`.
    const stored = (await a.get(id)).body.data.events.map((e: { id: string }) => e.id);
    expect(events.map((e) => e.id)).toEqual(stored.slice(1));
    sub.close();
  });

  it('a reconnect with `after` receives exactly the events it missed, then live ones', async () => {
    const id = await book(tenant, 4, 10);
    const a = api(server, tenant);
    const first = subscribe(server.url, tenant.accessToken, TIMELINE, { app: tenant.appId, id });
    await settle();
    await a.patch(id, { guestName: 'One' });
    // NOTIFY arrives asynchronously: the booking's `created` may still reach a subscriber that
    // started right after it committed, so look for the update rather than take the first event.
    const deadline = Date.now() + 5000;
    while (!first.received.some((r) => r.data?.scheduledCallTimeline?.eventType === 'updated') && Date.now() < deadline) await settle();
    const last = first.received.find((r) => r.data?.scheduledCallTimeline?.eventType === 'updated')!.data!.scheduledCallTimeline!.id;
    first.close();
    // Missed while disconnected:
    await a.patch(id, { guestName: 'Two' });
    await a.patch(id, { scheduledAtUtc: futureDay(4, 11).toISOString() });
    const resumed = subscribe(server.url, tenant.accessToken, TIMELINE, { app: tenant.appId, id, after: last });
    await resumed.until(2);
    await a.cancel(id);
    await resumed.until(3);
    await settle();
    const events = resumed.received.map((r) => r.data!.scheduledCallTimeline!);
    expect(events.map((e) => e.eventType)).toEqual(['updated', 'rescheduled', 'cancelled']);
    expect(events[0]!.payload).toEqual({ fields: ['guest_name'] });
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
    resumed.close();
  });

  it('a rolled-back write publishes nothing; the next committed event arrives alone', async () => {
    const id = await book(tenant, 7, 10);
    const sub = subscribe(server.url, tenant.accessToken, TIMELINE, { app: tenant.appId, id });
    await settle();
    const db = server.runtime.database.db;
    await expect(
      db.transaction(async (tx) => {
        await appendEvents(tx, { appId: tenant.appId, id }, { actorType: 'system', actorId: 'test' }, [{ eventType: 'updated', payload: { fields: ['ghost'] } }], new Date());
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    // A refused PATCH (409) does not publish either.
    await book(tenant, 7, 14);
    expect((await api(server, tenant).patch(id, { scheduledAtUtc: futureDay(7, 14).toISOString() })).status).toBe(409);
    await api(server, tenant).patch(id, { guestName: 'Real' });
    await sub.until(1);
    await settle();
    expect(sub.received.map((r) => r.data!.scheduledCallTimeline!.payload)).toEqual([{ fields: ['guest_name'] }]);
    sub.close();
  });
});

describe('instances and shutdown', () => {
  it('a subscriber on instance A sees a PATCH made on instance B exactly once (PostgreSQL)', async (context) => {
    if (!server.databaseUrl) return context.skip();
    const b = await startTestServer({ DATABASE_URL: server.databaseUrl });
    try {
      const id = await book(tenant, 8, 10);
      const sub = subscribe(server.url, tenant.accessToken, TIMELINE, { app: tenant.appId, id });
      await settle();
      const viaB = api(b, tenant);
      expect((await viaB.patch(id, { guestName: 'From B' })).status).toBe(200);
      expect((await viaB.cancel(id)).status).toBe(200);
      await sub.until(2);
      await settle();
      expect(sub.received.map((r) => r.data!.scheduledCallTimeline!.eventType)).toEqual(['updated', 'cancelled']);
      sub.close();
    } finally {
      await b.close();
    }
  });

  it('graceful shutdown completes open streams cleanly', async () => {
    const own = await startTestServer();
    const t = await own.tenant();
    await importRecords(own, t.appId, [agent(1, 'UTC', everyDay('00:00', '24:00'))]);
    const sub = subscribe(own.url, t.accessToken, APP_EVENTS, { app: t.appId });
    // The stream registers once its request is through auth: waited for, not slept on, so a loaded machine does not fail it.
    await vi.waitFor(() => expect(own.runtime.timeline.size).toBe(1), { timeout: 10_000, interval: 50 });
    const started = Date.now();
    const closing = own.close();
    await sub.done;
    // Well inside the 2 s grace period: the stream ended, it was not cut.
    expect(Date.now() - started).toBeLessThan(1500);
    expect(sub.completed).toBe(true);
    expect(sub.failure).toBeUndefined();
    await closing;
    sub.close();
  });
});

describe('disconnects', () => {
  it('a subscriber that goes away is unregistered at once, not at the next event', async () => {
    const before = server.runtime.timeline.size;
    const sub = subscribe(server.url, tenant.accessToken, APP_EVENTS, { app: tenant.appId });
    await settle();
    expect(server.runtime.timeline.size).toBe(before + 1);
    sub.close();
    const deadline = Date.now() + 3000;
    while (server.runtime.timeline.size > before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(server.runtime.timeline.size).toBe(before);
  });
});

describe('the token of an open stream: held as a request holds it', () => {
  const revoke = (bearer: string, token: string) =>
    fetch(`${server.url}/api/v1/oauth/revoke`, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, body: JSON.stringify({ token }) });

  it('revoked: the stream sends no further event and completes', async () => {
    const watcher = await server.tenant();
    await importRecords(server, watcher.appId, [agent(1, 'UTC', everyDay('00:00', '24:00'))]);
    const streamToken = await watcher.token();
    const sub = subscribe(server.url, streamToken, APP_EVENTS, { app: watcher.appId });
    await settle();
    await book(watcher, 5, 10);
    await sub.until(1);
    expect((await revoke(watcher.accessToken, streamToken)).status).toBe(200);
    await book(watcher, 5, 12);
    await Promise.race([sub.done, new Promise((r) => setTimeout(r, 5000))]);
    expect(sub.completed).toBe(true);
    expect(sub.received.map((r) => r.data?.scheduledCallEvents?.eventType)).toEqual(['created']);
  });

  it('expired: the stream completes at the expiry, idle or not', async () => {
    const watcher = await server.tenant();
    await importRecords(server, watcher.appId, [agent(1, 'UTC', everyDay('00:00', '24:00'))]);
    // A token of the watcher's client that expires in 2 s (the service issues at least 60 s).
    const { token } = await signAccessToken(server.runtime.keys, { ...server.runtime.tokens, ttlSeconds: 2 }, {
      clientId: watcher.clientId,
      scopes: ['scheduling:read'],
      apps: [watcher.appId],
    });
    const sub = subscribe(server.url, token, APP_EVENTS, { app: watcher.appId });
    await settle();
    await book(watcher, 6, 10);
    await sub.until(1);
    await Promise.race([sub.done, new Promise((r) => setTimeout(r, 5000))]);
    expect(sub.completed).toBe(true);
    await book(watcher, 6, 12);
    await settle();
    expect(sub.received).toHaveLength(1);
  });
});
