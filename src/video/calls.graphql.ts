import { parseInput } from '../errors/zod-details.js';
import { AppRef } from '../apps/graphql.js';
import { builder } from '../graphql/builder.js';
import { keysetConnection, pageArgs, pageComplexity, toConnection } from '../graphql/connection.js';
import { filterInput, listArgs } from '../graphql/list-filter.js';
import { zodInputFields } from '../graphql/zod-input.js';
import { closedEnum } from '../graphql/enums.js';
import { callStatuses, participantRoles, recordingStatuses } from './lifecycle.js';
import {
  callEndedArgs,
  createVideoCall,
  createVideoCallInput,
  getVideoCall,
  listVideoCalls,
  lookupVideoCall,
  recordCallEnded,
  videoCallListArgs,
  videoFields,
} from './service.js';
import { videoCalls, type VideoCallRow } from './tables.js';
import { asNode } from '../graphql/node.js';

// Video calls, with the fields the video host's lookup returns (participants and usage:
// participants.graphql.ts; recordings: recordings.graphql.ts). Reads need video:read; there is no
// video write scope, so creating calls and recording provider events use scheduling:write, the
// scope that creates calls.

const VideoProvider = builder.objectRef<{ name: string; meetingId: string }>('VideoProvider').implement({
  description: 'The video provider hosting the call.',
  fields: (t) => ({ name: t.exposeString('name', { description: 'Provider name.' }), meetingId: t.exposeString('meetingId', { description: "The provider's meeting id." }) }),
});

const VideoContactCenter = builder.objectRef<VideoCallRow>('VideoContactCenter').implement({
  description: 'Contact-center context of the call.',
  fields: (t) => ({
    conversationId: t.exposeString('conversationId', { description: 'Contact-center conversation id.' }),
    ccHostOrigin: t.exposeString('ccHostOrigin', { description: 'Origin of the contact-center host page.' }),
    ccTargetEnv: t.exposeString('ccTargetEnv', { description: 'Target environment of the contact center.' }),
    ccLangTag: t.exposeString('ccLangTag', { description: 'Language tag of the contact-center UI.' }),
    ccUsePopupAuth: t.exposeBoolean('ccUsePopupAuth', { description: 'Whether the contact center authenticates in a popup.' }),
  }),
});

export const callKey = (call: VideoCallRow) => ({ appId: call.appId, callId: call.id });
// A call has a handful of sessions and recordings, loaded for a whole page in one query: weighed
// as 2 items rather than the default 10, so a page of 50 calls with every field fits the budget.
export const batchedList = { field: 1, multiplier: 2 };

export const VideoCallStatusEnum = closedEnum('VideoCallStatus', callStatuses, 'The state of a video call: created, then active, then ended.');
export const VideoRecordingStatusEnum = closedEnum('VideoRecordingStatus', recordingStatuses, 'The state of a recording: processing, then available or failed.');
export const VideoParticipantRoleEnum = closedEnum('VideoParticipantRole', participantRoles, 'The part a participant plays in a video call.');

export const VideoCall = builder.objectRef<VideoCallRow>('VideoCall').implement({
  description: 'A video call with its participants, usage and recordings. Scope: video:read.',
  fields: (t) => ({
    callId: t.exposeID('id', { description: 'Unique call identifier (UUID).' }),
    appId: t.exposeID('appId', { description: 'The app of the call.' }),
    status: t.expose('status', { type: VideoCallStatusEnum, description: 'docs/graphql.md, "Video calls", for the moves.' }),
    presetId: t.exposeString('presetId', { description: 'The preset used.' }),
    title: t.exposeString('title', { description: 'Title set at creation, or null.', nullable: true }),
    description: t.exposeString('description', { description: 'Description set at creation, or null.', nullable: true }),
    metadata: t.field({ type: 'JSON', nullable: true, description: 'Free-form object.', resolve: (call) => call.metadata }),
    hostName: t.exposeString('hostName', { description: 'Custom host display name, or null.', nullable: true }),
    guestName: t.exposeString('guestName', { description: 'Guest display name.', nullable: true }),
    provider: t.field({ description: 'The video provider and its meeting id, or null.',
      type: VideoProvider,
      nullable: true,
      resolve: (call) => (call.providerName !== null && call.providerMeetingId !== null ? { name: call.providerName, meetingId: call.providerMeetingId } : null),
    }),
    contactcenter: t.field({ description: 'Contact-center context of the call.', type: VideoContactCenter, resolve: (call) => call }),
    createdAt: t.expose('createdAt', { description: 'When it was created (ISO 8601 UTC).', type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { description: 'When it last changed (ISO 8601 UTC).', type: 'DateTime' }),
  }),
});

const VideoCallConnection = keysetConnection('VideoCall', VideoCall, 'A page of video calls, newest first (created_at desc, id desc).');

const VideoCallFilter = filterInput('VideoCallFilter', 'Which video calls a list holds: every field given must match.', videoCallListArgs, {
  status: { description: 'Calls in this state.', type: VideoCallStatusEnum },
});

const videoScope = (appId: string) => ({ $all: { scope: 'video:read' as const, app: appId } });

builder.queryField('videoCall', (t) =>
  t.field({
    type: VideoCall,
    description: 'One video call of an app; not_found when the app has no call with this id. Scope: video:read.',
    authScopes: (_root, args) => ({ $all: { scope: 'video:read', app: args.appId } }),
    args: { appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }), callId: t.arg({ description: 'The call (UUID).', type: 'UUID', required: true }) },
    resolve: (_root, args, ctx) => getVideoCall(ctx, args.appId, args.callId),
  }),
);

builder.queryField('videoCallLookup', (t) =>
  t.field({
    type: VideoCall,
    description:
      "The video host's lookup (GET {video_url}/api/calls/{callId}): a call of any app the token may access; a call of another app is not_found. Scope: video:read.",
    authScopes: { scope: 'video:read' },
    args: { callId: t.arg({ description: 'The call (UUID).', type: 'UUID', required: true }) },
    resolve: (_root, args, ctx) => lookupVideoCall(ctx, args.callId),
  }),
);

builder.queryField('videoCalls', (t) =>
  t.field({
    type: VideoCallConnection,
    description: 'Video calls of an app, newest first, optionally of one status. Scope: video:read.',
    authScopes: (_root, args) => videoScope(args.appId),
    complexity: pageComplexity,
    args: {
      appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
      ...pageArgs(t.arg, { size: videoFields.first, cursor: videoFields.after }),
      status: t.arg({ type: VideoCallStatusEnum, description: 'Calls in this state.' }),
      filter: t.arg({ type: VideoCallFilter, description: 'The filters as one input; not together with the separate filter arguments.' }),
    },
    resolve: (_root, args, ctx) => toConnection(ctx, listVideoCalls(ctx, listArgs(videoCallListArgs, args))),
  }),
);

builder.objectField(AppRef, 'videoCalls', (t) =>
  t.field({
    type: VideoCallConnection,
    description: 'Video calls of this app, newest first (created_at desc, id desc). Scope: video:read.',
    authScopes: (app) => videoScope(app.id),
    complexity: pageComplexity,
    args: {
      ...pageArgs(t.arg, { size: videoFields.first, cursor: videoFields.after }),
      filter: t.arg({ type: VideoCallFilter, description: 'Which calls; default all.' }),
    },
    resolve: (app, args, ctx) => toConnection(ctx, listVideoCalls(ctx, listArgs(videoCallListArgs, { ...args, appId: app.id }))),
  }),
);

const VideoProviderInput = builder.inputType('VideoProviderInput', {
  description: 'The video provider and its meeting id.',
  fields: (t) =>
    zodInputFields(t, videoFields.provider, {
      name: { description: 'Provider name.', validate: true },
      meetingId: { description: "The provider's meeting id.", validate: true },
    }),
});

const VideoContactCenterInput = builder.inputType('VideoContactCenterInput', {
  description: 'Contact-center context stored with the call.',
  fields: (t) =>
    zodInputFields(t, videoFields.contactcenter, {
      conversationId: { description: 'Contact-center conversation id.', validate: true },
      ccHostOrigin: { description: 'Origin of the contact-center host page.', validate: true },
      ccTargetEnv: { description: 'Target environment of the contact center.', validate: true },
      ccLangTag: { description: 'Language tag of the contact-center UI.', validate: true },
      ccUsePopupAuth: 'Whether the contact center authenticates in a popup.',
    }),
});

export const CreateVideoCallInput = builder.inputType('CreateVideoCallInput', {
  description: 'A video call to create.',
  fields: (t) =>
    zodInputFields(t, createVideoCallInput, {
      presetId: { description: 'The preset to use.', validate: true },
      title: { description: 'Optional title.', validate: true },
      description: { description: 'Optional description.', validate: true },
      metadata: { description: 'A JSON object, or null.', validate: true },
      hostName: { description: 'Optional host display name.', validate: true },
      guestName: { description: 'Optional guest display name.', validate: true },
      provider: { description: 'The provider and its meeting id.', type: VideoProviderInput },
      contactcenter: { description: 'Contact-center context of the call.', type: VideoContactCenterInput },
    }),
});

export const eventDescription = (what: string) =>
  `${what} Runs in one transaction; a move the call's state does not allow is conflict (409). Scope: scheduling:write (there is no video write scope).`;
/** The arguments naming the call of a provider event. */
export const callHints = { appId: "The app (UUID); must be in the token's apps.", callId: 'The call (UUID).' };
export const atDescription = 'When it happened at the provider (default: now).';

builder.mutationField('createVideoCall', (t) =>
  t.field({
    type: VideoCall,
    description: 'Creates a video call in status created. Scope: scheduling:write (the scope that creates calls).',
    authScopes: (_root, args) => ({ $all: { scope: 'scheduling:write', app: args.appId } }),
    args: { appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }), input: t.arg({ description: 'The fields, validated as the REST body is.', type: CreateVideoCallInput, required: true }) },
    resolve: (_root, args, ctx) => createVideoCall(ctx, args.appId, parseInput(createVideoCallInput, args.input)),
  }),
);

builder.mutationField('recordVideoCallEnded', (t) =>
  t.field({
    type: VideoCall,
    description: eventDescription(
      'Provider event: the meeting ended. Moves created or active to ended; participants still connected leave at `at`. Ending twice is 409.',
    ),
    authScopes: (_root, args) => ({ $all: { scope: 'scheduling:write', app: args.appId } }),
    args: builder.args((a) => zodInputFields(a, callEndedArgs, { ...callHints, at: atDescription })),
    resolve: (_root, args, ctx) => recordCallEnded(ctx, parseInput(callEndedArgs, args)),
  }),
);

asNode(VideoCall, { table: videoCalls, appId: videoCalls.appId, id: videoCalls.id, uuid: true, scope: 'video:read', appIdOf: (row) => row.appId, rawIdOf: (row) => row.id });
