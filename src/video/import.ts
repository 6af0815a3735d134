import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Tx } from '../db/client.js';
import { excludedSet } from '../db/raw.js';
import { notInFuture } from '../errors/zod-details.js';
import type { ImportType } from '../importer/ndjson.js';
import { instantString } from '../time/instant-input.js';
import { callColumns, createVideoCallInput, videoFields } from './service.js';
import { videoCalls, videoParticipants, videoRecordings } from './tables.js';

// NDJSON `video_call` is the video host's call object, camelCase, with its participants and
// recordings. Derived values (participants' billedMinutes, usage) are accepted and recomputed.
const instant = instantString;
// What the provider reported (joins, leaves, recordings) has happened: a future time is refused
// as it is on the provider events, since it would bill minutes not yet connected. `now` is the
// import's clock, so the record schema is built per import.
const videoCallRecord = (now: () => Date) => {
  const pastInstant = notInFuture(instant, now);
  const nullablePastInstant = pastInstant.nullish().transform((v) => v ?? null);

  const participantRecord = z.strictObject({
    id: z.uuid(),
    providerParticipantId: videoFields.providerParticipantId,
    role: videoFields.role,
    name: videoFields.name,
    joinedAt: pastInstant,
    leftAt: nullablePastInstant,
    billedMinutes: z.number().optional(),
  });

  const recordingRecord = z.strictObject({
    id: z.uuid(),
    providerArchiveId: videoFields.providerArchiveId,
    url: videoFields.url.nullish().transform((v) => v ?? null),
    status: videoFields.recordingStatus,
    createdAt: pastInstant,
    updatedAt: pastInstant,
  });

  return z
    .strictObject({
      ...createVideoCallInput.shape,
      callId: videoFields.callId,
      status: videoFields.callStatus,
      participants: z.array(participantRecord).max(1000).default([]),
      usage: z.strictObject({ participantMinutes: z.number() }).optional(),
      recordings: z.array(recordingRecord).max(1000).default([]),
      createdAt: instant.optional(),
      updatedAt: instant.optional(),
    })
    // The same rules the provider events keep (lifecycle.ts), so imported calls can move on.
    .superRefine((call, ctx) => {
      const issue = (path: PropertyKey[], message: string) => ctx.addIssue({ code: 'custom', path, message, params: { code: 'invalid_value' } });
      if (call.status === 'created' && call.participants.length > 0) issue(['participants'], 'a created call has no participants yet');
      if (call.status === 'created' && call.recordings.length > 0) issue(['recordings'], 'a created call has no recordings yet');
      const connected = new Set<string>();
      call.participants.forEach((p, i) => {
        if (p.leftAt && p.leftAt < p.joinedAt) issue(['participants', i, 'leftAt'], 'must not be before joinedAt');
        if (p.leftAt === null && call.status === 'ended') issue(['participants', i, 'leftAt'], 'required: everyone has left an ended call');
        if (p.leftAt === null && connected.has(p.providerParticipantId)) issue(['participants', i, 'providerParticipantId'], 'already connected in another session');
        if (p.leftAt === null) connected.add(p.providerParticipantId);
      });
      duplicates(call.participants.map((p) => p.id)).forEach((i) => issue(['participants', i, 'id'], 'duplicate id'));
      duplicates(call.recordings.map((r) => r.id)).forEach((i) => issue(['recordings', i, 'id'], 'duplicate id'));
      duplicates(call.recordings.map((r) => r.providerArchiveId)).forEach((i) => issue(['recordings', i, 'providerArchiveId'], 'duplicate providerArchiveId'));
    });
};

type VideoCallRecord = z.output<ReturnType<typeof videoCallRecord>>;

function duplicates(values: string[]): number[] {
  const seen = new Set<string>();
  return values.flatMap((v, i) => (seen.has(v) ? [i] : (seen.add(v), [])));
}

/** Multi-row inserts stay well under PostgreSQL's 65,535 bind parameters. */
const CHUNK = 1000;
async function insertChunked<T>(rows: T[], insert: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) await insert(rows.slice(i, i + CHUNK));
}

const callUpdateColumns = [
  'status', 'presetId', 'title', 'description', 'metadata', 'hostName', 'guestName', 'providerName', 'providerMeetingId',
  'conversationId', 'ccHostOrigin', 'ccTargetEnv', 'ccLangTag', 'ccUsePopupAuth', 'updatedAt',
] as const;

/**
 * Upsert on callId, then the call's participants and recordings are replaced by the record's,
 * all inside the import's transaction. A callId already used by another app is refused: the
 * lookup host finds calls by callId alone, so it is unique across apps.
 */
async function writeCalls(tx: Tx, appId: string, records: VideoCallRecord[], now: Date): Promise<void> {
  const byId = new Map(records.map((r) => [r.callId, r]));
  const calls = [...byId.values()];
  const ids = calls.map((c) => c.callId);
  const foreign = await tx
    .select({ id: videoCalls.id })
    .from(videoCalls)
    .where(and(inArray(videoCalls.id, ids), ne(videoCalls.appId, appId)));
  if (foreign.length > 0) throw new Error(`callId ${foreign[0]!.id} belongs to another app`);

  const rows = calls.map((c) => ({
    id: c.callId,
    appId,
    status: c.status,
    ...callColumns(c),
    createdAt: c.createdAt ?? now,
    updatedAt: c.updatedAt ?? now,
  }));
  // A record without createdAt keeps the stored one; a record with it sets it.
  const withCreated = rows.filter((_, i) => calls[i]!.createdAt !== undefined);
  const withoutCreated = rows.filter((_, i) => calls[i]!.createdAt === undefined);
  for (const [group, columns] of [
    [withCreated, [...callUpdateColumns, 'createdAt']],
    [withoutCreated, callUpdateColumns],
  ] as const) {
    await insertChunked(group, async (chunk) => {
      const written = await tx
        .insert(videoCalls)
        .values(chunk)
        // Never updates another app's call, even one inserted since the check above.
        .onConflictDoUpdate({ target: videoCalls.id, set: excludedSet(videoCalls, columns), setWhere: sql`${videoCalls.appId} = excluded.app_id` })
        .returning({ id: videoCalls.id });
      if (written.length < chunk.length) throw new Error('a callId of this batch belongs to another app');
    });
  }

  await tx.delete(videoParticipants).where(and(eq(videoParticipants.appId, appId), inArray(videoParticipants.callId, ids)));
  await tx.delete(videoRecordings).where(and(eq(videoRecordings.appId, appId), inArray(videoRecordings.callId, ids)));
  const participants = calls.flatMap((c) =>
    c.participants.map((p) => ({
      appId,
      callId: c.callId,
      id: p.id,
      providerParticipantId: p.providerParticipantId,
      role: p.role,
      name: p.name,
      joinedAt: p.joinedAt,
      leftAt: p.leftAt,
    })),
  );
  const recordings = calls.flatMap((c) =>
    c.recordings.map((r) => ({
      appId,
      callId: c.callId,
      id: r.id,
      providerArchiveId: r.providerArchiveId,
      url: r.url,
      status: r.status,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    })),
  );
  await insertChunked(participants, (chunk) => tx.insert(videoParticipants).values(chunk));
  await insertChunked(recordings, (chunk) => tx.insert(videoRecordings).values(chunk));
}

export const videoCallImport: ImportType<ReturnType<typeof videoCallRecord>> = {
  type: 'video_call',
  schema: videoCallRecord,
  write: writeCalls,
};
