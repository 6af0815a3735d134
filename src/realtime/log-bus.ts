import { sql } from 'drizzle-orm';
import type { Database, Tx } from '../db/client.js';
import type { Logger } from '../log.js';
import { StreamSlots } from './stream-slots.js';

// Rows of an append-only log (a call timeline, the app event log) reach subscribers when their
// transaction commits, on every instance: the writer sends NOTIFY inside its transaction
// (PostgreSQL delivers it at commit, and never for a rollback); each instance LISTENs once and
// fans the row out to its own subscribers. PGlite supports LISTEN/NOTIFY in process, so both
// storages share one path.

// NOTIFY payloads must stay under 8000 bytes; a larger row is announced by id and read back.
const MAX_PAYLOAD = 7000;
/**
 * Subscribers served per turn of the event loop. Serving one runs its subscription document and
 * writes its SSE frame; serving thousands in one go would hold the event loop, and the write
 * that caused the event (or any other request) would wait for the last one.
 */
export const FANOUT_SLICE = 100;

/** A turn of the event loop for I/O and timers, between slices of long in-memory work. */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What every log row has: its id, its position in the log and its app. */
export interface LogRow {
  id: string;
  seq: number;
  appId: string;
}

/** The fields a subscriber filters on before the row is read back (a call id, an event type). */
export type Header = Record<string, string>;

/** One log: its channel, how its rows travel in a NOTIFY payload, and how they are read back. */
export interface LogSpec<Row extends LogRow> {
  channel: string;
  header: (row: Row) => Header;
  /** The row as JSON (dates as ISO text) and back. */
  toJson: (row: Row) => Record<string, unknown>;
  fromJson: (json: Record<string, unknown>) => Row;
  /** A row too large for its announcement, read back by id. */
  load: (database: Database, appId: string, id: string) => Promise<Row | undefined>;
  /** The highest seq written so far (0 for an empty log). */
  lastSeq: (database: Database) => Promise<number>;
  /** The apps' rows after `afterSeq`, in seq order, at most `limit`. */
  after: (database: Database, appIds: readonly string[], afterSeq: number, limit: number) => Promise<Row[]>;
}

/** Rows read per page when catching up after a reconnect. */
const CATCH_UP_PAGE = 500;
/** Rows one catch-up delivers at most; with more, the apps' streams are interrupted, to resume from the store. */
const CATCH_UP_MAX = 10_000;
/**
 * How far below the highest seq seen a catch-up reads again. A seq is taken when a row is
 * written, not when it commits, so a row may commit (unannounced, in the gap) after a higher
 * one was announced; and the highest seen may already be a row announced after the reconnect,
 * before the catch-up starts. Rows read again that were delivered are recognized by their seq.
 */
const CATCH_UP_OVERLAP = 20_000;
/** Seqs of delivered rows remembered, so a catch-up never delivers one twice: the overlap's worth and more. */
const DELIVERED_KEPT = 2 * CATCH_UP_OVERLAP;

/** A NOTIFY payload: the row's position, its header fields beside them, and the row when it fits. */
type Announcement = LogRow & { event?: Record<string, unknown>; [field: string]: unknown };

/** Inside the writing transaction: announces the rows, delivered only if it commits. */
export async function announce<Row extends LogRow>(spec: LogSpec<Row>, tx: Tx, rows: readonly Row[]): Promise<void> {
  for (const row of rows) {
    const full: Announcement = { ...spec.header(row), id: row.id, seq: row.seq, appId: row.appId, event: spec.toJson(row) };
    let payload = JSON.stringify(full);
    if (payload.length > MAX_PAYLOAD) payload = JSON.stringify({ ...full, event: undefined });
    // Raw SQL on both drivers; the payload is a bound parameter.
    await tx.execute(sql`select pg_notify(${spec.channel}, ${payload})`);
  }
}

export interface SubscriberFilter {
  appId: string;
  /** Whether the subscriber wants a row with this header; every row of the app when absent. */
  accepts?: (header: Readonly<Record<string, unknown>>) => boolean;
}

interface Subscriber<Row> extends SubscriberFilter {
  listener: (row: Row) => void;
  /** `interrupted`: the bus may have missed rows of the app; the stream ends so its client resumes from the store. */
  end: (interrupted?: boolean) => void;
}

/** One LISTEN per instance and log, fanned out to the subscribers of this instance. */
export class LogBus<Row extends LogRow> {
  // By app: a NOTIFY only visits the subscribers of its app (and copies nothing).
  private readonly subscribers = new Map<string, Set<Subscriber<Row>>>();
  private count = 0;
  private stop: (() => Promise<void>) | undefined;
  private closed = false;
  // Notifications are dispatched one after another: a large row read back from the table, or
  // one served over several turns, is not overtaken by the next, so streams see rows in order.
  private dispatching: Promise<void> = Promise.resolve();
  /** The highest seq announced or caught up on this instance: a catch-up starts CATCH_UP_OVERLAP below it. */
  private lastSeq = 0;
  /** The highest seq when the bus started: rows up to it were written before, never caught up. */
  private startSeq = 0;
  /** The seqs of the latest rows handled (DELIVERED_KEPT of them, oldest first out). */
  private readonly handled = new Set<number>();

  constructor(
    readonly spec: LogSpec<Row>,
    readonly database: Database,
    private readonly logger: Logger,
    /** Open streams per client and per app (the caps are checked when a stream opens). */
    readonly streams: StreamSlots = new StreamSlots(),
  ) {}

  async start(): Promise<void> {
    const onPayload = (payload: string) => {
      this.dispatching = this.dispatching.then(() => this.dispatch(payload));
    };
    const listener = this.database.listener ?? this.database.pg;
    if (listener) {
      this.startSeq = this.lastSeq = await this.spec.lastSeq(this.database);
      // postgres.js listens again by itself after its connection drops (a restart, a failover),
      // and calls this each time. Rows committed while it was not listening were announced to
      // no one: they are read from the log once it listens again.
      let listened = false;
      const onListen = () => {
        if (listened) this.dispatching = this.dispatching.then(() => this.catchUp());
        listened = true;
      };
      const { unlisten } = await listener.listen(this.spec.channel, onPayload, onListen);
      this.stop = unlisten;
    } else if (this.database.pglite) {
      this.stop = await this.database.pglite.listen(this.spec.channel, onPayload);
    }
  }

  get size(): number {
    return this.count;
  }

  /** Listens for one app's rows (those `accepts` takes); `end` is called when the bus closes. */
  subscribeTo(filter: SubscriberFilter, listener: (row: Row) => void, end: (interrupted?: boolean) => void): () => void {
    if (this.closed) {
      end();
      return () => {};
    }
    const subscriber: Subscriber<Row> = { ...filter, listener, end };
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
      // Caught up already (it committed before the catch-up read it), or announced twice.
      if (!this.firstTime(announced.seq)) return;
      // One row for every subscriber: parsed from the payload, or (a large one) read once.
      await this.deliver(announced, () =>
        announced.event ? Promise.resolve(this.spec.fromJson(announced.event)) : this.spec.load(this.database, announced.appId, announced.id),
      );
    } catch (error) {
      this.logger.error({ err: error, channel: this.spec.channel }, 'log notification could not be dispatched');
    }
  }

  /** Hands a row to the app's subscribers that take its header; the row is only read when one does. */
  private async deliver(announced: Announcement, read: () => Promise<Row | undefined>): Promise<void> {
    const ofApp = this.subscribers.get(announced.appId);
    if (!ofApp) return;
    // The subscribers present when the row arrived (as before the row is loaded).
    const interested = [...ofApp].filter((s) => s.accepts === undefined || s.accepts(announced));
    if (interested.length === 0) return;
    const row = await read();
    if (!row) return;
    for (let start = 0; start < interested.length; start += FANOUT_SLICE) {
      if (start > 0) await nextTurn();
      const end = Math.min(start + FANOUT_SLICE, interested.length);
      // A subscriber gone since the row arrived (its client closed) is skipped.
      for (let i = start; i < end; i++) if (ofApp.has(interested[i]!)) interested[i]!.listener(row);
    }
  }

  /** Records a row as handled; false when it was already (a seq names one row). */
  private firstTime(seq: number): boolean {
    if (this.handled.has(seq)) return false;
    this.handled.add(seq);
    if (this.handled.size > DELIVERED_KEPT) this.handled.delete(this.handled.values().next().value!);
    if (seq > this.lastSeq) this.lastSeq = seq;
    return true;
  }

  /**
   * After listening again: the rows of the apps with subscribers here from CATCH_UP_OVERLAP below
   * the highest seq seen, in log order, each not handled yet delivered (their notifications,
   * should some arrive as well, are skipped). Past CATCH_UP_MAX rows, or when the log cannot be
   * read, those apps' streams are interrupted instead: their clients resume from the store.
   */
  private async catchUp(): Promise<void> {
    const apps = [...this.subscribers.keys()];
    if (apps.length === 0) return;
    let from = Math.max(this.startSeq, this.lastSeq - CATCH_UP_OVERLAP);
    let delivered = 0;
    try {
      for (;;) {
        const page = await this.spec.after(this.database, apps, from, CATCH_UP_PAGE);
        for (const row of page) {
          from = row.seq;
          if (!this.firstTime(row.seq)) continue;
          if (++delivered > CATCH_UP_MAX) throw new Error(`more than ${CATCH_UP_MAX} rows to catch up`);
          await this.deliver({ ...this.spec.header(row), id: row.id, seq: row.seq, appId: row.appId }, () => Promise.resolve(row));
          // Long in-memory work in slices, as a fan-out is.
          if (delivered % FANOUT_SLICE === 0) await nextTurn();
        }
        if (page.length < CATCH_UP_PAGE) break;
      }
      if (delivered > 0) this.logger.info({ channel: this.spec.channel, rows: delivered }, 'log rows committed while not listening delivered');
    } catch (error) {
      this.logger.error({ err: error, channel: this.spec.channel }, 'log catch-up incomplete; interrupting the streams it concerned');
      this.interruptStreamsOf(apps);
    }
  }

  private interruptStreamsOf(appIds: readonly string[]): void {
    for (const appId of appIds) {
      const ofApp = this.subscribers.get(appId);
      if (!ofApp) continue;
      this.subscribers.delete(appId);
      this.count -= ofApp.size;
      for (const subscriber of ofApp) subscriber.end(true);
      ofApp.clear();
    }
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
    await this.stop?.().catch((error: unknown) => this.logger.warn({ err: error, channel: this.spec.channel }, 'unlisten failed'));
    this.stop = undefined;
  }
}
