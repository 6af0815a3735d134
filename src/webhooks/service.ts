import { randomBytes } from 'node:crypto';
import { and, count, desc, eq, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { afterCursor, appList, toPage, type Page } from '../analytics/pagination.js';
import { pageSize } from '../analytics/filters.js';
import { apps } from '../apps/tables.js';
import type { Db } from '../db/client.js';
import { AppError, notFound, validationFailed } from '../errors/app-error.js';
import { parseInput, storableText } from '../errors/zod-details.js';
import { webhookEventTypes } from './outbox.js';
import { assertPublicUrl, UnsafeUrlError } from './ssrf.js';
import { webhookDeliveries, webhookSubscriptions, type WebhookDeliveryRow, type WebhookSubscriptionRow } from './tables.js';

// Webhook subscriptions of an app and the deliveries made to them (DESIGN section 7).

/** Subscriptions per app: the list is returned whole, so it stays small. */
export const MAX_SUBSCRIPTIONS_PER_APP = 50;
export const deliveryStatuses = ['pending', 'succeeded', 'failed'] as const;

// url and description are the only free text the webhook mutations store (eventTypes is an enum;
// the others take ids and a flag): storableText refuses NUL and lone surrogates with their field
// instead of a failed insert or a silent U+FFFD (README "Errors").
export const subscriptionInput = z.object({
  appId: z.uuid(),
  url: storableText(z.string().trim().min(1).max(2048)),
  eventTypes: z
    .array(z.enum(webhookEventTypes))
    .min(1)
    .max(webhookEventTypes.length * 2)
    .transform((types) => [...new Set(types)]),
  description: storableText(z.string().trim().max(200)).nullish(),
});
/** Unvalidated: parsed with subscriptionInput (GraphQL and the CLI pass what they were given). */
export interface SubscriptionInput {
  appId: string;
  url: string;
  eventTypes: string[];
  description?: string | null;
}

/** A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes (the spec allows 24-64). */
export const generateWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * Creates an active subscription after the URL passes the SSRF rule; returns the secret, which
 * is shown this once (the list never returns it).
 */
export async function createSubscription(
  db: Db,
  options: { allowPrivate: boolean; now?: Date },
  input: SubscriptionInput,
): Promise<{ subscription: WebhookSubscriptionRow; secret: string }> {
  const parsed = parseInput(subscriptionInput, input);
  try {
    await assertPublicUrl(parsed.url, options.allowPrivate);
  } catch (error) {
    if (error instanceof UnsafeUrlError) throw validationFailed([{ field: 'url', code: 'invalid_value', message: error.message }]);
    throw error;
  }
  const secret = generateWebhookSecret();
  const now = options.now ?? new Date();
  const subscription = await db.transaction(async (tx) => {
    // Serializes creations per app (the cap below) without blocking inserts that reference the app.
    const [app] = await tx.select({ id: apps.id }).from(apps).where(eq(apps.id, parsed.appId)).for('no key update');
    if (!app) throw new AppError('not_found', `Unknown app ${parsed.appId}`);
    const [existing] = await tx.select({ n: count() }).from(webhookSubscriptions).where(eq(webhookSubscriptions.appId, parsed.appId));
    if ((existing?.n ?? 0) >= MAX_SUBSCRIPTIONS_PER_APP) {
      throw new AppError('conflict', `An app has at most ${MAX_SUBSCRIPTIONS_PER_APP} webhook subscriptions: delete one first`);
    }
    const [row] = await tx
      .insert(webhookSubscriptions)
      .values({
        appId: parsed.appId,
        url: parsed.url,
        eventTypes: parsed.eventTypes,
        secret,
        description: parsed.description ?? null,
        status: 'active',
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return row!;
  });
  return { subscription, secret };
}

export const listSubscriptions = (db: Db, appId: string) =>
  db
    .select()
    .from(webhookSubscriptions)
    .where(eq(webhookSubscriptions.appId, appId))
    .orderBy(webhookSubscriptions.createdAt, webhookSubscriptions.id);

const subscriptionOf = (appId: string, id: string) => and(eq(webhookSubscriptions.appId, appId), eq(webhookSubscriptions.id, id));

/** Deletes a subscription and, with it, its deliveries (pending ones are never sent). */
export async function deleteSubscription(db: Db, appId: string, id: string): Promise<WebhookSubscriptionRow> {
  const [row] = await db.delete(webhookSubscriptions).where(subscriptionOf(appId, id)).returning();
  if (!row) throw notFound('Webhook subscription');
  return row;
}

/**
 * Re-enables a subscription (after a 410 disabled it) or disables it (a pause). A disabled one
 * gets no new deliveries and its pending ones wait, unsent (the worker skips them), until it is
 * enabled again.
 */
export async function setSubscriptionStatus(db: Db, appId: string, id: string, status: 'active' | 'disabled', now = new Date()) {
  const [row] = await db
    .update(webhookSubscriptions)
    .set({ status, disabledReason: status === 'disabled' ? 'disabled by the app' : null, updatedAt: now })
    .where(subscriptionOf(appId, id))
    .returning();
  if (!row) throw notFound('Webhook subscription');
  return row;
}

export const deliveryListArgs = z.object({
  appId: z.uuid(),
  first: pageSize,
  after: z.string().max(512).nullish().transform((v) => v ?? undefined),
  status: z.enum(deliveryStatuses).nullish(),
  subscriptionId: z.uuid().nullish(),
});

const LIST = 'webhook_deliveries';

/** An app's deliveries, newest first (keyset on created_at, id; the app index serves it). */
export async function listDeliveries(
  db: Db,
  input: { appId: string; first?: number | null; after?: string | null; status?: string | null; subscriptionId?: string | null },
): Promise<Page<WebhookDeliveryRow>> {
  const args = parseInput(deliveryListArgs, input);
  const conditions: (SQL | undefined)[] = [
    eq(webhookDeliveries.appId, args.appId),
    args.status ? eq(webhookDeliveries.status, args.status) : undefined,
    args.subscriptionId ? eq(webhookDeliveries.subscriptionId, args.subscriptionId) : undefined,
    afterCursor(appList(LIST, args.appId), args.after, webhookDeliveries.createdAt, webhookDeliveries.id),
  ];
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(and(...conditions))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(args.first + 1);
  return toPage(appList(LIST, args.appId), rows, args.first);
}

/**
 * Puts a failed delivery back in the queue with a fresh attempt budget, keeping its id (the
 * receiver deduplicates on webhook-id). Its subscription must be active.
 */
export async function retryDelivery(db: Db, appId: string, id: string, now = new Date()): Promise<WebhookDeliveryRow> {
  return db.transaction(async (tx) => {
    const [delivery] = await tx
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.appId, appId), eq(webhookDeliveries.id, id)))
      .for('update');
    if (!delivery) throw notFound('Webhook delivery');
    if (delivery.status !== 'failed') throw new AppError('conflict', `The delivery is ${delivery.status}: only a failed delivery can be retried`);
    const [subscription] = await tx.select({ status: webhookSubscriptions.status }).from(webhookSubscriptions).where(eq(webhookSubscriptions.id, delivery.subscriptionId));
    if (subscription?.status !== 'active') throw new AppError('conflict', 'The subscription is disabled: enable it first');
    const [row] = await tx
      .update(webhookDeliveries)
      .set({ status: 'pending', attempts: 0, nextAttemptAt: now, lockedUntil: null, leaseId: null, updatedAt: now })
      .where(eq(webhookDeliveries.id, id))
      .returning();
    return row!;
  });
}
