import DataLoader from 'dataloader';
import { and, asc, eq, inArray } from 'drizzle-orm';
import { loader, type RequestContext } from '../runtime.js';
import { billCall } from './billing.js';
import { videoParticipants, videoRecordings, type VideoParticipantRow, type VideoRecordingRow } from './tables.js';

export interface CallKey {
  appId: string;
  callId: string;
}

export type BilledParticipant = VideoParticipantRow & { billedMinutes: number };

export interface CallParticipants {
  participants: BilledParticipant[];
  participantMinutes: number;
}

const keyOf = (k: CallKey) => `${k.appId}:${k.callId}`;

/**
 * Rows of many calls in one query per app (DataLoader batches the loads of one tick; loaders live
 * per request in ctx.loaders, never longer, so no cache outlives a request).
 */
function batchByApp<T extends { appId: string; callId: string }>(load: (appId: string, callIds: string[]) => Promise<T[]>) {
  return async (keys: readonly CallKey[]): Promise<T[][]> => {
    const byApp = new Map<string, string[]>();
    for (const key of keys) byApp.set(key.appId, [...(byApp.get(key.appId) ?? []), key.callId]);
    const found = new Map<string, T[]>();
    for (const [appId, callIds] of byApp) {
      for (const row of await load(appId, callIds)) {
        const key = keyOf(row);
        found.set(key, [...(found.get(key) ?? []), row]);
      }
    }
    return keys.map((k) => found.get(keyOf(k)) ?? []);
  };
}

/** Participants of a call in join order, billed against one clock reading per batch (so the usage sum agrees). */
export function participantsLoader(ctx: RequestContext) {
  const rows = batchByApp((appId, callIds) =>
    ctx.runtime.database.db
      .select()
      .from(videoParticipants)
      .where(and(eq(videoParticipants.appId, appId), inArray(videoParticipants.callId, callIds)))
      .orderBy(asc(videoParticipants.joinedAt), asc(videoParticipants.id)),
  );
  return loader(
    ctx,
    'videoParticipants',
    () =>
      new DataLoader<CallKey, CallParticipants, string>(
        async (keys) => {
          const now = ctx.runtime.clock.now();
          return (await rows(keys)).map((sessions) => {
            const billed = billCall(sessions, now);
            return { participants: billed.sessions, participantMinutes: billed.participantMinutes };
          });
        },
        { cacheKeyFn: keyOf },
      ),
  );
}

/** Recordings of a call, oldest first. */
export function recordingsLoader(ctx: RequestContext) {
  const rows = batchByApp((appId, callIds) =>
    ctx.runtime.database.db
      .select()
      .from(videoRecordings)
      .where(and(eq(videoRecordings.appId, appId), inArray(videoRecordings.callId, callIds)))
      .orderBy(asc(videoRecordings.createdAt), asc(videoRecordings.id)),
  );
  return loader(ctx, 'videoRecordings', () => new DataLoader<CallKey, VideoRecordingRow[], string>(rows, { cacheKeyFn: keyOf }));
}

/** After a write: later fields of the same operation load the call's rows afresh. */
export function forgetVideoCall(ctx: RequestContext, key: CallKey): void {
  participantsLoader(ctx).clear(key);
  recordingsLoader(ctx).clear(key);
}
