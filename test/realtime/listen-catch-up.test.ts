import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/raw.js';
import { eventId } from '../../src/events/ids.js';
import { useServer } from '../helpers/use-server.js';
import { eventIds, openStream } from './event-stream.fixtures.js';
import { produceEvents } from './stream-helpers.js';
import { booker, seedAgents, settle, TIMELINE } from './timeline.fixtures.js';

// The LISTEN connection drops (a restart, a failover, a terminated backend) and postgres.js
// listens again by itself. A row committed while no one listened was announced to no one; once
// listening again, the bus reads it from the log, so open streams miss nothing and repeat nothing.
// PostgreSQL only: PGlite's notifications are in process and never drop.
const onPostgres = Boolean(process.env.DATABASE_URL);
const { server, tenant } = useServer({ tenant: true });
beforeAll(() => seedAgents(server, tenant.appId));
const book = booker(server);

describe.skipIf(!onPostgres)('a stream across a dropped LISTEN connection', () => {
  it('gets the rows committed while the bus was not listening, once, then live ones', async () => {
    const id = await book(tenant, 3, 10);
    await settle();
    const stream = await openStream(server, tenant.accessToken, TIMELINE, { app: tenant.appId, id });
    expect(stream.status).toBe(200);
    await settle();
    const { db } = server.runtime.database;
    // Delivered live before the drop: the catch-up reads it again (its overlap) and must not repeat it.
    const before = await produceEvents(server, tenant.appId, id, 1, 10);
    await stream.until(1);

    // A row committed with no notification reaching this instance: as one written while its LISTEN was down.
    const missed = eventId(new Date());
    await db.execute(sql`insert into app_events (id, app_id, type, actor_type, actor_id, resource, subject_id, details, occurred_at)
      select ${missed}, app_id, 'scheduled_call.updated', 'system', 'test', resource, subject_id, '{"fields": ["guest_intake_notes"]}'::jsonb, now()
      from app_events where app_id = ${tenant.appId} and subject_id = ${id} order by seq limit 1`);
    await settle();
    expect(stream.nexts()).toHaveLength(1);

    // The LISTEN connection dies; postgres.js reconnects and listens again.
    const listeners = rowsOf<{ pid: number }>(
      await db.execute(sql`select pid from pg_stat_activity where datname = current_database() and query ilike 'listen %'`),
    );
    expect(listeners.length).toBeGreaterThan(0);
    for (const { pid } of listeners) await db.execute(sql`select pg_terminate_backend(${pid})`);
    await stream.until(2);
    expect(eventIds(stream.frames, 'scheduledCallTimeline')).toEqual([...before, missed]);

    // Live again: the next row arrives once, after the caught-up one.
    const live = await produceEvents(server, tenant.appId, id, 1, 10);
    await stream.until(3);
    await settle();
    expect(eventIds(stream.frames, 'scheduledCallTimeline')).toEqual([...before, missed, ...live]);
    stream.close();
  });
});
