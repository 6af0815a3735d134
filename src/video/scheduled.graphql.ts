import DataLoader from 'dataloader';
import { and, eq, inArray } from 'drizzle-orm';
import { builder } from '../graphql/builder.js';
import { parseInput } from '../errors/zod-details.js';
import { loader, type RequestContext } from '../runtime.js';
import { ScheduledCall } from '../scheduling/calls.graphql.js';
import { scheduledCalls, type ScheduledCallRow } from '../scheduling/tables.js';
import { VideoCall, CreateVideoCallInput } from './calls.graphql.js';
import { createVideoCallInput, startScheduledCallVideo } from './service.js';
import { videoCalls, type VideoCallRow } from './tables.js';

// The link between a scheduled call and the video call serving it. The link column is on
// video_calls, so each side of a page loads in one query per app (DataLoader per request).

interface Key {
  appId: string;
  id: string;
}
const keyOf = (k: Key) => `${k.appId}:${k.id}`;

function byApp<T>(load: (appId: string, ids: string[]) => Promise<{ key: string; row: T }[]>) {
  return async (keys: readonly Key[]): Promise<(T | null)[]> => {
    const grouped = new Map<string, string[]>();
    for (const k of keys) grouped.set(k.appId, [...(grouped.get(k.appId) ?? []), k.id]);
    const found = new Map<string, T>();
    for (const [appId, ids] of grouped) for (const { key, row } of await load(appId, ids)) found.set(key, row);
    return keys.map((k) => found.get(keyOf(k)) ?? null);
  };
}

/** The video call serving each scheduled call, or null. */
const videoCallOf = (ctx: RequestContext) =>
  loader(ctx, 'video.byScheduledCall', () =>
    new DataLoader<Key, VideoCallRow | null, string>(
      byApp(async (appId, ids) =>
        (await ctx.runtime.database.db.select().from(videoCalls).where(and(eq(videoCalls.appId, appId), inArray(videoCalls.scheduledCallId, ids)))).map((row) => ({
          key: `${appId}:${row.scheduledCallId}`,
          row,
        })),
      ),
      { cacheKeyFn: keyOf },
    ),
  );

/** The scheduled call each video call serves, or null. */
const scheduledCallOf = (ctx: RequestContext) =>
  loader(ctx, 'scheduling.byId', () =>
    new DataLoader<Key, ScheduledCallRow | null, string>(
      byApp(async (appId, ids) =>
        (await ctx.runtime.database.db.select().from(scheduledCalls).where(and(eq(scheduledCalls.appId, appId), inArray(scheduledCalls.id, ids)))).map((row) => ({
          key: `${appId}:${row.id}`,
          row,
        })),
      ),
      { cacheKeyFn: keyOf },
    ),
  );

builder.objectField(ScheduledCall, 'videoCall', (t) =>
  t.field({
    type: VideoCall,
    nullable: true,
    description: 'The video call serving this call (startScheduledCallVideo), or null. Scope: video:read; batched for a page of calls.',
    authScopes: (call) => ({ $all: { scope: 'video:read', app: call.appId } }),
    resolve: (call, _args, ctx) => videoCallOf(ctx).load({ appId: call.appId, id: call.id }),
  }),
);

builder.objectField(VideoCall, 'scheduledCall', (t) =>
  t.field({
    type: ScheduledCall,
    nullable: true,
    description: 'The scheduled call this video call serves, or null. Scope: scheduling:read; batched for a page of calls.',
    authScopes: (call) => ({ $all: { scope: 'scheduling:read', app: call.appId } }),
    resolve: (call, _args, ctx) => (call.scheduledCallId ? scheduledCallOf(ctx).load({ appId: call.appId, id: call.scheduledCallId }) : null),
  }),
);

builder.mutationField('startScheduledCallVideo', (t) =>
  t.field({
    type: VideoCall,
    description:
      "Creates the video call of a scheduled call, or returns the one it has: one per call, so a repeat is safe. Only a call in status scheduled gets one (conflict, 409, otherwise); another app's call is not_found. Ending that video call completes the scheduled call. Scope: scheduling:write.",
    authScopes: (_root, args) => ({ $all: { scope: 'scheduling:write', app: args.appId } }),
    args: {
      appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
      callId: t.arg({ description: 'The scheduled call (UUID).', type: 'UUID', required: true }),
      input: t.arg({ description: 'The video call to create when the call has none (ignored when it has one).', type: CreateVideoCallInput, required: true }),
    },
    resolve: (_root, args, ctx) => startScheduledCallVideo(ctx, args.appId, args.callId, parseInput(createVideoCallInput, args.input)),
  }),
);
