import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { Database, Tx } from '../db/client.js';
import type { Logger } from '../log.js';
import { scheduledCallEvents, type ScheduledCallEventRow } from '../scheduling/tables.js';
import { StreamSlots } from './stream-slots.js';

// Timeline events reach subscribers when their transaction commits, on every instance:
// the writer sends NOTIFY inside its transaction (PostgreSQL delivers it at
// commit, and never for a rollback); each instance LISTENs once and fans the event out to its own
// subscribers. PGlite supports LISTEN/NOTIFY in process, so both storages share one path.

export const TIMELINE_CHANNEL = 'switchboard_timeline';
// NOTIFY payloads must stay under 8000 bytes; a larger event is announced by id and read back.
const MAX_PAYLOAD = 7000;
/**
 * Subscribers served per turn of the event loop. Serving one runs its subscription document and
 * writes its SSE frame; serving thousands in one go would hold the event loop, and the PATCH
 * that caused the event (or any other request) would wait for the last one.
 */
export const FANOUT_SLICE = 100;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Announcement {
  id: string;
  seq: number;
  appId: string;
  callId: string;
  event?: Omit<ScheduledCallEventRow, 'createdAt'> & { createdAt: string };
}

const sqlNotify = (payload: string) => sql`select pg_notify(${TIMELINE_CHANNEL}, ${payload})`;

/** Inside the writing transaction: announces the events, delivered only if it commits. */
export async function announceEvents(tx: Tx, events: ScheduledCallEventRow[]): Promise<void> {
  for (const event of events) {
    const full: Announcement = { id: event.id, seq: event.seq, appId: event.appId, callId: event.callId, event: { ...event, createdAt: event.createdAt.toISOString() } };
    let payload = JSON.stringify(full);
    if (payload.length > MAX_PAYLOAD) payload = JSON.stringify({ ...full, event: undefined });
    // Raw SQL on both drivers; the payload is a bound parameter.
    await tx.execute(sqlNotify(payload));
  }
}

export type TimelineListener = (event: ScheduledCallEventRow) => void;

interface Subscriber {
  appId: string;
  callId?: string;
  listener: TimelineListener;
  end: () => void;
}

/** One LISTEN per instance, fanned out to the subscribers of this instance. */
export class TimelineBus {
  // By app: a NOTIFY only visits the subscribers of its app (and copies nothing).
  private readonly subscribers = new Map<string, Set<Subscriber>>();
  private count = 0;
  private stop: (() => Promise<void>) | undefined;
  private closed = false;
  // Notifications are dispatched one after another: a large event read back from the table, or
  // one served over several turns, is not overtaken by the next, so streams see events in order.
  private dispatching: Promise<void> = Promise.resolve();
  /** Open streams per client and per app (the caps are checked when a stream opens). */
  readonly streams = new StreamSlots();

  constructor(
    private readonly database: Database,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    const onPayload = (payload: string) => {
      this.dispatching = this.dispatching.then(() => this.dispatch(payload));
    };
    const listener = this.database.listener ?? this.database.pg;
    if (listener) {
      const { unlisten } = await listener.listen(TIMELINE_CHANNEL, onPayload);
      this.stop = unlisten;
    } else if (this.database.pglite) {
      this.stop = await this.database.pglite.listen(TIMELINE_CHANNEL, onPayload);
    }
  }

  get size(): number {
    return this.count;
  }

  /** Listens for one app's events (one call's, with callId); `end` is called when the bus closes. */
  subscribe(filter: { appId: string; callId?: string }, listener: TimelineListener, end: () => void): () => void {
    if (this.closed) {
      end();
      return () => {};
    }
    const subscriber: Subscriber = { ...filter, listener, end };
    let ofApp = this.subscribers.get(filter.appId);
    if (!ofApp) this.subscribers.set(filter.appId, (ofApp = new Set()));
    ofApp.add(subscriber);
    this.count++;
    return () => {
      const set = this.subscribers.get(subscriber.appId);
      if (!set?.delete(subscriber)) return;
      this.count--;
      if (set.size === 0) this.subscribers.delete(subscriber.appId);
    };
  }

  private async dispatch(payload: string): Promise<void> {
    try {
      const announced = JSON.parse(payload) as Announcement;
      const ofApp = this.subscribers.get(announced.appId);
      if (!ofApp) return;
      // The subscribers present when the notification arrived (as before the row is loaded).
      const interested = [...ofApp].filter((s) => s.callId === undefined || s.callId === announced.callId);
      if (interested.length === 0) return;
      // One row for every subscriber: parsed from the payload, or (a large event) read once.
      const event = announced.event ? { ...announced.event, createdAt: new Date(announced.event.createdAt) } : await this.load(announced);
      if (!event) return;
      for (let start = 0; start < interested.length; start += FANOUT_SLICE) {
        if (start > 0) await nextTurn();
        const end = Math.min(start + FANOUT_SLICE, interested.length);
        // A subscriber gone since the notification arrived (its client closed) is skipped.
        for (let i = start; i < end; i++) if (ofApp.has(interested[i]!)) interested[i]!.listener(event);
      }
    } catch (error) {
      this.logger.error({ err: error }, 'timeline notification could not be dispatched');
    }
  }

  private async load(announced: Announcement): Promise<ScheduledCallEventRow | undefined> {
    const [row] = await this.database.db
      .select()
      .from(scheduledCallEvents)
      .where(and(eq(scheduledCallEvents.appId, announced.appId), eq(scheduledCallEvents.id, announced.id)));
    return row;
  }

  /** Ends every open stream (graceful shutdown: SSE responses complete instead of being cut). */
  endStreams(): void {
    this.closed = true;
    for (const ofApp of this.subscribers.values()) {
      for (const subscriber of ofApp) subscriber.end();
      // A fan-out still being served over several turns skips them from here on.
      ofApp.clear();
    }
    this.subscribers.clear();
    this.count = 0;
  }

  async close(): Promise<void> {
    this.endStreams();
    await this.stop?.().catch((error: unknown) => this.logger.warn({ err: error }, 'timeline unlisten failed'));
    this.stop = undefined;
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
