import { sql } from 'drizzle-orm';
import { check, foreignKey, index, jsonb, numeric, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { messages } from '../analytics/tables.js';
import { apps } from '../apps/tables.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

// What a send needs beyond its message row (which lives in analytics' `messages`): the payload
// as sent, the flow_token and the provider's id, keyed by the message they belong to.
export const sendDetails = pgTable(
  'send_details',
  {
    appId: uuid('app_id').notNull(),
    messageId: text('message_id').notNull(),
    kind: text('kind').notNull(),
    flowToken: text('flow_token'),
    providerMessageId: text('provider_message_id'),
    templateId: uuid('template_id'),
    payload: jsonb('payload').notNull(),
    /** The inbound message that answered the Flow (linked by flow_token), and its answers. */
    replyMessageId: text('reply_message_id'),
    replyResponse: jsonb('reply_response'),
    repliedAt: ts('replied_at'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.appId, t.messageId] }),
    foreignKey({ name: 'send_details_message_fk', columns: [t.appId, t.messageId], foreignColumns: [messages.appId, messages.id] }).onDelete('cascade'),
    // flow_token is unique per app: a Flow reply finds its send by it. The index, not a read
    // before the write, decides between concurrent sends: the second insert waits for the first
    // and then fails.
    uniqueIndex('send_details_app_flow_token_key').on(t.appId, t.flowToken),
    // Status updates name the message by the provider's id.
    uniqueIndex('send_details_app_provider_message_key').on(t.appId, t.providerMessageId),
    check('send_details_kind', sql`${t.kind} in ('flow', 'product_list', 'template')`),
  ],
);

// `catalog` (id, name) and `product` (catalog_id, product_retailer_id, name, price), as imported.
export const catalogs = pgTable(
  'catalogs',
  {
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    id: text('id').notNull(),
    name: text('name').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.appId, t.id] })],
);

export const products = pgTable(
  'products',
  {
    appId: uuid('app_id').notNull(),
    catalogId: text('catalog_id').notNull(),
    productRetailerId: text('product_retailer_id').notNull(),
    name: text('name').notNull(),
    price: numeric('price', { precision: 14, scale: 4, mode: 'number' }).notNull(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    // Matching a Product List reads (app, catalog, retailer ids): the primary key serves it.
    primaryKey({ columns: [t.appId, t.catalogId, t.productRetailerId] }),
    foreignKey({ name: 'products_catalog_fk', columns: [t.appId, t.catalogId], foreignColumns: [catalogs.appId, catalogs.id] }).onDelete('cascade'),
  ],
);

// Idempotency keys (idempotency.ts): a key is claimed (in_flight) before the send runs and completed,
// with the response to replay, in the send's own transaction. Keys are kept at least 24 h.
export const sendIdempotencyKeys = pgTable(
  'send_idempotency_keys',
  {
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    state: text('state').notNull(),
    response: jsonb('response'),
    claimedAt: ts('claimed_at').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.appId, t.key] }),
    index('send_idempotency_keys_app_created_idx').on(t.appId, t.createdAt),
    check('send_idempotency_keys_state', sql`${t.state} in ('in_flight', 'completed')`),
  ],
);

export type SendDetailsRow = typeof sendDetails.$inferSelect;
export type CatalogRow = typeof catalogs.$inferSelect;
export type ProductRow = typeof products.$inferSelect;
