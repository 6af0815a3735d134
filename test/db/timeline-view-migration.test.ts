import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/apps/service.js';
import { runMigrations } from '../../src/db/migrate.js';
import { rowsOf } from '../../src/db/raw.js';
import { pruneEvents } from '../../src/events/prune.js';
import { eventsAfter } from '../../src/realtime/timeline-bus.js';
import { databaseBefore as databaseBeforeMigration, storageKinds, type StorageKind } from '../helpers/migrations.js';

/*
 * 0022 makes a call's timeline its slice of the app event log. Timeline rows whose log event
 * was written with them (their twin) give it their payload; those without one (from before the
 * log, an import, a pruned twin) become log events of their own, before the logged ones. The
 * timeline reads the same afterwards, on PGlite and on PostgreSQL, and pruning leaves it whole.
 */

const MIGRATION = '0022_timeline_view';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const databaseBefore = (kind: StorageKind) => databaseBeforeMigration(MIGRATION, kind, cleanups);
const kinds = storageKinds;

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 10, minute)).toISOString();

describe(`migration ${MIGRATION}`, () => {
  it.each(kinds)('on %s: keeps every timeline as it read, ids and order included, now read from the log', async (kind) => {
    const database = await databaseBefore(kind);
    const db = database.db;
    const query = async <T>(q: ReturnType<typeof sql>) => rowsOf<T>(await db.execute(q));
    const appId = (await createApp(db, { name: 'migration test' })).id;
    const [agent] = await query<{ id: string }>(sql`insert into agents (app_id, name, timezone) values (${appId}, 'Ana', 'UTC') returning id`);
    const call = async (name: string, hours: number) =>
      (
        await query<{ id: string }>(sql`insert into scheduled_calls (app_id, assigned_agent_id, booking_source, guest_name, guest_timezone,
          scheduled_at, ends_at, duration_minutes, app_timezone, status)
        values (${appId}, ${agent!.id}, 'api', ${name}, 'UTC', now() + make_interval(hours => ${hours}), now() + make_interval(hours => ${hours}, mins => 30), 30, 'UTC', 'scheduled') returning id`)
      )[0]!.id;
    const [first, second] = [await call('first', 1), await call('second', 2)];
    /** A timeline row, and with `twin` its log event as the same transaction wrote it. */
    const event = async (callId: string, type: string, minute: number, payload: Record<string, unknown>, twin: boolean) => {
      const [row] = await query<{ id: string }>(sql`insert into scheduled_call_events (app_id, call_id, event_type, actor_type, actor_id, payload, created_at)
        values (${appId}, ${callId}, ${type}, 'client', 'cli', ${JSON.stringify(payload)}::jsonb, ${at(minute)}) returning id`);
      if (!twin) return row!.id;
      const logId = `0190${String(minute).padStart(4, '0')}-0000-7000-8000-${Math.random().toString(16).slice(2, 14).padEnd(12, '0')}`;
      await db.execute(sql`insert into app_events (id, app_id, type, actor_type, actor_id, resource, occurred_at)
        values (${logId}, ${appId}, ${`scheduled_call.${type}`}, 'client', 'cli', ${JSON.stringify({ id: callId, status: 'scheduled' })}::jsonb, ${at(minute)})`);
      return logId;
    };
    // The first call's history began before the log: its creation has no twin.
    const expected = new Map<string, [string, string, Record<string, unknown>, string][]>();
    expected.set(first, [
      [await event(first, 'created', 1, { scheduled_at: at(50), assigned_agent_id: agent!.id }, false), 'created', { scheduled_at: at(50), assigned_agent_id: agent!.id }, at(1)],
      [await event(first, 'rescheduled', 2, { from: at(50), to: at(55), reason: 'guest' }, true), 'rescheduled', { from: at(50), to: at(55), reason: 'guest' }, at(2)],
      [await event(first, 'cancelled', 3, { reason: 'ill' }, true), 'cancelled', { reason: 'ill' }, at(3)],
    ]);
    // Two entries of one type at one instant pair with their twins in order.
    expected.set(second, [
      [await event(second, 'created', 4, { scheduled_at: at(50), assigned_agent_id: agent!.id }, true), 'created', { scheduled_at: at(50), assigned_agent_id: agent!.id }, at(4)],
      [await event(second, 'updated', 5, { fields: ['guest_name'] }, true), 'updated', { fields: ['guest_name'] }, at(5)],
      [await event(second, 'updated', 5, { fields: ['metadata'] }, true), 'updated', { fields: ['metadata'] }, at(5)],
    ]);
    // Log events outside any timeline: a reminder of the first call, and one without a subject.
    await db.execute(sql`insert into app_events (id, app_id, type, actor_type, actor_id, resource, occurred_at) values
      ('01900006-0000-7000-8000-000000000001', ${appId}, 'scheduled_call.reminder', 'system', 'system', ${JSON.stringify({ id: first })}::jsonb, ${at(6)}),
      ('01900007-0000-7000-8000-000000000002', ${appId}, 'message.received', 'system', 'system', '{"id":"m-1"}'::jsonb, ${at(7)})`);
    const before = await query<{ id: string; call_id: string; event_type: string; payload: unknown; created_at: unknown }>(
      sql`select id, call_id, event_type, payload, created_at from scheduled_call_events order by seq`,
    );

    await runMigrations(database);

    for (const [callId, entries] of expected) {
      const timeline = await eventsAfter(database, { appId, callId }, Number.MIN_SAFE_INTEGER, 100);
      expect(timeline.map((e) => [e.id, e.eventType, e.payload, e.createdAt.toISOString()])).toEqual(entries);
      expect(timeline.every((e) => e.callId === callId && e.actorType === 'client' && e.actorId === 'cli')).toBe(true);
    }
    // The app-wide timeline holds both calls, in write order but for the history from before the log.
    const all = await eventsAfter(database, { appId }, Number.MIN_SAFE_INTEGER, 100);
    expect(all.map((e) => e.id)).toEqual([expected.get(first)![0]![0], ...[...expected.get(first)!.slice(1), ...expected.get(second)!].map((e) => e[0])]);
    // The view of the old name answers as the table did, row for row (the ids of logged events are theirs).
    const view = await query<{ id: string; call_id: string; event_type: string; payload: unknown }>(sql`select id, call_id, event_type, payload from scheduled_call_events order by seq`);
    expect(view.map((r) => [r.event_type, r.payload])).toEqual(before.map((r) => [r.event_type, r.payload]));
    expect(view.map((r) => r.id)).toEqual(all.map((e) => e.id));
    // Every scheduled_call.* event is about its call; the rest about nothing.
    expect(await query(sql`select type, subject_id from app_events where type in ('scheduled_call.reminder', 'message.received') order by type`)).toEqual([
      { type: 'message.received', subject_id: null },
      { type: 'scheduled_call.reminder', subject_id: first },
    ]);

    // Pruning everything past retention leaves the timelines whole.
    await pruneEvents(db, new Date('2100-01-01T00:00:00Z'));
    expect(await query(sql`select id from app_events where type = 'message.received'`)).toEqual([]);
    for (const [callId, entries] of expected) {
      expect((await eventsAfter(database, { appId, callId }, Number.MIN_SAFE_INTEGER, 100)).map((e) => e.id)).toEqual(entries.map((e) => e[0]));
    }
  });
});
