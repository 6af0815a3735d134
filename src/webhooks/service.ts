import { randomBytes } from 'node:crypto';
import { and, count, eq, not } from 'drizzle-orm';
import { z } from 'zod';
import type { CursorKeys } from '../db/cursor.js';
import { keysetList, type Page } from '../db/keyset.js';
import { pageSize } from '../validation/list-input.js';
import { apps } from '../apps/tables.js';
import type { Db } from '../db/client.js';
import { withoutStatementTimeout } from '../db/raw.js';
import { AppError, notFound, validationFailed } from '../errors/app-error.js';
import { parseInput } from '../errors/zod-details.js';
import { storableText } from '../validation/storable.js';
import type { Tx } from '../db/client.js';
import { enqueueMessages, enqueueTo, subscriptionRecord } from './outbox.js';
import { isSubscriptionPattern, MAX_SUBSCRIPTION_PATTERNS, PING_TYPE, SUBSCRIPTION_PATTERN_MAX_LENGTH } from './patterns.js';
import { assertPublicUrl, UnsafeUrlError } from './ssrf.js';
import { webhookDeliveries, webhookSubscriptions, type WebhookDeliveryRow, type WebhookSubscriptionRow } from './tables.js';
import { keyedTransaction, type KeyClaim } from '../db/idempotency.js';
import { recordEvents, systemActor } from '../events/log.js';

// Webhook subscriptions of an app and the deliveries made to them.

/** Subscriptions per app: the list is returned whole, so it stays small. */
export const MAX_SUBSCRIPTIONS_PER_APP = 50;
export const deliveryStatuses = ['pending', 'succeeded', 'failed'] as const;
export const subscriptionStatuses = ['active', 'disabled'] as const;

/** What a subscription lists: legacy types and catalogue patterns, bounded in count and length, unknown ones refused. */
export const subscriptionPatterns = z
  .array(
    z
      .string()
      .max(SUBSCRIPTION_PATTERN_MAX_LENGTH)
      // An oversized entry is reported as too long alone, without echoing it back.
      .refine((p) => p.length > SUBSCRIPTION_PATTERN_MAX_LENGTH || isSubscriptionPattern(p), {
        params: { code: 'invalid_value' },
        error: (issue) =>
          `${JSON.stringify(issue.input)} is no event type or pattern: give a type (message.received), a group wildcard (scheduled_call.*), * or a scheduled.* webhook type`,
      }),
  )
  .min(1)
  .max(MAX_SUBSCRIPTION_PATTERNS)
  .transform((patterns) => [...new Set(patterns)]);

// url and description are the only free text the webhook mutations store (patterns are checked
// against the catalogue; the others take ids and a flag): storableText refuses NUL and lone
// surrogates with their field instead of a failed insert or a silent U+FFFD (docs/rest.md, "Errors").
export const subscriptionInput = z
  .object({
    appId: z.uuid(),
    url: storableText(z.string().trim().min(1).max(2048)),
    // The same list two ways: `events` as strings (patterns), `eventTypes` as the GraphQL enum.
    events: subscriptionPatterns.nullish(),
    eventTypes: subscriptionPatterns.nullish(),
    description: storableText(z.string().trim().max(200)).nullish(),
  })
  .superRefine((input, ctx) => {
    if (input.events && input.eventTypes) ctx.addIssue({ code: 'custom', path: ['eventTypes'], message: 'Give events or eventTypes, not both', params: { code: 'invalid_value' } });
    if (!input.events && !input.eventTypes) ctx.addIssue({ code: 'custom', path: ['events'], message: 'Required: the event types or patterns to receive', params: { code: 'required' } });
  })
  .transform(({ events, eventTypes, ...rest }) => ({ ...rest, patterns: events ?? eventTypes ?? [] }));
/** Unvalidated: parsed with subscriptionInput (GraphQL and the CLI pass what they were given). */
export interface SubscriptionInput {
  appId: string;
  url: string;
  events?: string[] | null;
  eventTypes?: string[] | null;
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
        eventTypes: parsed.patterns,
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
    // The delete cascades over every delivery of the subscription, however many are left.
    await withoutStatementTimeout(tx);
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
  return keyedTransaction(db, idempotency, (tx) => applySubscriptionStatus(tx, target, change, now));
}

/** changeSubscriptionStatus inside the caller's transaction. */
export async function applySubscriptionStatus(
  tx: Tx,
  target: { appId: string; id: string },
  change: { status: 'active' | 'disabled'; disabledReason: string | null },
  now: Date,
): Promise<WebhookSubscriptionRow | undefined> {
  const [before] = await tx
    .select({ status: webhookSubscriptions.status })
    .from(webhookSubscriptions)
    .where(subscriptionOf(target.appId, target.id))
    .for('update');
  if (!before) return undefined;
  // Enabling starts the failure count afresh, so one more failure does not disable it again.
  const [row] = await tx
    .update(webhookSubscriptions)
    .set({ ...change, ...(change.status === 'active' ? { consecutiveFailures: 0 } : {}), updatedAt: now })
    .where(subscriptionOf(target.appId, target.id))
    .returning();
  // Enabling an enabled subscription: no claim read it disabled since the enable before, which
  // cleared every flag, so its (possibly many) pending deliveries are left as they are.
  if (before.status === 'active' && change.status === 'active') return row;
  const d = webhookDeliveries;
  const pending = and(eq(d.subscriptionId, row!.id), eq(d.status, 'pending'));
  // Every pending delivery of the endpoint, a backlog when it is being paused for failing.
  await withoutStatementTimeout(tx);
  // Through the subscription index. Enabling clears every pending one, not only those it sees
  // flagged: a claim that read the subscription as disabled may be flagging one right now, and
  // only a row that matches makes this statement wait for that claim's lock and see its flag.
  if (change.status === 'disabled') await tx.update(d).set({ paused: true }).where(and(pending, not(d.paused)));
  else await tx.update(d).set({ paused: false }).where(pending);
  return row;
}

/** Why the service disabled an endpoint, as `webhook_endpoint.disabled` and disabledReason say it. */
export type DisableCause = { reason: 'gone' } | { reason: 'consecutive_failures'; failures: number };

export const disabledReasonOf = (cause: DisableCause) =>
  cause.reason === 'gone' ? 'the endpoint answered 410 Gone' : `${cause.failures} deliveries in a row failed after all their attempts`;

/** What `webhook_endpoint.disabled` records: the endpoint after the change and why, as a code. */
export const disablingRecord = (row: WebhookSubscriptionRow, cause: DisableCause) => ({
  endpoint: subscriptionRecord(row),
  reason: cause.reason,
  ...(cause.reason === 'consecutive_failures' ? { consecutive_failures: cause.failures } : {}),
});

/**
 * The service gives up on an endpoint (a 410, or too many failed deliveries in a row): disabled
 * with its reason, and `webhook_endpoint.disabled` recorded in the app's event log in the same
 * transaction, which queues it for the app's other subscribed endpoints. Undefined when it is
 * gone or was already disabled.
 */
export async function disableEndpoint(tx: Tx, target: { appId: string; id: string }, cause: DisableCause, now: Date): Promise<WebhookSubscriptionRow | undefined> {
  const [current] = await tx.select({ status: webhookSubscriptions.status }).from(webhookSubscriptions).where(subscriptionOf(target.appId, target.id)).for('update');
  if (current?.status !== 'active') return undefined;
  const row = await applySubscriptionStatus(tx, target, { status: 'disabled', disabledReason: disabledReasonOf(cause) }, now);
  if (!row) return undefined;
  await recordEvents(tx, target.appId, systemActor, [{ type: 'webhook_endpoint.disabled', resource: disablingRecord(row, cause) }], now);
  return row;
}

/** The longest overlap a rotation may ask for. */
export const MAX_SECRET_OVERLAP_SECONDS = 7 * 24 * 3600;

export const rotateInput = z.object({
  appId: z.uuid(),
  id: z.uuid(),
  overlapSeconds: z.number().int().min(0).max(MAX_SECRET_OVERLAP_SECONDS).nullish(),
});

export interface RotatedSecret {
  subscription: WebhookSubscriptionRow;
  secret: string;
  previousSecretExpiresAt: Date | null;
}

/**
 * Gives a subscription a new secret, returned this once. Until the overlap ends deliveries carry
 * signatures with both secrets; then only the new one, and the old one is erased. Rotating again
 * within an overlap replaces the older secret: only the two newest are ever kept.
 */
export async function rotateSecret(
  db: Db,
  options: { now: Date; defaultOverlapMs: number; idempotency?: KeyClaim | undefined },
  input: { appId: string; id: string; overlapSeconds?: number | null },
): Promise<RotatedSecret> {
  const args = parseInput(rotateInput, input);
  const overlapMs = args.overlapSeconds != null ? args.overlapSeconds * 1000 : options.defaultOverlapMs;
  const secret = generateWebhookSecret();
  const { now } = options;
  return keyedTransaction(db, options.idempotency, async (tx) => {
    const [current] = await tx.select().from(webhookSubscriptions).where(subscriptionOf(args.appId, args.id)).for('update');
    if (!current) throw notFound('Webhook subscription');
    const expiresAt = overlapMs > 0 ? new Date(now.getTime() + overlapMs) : null;
    const [row] = await tx
      .update(webhookSubscriptions)
      .set({ secret, previousSecret: expiresAt ? current.secret : null, previousSecretExpiresAt: expiresAt, updatedAt: now })
      .where(eq(webhookSubscriptions.id, current.id))
      .returning();
    return { subscription: row!, secret, previousSecretExpiresAt: expiresAt };
  });
}

/** Test deliveries of one subscription waiting at once: enough to try an endpoint, too few to flood it. */
export const MAX_PENDING_PINGS = 5;

/**
 * Queues a `webhook.ping` delivery to this one subscription, whatever types it lists, through the
 * outbox (signed, retried like any other). Returns the delivery, whose id finds its status.
 */
export async function pingSubscription(db: Db, options: { now: Date; idempotency?: KeyClaim | undefined }, appId: string, id: string): Promise<WebhookDeliveryRow> {
  const { now } = options;
  return keyedTransaction(db, options.idempotency, async (tx) => {
    // FOR SHARE: a pause committing meanwhile waits, then flags this delivery with the others.
    const [subscription] = await tx.select().from(webhookSubscriptions).where(subscriptionOf(appId, id)).for('share');
    if (!subscription) throw notFound('Webhook subscription');
    if (subscription.status !== 'active') throw new AppError('conflict', 'The subscription is disabled: enable it first');
    const d = webhookDeliveries;
    const [waiting] = await tx
      .select({ n: count() })
      .from(d)
      .where(and(eq(d.subscriptionId, subscription.id), eq(d.eventType, PING_TYPE), eq(d.status, 'pending')));
    if ((waiting?.n ?? 0) >= MAX_PENDING_PINGS) {
      throw new AppError('conflict', `${MAX_PENDING_PINGS} test deliveries of this subscription are still pending: wait for them`);
    }
    return enqueueTo(tx, appId, subscription.id, {
      type: PING_TYPE,
      at: now,
      data: { endpoint: subscriptionRecord(subscription) },
    });
  });
}

export const deliveryListArgs = z.object({
  appId: z.uuid(),
  first: pageSize,
  after: z.string().max(512).nullish().transform((v) => v ?? undefined),
  last: pageSize,
  before: z.string().max(512).nullish().transform((v) => v ?? undefined),
  status: z.enum(deliveryStatuses).nullish(),
  subscriptionId: z.uuid().nullish(),
});

const list = keysetList({ name: 'webhook_deliveries', table: webhookDeliveries, appId: webhookDeliveries.appId, at: webhookDeliveries.createdAt, id: webhookDeliveries.id });

/** An app's deliveries, newest first (keyset on created_at, id; the app index serves it). */
export async function listDeliveries(
  db: Db,
  cursorKeys: CursorKeys,
  input: { appId: string; first?: number | null; after?: string | null; last?: number | null; before?: string | null; status?: string | null; subscriptionId?: string | null },
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
