import { and, arrayOverlaps, eq, inArray } from 'drizzle-orm';
import type { Tx } from '../db/client.js';
import { scheduledCalls, type ScheduledCallReminderRow, type ScheduledCallRow } from '../scheduling/tables.js';
import type { TimelineEvent } from '../scheduling/timeline-events.js';
import { deliveryTypes, patternsSelecting, receives, webhookTypeOf } from './patterns.js';
import { webhookDeliveries, webhookSubscriptions, type WebhookMessage, type WebhookSubscriptionRow } from './tables.js';

// The transactional outbox: a delivery row per (event, subscribed endpoint), written inside the
// transaction that writes the event, so an event and its webhooks commit or roll back together.

export { legacyWebhookTypes as webhookEventTypes, webhookTypeOf } from './patterns.js';

/**
 * A scheduled call's full record as the REST API returns it, snake_case, every field of it;
 * cancelled_at and cancellation_reason once cancelled, the reason a string there as in REST.
 */
export function callRecord(call: ScheduledCallRow): Record<string, unknown> {
  return {
    id: call.id,
    app_id: call.appId,
    assigned_agent_id: call.assignedAgentId,
    booking_source: call.bookingSource,
    guest_name: call.guestName,
    guest_phone: call.guestPhone,
    guest_email: call.guestEmail,
    guest_timezone: call.guestTimezone,
    guest_intake_notes: call.guestIntakeNotes,
    metadata: call.metadata,
    answers: call.answers,
    scheduled_at: call.scheduledAt.toISOString(),
    duration_minutes: call.durationMinutes,
    app_timezone: call.appTimezone,
    status: call.status,
    created_at: call.createdAt.toISOString(),
    ...(call.cancelledAt ? { cancelled_at: call.cancelledAt.toISOString(), cancellation_reason: call.cancellationReason ?? '' } : {}),
  };
}

/**
 * A scheduled call as the app event log records it: every field, none as null. The scheduled.*
 * webhooks keep callRecord(), the REST record field for field (the v1 contract types the reason as a string).
 */
export function callResource(call: ScheduledCallRow): Record<string, unknown> {
  const { cancelled_at: _at, cancellation_reason: _reason, ...fields } = callRecord(call);
  return { ...fields, cancelled_at: call.cancelledAt?.toISOString() ?? null, cancellation_reason: call.cancellationReason };
}

/** A scheduled call's timeline event as the REST API returns it, snake_case. */
export const eventRecord = (event: TimelineEvent) => ({
  id: event.id,
  event_type: event.eventType,
  actor_type: event.actorType,
  actor_id: event.actorId,
  payload: event.payload,
  created_at: event.createdAt.toISOString(),
});

/** A subscription as webhook_endpoint.disabled and webhook.ping carry it, snake_case; never its secret. */
export const subscriptionRecord = (subscription: WebhookSubscriptionRow) => ({
  id: subscription.id,
  app_id: subscription.appId,
  url: subscription.url,
  events: subscription.eventTypes,
  description: subscription.description,
  status: subscription.status,
  disabled_reason: subscription.disabledReason,
  created_at: subscription.createdAt.toISOString(),
  updated_at: subscription.updatedAt.toISOString(),
});

export const reminderRecord = (reminder: ScheduledCallReminderRow) => ({
  id: reminder.id,
  kind: reminder.kind,
  due_at: reminder.dueAt.toISOString(),
});

/**
 * One event to announce: a catalogue type (src/events/types.ts) or a legacy scheduled-call type,
 * when it happened, and its `data` (the resource as it is after the change).
 */
export interface Outgoing {
  type: string;
  at: Date;
  data: Record<string, unknown>;
}

type Subscribed = { id: string; eventTypes: string[] }[];

const deliverable = new Set<string>(deliveryTypes);

/**
 * The app's active subscriptions whose list holds an entry selecting any of the types (the
 * type itself, its group's wildcard, `*`): one query on the app's index, and the exact match in
 * JS on the few rows it returns. Their deliveries start unflagged (`paused` false); one whose
 * subscription's pause commits before the event's transaction does is flagged by the worker's
 * claim instead of being sent.
 */
function subscribedTo(tx: Tx, appId: string, types: string[]): Promise<Subscribed> {
  return tx
    .select({ id: webhookSubscriptions.id, eventTypes: webhookSubscriptions.eventTypes })
    .from(webhookSubscriptions)
    .where(
      and(
        eq(webhookSubscriptions.appId, appId),
        eq(webhookSubscriptions.status, 'active'),
        arrayOverlaps(webhookSubscriptions.eventTypes, [...new Set(types.flatMap(patternsSelecting))]),
      ),
    );
}

const deliveryRow = (appId: string, subscriptionId: string, m: Outgoing) => ({
  appId,
  subscriptionId,
  eventType: m.type,
  payload: { type: m.type, timestamp: m.at.toISOString(), data: m.data } satisfies WebhookMessage,
  status: 'pending',
  nextAttemptAt: m.at,
  createdAt: m.at,
  updatedAt: m.at,
});

async function insertDeliveries(tx: Tx, appId: string, subscriptions: Subscribed, messages: Outgoing[]): Promise<number> {
  const rows = messages.flatMap((m) => subscriptions.filter((s) => receives(s.eventTypes, m.type)).map((s) => deliveryRow(appId, s.id, m)));
  if (rows.length > 0) await tx.insert(webhookDeliveries).values(rows);
  return rows.length;
}

/**
 * Inserts one pending delivery per active subscription of the app whose patterns select the
 * message's type. An app without a matching subscription costs one indexed query.
 */
export async function enqueueMessages(tx: Tx, appId: string, messages: Outgoing[]): Promise<number> {
  if (messages.length === 0) return 0;
  // A type outside the catalogue is a bug in its producer: no document describes its body.
  const unknown = messages.find((m) => !deliverable.has(m.type));
  if (unknown) throw new Error(`enqueueMessages: ${unknown.type} is not a webhook type`);
  const subscriptions = await subscribedTo(tx, appId, [...new Set(messages.map((m) => m.type))]);
  return subscriptions.length === 0 ? 0 : insertDeliveries(tx, appId, subscriptions, messages);
}

/** One delivery to one subscription, whatever it lists (a test delivery); returns the row. */
export async function enqueueTo(tx: Tx, appId: string, subscriptionId: string, message: Outgoing) {
  const [row] = await tx.insert(webhookDeliveries).values(deliveryRow(appId, subscriptionId, message)).returning();
  return row!;
}

/**
 * Called by the scheduling timeline (appendEvents) in the writing transaction: each event goes
 * to the app's endpoints subscribed to its webhook type, with the call as it is after the write.
 * An app without a matching subscription costs one indexed query.
 */
export async function enqueueWebhooks(tx: Tx, appId: string, events: TimelineEvent[]): Promise<void> {
  const typed = events.flatMap((event) => {
    const type = webhookTypeOf[event.eventType as keyof typeof webhookTypeOf] as string | undefined;
    return type ? [{ event, type }] : [];
  });
  if (typed.length === 0) return;
  const subscriptions = await subscribedTo(tx, appId, [...new Set(typed.map((t) => t.type))]);
  if (subscriptions.length === 0) return;
  const callIds = [...new Set(typed.map((t) => t.event.callId))];
  const calls = await tx.select().from(scheduledCalls).where(and(eq(scheduledCalls.appId, appId), inArray(scheduledCalls.id, callIds)));
  const byId = new Map(calls.map((c) => [c.id, c]));
  const messages = typed.flatMap(({ event, type }) => {
    const call = byId.get(event.callId);
    return call ? [{ type, at: event.createdAt, data: { call: callRecord(call), event: eventRecord(event) } }] : [];
  });
  await insertDeliveries(tx, appId, subscriptions, messages);
}
