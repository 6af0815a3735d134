import { sql } from 'drizzle-orm';
import { index, integer, jsonb, numeric, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { apps } from '../apps/tables.js';

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
    providerFrom: text('provider_from').notNull(),
    providerTo: text('provider_to').notNull(),
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
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.appId, t.id] }),
    // Keyset order of the list (DESIGN section 6: created_at desc, id desc), with and without
    // the most selective filters in front. Ascending on purpose: a backward scan yields
    // DESC NULLS FIRST, the default of ORDER BY ... DESC; a DESC NULLS LAST index does not.
    index('messages_app_created_idx').on(t.appId, t.createdAt, t.id),
    index('messages_app_status_created_idx').on(t.appId, t.status, t.createdAt, t.id),
    index('messages_app_direction_created_idx').on(t.appId, t.direction, t.createdAt, t.id),
    index('messages_app_campaign_idx').on(t.appId, t.campaignId),
    index('messages_app_phone_idx').on(t.appId, t.userPhone),
  ],
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
    createdAt: ts('created_at').notNull(),
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
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.appId, t.id] }), index('templates_app_created_idx').on(t.appId, t.createdAt, t.id)],
);

export type MessageRow = typeof messages.$inferSelect;
export type CampaignRow = typeof campaigns.$inferSelect;
export type TemplateRow = typeof templates.$inferSelect;
