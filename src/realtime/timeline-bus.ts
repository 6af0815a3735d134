import { and, asc, gt } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import type { EventBus } from '../events/log.js';
import { appEvents } from '../events/tables.js';
import { inTimeline, timelineEventOf, timelineWhere, type TimelineEvent } from '../scheduling/timeline-events.js';
import type { SubscriberFilter } from './log-bus.js';

export { FANOUT_SLICE } from './log-bus.js';

export type TimelineListener = (event: TimelineEvent) => void;

/**
 * Scheduled-call timelines, live: a view of the app event log's bus (one LISTEN, one channel),
 * taking the events of the timeline's types, of one call when asked, as the timeline shows them.
 * Its streams share the event log's stream caps.
 */
export class TimelineBus {
  private count = 0;

  constructor(readonly events: EventBus) {}

  get streams() {
    return this.events.streams;
  }

  /** Open timeline subscriptions on this instance. */
  get size(): number {
    return this.count;
  }

  /** Listens for the timeline events `filter.accepts` takes (every one of the app's when absent); `end` is called when the bus closes. */
  subscribeTo(filter: SubscriberFilter, listener: TimelineListener, end: (interrupted?: boolean) => void): () => void {
    const { accepts } = filter;
    let open = true;
    this.count++;
    const leave = () => {
      if (!open) return;
      open = false;
      this.count--;
    };
    const unsubscribe = this.events.subscribeTo(
      { appId: filter.appId, accepts: (header) => inTimeline(header) && (accepts === undefined || accepts(header)) },
      (row) => listener(timelineEventOf(row)),
      (interrupted) => {
        leave();
        end(interrupted);
      },
    );
    return () => {
      leave();
      unsubscribe();
    };
  }

  /** Listens for one app's timeline events (one call's, with callId); `end` is called when the bus closes. */
  subscribe(filter: { appId: string; callId?: string }, listener: TimelineListener, end: () => void): () => void {
    const { appId, callId } = filter;
    return this.subscribeTo({ appId, accepts: callId === undefined ? undefined : (header) => header.subjectId === callId }, listener, end);
  }
}

/** Stored timeline events of an app (or one call) after the event with seq `afterSeq`, in order. */
export async function eventsAfter(database: Database, filter: { appId: string; callId?: string }, afterSeq: number, limit: number): Promise<TimelineEvent[]> {
  const rows = await database.db
    .select()
    .from(appEvents)
    .where(and(timelineWhere(filter), gt(appEvents.seq, afterSeq)))
    .orderBy(asc(appEvents.seq))
    .limit(limit);
  return rows.map(timelineEventOf);
}
