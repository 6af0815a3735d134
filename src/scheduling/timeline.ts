import { and, asc, eq, inArray } from 'drizzle-orm';
import DataLoader from 'dataloader';
import type { Tx } from '../db/client.js';
import { enqueueEvents, recordEvents, type Actor } from '../events/log.js';
import { appEvents } from '../events/tables.js';
import { loader, type RequestContext } from '../runtime.js';
import { callResource, enqueueWebhooks } from '../webhooks/outbox.js';
import { scheduledCallReminders, scheduledCalls, type ScheduledCallRow } from './tables.js';
import { timelineEventOf, timelineWhere, type TimelineEvent } from './timeline-events.js';

export { actorOf, type Actor } from '../events/log.js';

// The timeline of a call and its reminders. The timeline is the call's slice of the app event
// log: every mutation records its events there, inside its own transaction, so a rolled-back
// write leaves no event.

export type EventType = 'created' | 'rescheduled' | 'assigned' | 'updated' | 'cancelled' | 'completed' | 'no_show';

export interface NewEvent {
  eventType: EventType;
  payload: Record<string, unknown>;
}

/**
 * Records the changes in the app event log (`scheduled_call.<type>`, about the call, with the
 * call as it is after the change and the entry's payload as details), in the caller's
 * transaction; returns them as the timeline shows them.
 */
export async function appendEvents(
  tx: Tx,
  call: { appId: string; id: string } | ScheduledCallRow,
  actor: Actor,
  events: NewEvent[],
  at: Date,
): Promise<TimelineEvent[]> {
  if (events.length === 0) return [];
  // Writers pass the call as written; a caller naming it by id has it read back in the transaction.
  const written = 'scheduledAt' in call ? call : (await tx.select().from(scheduledCalls).where(and(eq(scheduledCalls.appId, call.appId), eq(scheduledCalls.id, call.id))))[0];
  const resource = written ? callResource(written) : null;
  const rows = await recordEvents(
    tx,
    call.appId,
    actor,
    events.map((e) => ({ type: `scheduled_call.${e.eventType}` as const, resource, subjectId: call.id, details: e.payload })),
    at,
    { webhooks: false },
  );
  const timeline = rows.map(timelineEventOf);
  // The legacy scheduled.* webhooks, then the events' own, in the same outbox and transaction.
  await enqueueWebhooks(tx, call.appId, timeline);
  await enqueueEvents(tx, call.appId, rows);
  return timeline;
}

/** A page of calls' timelines in one query per app (a DataLoader per request, so no cache outlives it). */
export const eventsLoader = (ctx: RequestContext) =>
  loader(
    ctx,
    'scheduling.events',
    () =>
      new DataLoader<{ appId: string; callId: string }, TimelineEvent[], string>(
        async (keys) => {
          const byCall = new Map<string, TimelineEvent[]>(keys.map((k) => [k.callId, []]));
          for (const appId of new Set(keys.map((k) => k.appId))) {
            const callIds = keys.filter((k) => k.appId === appId).map((k) => k.callId);
            const rows = await ctx.runtime.database.db
              .select()
              .from(appEvents)
              .where(and(timelineWhere({ appId }), inArray(appEvents.subjectId, callIds)))
              .orderBy(asc(appEvents.subjectId), asc(appEvents.seq));
            for (const row of rows) byCall.get(row.subjectId!)?.push(timelineEventOf(row));
          }
          return keys.map((k) => byCall.get(k.callId) ?? []);
        },
        { cacheKeyFn: (k) => `${k.appId}:${k.callId}` },
      ),
  );

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
