import { and, asc, count, desc, eq, gt, gte, inArray, lt } from 'drizzle-orm';
import { z } from 'zod';
import { cappedCount, pageWindow, windowPage, type Page } from '../db/keyset.js';
import { validationFailed } from '../errors/app-error.js';
import type { RequestContext } from '../runtime.js';
import { pageSize } from '../validation/list-input.js';
import { eventTimeOf } from './ids.js';
import { appEvents, type AppEventRow } from './tables.js';
import { eventPatternValues, eventTypes, typesMatching, type EventType } from './types.js';

const DAY_MS = 86_400_000;
/** At most this many patterns in one `types` filter (there are fewer types than that). */
export const MAX_PATTERNS = eventTypes.length;

/** Event type patterns: `message.received`, `scheduled_call.*` or `*`; a pattern naming no type is refused. */
export const eventPatterns = z
  .array(z.enum(eventPatternValues as unknown as [string, ...string[]], { message: 'is not an event type, a group with .* (such as scheduled_call.*) or *' }))
  .min(1)
  .max(MAX_PATTERNS);
export const eventsAfterId = z.uuid();

export const eventListArgs = z.object({
  appId: z.uuid(),
  first: pageSize,
  after: eventsAfterId.nullish().transform((v) => v ?? undefined),
  last: pageSize,
  before: eventsAfterId.nullish().transform((v) => v ?? undefined),
  types: eventPatterns.nullish().transform((v) => v ?? undefined),
});
export type EventListArgs = z.output<typeof eventListArgs>;

/** The cutoff before which events are pruned: EVENT_RETENTION_DAYS before now. */
export const retentionCutoff = (ctx: Pick<RequestContext, 'runtime'>) => new Date(ctx.runtime.clock.now().getTime() - ctx.runtime.config.EVENT_RETENTION_DAYS * DAY_MS);

/**
 * The seq of the event `after` names. An id from before the retention window is `cursor_expired`
 * whether or not its event is still stored: events after it may be gone, and a silent gap would
 * look like a quiet period. Any other id that is not an event of this app is `invalid_value`.
 */
export async function resumeSeq(ctx: RequestContext, appId: string, after: string, field: string, type: 'validation_error' | 'invalid_request'): Promise<number> {
  const cutoff = retentionCutoff(ctx);
  const expired = () => {
    const days = ctx.runtime.config.EVENT_RETENTION_DAYS;
    return validationFailed([{ field, code: 'cursor_expired', message: `names an event older than the ${days}-day retention: list from the start (without ${field}) instead` }], type);
  };
  const at = eventTimeOf(after);
  if (at !== undefined && at < cutoff) throw expired();
  const [row] = await ctx.runtime.database.db
    .select({ seq: appEvents.seq, occurredAt: appEvents.occurredAt })
    .from(appEvents)
    .where(and(eq(appEvents.appId, appId), eq(appEvents.id, after)))
    .limit(1);
  if (!row) throw validationFailed([{ field, code: 'invalid_value', message: 'is not an event of this app' }], type);
  // A timeline keeps its events past retention, and one recorded before the log existed has an
  // id that carries no time: its stored time decides.
  if (row.occurredAt < cutoff) throw expired();
  return row.seq;
}

/**
 * One page of an app's events, oldest first (the log's order): forward after an event, or
 * backward before one (db/keyset.ts pageWindow). Cursors are event ids.
 */
export async function listEvents(ctx: RequestContext, args: EventListArgs): Promise<Page<AppEventRow>> {
  const db = ctx.runtime.database.db;
  const window = pageWindow(args);
  const types: EventType[] = args.types ? typesMatching(args.types) : [...eventTypes];
  const cursor = window.cursor;
  const cursorSeq = cursor === undefined ? undefined : await resumeSeq(ctx, args.appId, cursor.value, cursor.field, 'validation_error');
  // The retention window, whatever is stored: timelines keep their calls' events for longer.
  const where = and(
    eq(appEvents.appId, args.appId),
    gte(appEvents.occurredAt, retentionCutoff(ctx)),
    types.length === eventTypes.length ? undefined : inArray(appEvents.type, types),
  );
  const bound = cursorSeq === undefined ? undefined : cursor!.field === 'after' ? gt(appEvents.seq, cursorSeq) : lt(appEvents.seq, cursorSeq);
  const rows = await db
    .select()
    .from(appEvents)
    .where(and(where, bound))
    .orderBy(window.backward ? desc(appEvents.seq) : asc(appEvents.seq))
    .limit(window.limit + 1);
  return {
    ...windowPage(window, rows),
    cursorOf: (item) => item.id,
    count: async (cap) => {
      const capped = db.select({ id: appEvents.id }).from(appEvents).where(where).limit(cap + 1).as('capped');
      const [counted] = await db.select({ n: count() }).from(capped);
      return cappedCount(counted?.n ?? 0, cap);
    },
  };
}
