import { sql } from 'drizzle-orm';
import { boolean, check, foreignKey, index, jsonb, pgTable, primaryKey, text, timestamp, unique, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { apps } from '../apps/tables.js';
import { keysetInstant } from '../db/columns.js';
import { scheduledCalls } from '../scheduling/tables.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

// A video call. The callId is unique across apps (the video host looks
// a call up by it alone); (app_id, id) is unique too, so participants and recordings can
// reference the call together with its app and never end up under another tenant.
export const videoCalls = pgTable(
  'video_calls',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    status: text('status').notNull(),
    presetId: text('preset_id').notNull(),
    title: text('title'),
    description: text('description'),
    metadata: jsonb('metadata'),
    hostName: text('host_name'),
    guestName: text('guest_name'),
    providerName: text('provider_name'),
    providerMeetingId: text('provider_meeting_id'),
    conversationId: text('conversation_id').notNull(),
    ccHostOrigin: text('cc_host_origin').notNull(),
    ccTargetEnv: text('cc_target_env').notNull(),
    ccLangTag: text('cc_lang_tag').notNull(),
    ccUsePopupAuth: boolean('cc_use_popup_auth').notNull(),
    createdAt: keysetInstant('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    /** The scheduled call this video call serves, or null; kept here so both lookups are one indexed query. */
    scheduledCallId: uuid('scheduled_call_id').references(() => scheduledCalls.id, { onDelete: 'set null' }),
  },
  (t) => [
    // A constraint, not an index, so it exists before the foreign keys that reference it.
    unique('video_calls_app_id_key').on(t.appId, t.id),
    // One video call per scheduled call: concurrent creators meet here and the loser reads the winner.
    unique('video_calls_scheduled_call_key').on(t.appId, t.scheduledCallId),
    // Keyset order of videoCalls (created_at desc, id desc), with and without the status filter.
    // Ascending on purpose, as for messages: a backward scan serves ORDER BY ... DESC.
    index('video_calls_app_created_idx').on(t.appId, t.createdAt, t.id),
    index('video_calls_app_status_created_idx').on(t.appId, t.status, t.createdAt, t.id),
    // provider is an object with both fields, or null: never half a provider.
    check('video_calls_provider_whole', sql`(${t.providerName} is null) = (${t.providerMeetingId} is null)`),
  ],
);

export const videoParticipants = pgTable(
  'video_participants',
  {
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    callId: uuid('call_id').notNull(),
    id: uuid('id').notNull().defaultRandom(),
    providerParticipantId: text('provider_participant_id').notNull(),
    role: text('role').notNull(),
    name: text('name').notNull(),
    joinedAt: ts('joined_at').notNull(),
    leftAt: ts('left_at'),
  },
  (t) => [
    primaryKey({ columns: [t.appId, t.callId, t.id] }),
    foreignKey({ name: 'video_participants_call_fk', columns: [t.appId, t.callId], foreignColumns: [videoCalls.appId, videoCalls.id] }).onDelete('cascade'),
    // One connected session per provider participant: a rejoin after leaving is a new session.
    uniqueIndex('video_participants_connected_key').on(t.appId, t.callId, t.providerParticipantId).where(sql`${t.leftAt} is null`),
    check('video_participants_left_after_joined', sql`${t.leftAt} is null or ${t.leftAt} >= ${t.joinedAt}`),
  ],
);

export const videoRecordings = pgTable(
  'video_recordings',
  {
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    callId: uuid('call_id').notNull(),
    id: uuid('id').notNull().defaultRandom(),
    providerArchiveId: text('provider_archive_id').notNull(),
    url: text('url'),
    status: text('status').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.appId, t.callId, t.id] }),
    foreignKey({ name: 'video_recordings_call_fk', columns: [t.appId, t.callId], foreignColumns: [videoCalls.appId, videoCalls.id] }).onDelete('cascade'),
    // Provider status events name the recording by its archive id.
    uniqueIndex('video_recordings_archive_key').on(t.appId, t.callId, t.providerArchiveId),
  ],
);

export type VideoCallRow = typeof videoCalls.$inferSelect;
export type VideoParticipantRow = typeof videoParticipants.$inferSelect;
export type VideoRecordingRow = typeof videoRecordings.$inferSelect;
