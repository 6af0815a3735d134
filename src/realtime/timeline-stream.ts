import { and, eq } from 'drizzle-orm';
import { stillAuthorized } from '../auth/access-tokens.js';
import { AppError, validationFailed } from '../errors/app-error.js';
import { sseStreamsClosedLagging } from '../observability/metrics.js';
import type { RequestContext } from '../runtime.js';
import { scheduledCallEvents, type ScheduledCallEventRow } from '../scheduling/tables.js';
import type { Clock } from '../time/clock.js';
import { eventsAfter } from './timeline-bus.js';

/** Stored events replayed per page while catching up. */
const REPLAY_PAGE = 500;

/**
 * A live timeline that resumes without gaps: subscribe to live events first and buffer
 * them, replay the stored events after `after` page by page, then drain the buffer skipping
 * what the replay already sent, then pass live events through. NOTIFY delivers each committed
 * event once per instance, so after the switch nothing repeats.
 */
export async function openTimeline(
  ctx: RequestContext,
  filter: { appId: string; callId?: string },
  after: string | undefined,
): Promise<AsyncGenerator<ScheduledCallEventRow>> {
  const release = ctx.runtime.timeline.streams.acquire(ctx.auth?.clientId ?? '', filter.appId, ctx.runtime.config);
  try {
    // Checked before the stream starts, so a bad `after` is an error result, not a broken stream.
    // Last-Event-ID, sent by a reconnecting EventSource, is newer than the `after` in its URL.
    const resumeAfter = ctx.stream?.resumeAfter;
    const from = resumeAfter !== undefined ? { id: resumeAfter, field: 'Last-Event-ID' } : after !== undefined ? { id: after, field: 'after' } : undefined;
    const afterSeq = from === undefined ? undefined : await seqOf(ctx, filter, from.id, from.field);
    return timelineStream(ctx, filter, afterSeq, release);
  } catch (error) {
    release();
    throw error;
  }
}

/** What a stream closed for lag yields last: its resolver turns it into a stream_lagging error. */
interface Lagging {
  readonly lagging: true;
  readonly lastId: string | undefined;
}

/** The subscription fields' resolver: an event, or the error that ends a stream that fell behind. */
export function resolveTimelineEvent(event: ScheduledCallEventRow): ScheduledCallEventRow {
  const lag = event as unknown as Partial<Lagging>;
  if (lag.lagging !== true) return event;
  const resume = lag.lastId ? `subscribe again with after: "${lag.lastId}"` : 'subscribe again (with after: the id of the last event you received)';
  throw new AppError('stream_lagging', `The stream fell too far behind its reader and was closed: ${resume}`);
}

/** Bytes an event is taken to hold while queued: its JSON, measured once per event (shared by all streams). */
const sizes = new WeakMap<ScheduledCallEventRow, number>();
const sizeOf = (event: ScheduledCallEventRow) => {
  let size = sizes.get(event);
  if (size === undefined) sizes.set(event, (size = JSON.stringify(event).length));
  return size;
};

function timelineStream(
  ctx: RequestContext,
  filter: { appId: string; callId?: string },
  afterSeq: number | undefined,
  release: () => void,
): AsyncGenerator<ScheduledCallEventRow> {
  // A hand-written iterator, not an async generator: when the client goes away graphql-sse calls
  // return(), which must unsubscribe at once even while next() is waiting for an event (an async
  // generator suspended at an await could only finish after the app's next event).
  const { runtime, auth } = ctx;
  const database = runtime.database;
  const buffer: ScheduledCallEventRow[] = [];
  // Live events waiting for the reader, bounded: a reader that falls behind by more than
  // STREAM_QUEUE_EVENTS events or STREAM_QUEUE_BYTES is told so and the stream ends.
  const { STREAM_QUEUE_EVENTS, STREAM_QUEUE_BYTES } = runtime.config;
  let queuedBytes = 0;
  let lagging = false;
  let lastId: string | undefined;
  const replay: ScheduledCallEventRow[] = [];
  const replayed = new Set<number>();
  let replayFrom = afterSeq;
  let ended = false;
  let waiting: ((result: IteratorResult<ScheduledCallEventRow>) => void) | undefined;
  const done = (): IteratorResult<ScheduledCallEventRow> => ({ value: undefined, done: true });
  const unsubscribe = runtime.timeline.subscribe(
    filter,
    (event) => {
      if (ended) return;
      const size = sizeOf(event);
      if (buffer.length >= STREAM_QUEUE_EVENTS || queuedBytes + size > STREAM_QUEUE_BYTES) {
        lag();
        return;
      }
      buffer.push(event);
      queuedBytes += size;
      wake();
    },
    () => {
      ended = true;
      wake();
    },
  );
  // The stream holds its token as a request does: it ends when the token
  // expires, even while idle, and no event is sent once the token is revoked or its client
  // deleted (checked before each live event and before each page of stored ones).
  const cancelExpiry = auth ? atExpiry(auth.expiresAt, runtime.clock, () => end()) : undefined;
  function end() {
    ended = true;
    buffer.length = 0;
    queuedBytes = 0;
    replay.length = 0;
    replayFrom = undefined;
    wake();
  }
  function lag() {
    sseStreamsClosedLagging.inc();
    lagging = true;
    unsubscribe();
    end();
  }
  function wake() {
    if (!waiting) return;
    const resolve = waiting;
    const next = takeLive();
    if (next) {
      waiting = undefined;
      resolve({ value: next, done: false });
    } else if (ended) {
      waiting = undefined;
      resolve(done());
    }
  }
  /** The next buffered live event the replay has not already sent. */
  function takeLive(): ScheduledCallEventRow | undefined {
    while (buffer.length > 0) {
      const event = buffer.shift()!;
      queuedBytes -= sizeOf(event);
      // Events arrive in seq order: once the replay is over, a replayed seq below a live one will
      // never come live, so it is dropped (a resume from far back held every replayed seq).
      if (replayFrom === undefined && replay.length === 0) for (const seq of replayed) if (seq < event.seq) replayed.delete(seq);
      if (!replayed.delete(event.seq)) return event;
    }
    return undefined;
  }
  function finish(): IteratorResult<ScheduledCallEventRow> {
    ended = true;
    cancelExpiry?.();
    unsubscribe();
    release();
    const resolve = waiting;
    waiting = undefined;
    resolve?.(done());
    return done();
  }
  /** The next event to send and whether the token must be checked first; undefined at the end. */
  async function nextEvent(): Promise<[ScheduledCallEventRow, boolean] | undefined> {
    if (ended && buffer.length === 0) return undefined;
    // Replay first, a page at a time, then live events.
    let newPage = false;
    while (replayFrom !== undefined && replay.length === 0) {
      const page = await eventsAfter(database, filter, replayFrom, REPLAY_PAGE);
      replay.push(...page);
      for (const event of page) replayed.add(event.seq);
      replayFrom = page.length < REPLAY_PAGE ? undefined : page[page.length - 1]!.seq;
      newPage = true;
    }
    const stored = replay.shift();
    if (stored) return [stored, newPage];
    const live = takeLive();
    if (live) return [live, true];
    if (ended) return undefined;
    const result = await new Promise<IteratorResult<ScheduledCallEventRow>>((resolve) => (waiting = resolve));
    return result.done ? undefined : [result.value, true];
  }
  const iterator: AsyncGenerator<ScheduledCallEventRow> = {
    async next() {
      const next = await nextEvent();
      if (!next) {
        if (lagging) {
          // The last event sent, read now: one already taken from the queue may still have been
          // on its way out when the queue overflowed.
          const last: Lagging = { lagging: true, lastId };
          lagging = false;
          release();
          return { value: last as unknown as ScheduledCallEventRow, done: false };
        }
        return finish();
      }
      const [event, check] = next;
      if (check && auth && !(await stillAuthorized(runtime, auth))) return finish();
      lastId = event.id;
      ctx.stream?.onEvent(event.id);
      return { value: event, done: false };
    },
    async return() {
      return finish();
    },
    async throw(error: unknown) {
      finish();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  } as unknown as AsyncGenerator<ScheduledCallEventRow>;
  return iterator;
}

/** Longest delay setTimeout takes (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Calls `then` once `clock` reaches `at`, however far ahead (re-armed in steps of MAX_TIMER_MS); returns a cancel. */
function atExpiry(at: Date, clock: Clock, then: () => void): () => void {
  let timer: NodeJS.Timeout;
  const arm = () => {
    const left = at.getTime() - clock.now().getTime();
    timer = setTimeout(() => (at.getTime() <= clock.now().getTime() ? then() : arm()), Math.max(0, Math.min(left, MAX_TIMER_MS)));
    timer.unref();
  };
  arm();
  return () => clearTimeout(timer);
}

/** The position of `after`: an event of this app (and call), else invalid_request naming `field`. */
async function seqOf(ctx: RequestContext, filter: { appId: string; callId?: string }, after: string, field: string): Promise<number> {
  const [row] = await ctx.runtime.database.db
    .select({ seq: scheduledCallEvents.seq })
    .from(scheduledCallEvents)
    .where(
      and(
        eq(scheduledCallEvents.appId, filter.appId),
        eq(scheduledCallEvents.id, after),
        filter.callId ? eq(scheduledCallEvents.callId, filter.callId) : undefined,
      ),
    )
    .limit(1);
  if (!row) throw validationFailed([{ field, code: 'invalid_value', message: 'is not an event of this timeline' }], 'invalid_request');
  return row.seq;
}
