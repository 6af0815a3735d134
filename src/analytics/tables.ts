import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, numeric, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { apps } from '../apps/tables.js';
import { keysetInstant } from '../db/columns.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

// Primary keys lead with app_id: an imported id can never touch another tenant's row.
export const messages = pgTable(
  'messages',
  {
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    id: text('id').notNull(),
    source: text('source').notNull(),
    destination: text('destination').notNull(),
    /** The provider's sender and recipient numbers: null when unknown (never ''). */
    providerFrom: text('provider_from'),
    providerTo: text('provider_to'),
    channel: text('channel').notNull(),
    direction: text('direction').notNull(),
    messageType: text('message_type').notNull(),
    userPhone: text('user_phone').notNull(),
    conversationKey: text('conversation_key').notNull(),
    providerMessageId: text('provider_message_id').notNull(),
    status: text('status').notNull(),
    sentAt: ts('sent_at'),
    failedAt: ts('failed_at'),
    deliveredAt: ts('delivered_at'),
    readAt: ts('read_at'),
    errorMessage: text('error_message'),
    campaignId: uuid('campaign_id'),
    cost: numeric('cost', { precision: 14, scale: 6, mode: 'number' }).notNull().default(0),
    createdAt: keysetInstant('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.appId, t.id] }),
    // Keyset order of the list (created_at desc, id desc), with and without
    // the most selective filters in front. Ascending on purpose: a backward scan yields
    // DESC NULLS FIRST, the default of ORDER BY ... DESC; a DESC NULLS LAST index does not.
    index('messages_app_created_idx').on(t.appId, t.createdAt, t.id),
    index('messages_app_status_created_idx').on(t.appId, t.status, t.createdAt, t.id),
    index('messages_app_direction_created_idx').on(t.appId, t.direction, t.createdAt, t.id),
    index('messages_app_campaign_idx').on(t.appId, t.campaignId),
    index('messages_app_phone_idx').on(t.appId, t.userPhone),
    // A contact's outbound messages in time order: the rollup triggers recompute a contact's
    // first/last outbound message from it, and summary `contacts` probes it (contact_ranges).
    index('messages_app_outbound_phone_idx').on(t.appId, t.userPhone, t.createdAt).where(sql`${t.direction} = 'outbound'`),
    // Provider status updates find an outbound message by (app, provider_message_id) (sends/service.ts).
    index('messages_app_outbound_provider_message_idx').on(t.appId, t.providerMessageId).where(sql`${t.direction} = 'outbound'`),
    // Unknown is null, so that readers test one thing; REST turns it back into ''.
    check('messages_provider_from_not_empty', sql`${t.providerFrom} <> ''`),
    check('messages_provider_to_not_empty', sql`${t.providerTo} <> ''`),
  ],
);

/*
 * Pre-aggregated outbound funnels, maintained by statement-level triggers on `messages`
 * (migration analytics_rollup_triggers) so that every writer keeps them exact with no code of
 * its own. Counts follow the funnel (sent = sent+delivered+read, ...; see funnel.ts).
 */
const funnelCounts = () => ({
  sent: integer('sent').notNull().default(0),
  delivered: integer('delivered').notNull().default(0),
  read: integer('read').notNull().default(0),
  failed: integer('failed').notNull().default(0),
  // numeric, unscaled: the sum of numeric(14,6) costs stays exact, equal to summing the rows.
  cost: numeric('cost', { mode: 'string' }).notNull().default('0'),
});

/**
 * Outbound messages per app and 15-minute bucket of created_at (UTC quarter hours): every
 * modern IANA offset (+05:30, +05:45 included) is a multiple of 15 minutes, so a local day is
 * a whole number of buckets; the metrics queries detect and read raw rows for any bucket that
 * is not (historical offsets like LMT) and for the partial buckets at the ends of a range.
 */
export const messageRollups = pgTable(
  'message_rollups',
  {
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    bucketStart: ts('bucket_start').notNull(),
    ...funnelCounts(),
  },
  (t) => [primaryKey({ columns: [t.appId, t.bucketStart] })],
);

/** Outbound messages per app and campaign, over all time: tag stats and campaign.stats. */
export const campaignRollups = pgTable(
  'campaign_rollups',
  {
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    campaignId: uuid('campaign_id').notNull(),
    ...funnelCounts(),
  },
  (t) => [primaryKey({ columns: [t.appId, t.campaignId] })],
);

export const campaigns = pgTable(
  'campaigns',
  {
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    id: uuid('id').notNull(),
    name: text('name').notNull(),
    status: text('status').notNull(),
    totalContacts: integer('total_contacts').notNull().default(0),
    sentCount: integer('sent_count').notNull().default(0),
    tags: text('tags').array().notNull().default(sql`'{}'::text[]`),
    createdAt: keysetInstant('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.appId, t.id] }),
    index('campaigns_app_created_idx').on(t.appId, t.createdAt, t.id),
    index('campaigns_app_status_created_idx').on(t.appId, t.status, t.createdAt, t.id),
    index('campaigns_tags_idx').using('gin', t.tags),
  ],
);

export const templates = pgTable(
  'templates',
  {
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    id: uuid('id').notNull(),
    name: text('name').notNull(),
    category: text('category').notNull(),
    language: text('language').notNull(),
    status: text('status').notNull(),
    headerType: text('header_type').notNull(),
    headerText: text('header_text').notNull(),
    bodyText: text('body_text').notNull(),
    bodyVariables: jsonb('body_variables').notNull().default(sql`'[]'::jsonb`),
    footerText: text('footer_text').notNull(),
    buttons: jsonb('buttons').notNull().default(sql`'[]'::jsonb`),
    providerTemplateId: text('provider_template_id').notNull(),
    providerStatus: text('provider_status').notNull(),
    providerRejectionReason: text('provider_rejection_reason'),
    providerQuality: text('provider_quality').notNull(),
    createdAt: keysetInstant('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.appId, t.id] }), index('templates_app_created_idx').on(t.appId, t.createdAt, t.id)],
);

/**
 * Each contact's first and last outbound message per app (trigger-maintained). Summary
 * `contacts` (distinct user_phone over a range) cannot be summed from buckets; with these it is
 * exact without a distinct over every message of the range: a contact last seen inside the
 * range counts; one first seen inside it and last seen after counts; one spanning the whole
 * range counts if it has a message inside (an index probe; none when the range ends now).
 */
export const contactRanges = pgTable(
  'contact_ranges',
  {
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    userPhone: text('user_phone').notNull(),
    firstSeen: ts('first_seen').notNull(),
    lastSeen: ts('last_seen').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.appId, t.userPhone] }),
    index('contact_ranges_app_last_idx').on(t.appId, t.lastSeen, t.firstSeen),
  ],
);

/**
 * How many contacts have their last outbound message in each 15-minute bucket (a trigger on
 * contact_ranges keeps it): "last seen inside the range", the bulk of summary `contacts`, is a
 * sum over buckets instead of a count over every contact.
 */
export const contactRollups = pgTable(
  'contact_rollups',
  {
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    bucketStart: ts('bucket_start').notNull(),
    contacts: integer('contacts').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.appId, t.bucketStart] })],
);

export type MessageRow = typeof messages.$inferSelect;
export type CampaignRow = typeof campaigns.$inferSelect;
export type TemplateRow = typeof templates.$inferSelect;
