import { parseInput } from '../errors/zod-details.js';
import { AppRef } from '../apps/graphql.js';
import { slotRefusalCodes } from '../errors/app-error.js';
import { builder } from '../graphql/builder.js';
import { closedEnum } from '../graphql/enums.js';
import { filterShape } from '../graphql/list-filter.js';
import { zodInputFields } from '../graphql/zod-input.js';
import { availability, availabilityExplained, MAX_CANDIDATES } from './availability.service.js';
import { availabilityArgs } from './fields.js';
import { busyKinds, type RejectedCandidate, type RejectionReason, type Slot } from './slots.js';

// GET /video/{appId}/availability as a query, plus an explain mode that runs the same engine
// and also returns each rejected candidate with its reasons.

const AvailabilitySlot = builder.objectRef<Slot>('AvailabilitySlot').implement({
  description: 'An open slot of one agent.',
  fields: (t) => ({
    startUtc: t.exposeString('startUtc', { description: 'toISOString() form, e.g. 2026-03-08T14:00:00.000Z.' }),
    endUtc: t.exposeString('endUtc', { description: 'Slot end, ISO 8601 UTC.' }),
    agentId: t.exposeString('agentId', { description: 'The agent the slot is open for.' }),
  }),
});

const Availability = builder.objectRef<{ slots: Slot[] }>('Availability').implement({ description: 'Open slots for the requested window.',
  fields: (t) => ({
    slots: t.field({ type: [AvailabilitySlot], description: 'Sorted by startUtc, then agentId.', resolve: (a) => a.slots }),
  }),
});

const RejectionCodeEnum = closedEnum(
  'AvailabilityRejectionCode',
  slotRefusalCodes,
  "Why a candidate is not a slot; a 409 booking refusal's details name the same codes.",
  {
    outside_working_hours: 'Not inside working hours or an available_extra exception.',
    conflicts_call: 'The candidate itself overlaps a scheduled call.',
    buffer_overlap: 'Only its buffered range overlaps a call, blocked window or do-not-disturb window (kind says which).',
    blocked: 'The candidate itself overlaps a blocked exception.',
    do_not_disturb: 'The candidate itself overlaps a do-not-disturb window.',
    minimum_notice: 'It starts sooner than the minimum notice.',
    beyond_horizon: 'It starts after the booking horizon.',
    misaligned: 'It does not start on the alignment grid.',
    daily_limit: "The agent's calls that local day are at the daily limit.",
    weekly_limit: "The agent's calls that local week are at the weekly limit.",
  },
);

const BusyKindEnum = closedEnum('AvailabilityBusyKind', busyKinds, 'What a buffer runs into: a scheduled call, a blocked exception or a do-not-disturb window.');

const RejectionReasonRef = builder.objectRef<RejectionReason>('AvailabilityRejection').implement({
  description: 'Why a candidate is not a slot.',
  fields: (t) => ({
    code: t.expose('code', { type: RejectionCodeEnum, description: 'The reason (the values say what each means).' }),
    id: t.exposeString('id', { nullable: true, description: 'The call, exception or do-not-disturb window responsible.' }),
    kind: t.expose('kind', { type: BusyKindEnum, nullable: true, description: 'For buffer_overlap: call, blocked or dnd; null otherwise.' }),
  }),
});

const RejectedCandidateRef = builder.objectRef<RejectedCandidate>('RejectedCandidate').implement({ description: 'A candidate slot that was not offered, and why.',
  fields: (t) => ({
    startUtc: t.exposeString('startUtc', { description: 'Start, ISO 8601 UTC (inclusive).' }),
    endUtc: t.exposeString('endUtc', { description: 'End, ISO 8601 UTC (exclusive).' }),
    agentId: t.exposeString('agentId', { description: 'The agent of the candidate.' }),
    reasons: t.field({ description: 'Every reason the candidate was not offered.', type: [RejectionReasonRef], resolve: (c) => c.reasons }),
  }),
});

const AvailabilityExplanation = builder.objectRef<{ slots: Slot[]; rejected: RejectedCandidate[] }>('AvailabilityExplanation').implement({
  description: 'The slots availability returns, and every other candidate with its reasons.',
  fields: (t) => ({
    slots: t.field({ description: 'The offered slots (as availability returns them).', type: [AvailabilitySlot], resolve: (a) => a.slots }),
    rejected: t.field({ type: [RejectedCandidateRef], description: 'Sorted by startUtc, then agentId.', resolve: (a) => a.rejected }),
  }),
});

const argumentHints = {
  fromUtc: 'Window start, ISO 8601 UTC.',
  toUtc: 'Window end, after fromUtc.',
  durationMinutes: { description: '5 to 480; the size of each candidate.', validate: true },
  agentId: 'One agent; default every agent with working hours.',
  stepMinutes: { description: 'Grid resolution, 1 to 1440; default durationMinutes.', validate: true },
  bufferBeforeMinutes: { description: '0 to 1440; default 0.', validate: true },
  bufferAfterMinutes: { description: '0 to 1440; default 0.', validate: true },
  respectWorkingHours: 'Default true; false also offers slots outside working hours (conflicts still apply).',
} as const;
const availabilityFieldArgs = builder.args((t) => zodInputFields(t, availabilityArgs, { appId: 'The app (tenant) it belongs to.', ...argumentHints }));
// On App: the same arguments but the app, which is the parent.
const appAvailabilityArgs = builder.args((t) => zodInputFields(t, filterShape(availabilityArgs), argumentHints));

const limits = `More than ${MAX_CANDIDATES} candidates (grid starts × agents) is invalid_request.`;

builder.queryField('availability', (t) =>
  t.field({
    type: Availability,
    description: `Open slots on a grid of stepMinutes inside working hours or an available_extra window, free of calls, blocked windows and do-not-disturb windows (with buffers); computed fresh on every request. ${limits} Scope: scheduling:read.`,
    authScopes: (_root, args) => ({ $all: { scope: 'scheduling:read', app: args.appId } }),
    extensions: { validationErrorType: 'invalid_request' },
    args: availabilityFieldArgs,
    resolve: (_root, args, ctx) => availability(ctx, parseInput(availabilityArgs, args, 'invalid_request')),
  }),
);

builder.queryField('availabilityExplained', (t) =>
  t.field({
    type: AvailabilityExplanation,
    description: `availability with the same arguments and engine, plus every rejected candidate and why ("why is 10:00 not offered?"). ${limits} Scope: scheduling:read.`,
    authScopes: (_root, args) => ({ $all: { scope: 'scheduling:read', app: args.appId } }),
    extensions: { validationErrorType: 'invalid_request' },
    args: availabilityFieldArgs,
    resolve: (_root, args, ctx) => availabilityExplained(ctx, parseInput(availabilityArgs, args, 'invalid_request')),
  }),
);

builder.objectFields(AppRef, (t) => ({
  availability: t.field({
    type: Availability,
    description: `Open slots of this app's agents, as the root availability. ${limits} Scope: scheduling:read.`,
    authScopes: (app) => ({ $all: { scope: 'scheduling:read', app: app.id } }),
    extensions: { validationErrorType: 'invalid_request' },
    args: appAvailabilityArgs,
    resolve: (app, args, ctx) => availability(ctx, parseInput(availabilityArgs, { ...args, appId: app.id }, 'invalid_request')),
  }),
  availabilityExplained: t.field({
    type: AvailabilityExplanation,
    description: `availability of this app with every rejected candidate and why, as the root availabilityExplained. ${limits} Scope: scheduling:read.`,
    authScopes: (app) => ({ $all: { scope: 'scheduling:read', app: app.id } }),
    extensions: { validationErrorType: 'invalid_request' },
    args: appAvailabilityArgs,
    resolve: (app, args, ctx) => availabilityExplained(ctx, parseInput(availabilityArgs, { ...args, appId: app.id }, 'invalid_request')),
  }),
}));
