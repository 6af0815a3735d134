import { and, asc, eq, gt } from 'drizzle-orm';
import type { Database, Tx } from '../db/client.js';
import type { Logger } from '../log.js';
import { scheduledCallEvents, type ScheduledCallEventRow } from '../scheduling/tables.js';
import { announce, LogBus, type LogSpec } from './log-bus.js';
import type { StreamSlots } from './stream-slots.js';

export { FANOUT_SLICE } from './log-bus.js';

export const TIMELINE_CHANNEL = 'switchboard_timeline';

/** Scheduled-call timelines: announced with their call id, so a call's subscribers filter before any read-back. */
export const timelineLog: LogSpec<ScheduledCallEventRow> = {
  channel: TIMELINE_CHANNEL,
  header: (event) => ({ callId: event.callId }),
  toJson: (event) => ({ ...event, createdAt: event.createdAt.toISOString() }),
  fromJson: (json) => ({ ...(json as unknown as ScheduledCallEventRow), createdAt: new Date(json.createdAt as string) }),
  load: async (database, appId, id) => {
    const [row] = await database.db
      .select()
      .from(scheduledCallEvents)
      .where(and(eq(scheduledCallEvents.appId, appId), eq(scheduledCallEvents.id, id)));
    return row;
  },
};

/** Inside the writing transaction: announces the events, delivered only if it commits. */
export const announceEvents = (tx: Tx, events: ScheduledCallEventRow[]) => announce(timelineLog, tx, events);

export type TimelineListener = (event: ScheduledCallEventRow) => void;

/** The timelines of every call on this instance: one LISTEN, fanned out by app and call. */
export class TimelineBus extends LogBus<ScheduledCallEventRow> {
  constructor(database: Database, logger: Logger, streams?: StreamSlots) {
    super(timelineLog, database, logger, streams);
  }

  /** Listens for one app's events (one call's, with callId); `end` is called when the bus closes. */
  subscribe(filter: { appId: string; callId?: string }, listener: TimelineListener, end: () => void): () => void {
    const { appId, callId } = filter;
    return this.subscribeTo({ appId, accepts: callId === undefined ? undefined : (header) => header.callId === callId }, listener, end);
  }
}

/** Stored events of an app (or one call) after the event with seq `afterSeq`, in order. */
export function eventsAfter(database: Database, filter: { appId: string; callId?: string }, afterSeq: number, limit: number) {
  return database.db
    .select()
    .from(scheduledCallEvents)
    .where(
      and(
        eq(scheduledCallEvents.appId, filter.appId),
        filter.callId ? eq(scheduledCallEvents.callId, filter.callId) : undefined,
        gt(scheduledCallEvents.seq, afterSeq),
      ),
    )
    .orderBy(asc(scheduledCallEvents.seq))
    .limit(limit);
}
