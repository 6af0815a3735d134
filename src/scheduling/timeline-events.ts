import { and, eq, inArray, isNotNull, type SQL } from 'drizzle-orm';
import { appEvents, type AppEventRow } from '../events/tables.js';
import { timelineEventTypes } from './fields.js';

// A call's timeline is its slice of the app event log: the events of the timeline's types whose
// subject is the call. Each entry is read from the log and shown in the timeline's own shape.

/** One timeline entry, as GraphQL, REST and the legacy webhooks show it (seq orders it). */
export interface TimelineEvent {
  id: string;
  seq: number;
  appId: string;
  callId: string;
  eventType: (typeof timelineEventTypes)[number];
  actorType: string;
  actorId: string;
  payload: Record<string, unknown>;
  createdAt: Date;
}

const PREFIX = 'scheduled_call.';

/** The log types a timeline shows (`scheduled_call.reminder` is in the log, not in the timeline). */
export const timelineLogTypes = timelineEventTypes.map((t) => `${PREFIX}${t}` as const);
const shown = new Set<string>(timelineLogTypes);

/** Whether a log event (or its announcement's header) belongs to a timeline. */
export const inTimeline = (event: { type?: unknown; subjectId?: unknown }): boolean => typeof event.subjectId === 'string' && shown.has(event.type as string);

/** The SQL form of inTimeline, for one app and (with callId) one call. */
export const timelineWhere = (filter: { appId: string; callId?: string }): SQL =>
  and(
    eq(appEvents.appId, filter.appId),
    filter.callId === undefined ? isNotNull(appEvents.subjectId) : eq(appEvents.subjectId, filter.callId),
    inArray(appEvents.type, timelineLogTypes),
  )!;

// One mapped object per log row: a live event fanned out to many streams is shared by them (its
// size measured once), as the log row is.
const mapped = new WeakMap<AppEventRow, TimelineEvent>();

/** A log event as its call's timeline shows it. */
export function timelineEventOf(row: AppEventRow): TimelineEvent {
  let event = mapped.get(row);
  if (!event) {
    event = {
      id: row.id,
      seq: row.seq,
      appId: row.appId,
      callId: row.subjectId!,
      eventType: row.type.slice(PREFIX.length) as TimelineEvent['eventType'],
      actorType: row.actorType,
      actorId: row.actorId,
      payload: row.details ?? {},
      createdAt: row.occurredAt,
    };
    mapped.set(row, event);
  }
  return event;
}
