import DataLoader from 'dataloader';
import { z } from 'zod';
import { AppRef } from '../apps/graphql.js';
import { parseInput } from '../errors/zod-details.js';
import { builder } from '../graphql/builder.js';
import { closedEnum } from '../graphql/enums.js';
import { zodInputFields } from '../graphql/zod-input.js';
import { loader, type RequestContext } from '../runtime.js';
import { Agent } from './agents.graphql.js';
import { assignmentStrategies } from './assignment.js';
import { agentBookingPolicyInput, bookingPolicyInput, effectiveRules, rulesOf, type AppPolicy } from './policy.js';
import { getBookingPolicy, setAgentBookingPolicy, setBookingPolicy } from './policy.service.js';
import type { BookingRules } from './slots.js';

// Booking policy: the app's rules (App.bookingPolicy, setBookingPolicy) and an agent's own
// (Agent.bookingRules and bookingOverrides, setAgentBookingPolicy). Availability and booking
// both apply them.
const invalidRequest = { validationErrorType: 'invalid_request' } as const;
const read = (appId: string) => ({ $all: { scope: 'scheduling:read' as const, app: appId } });
const write = (appId: string) => ({ $all: { scope: 'scheduling:write' as const, app: appId } });

const AssignmentStrategyEnum = closedEnum('AssignmentStrategy', assignmentStrategies, 'How a booking without an agent picks one among the free agents.', {
  least_busy: 'The free agent with the fewest calls within 12 hours of the slot, then by agent id.',
  round_robin: 'Highest assignmentPriority first; within it, the fewest calls booked in the last 30 days per unit of assignmentWeight; then the larger weight, then agent id.',
});

const ruleDescriptions = {
  minimumNoticeMinutes: 'A slot starts at least this many minutes after now; 0: no minimum.',
  horizonDays: 'A slot starts at most this many days (24 hours each) after now; null: no limit.',
  bufferBeforeMinutes: 'Minutes kept free before each booked call of the agent.',
  bufferAfterMinutes: 'Minutes kept free after each booked call of the agent.',
  maxCallsPerDay: "Calls (not cancelled) that may start on one local day of the agent (its time zone); null: no limit.",
  maxCallsPerWeek: "Calls (not cancelled) that may start in one local week of the agent, Monday to Sunday; null: no limit.",
  alignmentMinutes: "Slots start on this grid of the agent's local minutes since midnight (a divisor of 1440, e.g. 15: :00, :15, :30, :45); null: any minute.",
} satisfies Record<keyof BookingRules, string>;

const BookingRulesRef = builder.objectRef<BookingRules>('BookingRules').implement({
  description: "An agent's booking rules in force: the app's policy with the agent's overrides on top.",
  fields: (t) => ({
    minimumNoticeMinutes: t.exposeInt('minimumNoticeMinutes', { description: ruleDescriptions.minimumNoticeMinutes }),
    horizonDays: t.exposeInt('horizonDays', { nullable: true, description: ruleDescriptions.horizonDays }),
    bufferBeforeMinutes: t.exposeInt('bufferBeforeMinutes', { description: ruleDescriptions.bufferBeforeMinutes }),
    bufferAfterMinutes: t.exposeInt('bufferAfterMinutes', { description: ruleDescriptions.bufferAfterMinutes }),
    maxCallsPerDay: t.exposeInt('maxCallsPerDay', { nullable: true, description: ruleDescriptions.maxCallsPerDay }),
    maxCallsPerWeek: t.exposeInt('maxCallsPerWeek', { nullable: true, description: ruleDescriptions.maxCallsPerWeek }),
    alignmentMinutes: t.exposeInt('alignmentMinutes', { nullable: true, description: ruleDescriptions.alignmentMinutes }),
  }),
});

const BookingPolicyRef = builder.objectRef<AppPolicy>('BookingPolicy').implement({
  description: "An app's booking policy: the rules of every agent without an override, and how a booking without an agent picks one.",
  fields: (t) => ({
    rules: t.field({ type: BookingRulesRef, description: 'The rules, before any agent override.', resolve: (policy) => rulesOf(policy) }),
    assignment: t.expose('assignment', { type: AssignmentStrategyEnum, description: 'least_busy (the default) or round_robin.' }),
  }),
});

/** The app's policy, loaded once per request for any number of agents. */
const policyOf = (ctx: RequestContext, appId: string) =>
  loader(ctx, 'scheduling.bookingPolicy', () => new DataLoader<string, AppPolicy>((ids) => Promise.all(ids.map((id) => getBookingPolicy(ctx, id))))).load(appId);

builder.objectField(AppRef, 'bookingPolicy', (t) =>
  t.field({
    type: BookingPolicyRef,
    description: "This app's booking policy (every rule off and least_busy until one is set). Scope: scheduling:read.",
    authScopes: (app) => read(app.id),
    extensions: invalidRequest,
    resolve: (app, _args, ctx) => policyOf(ctx, app.id),
  }),
);

builder.objectFields(Agent, (t) => ({
  bookingRules: t.field({
    type: BookingRulesRef,
    description: "The rules availability and booking apply to this agent: the app's policy with bookingOverrides on top.",
    resolve: async (agent, _args, ctx) => effectiveRules(rulesOf(await policyOf(ctx, agent.appId)), agent.bookingPolicy),
  }),
  bookingOverrides: t.field({
    type: 'JSON',
    description: "The rules this agent sets itself, by name (a null value: that rule off for this agent); any other follows the app's policy.",
    resolve: (agent) => agent.bookingPolicy,
  }),
  assignmentPriority: t.exposeInt('assignmentPriority', { description: 'round_robin: 0 (lowest) to 4 (highest), default 2; a higher group is offered calls first.' }),
  assignmentWeight: t.exposeInt('assignmentWeight', { description: 'round_robin: 1 to 1000, default 100; within a priority, calls are shared in proportion to weight.' }),
}));

const BookingPolicyInput = builder.inputType('BookingPolicyInput', {
  description: "An app's booking policy, replacing the one in force whole: a rule left out or null is off.",
  fields: (t) =>
    zodInputFields(t, bookingPolicyInput, {
      minimumNoticeMinutes: `${ruleDescriptions.minimumNoticeMinutes} 0 to 525600 (a year).`,
      horizonDays: `${ruleDescriptions.horizonDays} 1 to 3650.`,
      bufferBeforeMinutes: `${ruleDescriptions.bufferBeforeMinutes} 0 to 1440.`,
      bufferAfterMinutes: `${ruleDescriptions.bufferAfterMinutes} 0 to 1440.`,
      maxCallsPerDay: `${ruleDescriptions.maxCallsPerDay} 1 to 1000.`,
      maxCallsPerWeek: `${ruleDescriptions.maxCallsPerWeek} 1 to 5000.`,
      alignmentMinutes: ruleDescriptions.alignmentMinutes,
      assignment: { type: AssignmentStrategyEnum, description: 'least_busy (default) or round_robin.' },
    }),
});

const AgentBookingPolicyInput = builder.inputType('AgentBookingPolicyInput', {
  description:
    "An agent's own rules and round-robin settings, replacing its previous ones whole: a rule given overrides the app's, one left out follows it. null turns horizonDays, maxCallsPerDay, maxCallsPerWeek or alignmentMinutes off for this agent; for the other fields null is the same as leaving them out.",
  fields: (t) =>
    zodInputFields(t, agentBookingPolicyInput, {
      minimumNoticeMinutes: `${ruleDescriptions.minimumNoticeMinutes} 0 to 525600.`,
      horizonDays: `${ruleDescriptions.horizonDays} 1 to 3650.`,
      bufferBeforeMinutes: `${ruleDescriptions.bufferBeforeMinutes} 0 to 1440.`,
      bufferAfterMinutes: `${ruleDescriptions.bufferAfterMinutes} 0 to 1440.`,
      maxCallsPerDay: `${ruleDescriptions.maxCallsPerDay} 1 to 1000.`,
      maxCallsPerWeek: `${ruleDescriptions.maxCallsPerWeek} 1 to 5000.`,
      alignmentMinutes: ruleDescriptions.alignmentMinutes,
      priority: 'round_robin priority, 0 to 4; absent or null: 2.',
      weight: 'round_robin weight, 1 to 1000; absent or null: 100.',
    }),
});

builder.mutationField('setBookingPolicy', (t) =>
  t.field({
    type: BookingPolicyRef,
    description: "Replaces the app's booking policy; availability and every later booking or reschedule apply it. Scope: scheduling:write.",
    authScopes: (_root, args) => write(args.appId),
    extensions: invalidRequest,
    args: {
      appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
      input: t.arg({ description: 'The policy.', type: BookingPolicyInput, required: true }),
    },
    resolve: (_root, args, ctx) => setBookingPolicy(ctx, args.appId, parseInput(z.object({ input: bookingPolicyInput }), args, 'invalid_request').input),
  }),
);

builder.mutationField('setAgentBookingPolicy', (t) =>
  t.field({
    type: Agent,
    description: "Replaces an agent's own booking rules and round-robin priority and weight; not_found for an unknown agent. Scope: scheduling:write.",
    authScopes: (_root, args) => write(args.appId),
    extensions: invalidRequest,
    args: {
      appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
      agentId: t.arg({ description: 'The agent (UUID).', type: 'UUID', required: true }),
      input: t.arg({ description: "The agent's rules and settings.", type: AgentBookingPolicyInput, required: true }),
    },
    resolve: (_root, args, ctx) =>
      setAgentBookingPolicy(ctx, args.appId, args.agentId, parseInput(z.object({ input: agentBookingPolicyInput }), args, 'invalid_request').input),
  }),
);
