import { parseInput } from '../errors/zod-details.js';
import { builder } from '../graphql/builder.js';
import { zodInputFields } from '../graphql/zod-input.js';
import { atDescription, batchedList, callHints, callKey, eventDescription, VideoCall, VideoParticipantRoleEnum } from './calls.graphql.js';
import { participantRoles } from './lifecycle.js';
import { participantsLoader, type BilledParticipant } from './loaders.js';
import { asNode } from '../graphql/node.js';
import { billCall } from './billing.js';
import { videoParticipants } from './tables.js';
import { participantJoinedArgs, participantLeftArgs, recordParticipantJoined, recordParticipantLeft } from './service.js';

// Participants of a video call: their sessions and billed minutes, and the provider's join and
// leave events.

const VideoParticipant = builder.objectRef<BilledParticipant>('VideoParticipant').implement({
  description: 'One connected session of a participant; a rejoin after leaving is a new session.',
  fields: (t) => ({
    participantId: t.exposeID('id', { description: 'Participant id (UUID), its raw id; unique within its call.' }),
    callId: t.exposeID('callId', { description: 'The call of the session (UUID).' }),
    providerParticipantId: t.exposeString('providerParticipantId', { description: "The provider's participant id." }),
    role: t.expose('role', { type: VideoParticipantRoleEnum, description: `One of ${participantRoles.join(', ')}.` }),
    name: t.exposeString('name', { description: 'Display name.' }),
    joinedAt: t.expose('joinedAt', { description: 'When the participant joined (ISO 8601).', type: 'DateTime' }),
    leftAt: t.expose('leftAt', { type: 'DateTime', nullable: true, description: 'Null while connected.' }),
    billedMinutes: t.exposeInt('billedMinutes', {
      description: 'Whole minutes connected, rounded up; counted up to now while connected.',
    }),
  }),
});

const VideoUsage = builder.objectRef<{ participantMinutes: number }>('VideoUsage').implement({
  description: 'Usage of a call.',
  fields: (t) => ({
    participantMinutes: t.exposeInt('participantMinutes', { description: "Sum of the participants' billedMinutes, up to 2,147,483,647 (the largest Int)." }),
  }),
});

builder.objectFields(VideoCall, (t) => ({
  participants: t.field({
    type: [VideoParticipant],
    description: 'In join order; batched per request (one query per page of calls).',
    complexity: batchedList,
    resolve: async (call, _args, ctx) => (await participantsLoader(ctx).load(callKey(call))).participants,
  }),
  usage: t.field({ description: 'Billed participant minutes of the call.',
    type: VideoUsage,
    resolve: async (call, _args, ctx) => ({ participantMinutes: (await participantsLoader(ctx).load(callKey(call))).participantMinutes }),
  }),
}));

builder.mutationField('recordVideoParticipantJoined', (t) =>
  t.field({
    type: VideoCall,
    description: eventDescription(
      'Provider event: a participant joined (a new session). The first join moves the call from created to active; an ended call refuses joins, and so does a participant already connected.',
    ),
    authScopes: (_root, args) => ({ $all: { scope: 'scheduling:write', app: args.appId } }),
    args: builder.args((a) =>
      zodInputFields(a, participantJoinedArgs, {
        ...callHints,
        providerParticipantId: { description: "The provider's participant id.", validate: true },
        role: { type: VideoParticipantRoleEnum, description: `One of ${participantRoles.join(', ')}.` },
        name: { description: 'Display name.', validate: true },
        at: atDescription,
      }),
    ),
    resolve: (_root, args, ctx) => recordParticipantJoined(ctx, parseInput(participantJoinedArgs, args)),
  }),
);

builder.mutationField('recordVideoParticipantLeft', (t) =>
  t.field({
    type: VideoCall,
    description: eventDescription(
      "Provider event: a participant left; closes its connected session. The call stays active (only recordVideoCallEnded ends it). Leaving twice is 409; an unknown participant is not_found; `at` before the join is validation_error.",
    ),
    authScopes: (_root, args) => ({ $all: { scope: 'scheduling:write', app: args.appId } }),
    args: builder.args((a) =>
      zodInputFields(a, participantLeftArgs, {
        ...callHints,
        providerParticipantId: { description: "The provider's participant id.", validate: true },
        at: atDescription,
      }),
    ),
    resolve: (_root, args, ctx) => recordParticipantLeft(ctx, parseInput(participantLeftArgs, args)),
  }),
);

// A session is billed against the clock when it is read, as in its call's list.
asNode(VideoParticipant, {
  table: videoParticipants,
  appId: videoParticipants.appId,
  id: videoParticipants.id,
  uuid: true,
  scope: 'video:read',
  parent: { column: videoParticipants.callId, of: (row) => row.callId },
  rows: async (ctx, where) => billCall(await ctx.runtime.database.db.select().from(videoParticipants).where(where), ctx.runtime.clock.now()).sessions,
  appIdOf: (row) => row.appId,
  rawIdOf: (row) => row.id,
});
