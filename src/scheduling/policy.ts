import { z } from 'zod';
import { assignmentStrategies, type AssignmentStrategy } from './assignment.js';
import { noBookingRules, type BookingRules } from './slots.js';

// Booking policy: the app's rules and an agent's overrides, validated once here (GraphQL
// arguments, the import) and merged into the BookingRules the engine applies.

const MINUTES_PER_DAY = 24 * 60;

/** Each rule's bounds. Nullable rules are off when null. */
export const ruleFields = {
  minimumNoticeMinutes: z.number().int().min(0).max(365 * MINUTES_PER_DAY),
  horizonDays: z.number().int().min(1).max(3650).nullable(),
  bufferBeforeMinutes: z.number().int().min(0).max(MINUTES_PER_DAY),
  bufferAfterMinutes: z.number().int().min(0).max(MINUTES_PER_DAY),
  maxCallsPerDay: z.number().int().min(1).max(1000).nullable(),
  maxCallsPerWeek: z.number().int().min(1).max(5000).nullable(),
  // A divisor of a day, so that every local day starts on the grid.
  alignmentMinutes: z
    .number()
    .int()
    .min(1)
    .max(MINUTES_PER_DAY)
    .refine((n) => MINUTES_PER_DAY % n === 0, 'must divide 1440 (a day), e.g. 5, 10, 15, 20, 30 or 60')
    .nullable(),
} satisfies { [K in keyof BookingRules]: z.ZodType<BookingRules[K]> };
export const ruleNames = Object.keys(ruleFields) as (keyof BookingRules)[];

export type AgentPolicyOverrides = Partial<BookingRules>;

const absentWhenNull = <S extends z.ZodType>(schema: S) => schema.nullish().transform((v) => v ?? undefined);

/** The app's policy, replaced whole: a rule left out (or null) is off, its default. */
export const bookingPolicyInput = z.object({
  minimumNoticeMinutes: absentWhenNull(ruleFields.minimumNoticeMinutes),
  horizonDays: absentWhenNull(ruleFields.horizonDays),
  bufferBeforeMinutes: absentWhenNull(ruleFields.bufferBeforeMinutes),
  bufferAfterMinutes: absentWhenNull(ruleFields.bufferAfterMinutes),
  maxCallsPerDay: absentWhenNull(ruleFields.maxCallsPerDay),
  maxCallsPerWeek: absentWhenNull(ruleFields.maxCallsPerWeek),
  alignmentMinutes: absentWhenNull(ruleFields.alignmentMinutes),
  assignment: absentWhenNull(z.enum(assignmentStrategies)),
});
export type BookingPolicyInput = z.output<typeof bookingPolicyInput>;

/**
 * An agent's own rules and round-robin settings, replaced whole: a rule given overrides the
 * app's, one left out follows it. null turns a rule that can be off (horizon, limits,
 * alignment) off for this agent; for the others null is the same as leaving it out.
 */
export const agentBookingPolicyInput = z.object({
  minimumNoticeMinutes: absentWhenNull(ruleFields.minimumNoticeMinutes),
  horizonDays: ruleFields.horizonDays.optional(),
  bufferBeforeMinutes: absentWhenNull(ruleFields.bufferBeforeMinutes),
  bufferAfterMinutes: absentWhenNull(ruleFields.bufferAfterMinutes),
  maxCallsPerDay: ruleFields.maxCallsPerDay.optional(),
  maxCallsPerWeek: ruleFields.maxCallsPerWeek.optional(),
  alignmentMinutes: ruleFields.alignmentMinutes.optional(),
  priority: absentWhenNull(z.number().int().min(0).max(4)),
  weight: absentWhenNull(z.number().int().min(1).max(1000)),
});
export type AgentBookingPolicyInput = z.output<typeof agentBookingPolicyInput>;

export const defaultPriority = 2;
export const defaultWeight = 100;

export interface AppPolicy extends BookingRules {
  assignment: AssignmentStrategy;
}
export const defaultAppPolicy: AppPolicy = { ...noBookingRules, assignment: 'least_busy' };

/** The policy an input sets: the rules and strategy given, the defaults for the others. */
export function appPolicyOf(input: BookingPolicyInput): AppPolicy {
  const policy: AppPolicy = { ...defaultAppPolicy };
  for (const [name, value] of Object.entries(input)) if (value !== undefined) Object.assign(policy, { [name]: value });
  return policy;
}

/**
 * A schema's fields under their snake_case names (the import's records), same rules: an issue's
 * path names the field as the record spells it.
 */
export function snakeCaseShape<T extends z.ZodRawShape>(shape: T): Record<string, T[keyof T]> {
  return Object.fromEntries(Object.entries(shape).map(([name, schema]) => [snakeCase(name), schema])) as Record<string, T[keyof T]>;
}
export const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The rules given in an input: the fields present, nulls kept (a rule turned off). */
export function overridesOf(input: Partial<Record<keyof BookingRules, unknown>>): AgentPolicyOverrides {
  const overrides: Record<string, unknown> = {};
  for (const name of ruleNames) if (input[name] !== undefined) overrides[name] = input[name];
  return overrides as AgentPolicyOverrides;
}

/** The app's rules with the agent's overrides on top. */
export function effectiveRules(app: BookingRules, overrides: AgentPolicyOverrides): BookingRules {
  const rules = { ...app };
  for (const name of ruleNames) if (overrides[name] !== undefined) Object.assign(rules, { [name]: overrides[name] });
  return rules;
}

/** The app's rules alone, from its policy row (or the defaults). */
export function rulesOf(policy: AppPolicy): BookingRules {
  const { assignment: _assignment, ...rules } = policy;
  return rules;
}
