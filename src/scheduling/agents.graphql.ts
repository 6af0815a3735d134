import { z } from 'zod';
import { parseInput } from '../errors/zod-details.js';
import { AppRef } from '../apps/graphql.js';
import { builder } from '../graphql/builder.js';
import { closedEnum } from '../graphql/enums.js';
import { zodInputFields } from '../graphql/zod-input.js';
import {
  addAvailabilityException,
  addDndWindow,
  deleteAgent,
  dndWindowsOf,
  exceptionsOf,
  getAgent,
  listAgents,
  removeAvailabilityException,
  removeDndWindow,
  saveAgent,
  setWorkingHours,
} from './agents.service.js';
import { agentInput, exceptionInput, exceptionKinds, schedulingFields, windowInput, windowRange } from './fields.js';
import { agents, availabilityExceptions, dndWindows, type AgentRow, type AvailabilityExceptionRow, type DndWindowRow } from './tables.js';
import { weekdays } from './working-hours.js';
import { isNull } from 'drizzle-orm';
import { asNode } from '../graphql/node.js';

// Agents' calendars: reads need scheduling:read, changes scheduling:write, the scope that books
// calls too.
const invalidRequest = { validationErrorType: 'invalid_request' } as const;
const read = (appId: string) => ({ $all: { scope: 'scheduling:read' as const, app: appId } });
const write = (appId: string) => ({ $all: { scope: 'scheduling:write' as const, app: appId } });
const hoursDescription = `Weekly working hours in the agent's local time: {"mon": [["09:00", "17:00"]], …, "sun": []} (keys ${weekdays.join(', ')}); an interval whose end is not after its start runs past midnight; "24:00" may end an interval.`;

const ExceptionKindEnum = closedEnum('AvailabilityExceptionKind', exceptionKinds, 'blocked excludes slots; available_extra offers slots outside working hours.');

const AvailabilityException = builder.objectRef<AvailabilityExceptionRow>('AvailabilityException').implement({
  description: 'A blocked or available_extra window of an agent, in UTC.',
  fields: (t) => ({
    exceptionId: t.exposeID('id', { description: 'Exception id (UUID), its raw id.' }),
    agentId: t.exposeID('agentId', { description: 'The agent (UUID).' }),
    kind: t.expose('kind', { type: ExceptionKindEnum, description: 'blocked or available_extra.' }),
    startUtc: t.expose('startAt', { description: 'Start, ISO 8601 UTC (inclusive).', type: 'DateTime' }),
    endUtc: t.expose('endAt', { description: 'End, ISO 8601 UTC (exclusive).', type: 'DateTime' }),
  }),
});

const DndWindow = builder.objectRef<DndWindowRow>('DndWindow').implement({
  description: 'A do-not-disturb window of an agent, in UTC: no slot overlaps it.',
  fields: (t) => ({
    windowId: t.exposeID('id', { description: 'Window id (UUID), its raw id.' }),
    agentId: t.exposeID('agentId', { description: 'The agent (UUID).' }),
    startUtc: t.expose('startAt', { description: 'Start, ISO 8601 UTC (inclusive).', type: 'DateTime' }),
    endUtc: t.expose('endAt', { description: 'End, ISO 8601 UTC (exclusive).', type: 'DateTime' }),
  }),
});

const rangeArgs = builder.args((t) =>
  zodInputFields(t, windowRange, { fromUtc: 'Only windows ending after this instant.', toUtc: 'Only windows starting before this instant.' }),
);

export const Agent = builder.objectRef<AgentRow>('Agent').implement({
  description: 'A member who takes calls. Scope: scheduling:read.',
  fields: (t) => ({
    agentId: t.exposeID('id', { description: 'Agent id (UUID), its raw id.' }),
    name: t.exposeString('name', { description: "The agent's display name." }),
    timezone: t.exposeString('timezone', { description: 'IANA time zone of the working hours.' }),
    workingHours: t.field({ type: 'JSON', description: hoursDescription, resolve: (agent) => agent.workingHours }),
    exceptions: t.field({
      type: [AvailabilityException],
      description: 'Oldest first; batched for a list of agents.',
      args: rangeArgs,
      resolve: (agent, args, ctx) => exceptionsOf(ctx, agent.appId, agent.id, args),
    }),
    dndWindows: t.field({
      type: [DndWindow],
      description: 'Oldest first; batched for a list of agents.',
      args: rangeArgs,
      resolve: (agent, args, ctx) => dndWindowsOf(ctx, agent.appId, agent.id, args),
    }),
    createdAt: t.expose('createdAt', { description: 'When it was created (ISO 8601 UTC).', type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { description: 'When it last changed (ISO 8601 UTC).', type: 'DateTime' }),
    deletedAt: t.expose('deletedAt', {
      description: 'Only on what deleteAgent returns: when the agent was deleted, if it was kept for the calls on record that name it; null when it was removed outright.',
      type: 'DateTime',
      nullable: true,
    }),
  }),
});

builder.queryField('agents', (t) =>
  t.field({
    type: [Agent],
    description: "An app's agents by name. Scope: scheduling:read.",
    authScopes: (_root, args) => read(args.appId),
    extensions: invalidRequest,
    args: { appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }) },
    resolve: (_root, args, ctx) => listAgents(ctx, args.appId),
  }),
);

builder.objectField(AppRef, 'agents', (t) =>
  t.field({
    type: [Agent],
    description: "This app's agents by name. Scope: scheduling:read.",
    authScopes: (app) => read(app.id),
    extensions: invalidRequest,
    resolve: (app, _args, ctx) => listAgents(ctx, app.id),
  }),
);

builder.queryField('agent', (t) =>
  t.field({
    type: Agent,
    description: 'One agent; not_found for an unknown id. Scope: scheduling:read.',
    authScopes: (_root, args) => read(args.appId),
    extensions: invalidRequest,
    args: { appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }), id: t.arg({ description: 'The record id (UUID).', type: 'UUID', required: true }) },
    resolve: (_root, args, ctx) => getAgent(ctx, args.appId, args.id),
  }),
);

const AgentInput = builder.inputType('AgentInput', {
  description: 'An agent to create or update: name, IANA timezone and weekly working hours.',
  fields: (t) =>
    zodInputFields(t, agentInput, {
      id: 'Replaces the agent with this id; absent: a new agent.',
      name: "The agent's display name (1 to 200 characters).",
      timezone: 'IANA time zone.',
      workingHours: `${hoursDescription} Absent or null: no working hours.`,
    }),
});

builder.mutationField('saveAgent', (t) =>
  t.field({
    type: Agent,
    description: 'Creates an agent, or replaces the one with input.id. Scope: scheduling:write.',
    authScopes: (_root, args) => write(args.appId),
    extensions: invalidRequest,
    args: { appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }), input: t.arg({ description: 'The fields, validated as the REST body is.', type: AgentInput, required: true }) },
    resolve: (_root, args, ctx) => saveAgent(ctx, args.appId, parseInput(z.object({ input: agentInput }), args, 'invalid_request').input),
  }),
);

builder.mutationField('setAgentWorkingHours', (t) =>
  t.field({
    type: Agent,
    description: 'Replaces the weekly working hours of an agent. Scope: scheduling:write.',
    authScopes: (_root, args) => write(args.appId),
    extensions: invalidRequest,
    args: {
      appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
      agentId: t.arg({ description: 'The agent (UUID).', type: 'UUID', required: true }),
      workingHours: t.arg({ type: 'JSON', required: true, description: hoursDescription }),
    },
    resolve: (_root, args, ctx) =>
      setWorkingHours(ctx, args.appId, args.agentId, parseInput(z.object({ workingHours: schedulingFields.workingHours }), args, 'invalid_request').workingHours),
  }),
);

builder.mutationField('deleteAgent', (t) =>
  t.field({
    type: Agent,
    description: 'Deletes an agent with its exceptions and DND windows: conflict (409) while one of its calls is still scheduled; kept as deleted (deletedAt) when its calls on record are all final. Scope: scheduling:write.',
    authScopes: (_root, args) => write(args.appId),
    extensions: invalidRequest,
    args: { appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }), id: t.arg({ description: 'The record id (UUID).', type: 'UUID', required: true }) },
    resolve: (_root, args, ctx) => deleteAgent(ctx, args.appId, args.id),
  }),
);

builder.mutationField('addAvailabilityException', (t) =>
  t.field({
    type: AvailabilityException,
    description: 'Adds a blocked (excludes slots) or available_extra (offers slots outside working hours) window. Scope: scheduling:write.',
    authScopes: (_root, args) => write(args.appId),
    extensions: invalidRequest,
    args: builder.args((t) => ({
      appId: t.field({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
      ...zodInputFields(t, exceptionInput, {
        agentId: 'The agent (UUID).',
        kind: { type: ExceptionKindEnum, description: 'blocked or available_extra.' },
        startUtc: 'Start, ISO 8601 UTC.',
        endUtc: 'After startUtc.',
      }),
    })),
    resolve: (_root, args, ctx) => addAvailabilityException(ctx, args.appId, parseInput(exceptionInput, args, 'invalid_request')),
  }),
);

builder.mutationField('removeAvailabilityException', (t) =>
  t.field({
    type: AvailabilityException,
    description: 'Removes an exception; returns it. Scope: scheduling:write.',
    authScopes: (_root, args) => write(args.appId),
    extensions: invalidRequest,
    args: { appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }), id: t.arg({ description: 'The record id (UUID).', type: 'UUID', required: true }) },
    resolve: (_root, args, ctx) => removeAvailabilityException(ctx, args.appId, args.id),
  }),
);

builder.mutationField('addDndWindow', (t) =>
  t.field({
    type: DndWindow,
    description: 'Adds a do-not-disturb window. Scope: scheduling:write.',
    authScopes: (_root, args) => write(args.appId),
    extensions: invalidRequest,
    args: builder.args((t) => ({
      appId: t.field({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
      ...zodInputFields(t, windowInput, { agentId: 'The agent (UUID).', startUtc: 'Start, ISO 8601 UTC.', endUtc: 'After startUtc.' }),
    })),
    resolve: (_root, args, ctx) => addDndWindow(ctx, args.appId, parseInput(windowInput, args, 'invalid_request')),
  }),
);

builder.mutationField('removeDndWindow', (t) =>
  t.field({
    type: DndWindow,
    description: 'Removes a do-not-disturb window; returns it. Scope: scheduling:write.',
    authScopes: (_root, args) => write(args.appId),
    extensions: invalidRequest,
    args: { appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }), id: t.arg({ description: 'The record id (UUID).', type: 'UUID', required: true }) },
    resolve: (_root, args, ctx) => removeDndWindow(ctx, args.appId, args.id),
  }),
);

// A deleted agent is kept only for its calls' history: not refetchable, as its lists leave it out.
asNode(Agent, { table: agents, appId: agents.appId, id: agents.id, uuid: true, scope: 'scheduling:read', visible: isNull(agents.deletedAt), appIdOf: (row) => row.appId, rawIdOf: (row) => row.id });
asNode(AvailabilityException, { table: availabilityExceptions, appId: availabilityExceptions.appId, id: availabilityExceptions.id, uuid: true, scope: 'scheduling:read', appIdOf: (row) => row.appId, rawIdOf: (row) => row.id });
asNode(DndWindow, { table: dndWindows, appId: dndWindows.appId, id: dndWindows.id, uuid: true, scope: 'scheduling:read', appIdOf: (row) => row.appId, rawIdOf: (row) => row.id });
