import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import { pageSize } from '../validation/list-input.js';
import { keysetList, type Page } from '../db/keyset.js';
import type { Tx } from '../db/client.js';
import { conflict, notFound, validationFailed } from '../errors/app-error.js';
import { refuseFutureTime } from '../errors/zod-details.js';
import { storableJsonObject, storableText } from '../validation/storable.js';
import type { RequestContext } from '../runtime.js';
import { callMove, callStatuses, participantRoles, recordingMove, recordingStatuses, type CallEvent, type CallStatus, type RecordingStatus } from './lifecycle.js';
import { forgetVideoCall, type CallKey } from './loaders.js';
import { videoCalls, videoParticipants, videoRecordings, type VideoCallRow, type VideoParticipantRow, type VideoRecordingRow } from './tables.js';
import { writeTransaction } from '../db/idempotency.js';
import { actorOf, recordEvents } from '../events/log.js';
import type { EventType } from '../events/types.js';
import { pgErrorCode, UNIQUE_VIOLATION } from '../db/raw.js';
import { scheduledCalls } from '../scheduling/tables.js';
import { completeServedCall } from '../scheduling/calls.service.js';

const list = keysetList({ name: 'video_calls', table: videoCalls, appId: videoCalls.appId, at: videoCalls.createdAt, id: videoCalls.id });
const text = (max: number) => storableText(z.string().min(1).max(max));

/** A video call's fields, once: GraphQL arguments, the service and the NDJSON import validate with these. */
export const videoFields = {
  callId: z.uuid(),
  presetId: text(200),
  title: storableText(z.string().max(500)),
  description: storableText(z.string().max(5000)),
  /** Stored in jsonb as given: every key and string in it must be storable. */
  metadata: storableJsonObject(),
  hostName: text(200),
  guestName: text(200),
  provider: z.strictObject({ name: text(100), meetingId: text(200) }),
  contactcenter: z.strictObject({
    conversationId: text(200),
    ccHostOrigin: text(500),
    ccTargetEnv: text(100),
    ccLangTag: text(35),
    ccUsePopupAuth: z.boolean(),
  }),
  callStatus: z.enum(callStatuses),
  providerParticipantId: text(200),
  role: z.enum(participantRoles),
  name: text(200),
  providerArchiveId: text(200),
  recordingStatus: z.enum(recordingStatuses),
  url: storableText(z.url({ protocol: /^https?$/ }).max(2000)),
  first: z.number().int().min(1).max(200),
  after: z.string().max(512),
  /**
   * When a provider event happened (default now): a future time would bill minutes not yet
   * connected, so eventTime refuses it against the request's clock.
   */
  at: z.date(),
};

const nullable = <S extends z.ZodType>(schema: S) => schema.nullish().transform((v) => v ?? null);
const optional = <S extends z.ZodType>(schema: S) => schema.nullish().transform((v) => v ?? undefined);

export const createVideoCallInput = z.object({
  presetId: videoFields.presetId,
  title: nullable(videoFields.title),
  description: nullable(videoFields.description),
  metadata: nullable(videoFields.metadata),
  hostName: nullable(videoFields.hostName),
  guestName: nullable(videoFields.guestName),
  provider: nullable(videoFields.provider),
  contactcenter: videoFields.contactcenter,
});
export type CreateVideoCallInput = z.output<typeof createVideoCallInput>;

export const videoCallListArgs = z.object({
  appId: z.uuid(),
  first: pageSize,
  after: optional(videoFields.after),
  last: pageSize,
  before: optional(videoFields.after),
  status: optional(videoFields.callStatus),
});

/** Columns of a call from the API's object (GraphQL input or an imported record). */
export function callColumns(input: CreateVideoCallInput) {
  return {
    presetId: input.presetId,
    title: input.title,
    description: input.description,
    metadata: input.metadata,
    hostName: input.hostName,
    guestName: input.guestName,
    providerName: input.provider?.name ?? null,
    providerMeetingId: input.provider?.meetingId ?? null,
    conversationId: input.contactcenter.conversationId,
    ccHostOrigin: input.contactcenter.ccHostOrigin,
    ccTargetEnv: input.contactcenter.ccTargetEnv,
    ccLangTag: input.contactcenter.ccLangTag,
    ccUsePopupAuth: input.contactcenter.ccUsePopupAuth,
  };
}

export async function getVideoCall(ctx: RequestContext, appId: string, callId: string): Promise<VideoCallRow> {
  const [row] = await ctx.runtime.database.db
    .select()
    .from(videoCalls)
    .where(and(eq(videoCalls.appId, appId), eq(videoCalls.id, callId)))
    .limit(1);
  if (!row) throw notFound('Video call');
  return row;
}

/**
 * The video host's lookup by callId alone: a call of an app outside the
 * token's apps is not_found, exactly like an unknown one, so ids of other tenants are not revealed.
 */
export async function lookupVideoCall(ctx: RequestContext, callId: string): Promise<VideoCallRow> {
  const apps = [...(ctx.auth?.apps ?? [])];
  const [row] = await ctx.runtime.database.db
    .select()
    .from(videoCalls)
    .where(and(eq(videoCalls.id, callId), inArray(videoCalls.appId, apps)))
    .limit(1);
  if (!row) throw notFound('Video call');
  return row;
}

/** One keyset page of an app's calls, newest first (created_at desc, id desc). */
export async function listVideoCalls(ctx: RequestContext, args: z.output<typeof videoCallListArgs>): Promise<Page<VideoCallRow>> {
  return list.page(ctx.runtime.database.db, ctx.runtime.keys.cursorKeys, args, [args.status ? eq(videoCalls.status, args.status) : undefined]);
}

/** A video call as the event log shows it, snake_case (without its participants and recordings, which have their own events). */
export const videoCallRecord = (call: VideoCallRow) => ({
  id: call.id,
  app_id: call.appId,
  status: call.status,
  preset_id: call.presetId,
  title: call.title,
  description: call.description,
  metadata: call.metadata,
  host_name: call.hostName,
  guest_name: call.guestName,
  provider: call.providerName === null ? null : { name: call.providerName, meeting_id: call.providerMeetingId },
  contactcenter: {
    conversation_id: call.conversationId,
    cc_host_origin: call.ccHostOrigin,
    cc_target_env: call.ccTargetEnv,
    cc_lang_tag: call.ccLangTag,
    cc_use_popup_auth: call.ccUsePopupAuth,
  },
  created_at: call.createdAt.toISOString(),
  updated_at: call.updatedAt.toISOString(),
});

const participantRecord = (p: VideoParticipantRow) => ({
  id: p.id,
  video_call_id: p.callId,
  provider_participant_id: p.providerParticipantId,
  role: p.role,
  name: p.name,
  joined_at: p.joinedAt.toISOString(),
  left_at: p.leftAt?.toISOString() ?? null,
});

const recordingRecord = (r: VideoRecordingRow) => ({
  id: r.id,
  video_call_id: r.callId,
  provider_archive_id: r.providerArchiveId,
  status: r.status,
  url: r.url,
  created_at: r.createdAt.toISOString(),
  updated_at: r.updatedAt.toISOString(),
});

/** The one insert of a video call and its video_call.created event, in the caller's transaction. */
async function insertVideoCall(tx: Tx, ctx: RequestContext, appId: string, input: CreateVideoCallInput, now: Date, scheduledCallId: string | null = null) {
  const [row] = await tx
    .insert(videoCalls)
    .values({ appId, status: 'created', ...callColumns(input), scheduledCallId, createdAt: now, updatedAt: now })
    .returning();
  await recordEvents(tx, appId, actorOf(ctx), [{ type: 'video_call.created', resource: videoCallRecord(row!) }], now);
  return row!;
}

export async function createVideoCall(ctx: RequestContext, appId: string, input: CreateVideoCallInput): Promise<VideoCallRow> {
  const now = ctx.runtime.clock.now();
  return writeTransaction(ctx, (tx) => insertVideoCall(tx, ctx, appId, input, now));
}

const servingCall = (appId: string, scheduledCallId: string) => and(eq(videoCalls.appId, appId), eq(videoCalls.scheduledCallId, scheduledCallId));

/**
 * The video call of a scheduled call, created on the first request and returned as it is on every
 * later one. The scheduled call's row lock serializes creators; the unique link is the backstop.
 * Only a call still `scheduled` gets one (409 otherwise); another app's call is not_found.
 */
export async function startScheduledCallVideo(ctx: RequestContext, appId: string, scheduledCallId: string, input: CreateVideoCallInput): Promise<VideoCallRow> {
  const now = ctx.runtime.clock.now();
  const existing = () => ctx.runtime.database.db.select().from(videoCalls).where(servingCall(appId, scheduledCallId)).limit(1);
  try {
    return await writeTransaction(ctx, async (tx) => {
      const [call] = await tx
        .select({ status: scheduledCalls.status })
        .from(scheduledCalls)
        .where(and(eq(scheduledCalls.appId, appId), eq(scheduledCalls.id, scheduledCallId)))
        .for('update');
      if (!call) throw notFound('Scheduled call');
      const [linked] = await tx.select().from(videoCalls).where(servingCall(appId, scheduledCallId)).limit(1);
      if (linked) return linked;
      if (call.status !== 'scheduled') throw conflict(`Scheduled call ${scheduledCallId} is ${call.status}: only a scheduled call can start its video call`);
      return insertVideoCall(tx, ctx, appId, input, now, scheduledCallId);
    });
  } catch (error) {
    if (pgErrorCode(error) !== UNIQUE_VIOLATION) throw error;
    const [winner] = await existing();
    if (!winner) throw error;
    return winner;
  }
}

/** The event each provider event records; call_ended's resource is the call, the others' what `apply` wrote. */
const eventTypeOf: Record<CallEvent, EventType> = {
  participant_joined: 'video_call.participant_joined',
  participant_left: 'video_call.participant_left',
  call_ended: 'video_call.ended',
  recording_status: 'recording.updated',
};

/**
 * One provider event in one transaction: the call row is locked (concurrent events of a call
 * apply one after the other), the move is checked (409 when refused), `apply` writes the
 * participant or recording, and the call takes its new status.
 */
async function applyEvent(
  ctx: RequestContext,
  key: CallKey,
  event: CallEvent,
  at: Date,
  apply: (tx: Tx, call: VideoCallRow) => Promise<Record<string, unknown> | undefined>,
): Promise<VideoCallRow> {
  const updated = await writeTransaction(ctx, async (tx) => {
    const [call] = await tx
      .select()
      .from(videoCalls)
      .where(and(eq(videoCalls.appId, key.appId), eq(videoCalls.id, key.callId)))
      .for('update');
    if (!call) throw notFound('Video call');
    const move = callMove(call.status as CallStatus, event);
    if (!move.ok) throw conflict(`Video call ${key.callId}: ${move.reason}`);
    const written = await apply(tx, call);
    const [row] = await tx
      .update(videoCalls)
      .set({ status: move.to, updatedAt: at > call.updatedAt ? at : call.updatedAt })
      .where(and(eq(videoCalls.appId, key.appId), eq(videoCalls.id, key.callId)))
      .returning();
    await recordEvents(tx, key.appId, actorOf(ctx), [{ type: eventTypeOf[event], resource: written ?? videoCallRecord(row!) }], ctx.runtime.clock.now());
    return row!;
  });
  // A later field of the same operation must see what this event wrote.
  forgetVideoCall(ctx, key);
  return updated;
}

/** A provider event's time: `at`, refused beyond the clock skew ahead of the clock, or now. */
function eventTime(ctx: RequestContext, at: Date | undefined): Date {
  const now = ctx.runtime.clock.now();
  refuseFutureTime(now, 'at', at);
  return at ?? now;
}

export const participantJoinedArgs = z.object({
  appId: z.uuid(),
  callId: videoFields.callId,
  providerParticipantId: videoFields.providerParticipantId,
  role: videoFields.role,
  name: videoFields.name,
  at: optional(videoFields.at),
});

/** Participant sessions one call keeps (joins, rejoins), as many as an import may bring. */
export const MAX_CALL_SESSIONS = 1000;

/** A join opens a new session; the provider participant must not be connected already (409). */
export function recordParticipantJoined(ctx: RequestContext, args: z.output<typeof participantJoinedArgs>): Promise<VideoCallRow> {
  const at = eventTime(ctx, args.at);
  return applyEvent(ctx, args, 'participant_joined', at, async (tx) => {
    const [connected] = await tx
      .select({ id: videoParticipants.id })
      .from(videoParticipants)
      .where(and(sessionOf(args, args.providerParticipantId), isNull(videoParticipants.leftAt)))
      .limit(1);
    if (connected) throw conflict(`Participant ${args.providerParticipantId} is already connected to this call`);
    // The call row is locked: the count cannot move under this check.
    const [{ sessions }] = (await tx
      .select({ sessions: sql<number>`count(*)::int` })
      .from(videoParticipants)
      .where(and(eq(videoParticipants.appId, args.appId), eq(videoParticipants.callId, args.callId)))) as [{ sessions: number }];
    if (sessions >= MAX_CALL_SESSIONS) throw conflict(`Video call ${args.callId} has ${MAX_CALL_SESSIONS} participant sessions, the most a call keeps`);
    const [joined] = await tx
      .insert(videoParticipants)
      .values({
        appId: args.appId,
        callId: args.callId,
        providerParticipantId: args.providerParticipantId,
        role: args.role,
        name: args.name,
        joinedAt: at,
      })
      .returning();
    return participantRecord(joined!);
  });
}

export const participantLeftArgs = z.object({
  appId: z.uuid(),
  callId: videoFields.callId,
  providerParticipantId: videoFields.providerParticipantId,
  at: optional(videoFields.at),
});

/** Closes the participant's connected session; one that already left is 409, an unknown one 404. */
export function recordParticipantLeft(ctx: RequestContext, args: z.output<typeof participantLeftArgs>): Promise<VideoCallRow> {
  const at = eventTime(ctx, args.at);
  return applyEvent(ctx, args, 'participant_left', at, async (tx) => {
    const sessions = await tx
      .select({ id: videoParticipants.id, joinedAt: videoParticipants.joinedAt, leftAt: videoParticipants.leftAt })
      .from(videoParticipants)
      .where(sessionOf(args, args.providerParticipantId));
    const open = sessions.find((s) => s.leftAt === null);
    if (!open) {
      if (sessions.length === 0) throw notFound('Participant');
      throw conflict(`Participant ${args.providerParticipantId} has already left this call`);
    }
    if (at < open.joinedAt) {
      throw validationFailed([{ field: 'at', code: 'invalid_value', message: `must not be before the join at ${open.joinedAt.toISOString()}` }]);
    }
    const [left] = await tx
      .update(videoParticipants)
      .set({ leftAt: at })
      .where(and(eq(videoParticipants.appId, args.appId), eq(videoParticipants.callId, args.callId), eq(videoParticipants.id, open.id)))
      .returning();
    return participantRecord(left!);
  });
}

export const callEndedArgs = z.object({ appId: z.uuid(), callId: videoFields.callId, at: optional(videoFields.at) });

/** Ends the call; participants still connected leave at the same instant, so billing stops. */
export function recordCallEnded(ctx: RequestContext, args: z.output<typeof callEndedArgs>): Promise<VideoCallRow> {
  const at = eventTime(ctx, args.at);
  return applyEvent(ctx, args, 'call_ended', at, async (tx, call) => {
    await tx
      .update(videoParticipants)
      // Raw fragments take ISO text (postgres.js does not serialize a Date outside a column). A join
      // stamped after the end (ahead by the clock skew, or delivered out of order) leaves at its
      // join: refusing the end would leave the call active, billing, on every retry.
      .set({ leftAt: sql`greatest(${at.toISOString()}::timestamptz, ${videoParticipants.joinedAt})` })
      .where(and(eq(videoParticipants.appId, args.appId), eq(videoParticipants.callId, args.callId), isNull(videoParticipants.leftAt)));
    // The booking this call served took place: its outcome commits with the end, or neither does.
    if (call.scheduledCallId) await completeServedCall(tx, ctx, args.appId, call.scheduledCallId, ctx.runtime.clock.now());
    return undefined;
  });
}

export const recordingStatusArgs = z.object({
  appId: z.uuid(),
  callId: videoFields.callId,
  providerArchiveId: videoFields.providerArchiveId,
  status: videoFields.recordingStatus,
  url: optional(videoFields.url),
  at: optional(videoFields.at),
});

/**
 * Creates the recording on its first event, then moves it (lifecycle.recordingMove). `url` is
 * replaced when given and kept otherwise; a failed recording has none.
 */
export function recordRecordingStatus(ctx: RequestContext, args: z.output<typeof recordingStatusArgs>): Promise<VideoCallRow> {
  const at = eventTime(ctx, args.at);
  return applyEvent(ctx, args, 'recording_status', at, async (tx) => {
    const [existing] = await tx
      .select()
      .from(videoRecordings)
      .where(
        and(
          eq(videoRecordings.appId, args.appId),
          eq(videoRecordings.callId, args.callId),
          eq(videoRecordings.providerArchiveId, args.providerArchiveId),
        ),
      )
      .limit(1);
    const move = recordingMove(existing?.status as RecordingStatus | undefined, args.status);
    if (!move.ok) throw conflict(`Recording ${args.providerArchiveId}: ${move.reason}`);
    const url = move.to === 'failed' ? null : (args.url ?? existing?.url ?? null);
    if (!existing) {
      const [created] = await tx
        .insert(videoRecordings)
        .values({
          appId: args.appId,
          callId: args.callId,
          providerArchiveId: args.providerArchiveId,
          status: move.to,
          url,
          createdAt: at,
          updatedAt: at,
        })
        .returning();
      return recordingRecord(created!);
    }
    const [updated] = await tx
      .update(videoRecordings)
      .set({ status: move.to, url, updatedAt: at > existing.updatedAt ? at : existing.updatedAt })
      .where(and(eq(videoRecordings.appId, args.appId), eq(videoRecordings.callId, args.callId), eq(videoRecordings.id, existing.id)))
      .returning();
    return recordingRecord(updated!);
  });
}

const sessionOf = (key: CallKey, providerParticipantId: string) =>
  and(
    eq(videoParticipants.appId, key.appId),
    eq(videoParticipants.callId, key.callId),
    eq(videoParticipants.providerParticipantId, providerParticipantId),
  );
