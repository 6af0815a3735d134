import { parseInput } from '../errors/zod-details.js';
import { builder } from '../graphql/builder.js';
import { zodInputFields } from '../graphql/zod-input.js';
import { atDescription, batchedList, callHints, callKey, eventDescription, VideoCall, VideoRecordingStatusEnum } from './calls.graphql.js';
import { recordingStatuses } from './lifecycle.js';
import { recordingsLoader } from './loaders.js';
import { recordingStatusArgs, recordRecordingStatus } from './service.js';
import { videoRecordings, type VideoRecordingRow } from './tables.js';
import { asNode } from '../graphql/node.js';

// Recordings (archives) of a video call, and the provider's recording status events.

const VideoRecording = builder.objectRef<VideoRecordingRow>('VideoRecording').implement({
  description: 'A recording (archive) of the call.',
  fields: (t) => ({
    recordingId: t.exposeID('id', { description: 'Recording id (UUID), its raw id; unique within its call.' }),
    callId: t.exposeID('callId', { description: 'The call recorded (UUID).' }),
    providerArchiveId: t.exposeString('providerArchiveId', { description: "The provider's archive id." }),
    url: t.exposeString('url', { nullable: true, description: 'Download URL; it may expire.' }),
    status: t.expose('status', { type: VideoRecordingStatusEnum, description: `One of ${recordingStatuses.join(', ')}.` }),
    createdAt: t.expose('createdAt', { description: 'When it was created (ISO 8601 UTC).', type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { description: 'When it last changed (ISO 8601 UTC).', type: 'DateTime' }),
  }),
});

builder.objectField(VideoCall, 'recordings', (t) =>
  t.field({
    type: [VideoRecording],
    description: 'Oldest first; batched per request.',
    complexity: batchedList,
    resolve: (call, _args, ctx) => recordingsLoader(ctx).load(callKey(call)),
  }),
);

builder.mutationField('recordVideoRecordingStatus', (t) =>
  t.field({
    type: VideoCall,
    description: eventDescription(
      'Provider event: a recording (by providerArchiveId) was created or changed status. A new recording may start in any status; processing moves to available or failed; available and failed are final (repeating the same status is accepted and may refresh the url). The call must have started (active or ended).',
    ),
    authScopes: (_root, args) => ({ $all: { scope: 'scheduling:write', app: args.appId } }),
    args: builder.args((a) =>
      zodInputFields(a, recordingStatusArgs, {
        ...callHints,
        providerArchiveId: { description: "The provider's archive id.", validate: true },
        status: { type: VideoRecordingStatusEnum, description: `One of ${recordingStatuses.join(', ')}.` },
        url: { description: 'Download URL (http or https); kept when omitted; cleared when failed.', validate: true },
        at: atDescription,
      }),
    ),
    resolve: (_root, args, ctx) => recordRecordingStatus(ctx, parseInput(recordingStatusArgs, args)),
  }),
);

asNode(VideoRecording, {
  table: videoRecordings,
  appId: videoRecordings.appId,
  id: videoRecordings.id,
  uuid: true,
  scope: 'video:read',
  parent: { column: videoRecordings.callId, of: (row) => row.callId },
  appIdOf: (row) => row.appId,
  rawIdOf: (row) => row.id,
});
