import { and, asc, eq, gt, gte, inArray, max } from 'drizzle-orm';
import type { Database, Tx } from '../db/client.js';
import type { Logger } from '../log.js';
import { announce, LogBus, type LogSpec } from '../realtime/log-bus.js';
import type { StreamSlots } from '../realtime/stream-slots.js';
import type { RequestContext } from '../runtime.js';
import { enqueueMessages } from '../webhooks/outbox.js';
import { eventId } from './ids.js';
import { appEvents, type AppEventRow } from './tables.js';
import type { EventType } from './types.js';

// Every producer records its events here, inside the transaction of its change: the rows, their
// announcement to live subscribers (NOTIFY, delivered at commit) and their webhook deliveries
// (the outbox) commit or roll back with the change.

export interface Actor {
  actorType: 'client' | 'system';
  actorId: string;
}

export const systemActor: Actor = { actorType: 'system', actorId: 'system' };

/** `client` with the client id for API calls, `system` otherwise: who made each change. */
export const actorOf = (ctx: Pick<RequestContext, 'auth'>): Actor => (ctx.auth ? { actorType: 'client', actorId: ctx.auth.clientId } : systemActor);

export interface NewAppEvent {
  type: EventType;
  /** The resource as it is after the change (snake_case, as the REST API shows it), or null. */
  resource: Record<string, unknown> | null;
  /** The id of the resource the event is about (the call of a scheduled_call.* event): its timeline shows it. */
  subjectId?: string;
  /** What changed beyond the resource (a timeline entry's payload). */
  details?: Record<string, unknown>;
}

/** An event as the pull API and webhooks show it, snake_case. */
export const appEventRecord = (event: AppEventRow) => ({
  id: event.id,
  type: event.type,
  occurred_at: event.occurredAt.toISOString(),
  actor_type: event.actorType,
  actor_id: event.actorId,
  resource: event.resource,
});

export const EVENTS_CHANNEL = 'switchboard_events';

/** The app event log on the bus: announced with its type and subject, so subscribers filter before any read-back. */
export const eventLog: LogSpec<AppEventRow> = {
  channel: EVENTS_CHANNEL,
  header: (event): Record<string, string> => (event.subjectId ? { type: event.type, subjectId: event.subjectId } : { type: event.type }),
  toJson: (event) => ({ ...event, occurredAt: event.occurredAt.toISOString() }),
  fromJson: (json) => ({ ...(json as unknown as AppEventRow), occurredAt: new Date(json.occurredAt as string) }),
  load: async (database, appId, id) => {
    const [row] = await database.db
      .select()
      .from(appEvents)
      .where(and(eq(appEvents.appId, appId), eq(appEvents.id, id)));
    return row;
  },
  lastSeq: async (database) => {
    const [row] = await database.db.select({ seq: max(appEvents.seq) }).from(appEvents);
    return row?.seq ?? 0;
  },
  after: (database, appIds, afterSeq, limit) =>
    database.db
      .select()
      .from(appEvents)
      .where(and(inArray(appEvents.appId, [...appIds]), gt(appEvents.seq, afterSeq)))
      .orderBy(asc(appEvents.seq))
      .limit(limit),
};

/**
 * Records the events of one change, in its transaction, in order; returns the stored rows.
 * `webhooks: false` stores and announces them without webhook deliveries (bulk imports; or a
 * caller that enqueues them itself with enqueueEvents).
 */
export async function recordEvents(tx: Tx, appId: string, actor: Actor, events: NewAppEvent[], at: Date, options: { webhooks?: boolean } = {}): Promise<AppEventRow[]> {
  if (events.length === 0) return [];
  const rows = await tx
    .insert(appEvents)
    .values(
      events.map((e) => ({ id: eventId(at), appId, type: e.type, ...actor, resource: e.resource, subjectId: e.subjectId ?? null, details: e.details ?? null, occurredAt: at })),
    )
    .returning();
  rows.sort((a, b) => a.seq - b.seq);
  await announce(eventLog, tx, rows);
  if (options.webhooks !== false) await enqueueEvents(tx, appId, rows);
  return rows;
}

/** Hands recorded events to the webhook outbox, in their transaction. */
export async function enqueueEvents(tx: Tx, appId: string, rows: readonly AppEventRow[]): Promise<void> {
  // The outbox sends a type only to the subscriptions whose patterns select it.
  await enqueueMessages(
    tx,
    appId,
    rows.map((row) => ({ type: row.type, at: row.occurredAt, data: appEventRecord(row) })),
  );
}

/** The app event logs of every instance, for this instance's `events` subscribers. */
export class EventBus extends LogBus<AppEventRow> {
  constructor(database: Database, logger: Logger, streams?: StreamSlots) {
    super(eventLog, database, logger, streams);
  }
}

/**
 * Stored events of an app of the given types after seq `afterSeq` and not before `since` (the
 * retention window: a timeline keeps older events the log no longer shows), in order.
 */
export function storedEventsAfter(database: Database, filter: { appId: string; types: readonly EventType[]; since: Date }, afterSeq: number, limit: number) {
  return database.db
    .select()
    .from(appEvents)
    .where(and(eq(appEvents.appId, filter.appId), inArray(appEvents.type, [...filter.types]), gt(appEvents.seq, afterSeq), gte(appEvents.occurredAt, filter.since)))
    .orderBy(asc(appEvents.seq))
    .limit(limit);
}
