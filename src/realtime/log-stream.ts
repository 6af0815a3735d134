import { stillAuthorized } from '../auth/access-tokens.js';
import { AppError } from '../errors/app-error.js';
import { sseStreamsClosedLagging } from '../observability/metrics.js';
import type { RequestContext } from '../runtime.js';
import type { Clock } from '../time/clock.js';
import { FANOUT_SLICE, nextTurn, type LogRow, type SubscriberFilter } from './log-bus.js';

/** Stored rows replayed per page while catching up. */
const REPLAY_PAGE = 500;
/**
 * Replayed seqs kept to skip their live copy: the newest ones. A live copy of a replayed row is
 * one committed about when the stream subscribed, at the end of the replay, never one from far back.
 */
const REPLAYED_KEPT = 10_000;

/** What a stream closed for lag yields last: its resolver turns it into a stream_lagging error. */
interface Lagging {
  readonly lagging: true;
  readonly lastId: string | undefined;
  /** Closed because this instance may have missed events (its database connection dropped), not for lag. */
  readonly interrupted: boolean;
}

/** The subscription fields' resolver: an event, or the error that ends a stream that fell behind. */
export function resolveStreamEvent<Row>(event: Row): Row {
  const lag = event as unknown as Partial<Lagging>;
  if (lag.lagging !== true) return event;
  const resume = lag.lastId ? `subscribe again with after: "${lag.lastId}"` : 'subscribe again (with after: the id of the last event you received)';
  const why = lag.interrupted ? "was interrupted (the server's database connection dropped)" : 'fell too far behind its reader';
  throw new AppError('stream_lagging', `The stream ${why} and was closed: ${resume}`);
}

/** Bytes an event is taken to hold while queued: its JSON, measured once per event (shared by all streams). */
const sizes = new WeakMap<object, number>();
const sizeOf = (event: object) => {
  let size = sizes.get(event);
  if (size === undefined) sizes.set(event, (size = JSON.stringify(event).length));
  return size;
};

/** Where a stream's rows come from: the bus that announces them live, and the stored ones after a seq. */
export interface LogSource<Row extends LogRow> {
  /** A LogBus, or a view of one (a call timeline is a view of the event log's). */
  bus: { subscribeTo(filter: SubscriberFilter, listener: (row: Row) => void, end: (interrupted?: boolean) => void): () => void };
  filter: SubscriberFilter;
  storedAfter: (afterSeq: number, limit: number) => Promise<Row[]>;
}

/**
 * A live log stream that resumes without gaps or repeats: subscribe to live rows first and
 * buffer them, replay the stored rows after `afterSeq` page by page, then drain the buffer
 * skipping what the replay already sent (and anything at or before the resume point, which the
 * reader has: a late notification of an older row), then pass live rows through. NOTIFY delivers
 * each committed row once per instance, so after the switch nothing repeats. `release` frees the
 * stream's slot when it ends.
 */
export function openLogStream<Row extends LogRow>(ctx: RequestContext, source: LogSource<Row>, afterSeq: number | undefined, release: () => void): AsyncGenerator<Row> {
  // A hand-written iterator, not an async generator: when the client goes away graphql-sse calls
  // return(), which must unsubscribe at once even while next() is waiting for an event (an async
  // generator suspended at an await could only finish after the app's next event).
  const { runtime, auth } = ctx;
  const buffer: Row[] = [];
  // Live events waiting for the reader, bounded: a reader that falls behind by more than
  // STREAM_QUEUE_EVENTS events or STREAM_QUEUE_BYTES is told so and the stream ends.
  const { STREAM_QUEUE_EVENTS, STREAM_QUEUE_BYTES } = runtime.config;
  let queuedBytes = 0;
  let lagging = false;
  let interrupted = false;
  let lastId: string | undefined;
  const replay: Row[] = [];
  const replayed = new Set<number>();
  let replayFrom = afterSeq;
  let sentSinceTurn = 0;
  let ended = false;
  let waiting: ((result: IteratorResult<Row>) => void) | undefined;
  const done = (): IteratorResult<Row> => ({ value: undefined, done: true });
  const unsubscribe = source.bus.subscribeTo(
    source.filter,
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
    (interrupted) => {
      if (interrupted) return lag(true);
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
  function lag(wasInterrupted = false) {
    if (!wasInterrupted) sseStreamsClosedLagging.inc();
    interrupted = wasInterrupted;
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
  function takeLive(): Row | undefined {
    while (buffer.length > 0) {
      const event = buffer.shift()!;
      queuedBytes -= sizeOf(event);
      // Events arrive in seq order: once the replay is over, a replayed seq below a live one will
      // never come live, so it is dropped (a resume from far back held every replayed seq).
      if (replayFrom === undefined && replay.length === 0) for (const seq of replayed) if (seq < event.seq) replayed.delete(seq);
      if (afterSeq !== undefined && event.seq <= afterSeq) continue;
      if (!replayed.delete(event.seq)) return event;
    }
    return undefined;
  }
  function finish(): IteratorResult<Row> {
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
  async function nextEvent(): Promise<[Row, boolean] | undefined> {
    if (ended && buffer.length === 0) return undefined;
    // Replay first, a page at a time, then live events.
    let newPage = false;
    while (replayFrom !== undefined && replay.length === 0) {
      const page = await source.storedAfter(replayFrom, REPLAY_PAGE);
      replay.push(...page);
      for (const event of page) {
        replayed.add(event.seq);
        // Seqs come in increasing order, so the Set's first is the oldest.
        if (replayed.size > REPLAYED_KEPT) replayed.delete(replayed.values().next().value!);
      }
      replayFrom = page.length < REPLAY_PAGE ? undefined : page[page.length - 1]!.seq;
      newPage = true;
    }
    const stored = replay.shift();
    if (stored) {
      // A replay is work in memory end to end when the reader keeps up (and an embedded database's
      // query never waits on I/O): without a turn now and then it would hold the event loop for
      // as long as it runs, every other request waiting.
      if (++sentSinceTurn >= FANOUT_SLICE) {
        sentSinceTurn = 0;
        await nextTurn();
      }
      return [stored, newPage];
    }
    const live = takeLive();
    if (live) return [live, true];
    if (ended) return undefined;
    const result = await new Promise<IteratorResult<Row>>((resolve) => (waiting = resolve));
    return result.done ? undefined : [result.value, true];
  }
  const iterator: AsyncGenerator<Row> = {
    async next() {
      const next = await nextEvent();
      if (!next) {
        if (lagging) {
          // The last event sent, read now: one already taken from the queue may still have been
          // on its way out when the queue overflowed.
          const last: Lagging = { lagging: true, lastId, interrupted };
          lagging = false;
          release();
          return { value: last as unknown as Row, done: false };
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
  } as unknown as AsyncGenerator<Row>;
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

