import { sql, type SQL } from 'drizzle-orm';
import { bigint, check, foreignKey, type PgColumn, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { apps } from '../apps/tables.js';
import type { WeeklyHours } from './working-hours.js';
import type { BookingAnswer, CallMetadata } from './fields.js';
import type { AgentPolicyOverrides } from './policy.js';
import { keysetInstant } from '../db/columns.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const appId = () =>
  uuid('app_id')
    .notNull()
    .references(() => apps.id, { onDelete: 'cascade' });

// An agent (a member who takes calls), with weekly working hours in its own time zone
// (the `agent` import record). Keyed per app: another tenant may use the same id.
export const agents = pgTable(
  'agents',
  {
    appId: appId(),
    id: uuid('id').notNull().defaultRandom(),
    name: text('name').notNull(),
    timezone: text('timezone').notNull(),
    workingHours: jsonb('working_hours').$type<WeeklyHours>().notNull().default({}),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    /**
     * Set when an agent with calls on record (all of them final) is deleted: the row stays for
     * the calls that name it, and the agent is gone from every list, lookup and availability.
     */
    deletedAt: ts('deleted_at'),
    /** The booking rules this agent has of its own; a rule left out follows the app's policy. */
    bookingPolicy: jsonb('booking_policy').$type<AgentPolicyOverrides>().notNull().default({}),
    /** Round-robin assignment: a higher priority group is offered first, weight shares calls within one. */
    assignmentPriority: integer('assignment_priority').notNull().default(2),
    assignmentWeight: integer('assignment_weight').notNull().default(100),
  },
  (t) => [
    primaryKey({ columns: [t.appId, t.id] }),
    check('agents_assignment_priority', sql`${t.assignmentPriority} between 0 and 4`),
    check('agents_assignment_weight', sql`${t.assignmentWeight} between 1 and 1000`),
  ],
);

// An app's booking policy: the rules of every agent without an override. No row: every rule off
// and least_busy assignment.
export const bookingPolicies = pgTable(
  'booking_policies',
  {
    appId: uuid('app_id')
      .primaryKey()
      .references(() => apps.id, { onDelete: 'cascade' }),
    minimumNoticeMinutes: integer('minimum_notice_minutes').notNull().default(0),
    horizonDays: integer('horizon_days'),
    bufferBeforeMinutes: integer('buffer_before_minutes').notNull().default(0),
    bufferAfterMinutes: integer('buffer_after_minutes').notNull().default(0),
    maxCallsPerDay: integer('max_calls_per_day'),
    maxCallsPerWeek: integer('max_calls_per_week'),
    alignmentMinutes: integer('alignment_minutes'),
    assignment: text('assignment').notNull().default('least_busy'),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [check('booking_policies_assignment', sql`${t.assignment} in ('least_busy', 'round_robin')`)],
);

const agentRef = (t: { appId: PgColumn; agentId: PgColumn }, name: string) =>
  foreignKey({ name, columns: [t.appId, t.agentId], foreignColumns: [agents.appId, agents.id] }).onDelete('cascade');

// `blocked` and `available_extra` windows of an agent, in UTC.
export const availabilityExceptions = pgTable(
  'availability_exceptions',
  {
    appId: appId(),
    id: uuid('id').notNull().defaultRandom(),
    agentId: uuid('agent_id').notNull(),
    kind: text('kind').notNull(),
    startAt: ts('start_at').notNull(),
    endAt: ts('end_at').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.appId, t.id] }),
    agentRef(t, 'availability_exceptions_agent_fk'),
    // Availability reads an agent's windows that end after the request's start.
    index('availability_exceptions_agent_end_idx').on(t.appId, t.agentId, t.endAt),
    check('availability_exceptions_kind', sql`${t.kind} in ('blocked', 'available_extra')`),
    check('availability_exceptions_range', sql`${t.endAt} > ${t.startAt}`),
  ],
);

// Do-not-disturb windows of an agent, in UTC.
export const dndWindows = pgTable(
  'dnd_windows',
  {
    appId: appId(),
    id: uuid('id').notNull().defaultRandom(),
    agentId: uuid('agent_id').notNull(),
    startAt: ts('start_at').notNull(),
    endAt: ts('end_at').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.appId, t.id] }),
    agentRef(t, 'dnd_windows_agent_fk'),
    index('dnd_windows_agent_end_idx').on(t.appId, t.agentId, t.endAt),
    check('dnd_windows_range', sql`${t.endAt} > ${t.startAt}`),
  ],
);

/** The guest e-mail as the list filter compares it (and its index stores it). */
export const guestEmailKey = (column: PgColumn | SQL) => sql`lower(${column})`;
/** The guest phone's digits (fields.ts phoneDigits), as the list filter compares it. */
export const guestPhoneKey = (column: PgColumn | SQL) => sql`regexp_replace(${column}, '[^0-9]', '', 'g')`;

// A booked call. The id is unique across apps (a lookup by id from another app is a 404,
// never a second row). `ends_at` is stored because an exclusion constraint needs an immutable
// range expression (timestamptz + interval is only stable); a check keeps it consistent. The
// constraint itself (no two `scheduled` calls of one agent overlap, buffers included) is custom
// SQL in the migrations.
export const scheduledCalls = pgTable(
  'scheduled_calls',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    appId: appId(),
    assignedAgentId: uuid('assigned_agent_id').notNull(),
    bookingSource: text('booking_source').notNull(),
    guestName: text('guest_name').notNull(),
    guestPhone: text('guest_phone'),
    guestEmail: text('guest_email'),
    guestTimezone: text('guest_timezone').notNull(),
    guestIntakeNotes: text('guest_intake_notes'),
    /** The caller's key-value pairs (fields.ts bounds them); null when none, never `{}`. */
    metadata: jsonb('metadata').$type<CallMetadata>(),
    /** Answers to booking questions in the order given; null when none, never `[]`. */
    answers: jsonb('answers').$type<BookingAnswer[]>(),
    scheduledAt: keysetInstant('scheduled_at').notNull(),
    endsAt: keysetInstant('ends_at').notNull(),
    durationMinutes: integer('duration_minutes').notNull(),
    appTimezone: text('app_timezone').notNull(),
    status: text('status').notNull(),
    cancelledAt: ts('cancelled_at'),
    /** Null when none was given (never ''); REST shows none as ''. */
    cancellationReason: text('cancellation_reason'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    /**
     * The range the call keeps its agent from other calls, its buffers around it, written with
     * the call from the agent's rules at booking; null when it has none. An exclusion constraint
     * on it (custom SQL in the migration) holds buffers under concurrent bookings.
     */
    bufferedFrom: keysetInstant('buffered_from'),
    bufferedUntil: keysetInstant('buffered_until'),
  },
  (t) => [
    foreignKey({ name: 'scheduled_calls_agent_fk', columns: [t.appId, t.assignedAgentId], foreignColumns: [agents.appId, agents.id] }),
    // Keyset order of the list (scheduled_at asc, id asc), with and without the agent filter.
    index('scheduled_calls_app_at_idx').on(t.appId, t.scheduledAt, t.id),
    index('scheduled_calls_agent_at_idx').on(t.appId, t.assignedAgentId, t.scheduledAt),
    // The guest filters of the list, in its order: the e-mail matched case-insensitively, the
    // phone by its digits. Each expression is written exactly as listScheduledCalls compares it.
    index('scheduled_calls_app_guest_email_idx').on(t.appId, guestEmailKey(t.guestEmail), t.scheduledAt, t.id),
    index('scheduled_calls_app_guest_phone_idx').on(t.appId, guestPhoneKey(t.guestPhone), t.scheduledAt, t.id),
    check('scheduled_calls_metadata_object', sql`jsonb_typeof(${t.metadata}) = 'object'`),
    check('scheduled_calls_answers_array', sql`jsonb_typeof(${t.answers}) = 'array'`),
    check('scheduled_calls_cancellation_reason_not_empty', sql`${t.cancellationReason} <> ''`),
    check('scheduled_calls_status', sql`${t.status} in ('scheduled', 'cancelled', 'completed', 'no_show')`),
    check('scheduled_calls_duration', sql`${t.durationMinutes} > 0`),
    check('scheduled_calls_ends_at', sql`${t.endsAt} - ${t.scheduledAt} = make_interval(mins => ${t.durationMinutes})`),
    check(
      'scheduled_calls_buffered_range',
      sql`(${t.bufferedFrom} is null and ${t.bufferedUntil} is null) or (${t.bufferedFrom} <= ${t.scheduledAt} and ${t.bufferedUntil} >= ${t.endsAt})`,
    ),
  ],
);

// A call's timeline is its slice of the app event log (app_events, src/events/tables.ts);
// scheduled_call_events is a view of it for ad-hoc SQL.

// Reminders 24 h and 15 min before a call: planned on create, re-planned on a
// time change, cancelled on cancel. A worker sends the due `pending` ones.
export const scheduledCallReminders = pgTable(
  'scheduled_call_reminders',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    appId: appId(),
    callId: uuid('call_id')
      .notNull()
      .references(() => scheduledCalls.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    dueAt: ts('due_at').notNull(),
    status: text('status').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('scheduled_call_reminders_call_idx').on(t.callId),
    index('scheduled_call_reminders_due_idx').on(t.dueAt).where(sql`${t.status} = 'pending'`),
    check('scheduled_call_reminders_status', sql`${t.status} in ('pending', 'sent', 'cancelled')`),
  ],
);

export type AgentRow = typeof agents.$inferSelect;
export type BookingPolicyRow = typeof bookingPolicies.$inferSelect;
export type AvailabilityExceptionRow = typeof availabilityExceptions.$inferSelect;
export type DndWindowRow = typeof dndWindows.$inferSelect;
export type ScheduledCallRow = typeof scheduledCalls.$inferSelect;
export type ScheduledCallReminderRow = typeof scheduledCallReminders.$inferSelect;
