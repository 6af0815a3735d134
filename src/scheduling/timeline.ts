import { and, asc, eq, inArray } from 'drizzle-orm';
import DataLoader from 'dataloader';
import type { Queryable, Tx } from '../db/client.js';
import { recordEvents, type Actor } from '../events/log.js';
import { announceEvents } from '../realtime/timeline-bus.js';
import { loader, type RequestContext } from '../runtime.js';
import { callResource, enqueueWebhooks } from '../webhooks/outbox.js';
import { scheduledCallEvents, scheduledCallReminders, scheduledCalls, type ScheduledCallEventRow, type ScheduledCallRow } from './tables.js';

export { actorOf, type Actor } from '../events/log.js';

// The timeline of a call and its reminders. Every mutation
// writes its events inside its own transaction, so a rolled-back write leaves no event.

export type EventType = 'created' | 'rescheduled' | 'assigned' | 'updated' | 'cancelled' | 'completed' | 'no_show';

export interface NewEvent {
  eventType: EventType;
  payload: Record<string, unknown>;
}

/**
 * Appends to the call's timeline and records the same changes in the app event log
 * (`scheduled_call.<type>`, with the call as it is after the change), in the caller's transaction.
 */
export async function appendEvents(
  tx: Tx,
  call: { appId: string; id: string } | ScheduledCallRow,
  actor: Actor,
  events: NewEvent[],
  at: Date,
): Promise<ScheduledCallEventRow[]> {
  if (events.length === 0) return [];
  const rows = await tx
    .insert(scheduledCallEvents)
    .values(events.map((e) => ({ appId: call.appId, callId: call.id, ...actor, eventType: e.eventType, payload: e.payload, createdAt: at })))
    .returning();
  // Subscribers on every instance see them once this transaction commits (never on rollback).
  await announceEvents(tx, rows);
  // The outbox: webhook deliveries commit (or roll back) with the events they announce.
  await enqueueWebhooks(tx, call.appId, rows);
  // Writers pass the call as written; a caller naming it by id has it read back in the transaction.
  const written = 'scheduledAt' in call ? call : (await tx.select().from(scheduledCalls).where(and(eq(scheduledCalls.appId, call.appId), eq(scheduledCalls.id, call.id))))[0];
  const resource = written ? callResource(written) : null;
  await recordEvents(tx, call.appId, actor, events.map((e) => ({ type: `scheduled_call.${e.eventType}` as const, resource })), at);
  return rows;
}

/** A page of calls' timelines in one query (a DataLoader per request, so no cache outlives it). */
export const eventsLoader = (ctx: RequestContext) =>
  loader(
    ctx,
    'scheduling.events',
    () =>
      new DataLoader<string, ScheduledCallEventRow[]>(async (callIds) => {
        const rows = await ctx.runtime.database.db
          .select()
          .from(scheduledCallEvents)
          .where(inArray(scheduledCallEvents.callId, [...callIds]))
          .orderBy(asc(scheduledCallEvents.callId), asc(scheduledCallEvents.seq));
        const byCall = new Map<string, ScheduledCallEventRow[]>(callIds.map((id) => [id, []]));
        for (const row of rows) byCall.get(row.callId)?.push(row);
        return callIds.map((id) => byCall.get(id) ?? []);
      }),
  );

export const callEvents = (db: Queryable, callId: string) =>
  db.select().from(scheduledCallEvents).where(eq(scheduledCallEvents.callId, callId)).orderBy(asc(scheduledCallEvents.seq));

const MINUTE_MS = 60_000;
/** 24 h and 15 min before scheduled_at: a day's notice and a last reminder. */
export const reminderOffsets = [
  { kind: '24h', minutes: 24 * 60 },
  { kind: '15m', minutes: 15 },
] as const;

/** Plans the reminders still in the future (a call booked 10 minutes ahead gets none). */
export async function planReminders(tx: Tx, call: { appId: string; id: string; scheduledAt: Date }, now: Date): Promise<void> {
  const rows = reminderOffsets
    .map(({ kind, minutes }) => ({ kind, dueAt: new Date(call.scheduledAt.getTime() - minutes * MINUTE_MS) }))
    .filter((r) => r.dueAt > now)
    .map((r) => ({ appId: call.appId, callId: call.id, ...r, status: 'pending', createdAt: now, updatedAt: now }));
  if (rows.length > 0) await tx.insert(scheduledCallReminders).values(rows);
}

export async function cancelPendingReminders(tx: Tx, callId: string, now: Date): Promise<void> {
  await tx
    .update(scheduledCallReminders)
    .set({ status: 'cancelled', updatedAt: now })
    .where(and(eq(scheduledCallReminders.callId, callId), eq(scheduledCallReminders.status, 'pending')));
}
