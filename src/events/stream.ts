import { validationFailed } from '../errors/app-error.js';
import { zodIssuesToDetails } from '../errors/zod-details.js';
import { openLogStream } from '../realtime/log-stream.js';
import { resumePoint } from '../realtime/timeline-stream.js';
import type { RequestContext } from '../runtime.js';
import { storedEventsAfter } from './log.js';
import { eventPatterns, resumeSeq, retentionCutoff } from './service.js';
import type { AppEventRow } from './tables.js';
import { eventTypes, typesMatching } from './types.js';

/** The `events` subscription: the app's events of the chosen types, resuming after `after` (or Last-Event-ID). */
export async function openEvents(ctx: RequestContext, filter: { appId: string; types: string[] | undefined }, after: string | undefined): Promise<AsyncGenerator<AppEventRow>> {
  // Checked before the stream starts, so bad input is an error result, not a broken stream.
  let patterns: string[] = ['*'];
  if (filter.types !== undefined) {
    const parsed = eventPatterns.safeParse(filter.types);
    if (!parsed.success) throw validationFailed(zodIssuesToDetails(parsed.error.issues, ['types']), 'invalid_request');
    patterns = parsed.data;
  }
  const { runtime } = ctx;
  const release = runtime.events.streams.acquire(ctx.auth?.clientId ?? '', filter.appId, runtime.config);
  try {
    const from = resumePoint(ctx, after);
    const afterSeq = from === undefined ? undefined : await resumeSeq(ctx, filter.appId, from.id, from.field, 'invalid_request');
    const types = patterns.includes('*') ? [...eventTypes] : typesMatching(patterns);
    return openLogStream(
      ctx,
      {
        bus: runtime.events,
        filter: { appId: filter.appId, accepts: (header) => (types as readonly unknown[]).includes(header.type) },
        storedAfter: (seq, limit) => storedEventsAfter(runtime.database, { appId: filter.appId, types, since: retentionCutoff(ctx) }, seq, limit),
      },
      afterSeq,
      release,
    );
  } catch (error) {
    release();
    throw error;
  }
}
