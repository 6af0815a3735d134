import { sql } from 'drizzle-orm';
import { bigint, index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { apps } from '../apps/tables.js';

// The app's event log: one row per change, written in the transaction of the change. `seq`
// orders the log (pages and stream resumes go by it); `id` is a UUIDv7 whose timestamp is the
// event's time, so an id whose event was pruned is still known to be older than retention.
// A scheduled call's timeline is its slice of this log: the events whose subject is the call.
export const appEvents = pgTable(
  'app_events',
  {
    id: uuid('id').primaryKey(),
    seq: bigint('seq', { mode: 'number' }).generatedAlwaysAsIdentity().notNull().unique(),
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    actorType: text('actor_type').notNull(),
    actorId: text('actor_id').notNull(),
    /** The resource as it is after the change, in the REST API's snake_case; null for none. */
    resource: jsonb('resource').$type<Record<string, unknown> | null>(),
    /** The id of the resource the event is about (the call, for scheduled_call.*); null for none. */
    subjectId: uuid('subject_id'),
    /** What the change was beyond the resource (a reschedule's old and new times, a cancel reason); null for nothing. */
    details: jsonb('details').$type<Record<string, unknown> | null>(),
    occurredAt: timestamp('occurred_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    // Pages, filters and stream replays of one app, in log order.
    index('app_events_app_seq_idx').on(t.appId, t.seq),
    // A resource's slice of the log (a call's timeline), in log order.
    index('app_events_subject_idx').on(t.appId, t.subjectId, t.seq).where(sql`${t.subjectId} is not null`),
    // The prune job deletes the oldest first, and only events without a subject: a call's
    // timeline is kept for the call's life, so the index leaves those out.
    index('app_events_prunable_idx').on(t.occurredAt).where(sql`${t.subjectId} is null`),
  ],
);

export type AppEventRow = typeof appEvents.$inferSelect;
