import { bigint, index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { apps } from '../apps/tables.js';

// The app's event log: one row per change, written in the transaction of the change. `seq`
// orders the log (pages and stream resumes go by it); `id` is a UUIDv7 whose timestamp is the
// event's time, so an id whose event was pruned is still known to be older than retention.
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
    occurredAt: timestamp('occurred_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    // Pages, filters and stream replays of one app, in log order.
    index('app_events_app_seq_idx').on(t.appId, t.seq),
    // The prune job deletes the oldest first.
    index('app_events_occurred_idx').on(t.occurredAt),
  ],
);

export type AppEventRow = typeof appEvents.$inferSelect;
