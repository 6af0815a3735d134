import { and, inArray, isNotNull } from 'drizzle-orm';
import { z } from 'zod';
import { detailsUnder } from '../errors/app-error.js';
import { parseInput } from '../errors/zod-details.js';
import { AppRef } from '../apps/graphql.js';
import { builder } from '../graphql/builder.js';
import { keysetConnection, pageArgs, pageComplexity, toConnection } from '../graphql/connection.js';
import { filterInput, listArgs } from '../graphql/list-filter.js';
import { zodInputFields } from '../graphql/zod-input.js';
import {
  cancelScheduledCall,
  createScheduledCall,
  getScheduledCall,
  listScheduledCalls,
  recordCallOutcome,
  updateScheduledCall,
} from './calls.service.js';
import {
  actorTypes,
  ANSWERS_MAX,
  bookingAnswer,
  callOutcomes,
  callListArgs,
  callStatuses,
  createCallInput,
  schedulingFields,
  timelineEventTypes,
  updateCallInput,
  type BookingAnswer,
} from './fields.js';
import { closedEnum } from '../graphql/enums.js';
import { appEvents } from '../events/tables.js';
import { scheduledCalls, type ScheduledCallRow } from './tables.js';
import { inTimeline, timelineEventOf, timelineLogTypes, type TimelineEvent } from './timeline-events.js';
import { eventsLoader } from './timeline.js';
import { asNode } from '../graphql/node.js';

// Scheduled calls and their timeline, with every REST operation's twin. Scheduling paths report
// bad input as invalid_request, so these fields do too: one error type per domain.
const invalidRequest = { validationErrorType: 'invalid_request' } as const;
const read = (appId: string) => ({ $all: { scope: 'scheduling:read' as const, app: appId } });
const write = (appId: string) => ({ $all: { scope: 'scheduling:write' as const, app: appId } });

export const ScheduledCallStatusEnum = closedEnum('ScheduledCallStatus', callStatuses, 'The state of a scheduled call; all but scheduled are final.');
const TimelineEventTypeEnum = closedEnum('TimelineEventType', timelineEventTypes, 'What a call timeline entry records.');
const TimelineActorTypeEnum = closedEnum('TimelineActorType', actorTypes, 'Who caused a timeline entry: client (an API caller) or system.');
const CallOutcomeEnum = closedEnum('ScheduledCallOutcome', callOutcomes, 'The final state a started call ends in: completed or no_show.');

export const ScheduledCallEvent = builder.objectRef<TimelineEvent>('ScheduledCallEvent').implement({
  description: 'One entry of a call timeline, oldest first.',
  fields: (t) => ({
    eventId: t.exposeID('id', { description: 'Event id (UUID), its raw id; pass it as `after` to resume a subscription.' }),
    callId: t.exposeID('callId', { description: 'The scheduled call.' }),
    eventType: t.expose('eventType', { type: TimelineEventTypeEnum, description: 'What happened.' }),
    actorType: t.expose('actorType', { type: TimelineActorTypeEnum, description: 'client (an API caller) or system.' }),
    actorId: t.exposeString('actorId', { description: 'The client id for client actors.' }),
    payload: t.field({
      type: 'JSON',
      description:
        'created {scheduled_at, assigned_agent_id}; rescheduled {from, to}; assigned {from, to}; updated {fields}; cancelled {reason}; a PATCH reason is attached as `reason`.',
      resolve: (event) => event.payload,
    }),
    createdAt: t.expose('createdAt', { description: 'When the event was appended (ISO 8601 UTC).', type: 'DateTime' }),
  }),
});

const BookingAnswerRef = builder.objectRef<BookingAnswer>('BookingAnswer').implement({
  description: 'The answer a guest gave to one booking question.',
  fields: (t) => ({
    question: t.exposeString('question', { description: 'The question as it was asked.' }),
    answer: t.exposeString('answer', { description: 'The answer; empty when the guest left an optional question blank.' }),
  }),
});

const BookingAnswerInput = builder.inputType('BookingAnswerInput', {
  description: 'An answer to one booking question.',
  fields: (t) => zodInputFields(t, bookingAnswer, { question: 'The question, 1 to 300 characters.', answer: 'The answer, up to 2000 characters (may be empty).' }),
});

const metadataDescription = 'Flat key-value pairs: at most 50 keys of 1 to 40 characters; values strings (up to 500 characters), numbers or booleans.';

export const ScheduledCall = builder.objectRef<ScheduledCallRow>('ScheduledCall').implement({
  description: 'A booked video call with an agent. Scope: scheduling:read.',
  fields: (t) => ({
    callId: t.exposeID('id', { description: 'Call id (UUID), its raw id.' }),
    appId: t.exposeID('appId', { description: 'The app of the call.' }),
    assignedAgentId: t.exposeID('assignedAgentId', { description: 'The agent assigned to the call.' }),
    bookingSource: t.exposeString('bookingSource', { description: 'Where the booking came from, as the booking gave it (an open set, so a string; imports default to `import`); `api` unless given.' }),
    guestName: t.exposeString('guestName', { description: 'Guest display name.' }),
    guestPhone: t.exposeString('guestPhone', { description: 'Guest phone number, or null.', nullable: true }),
    guestEmail: t.exposeString('guestEmail', { description: 'Guest e-mail address, or null.', nullable: true }),
    guestTimezone: t.exposeString('guestTimezone', { description: "IANA time zone; the app's when not given." }),
    guestIntakeNotes: t.exposeString('guestIntakeNotes', { description: 'Free-text notes taken when booking.', nullable: true }),
    metadata: t.field({ type: 'JSON', nullable: true, description: `${metadataDescription} Null when none.`, resolve: (call) => call.metadata }),
    answers: t.field({
      type: [BookingAnswerRef],
      nullable: true,
      description: 'Answers to booking questions, in the order given; null when none.',
      resolve: (call) => call.answers,
    }),
    scheduledAt: t.expose('scheduledAt', { description: 'Start time, ISO 8601 UTC.', type: 'DateTime' }),
    durationMinutes: t.exposeInt('durationMinutes', { description: 'Length in minutes (5 to 480).' }),
    appTimezone: t.exposeString('appTimezone', { description: "The app's IANA time zone at booking." }),
    status: t.expose('status', { type: ScheduledCallStatusEnum, description: 'All but scheduled are final.' }),
    cancelledAt: t.expose('cancelledAt', { description: 'When it was cancelled, or null.', type: 'DateTime', nullable: true }),
    cancellationReason: t.exposeString('cancellationReason', { description: 'Reason given when cancelled; null when none was given or the call is not cancelled.', nullable: true }),
    createdAt: t.expose('createdAt', { description: 'When it was booked (ISO 8601 UTC).', type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { description: 'When it last changed (ISO 8601 UTC).', type: 'DateTime' }),
    events: t.field({
      type: [ScheduledCallEvent],
      description: 'The timeline, oldest first; batched for a page of calls (one query).',
      complexity: { field: 1, multiplier: 3 },
      resolve: (call, _args, ctx) => eventsLoader(ctx).load({ appId: call.appId, callId: call.id }),
    }),
  }),
});

const ScheduledCallConnection = keysetConnection('ScheduledCall', ScheduledCall, 'A page of scheduled calls in (scheduledAt, id) order.');

const guestEmailFilter = 'Calls whose guest e-mail is this address, compared case-insensitively (exact, not a substring).';
const guestPhoneFilter = 'Calls whose guest phone has these digits: +44 7700 900123 and +447700900123 are the same number.';

const ScheduledCallFilter = filterInput('ScheduledCallFilter', 'Which calls a list holds: every field given must match.', callListArgs, {
  status: { description: 'Calls in this state.', type: ScheduledCallStatusEnum },
  agentId: 'Calls assigned to this agent.',
  fromUtc: 'Calls starting at or after this instant.',
  toUtc: 'Calls starting before this instant.',
  guestEmail: guestEmailFilter,
  guestPhone: guestPhoneFilter,
});

builder.queryField('scheduledCall', (t) =>
  t.field({
    type: ScheduledCall,
    description: "One call of the app; another app's call is not_found. Scope: scheduling:read.",
    authScopes: (_root, args) => read(args.appId),
    extensions: invalidRequest,
    args: { appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }), id: t.arg({ description: 'The record id (UUID).', type: 'UUID', required: true }) },
    resolve: (_root, args, ctx) => getScheduledCall(ctx, args.appId, args.id),
  }),
);

builder.queryField('scheduledCalls', (t) =>
  t.field({
    type: ScheduledCallConnection,
    description: 'Calls of an app in (scheduledAt, id) order, optionally filtered. Scope: scheduling:read.',
    authScopes: (_root, args) => read(args.appId),
    extensions: invalidRequest,
    complexity: pageComplexity,
    args: {
      appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
      ...pageArgs(t.arg, { size: schedulingFields.first, cursor: schedulingFields.after }),
      status: t.arg({ type: ScheduledCallStatusEnum, description: 'Calls in this state.' }),
      agentId: t.arg({ type: 'UUID', description: 'Calls assigned to this agent.' }),
      fromUtc: t.arg({ type: 'DateTime', description: 'Calls starting at or after this instant.' }),
      toUtc: t.arg({ type: 'DateTime', description: 'Calls starting before this instant.' }),
      guestEmail: t.arg.string({ description: guestEmailFilter, validate: { schema: schedulingFields.guestEmailFilter } }),
      guestPhone: t.arg.string({ description: guestPhoneFilter, validate: { schema: schedulingFields.guestPhoneFilter } }),
      filter: t.arg({ type: ScheduledCallFilter, description: 'The filters as one input; not together with the separate filter arguments.' }),
    },
    resolve: (_root, args, ctx) => toConnection(ctx, listScheduledCalls(ctx, listArgs(callListArgs, args, 'invalid_request'))),
  }),
);

builder.objectField(AppRef, 'scheduledCalls', (t) =>
  t.field({
    type: ScheduledCallConnection,
    description: 'Calls of this app in (scheduledAt, id) order, earliest first. Scope: scheduling:read.',
    authScopes: (app) => read(app.id),
    extensions: invalidRequest,
    complexity: pageComplexity,
    args: {
      ...pageArgs(t.arg, { size: schedulingFields.first, cursor: schedulingFields.after }),
      filter: t.arg({ type: ScheduledCallFilter, description: 'Which calls; default all.' }),
    },
    resolve: (app, args, ctx) => toConnection(ctx, listScheduledCalls(ctx, listArgs(callListArgs, { ...args, appId: app.id }, 'invalid_request'))),
  }),
);

const CreateScheduledCallInput = builder.inputType('CreateScheduledCallInput', {
  description: 'A call to book, as the body of POST /video/{appId}/scheduled-calls.',
  fields: (t) =>
    zodInputFields(t, createCallInput, {
      scheduledAtUtc: 'Start; must be in the future.',
      durationMinutes: '5 to 480.',
      guestName: 'Guest display name (required, 1 to 200 characters).',
      assignedAgentId: 'Absent: the least busy available agent that day.',
      guestPhone: 'Guest phone number, e.g. +447700900123.',
      guestEmail: 'Guest e-mail address.',
      guestTimezone: "IANA time zone; default the app's.",
      bookingSource: 'Where the booking came from, in your own words (widget, phone, ...; up to 100 characters): an open set, so a string. Default `api`.',
      guestIntakeNotes: 'Intake notes, up to 5000 characters.',
      metadata: `${metadataDescription} Absent, null or {}: none.`,
      answers: { description: `Answers to booking questions (at most ${ANSWERS_MAX}), kept in order. Absent, null or []: none.`, type: [BookingAnswerInput] },
    }),
});

const UpdateScheduledCallInput = builder.inputType('UpdateScheduledCallInput', {
  description:
    'A change to a call, as the PATCH body: every field optional, at least one editable field required. An absent field is unchanged; null clears guestPhone, guestEmail, guestIntakeNotes, metadata and answers, and is refused (invalid_request) for the fields a call always has.',
  fields: (t) =>
    zodInputFields(t, updateCallInput, {
      scheduledAtUtc: 'New start; emits rescheduled and re-plans reminders. Absent: unchanged. Never null: a call always has a start (null is refused).',
      assignedAgentId: 'Reassigns; emits assigned. Absent: unchanged. Never null: a call always has an agent (null is refused).',
      guestName: 'New guest display name. Absent: unchanged. Never null: a call always has a guest name (null is refused).',
      guestPhone: 'New guest phone number; null clears it. Absent: unchanged.',
      guestEmail: 'New guest e-mail address; null clears it. Absent: unchanged.',
      guestTimezone: 'New guest IANA time zone. Absent: unchanged. Never null: a call always has one (null is refused).',
      guestIntakeNotes: 'Replaces the intake notes (up to 5000 characters); null clears them. Absent: unchanged.',
      metadata:
        'Merged into the stored metadata: each key given is set, a key given as null is removed, other keys stay; null clears it all. The result must hold at most 50 keys. Absent: unchanged.',
      answers: { description: 'Replaces the whole list of answers; null or [] clears it. Absent: unchanged.', type: [BookingAnswerInput] },
      reason: 'Free text attached to each event this change emits; absent or null: none.',
    }),
});

builder.mutationField('createScheduledCall', (t) =>
  t.field({
    type: ScheduledCall,
    description:
      'Books a call into an available slot (the availability test without buffers); conflict (409) when it is not available. Scope: scheduling:write.',
    authScopes: (_root, args) => write(args.appId),
    extensions: invalidRequest,
    args: { appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }), input: t.arg({ description: 'The fields, validated as the REST body is.', type: CreateScheduledCallInput, required: true }) },
    resolve: (_root, args, ctx) => {
      const { input } = parseInput(z.object({ input: createCallInput }), args, 'invalid_request');
      return detailsUnder('input', () => createScheduledCall(ctx, args.appId, input));
    },
  }),
);

builder.mutationField('updateScheduledCall', (t) =>
  t.field({
    type: ScheduledCall,
    description:
      'Edits one call (PATCH); conflict (409) in a final state or when the new slot is not available. Scope: scheduling:write.',
    authScopes: (_root, args) => write(args.appId),
    extensions: invalidRequest,
    args: {
      appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
      id: t.arg({ description: 'The record id (UUID).', type: 'UUID', required: true }),
      input: t.arg({ description: 'The fields, validated as the REST body is.', type: UpdateScheduledCallInput, required: true }),
    },
    resolve: (_root, args, ctx) => {
      const { input } = parseInput(z.object({ input: updateCallInput }), args, 'invalid_request');
      return detailsUnder('input', () => updateScheduledCall(ctx, args.appId, args.id, input));
    },
  }),
);

builder.mutationField('cancelScheduledCall', (t) =>
  t.field({
    type: ScheduledCall,
    description: 'Cancels a call (DELETE), keeping it on record; a repeat returns the call unchanged. Scope: scheduling:write.',
    authScopes: (_root, args) => write(args.appId),
    extensions: invalidRequest,
    args: {
      appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
      id: t.arg({ description: 'The record id (UUID).', type: 'UUID', required: true }),
      reason: t.arg.string({ description: 'Stored as cancellationReason.', validate: { schema: schedulingFields.reason } }),
    },
    resolve: (_root, args, ctx) => cancelScheduledCall(ctx, args.appId, args.id, args.reason ?? undefined),
  }),
);

builder.mutationField('recordScheduledCallOutcome', (t) =>
  t.field({
    type: ScheduledCall,
    description: 'Moves a started call to completed or no_show (final). Scope: scheduling:write.',
    authScopes: (_root, args) => write(args.appId),
    extensions: invalidRequest,
    args: {
      appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
      id: t.arg({ description: 'The record id (UUID).', type: 'UUID', required: true }),
      outcome: t.arg({ type: CallOutcomeEnum, required: true, description: 'completed or no_show.' }),
      reason: t.arg.string({ description: 'Free text attached to the event.', validate: { schema: schedulingFields.reason } }),
    },
    resolve: (_root, args, ctx) =>
      recordCallOutcome(ctx, args.appId, args.id, args.outcome, args.reason ?? undefined),
  }),
);

asNode(ScheduledCall, { table: scheduledCalls, appId: scheduledCalls.appId, id: scheduledCalls.id, uuid: true, scope: 'scheduling:read', appIdOf: (row) => row.appId, rawIdOf: (row) => row.id });
// A timeline entry is a log event of a timeline type with its call as subject.
asNode(ScheduledCallEvent, {
  table: appEvents,
  appId: appEvents.appId,
  id: appEvents.id,
  uuid: true,
  scope: 'scheduling:read',
  visible: and(isNotNull(appEvents.subjectId), inArray(appEvents.type, timelineLogTypes)),
  rows: async (ctx, where) => (await ctx.runtime.database.db.select().from(appEvents).where(where)).filter(inTimeline).map(timelineEventOf),
  appIdOf: (row) => row.appId,
  rawIdOf: (row) => row.id,
});
