import { randomBytes } from 'node:crypto';
import { and, count, eq, not } from 'drizzle-orm';
import { z } from 'zod';
import type { CursorKeys } from '../db/cursor.js';
import { keysetList, type Page } from '../db/keyset.js';
import { pageSize } from '../validation/list-input.js';
import { apps } from '../apps/tables.js';
import type { Db } from '../db/client.js';
import { AppError, notFound, validationFailed } from '../errors/app-error.js';
import { parseInput } from '../errors/zod-details.js';
import { storableText } from '../validation/storable.js';
import { webhookEventTypes } from './outbox.js';
import { assertPublicUrl, UnsafeUrlError } from './ssrf.js';
import { webhookDeliveries, webhookSubscriptions, type WebhookDeliveryRow, type WebhookSubscriptionRow } from './tables.js';
import { keyedTransaction, type KeyClaim } from '../db/idempotency.js';

// Webhook subscriptions of an app and the deliveries made to them.

/** Subscriptions per app: the list is returned whole, so it stays small. */
export const MAX_SUBSCRIPTIONS_PER_APP = 50;
export const deliveryStatuses = ['pending', 'succeeded', 'failed'] as const;
export const subscriptionStatuses = ['active', 'disabled'] as const;

// url and description are the only free text the webhook mutations store (eventTypes is an enum;
// the others take ids and a flag): storableText refuses NUL and lone surrogates with their field
// instead of a failed insert or a silent U+FFFD (docs/rest.md, "Errors").
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
  options: { allowPrivate: boolean; now: Date; idempotency?: KeyClaim | undefined },
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
  const { now } = options;
  const subscription = await keyedTransaction(db, options.idempotency, async (tx) => {
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
export async function deleteSubscription(db: Db, appId: string, id: string, idempotency?: KeyClaim): Promise<WebhookSubscriptionRow> {
  return keyedTransaction(db, idempotency, async (tx) => {
    const [row] = await tx.delete(webhookSubscriptions).where(subscriptionOf(appId, id)).returning();
    if (!row) throw notFound('Webhook subscription');
    return row;
  });
}

/**
 * Re-enables a subscription (after a 410 disabled it) or disables it (a pause). A disabled one
 * gets no new deliveries and its pending ones wait, unsent (the worker skips them), until it is
 * enabled again.
 */
export async function setSubscriptionStatus(db: Db, appId: string, id: string, status: 'active' | 'disabled', now: Date, idempotency?: KeyClaim) {
  const row = await changeSubscriptionStatus(db, { appId, id }, { status, disabledReason: status === 'disabled' ? 'disabled by the app' : null }, now, idempotency);
  if (!row) throw notFound('Webhook subscription');
  return row;
}

/**
 * Writes a subscription's status and, in the same transaction, the `paused` flag of its pending
 * deliveries, which keeps them out of the worker's due index while it is disabled. Every status
 * change goes through here (the app's, and the worker's on a 410). Undefined: no such subscription.
 */
export async function changeSubscriptionStatus(
  db: Db,
  target: { appId: string; id: string },
  change: { status: 'active' | 'disabled'; disabledReason: string | null },
  now: Date,
  idempotency?: KeyClaim,
): Promise<WebhookSubscriptionRow | undefined> {
  return keyedTransaction(db, idempotency, async (tx) => {
    const [before] = await tx
      .select({ status: webhookSubscriptions.status })
      .from(webhookSubscriptions)
      .where(subscriptionOf(target.appId, target.id))
      .for('update');
    if (!before) return undefined;
    const [row] = await tx
      .update(webhookSubscriptions)
      .set({ ...change, updatedAt: now })
      .where(subscriptionOf(target.appId, target.id))
      .returning();
    // Enabling an enabled subscription: no claim read it disabled since the enable before, which
    // cleared every flag, so its (possibly many) pending deliveries are left as they are.
    if (before.status === 'active' && change.status === 'active') return row;
    const d = webhookDeliveries;
    const pending = and(eq(d.subscriptionId, row!.id), eq(d.status, 'pending'));
    // Through the subscription index. Enabling clears every pending one, not only those it sees
    // flagged: a claim that read the subscription as disabled may be flagging one right now, and
    // only a row that matches makes this statement wait for that claim's lock and see its flag.
    if (change.status === 'disabled') await tx.update(d).set({ paused: true }).where(and(pending, not(d.paused)));
    else await tx.update(d).set({ paused: false }).where(pending);
    return row;
  });
}

export const deliveryListArgs = z.object({
  appId: z.uuid(),
  first: pageSize,
  after: z.string().max(512).nullish().transform((v) => v ?? undefined),
  status: z.enum(deliveryStatuses).nullish(),
  subscriptionId: z.uuid().nullish(),
});

const list = keysetList({ name: 'webhook_deliveries', table: webhookDeliveries, appId: webhookDeliveries.appId, at: webhookDeliveries.createdAt, id: webhookDeliveries.id });

/** An app's deliveries, newest first (keyset on created_at, id; the app index serves it). */
export async function listDeliveries(
  db: Db,
  cursorKeys: CursorKeys,
  input: { appId: string; first?: number | null; after?: string | null; status?: string | null; subscriptionId?: string | null },
): Promise<Page<WebhookDeliveryRow>> {
  const args = parseInput(deliveryListArgs, input);
  return list.page(db, cursorKeys, args, [
    args.status ? eq(webhookDeliveries.status, args.status) : undefined,
    args.subscriptionId ? eq(webhookDeliveries.subscriptionId, args.subscriptionId) : undefined,
  ]);
}

/**
 * Puts a failed delivery back in the queue with a fresh attempt budget, keeping its id (the
 * receiver deduplicates on webhook-id). Its subscription must be active.
 */
export async function retryDelivery(db: Db, appId: string, id: string, now: Date, idempotency?: KeyClaim): Promise<WebhookDeliveryRow> {
  return keyedTransaction(db, idempotency, async (tx) => {
    const [delivery] = await tx
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.appId, appId), eq(webhookDeliveries.id, id)))
      .for('update');
    if (!delivery) throw notFound('Webhook delivery');
    if (delivery.status !== 'failed') throw new AppError('conflict', `The delivery is ${delivery.status}: only a failed delivery can be retried`);
    // FOR SHARE: a pause committing meanwhile would not see this delivery as pending, and leave it
    // unflagged; held, the pause waits for this transaction and then flags it.
    const [subscription] = await tx
      .select({ status: webhookSubscriptions.status })
      .from(webhookSubscriptions)
      .where(eq(webhookSubscriptions.id, delivery.subscriptionId))
      .for('share');
    if (subscription?.status !== 'active') throw new AppError('conflict', 'The subscription is disabled: enable it first');
    const [row] = await tx
      .update(webhookDeliveries)
      .set({ status: 'pending', paused: false, attempts: 0, nextAttemptAt: now, lockedUntil: null, leaseId: null, updatedAt: now })
      .where(eq(webhookDeliveries.id, id))
      .returning();
    return row!;
  });
}
