import { and, eq } from 'drizzle-orm';
import { validationFailed } from '../errors/app-error.js';
import type { RequestContext } from '../runtime.js';
import { scheduledCallEvents, type ScheduledCallEventRow } from '../scheduling/tables.js';
import { eventsAfter } from './timeline-bus.js';

/** Stored events replayed per page while catching up. */
const REPLAY_PAGE = 500;

/**
 * A live timeline that resumes without gaps (issue 8): subscribe to live events first and buffer
 * them, replay the stored events after `after` page by page, then drain the buffer skipping
 * what the replay already sent, then pass live events through. NOTIFY delivers each committed
 * event once per instance, so after the switch nothing repeats.
 */
export async function openTimeline(
  ctx: RequestContext,
  filter: { appId: string; callId?: string },
  after: string | undefined,
): Promise<AsyncGenerator<ScheduledCallEventRow>> {
  // Checked before the stream starts, so a bad `after` is an error result, not a broken stream.
  const afterSeq = after === undefined ? undefined : await seqOf(ctx, filter, after);
  return timelineStream(ctx, filter, afterSeq);
}

async function* timelineStream(
  ctx: RequestContext,
  filter: { appId: string; callId?: string },
  afterSeq: number | undefined,
): AsyncGenerator<ScheduledCallEventRow> {
  const database = ctx.runtime.database;
  const buffer: ScheduledCallEventRow[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  const unsubscribe = ctx.runtime.timeline.subscribe(
    filter,
    (event) => {
      buffer.push(event);
      wake?.();
    },
    () => {
      ended = true;
      wake?.();
    },
  );
  try {
    const replayed = new Set<number>();
    if (afterSeq !== undefined) {
      let from = afterSeq;
      for (;;) {
        const page = await eventsAfter(database, filter, from, REPLAY_PAGE);
        for (const event of page) {
          replayed.add(event.seq);
          yield event;
        }
        if (page.length < REPLAY_PAGE) break;
        from = page[page.length - 1]!.seq;
      }
    }
    for (;;) {
      while (buffer.length > 0) {
        const event = buffer.shift()!;
        if (replayed.delete(event.seq)) continue;
        yield event;
      }
      if (ended) return;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  } finally {
    unsubscribe();
  }
}

/** The position of `after`: an event of this app (and call), else invalid_request. */
async function seqOf(ctx: RequestContext, filter: { appId: string; callId?: string }, after: string): Promise<number> {
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
  if (!row) throw validationFailed([{ field: 'after', code: 'invalid_value', message: 'is not an event of this timeline' }], 'invalid_request');
  return row.seq;
}
