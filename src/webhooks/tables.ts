import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { apps } from '../apps/tables.js';
import { keysetInstant } from '../db/columns.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

// Outbound webhooks: an app's subscriptions, and the deliveries written in
// the same transaction as the event they announce (a transactional outbox).

export const webhookSubscriptions = pgTable(
  'webhook_subscriptions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    // Patterns of the event catalogue (`message.received`, `scheduled_call.*`, `*`) and legacy
    // scheduled-call types (src/webhooks/patterns.ts); the outbox matches on overlap with them.
    eventTypes: text('event_types').array().notNull(),
    // `whsec_` + base64 of 32 random bytes (Standard Webhooks); kept to sign every delivery.
    secret: text('secret').notNull(),
    // The secret a rotation replaced: deliveries are signed with it too until the overlap ends,
    // so receivers can switch without rejecting any; erased once it has (the worker's sweep).
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: ts('previous_secret_expires_at'),
    // Deliveries in a row that ran out of attempts; a success resets it, and at the configured
    // limit the subscription is disabled.
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    description: text('description'),
    status: text('status').notNull().default('active'),
    disabledReason: text('disabled_reason'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('webhook_subscriptions_app_idx').on(t.appId, t.createdAt, t.id),
    // The sweep that erases previous secrets once their overlap has ended.
    index('webhook_subscriptions_previous_secret_idx').on(t.previousSecretExpiresAt).where(sql`${t.previousSecretExpiresAt} is not null`),
    check('webhook_subscriptions_previous_secret', sql`(${t.previousSecret} is null) = (${t.previousSecretExpiresAt} is null)`),
    check('webhook_subscriptions_status', sql`${t.status} in ('active', 'disabled')`),
  ],
);

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    // Sent as `webhook-id`: the same on every attempt, so receivers can deduplicate.
    id: uuid('id').primaryKey().defaultRandom(),
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    subscriptionId: uuid('subscription_id')
      .notNull()
      .references(() => webhookSubscriptions.id, { onDelete: 'cascade' }),
    eventType: text('event_type').notNull(),
    payload: jsonb('payload').$type<WebhookMessage>().notNull(),
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at').notNull(),
    // Its subscription is disabled (paused, or after a 410): the delivery waits, and the worker's
    // index leaves it out. Kept for pending deliveries, in the transaction that changes the
    // subscription's status (setSubscriptionStatus, the worker's 410), so a poll's cost does not
    // grow with the deliveries waiting for a disabled subscription.
    paused: boolean('paused').notNull().default(false),
    // A claimed attempt: the worker that holds lease_id until locked_until sends it; once the
    // lease has expired (a crash mid-send) any worker may claim the delivery again.
    lockedUntil: ts('locked_until'),
    leaseId: uuid('lease_id'),
    lastResponseCode: integer('last_response_code'),
    lastError: text('last_error'),
    createdAt: keysetInstant('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    deliveredAt: ts('delivered_at'),
  },
  (t) => [
    // The worker's scan, across apps: pending deliveries of enabled subscriptions by due time.
    index('webhook_deliveries_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending' and not ${t.paused}`),
    // The deliveries list of an app, newest first (keyset on created_at, id).
    index('webhook_deliveries_app_idx').on(t.appId, t.createdAt.desc(), t.id.desc()),
    index('webhook_deliveries_subscription_idx').on(t.subscriptionId),
    check('webhook_deliveries_status', sql`${t.status} in ('pending', 'succeeded', 'failed')`),
  ],
);

/** The JSON body of a delivery: `{type, timestamp, data}`. */
export interface WebhookMessage {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

export type WebhookSubscriptionRow = typeof webhookSubscriptions.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
