import { and, eq } from 'drizzle-orm';
import { appEvents } from '../events/tables.js';
import { validationFailed } from '../errors/app-error.js';
import type { RequestContext } from '../runtime.js';
import { timelineWhere, type TimelineEvent } from '../scheduling/timeline-events.js';
import { openLogStream, resolveStreamEvent } from './log-stream.js';
import { eventsAfter } from './timeline-bus.js';

/** The resume point a stream was asked for: Last-Event-ID, sent by a reconnecting EventSource, is newer than the `after` in its URL. */
export function resumePoint(ctx: RequestContext, after: string | undefined): { id: string; field: string } | undefined {
  const resumeAfter = ctx.stream?.resumeAfter;
  return resumeAfter !== undefined ? { id: resumeAfter, field: 'Last-Event-ID' } : after !== undefined ? { id: after, field: 'after' } : undefined;
}

/** A live timeline (of one call or of the app) resuming after `after`, as openLogStream does. */
export async function openTimeline(
  ctx: RequestContext,
  filter: { appId: string; callId?: string },
  after: string | undefined,
): Promise<AsyncGenerator<TimelineEvent>> {
  const release = ctx.runtime.timeline.streams.acquire(ctx.auth?.clientId ?? '', filter.appId, ctx.runtime.config);
  try {
    // Checked before the stream starts, so a bad `after` is an error result, not a broken stream.
    const from = resumePoint(ctx, after);
    const afterSeq = from === undefined ? undefined : await seqOf(ctx, filter, from.id, from.field);
    const { timeline, database } = ctx.runtime;
    const accepts = filter.callId === undefined ? undefined : (header: Readonly<Record<string, unknown>>) => header.subjectId === filter.callId;
    return openLogStream(ctx, { bus: timeline, filter: { appId: filter.appId, accepts }, storedAfter: (seq, limit) => eventsAfter(database, filter, seq, limit) }, afterSeq, release);
  } catch (error) {
    release();
    throw error;
  }
}

/** The subscription fields' resolver: an event, or the error that ends a stream that fell behind. */
export const resolveTimelineEvent = (event: TimelineEvent) => resolveStreamEvent(event);

/** The position of `after`: an event of this app (and call), else invalid_request naming `field`. */
async function seqOf(ctx: RequestContext, filter: { appId: string; callId?: string }, after: string, field: string): Promise<number> {
  const [row] = await ctx.runtime.database.db
    .select({ seq: appEvents.seq })
    .from(appEvents)
    .where(and(timelineWhere(filter), eq(appEvents.id, after)))
    .limit(1);
  if (!row) throw validationFailed([{ field, code: 'invalid_value', message: 'is not an event of this timeline' }], 'invalid_request');
  return row.seq;
}
