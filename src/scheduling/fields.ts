import { z } from 'zod';
import { pageSize, pageSizeValue } from '../validation/list-input.js';
import { storableText, unstorableText } from '../validation/storable.js';
import { ianaTimeZone } from '../validation/time-zone.js';
import { refuseProtoKey } from '../validation/proto-key.js';
import { instantString } from '../time/instant-input.js';
import { weeklyHoursSchema } from './working-hours.js';

// Scheduling inputs, once: GraphQL arguments (plugin-zod), the services and the NDJSON import
// validate with these. Scheduling paths report bad input as `invalid_request`.

// Free text is refused when PostgreSQL cannot store it (NUL, a lone surrogate), with its path.
const text = (max: number) => storableText(z.string().trim().min(1).max(max));
const nullable = <S extends z.ZodType>(schema: S) => schema.nullish().transform((v) => v ?? null);
const optional = <S extends z.ZodType>(schema: S) => schema.nullish().transform((v) => v ?? undefined);
// Checked after trimming, so it ends on a non-space: then the pattern the API document states
// accepts exactly what the trimmed check does.
const phonePattern = /^\+?[0-9][0-9 ()-]{2,29}[0-9()-]$/;
const phoneMessage = 'must be a phone number, e.g. +447700900123';

/**
 * A phone number as the service compares phones: its digits, without the leading `+` and the
 * spaces, parentheses and dashes a guest phone may be written with.
 */
export const phoneDigits = (phone: string) => phone.replace(/[^0-9]/g, '');

/** ISO 8601 with `Z` or an offset: an explicit offset is as unambiguous as UTC. */
export const instant = instantString;

export const exceptionKinds = ['blocked', 'available_extra'] as const;
export const callStatuses = ['scheduled', 'cancelled', 'completed', 'no_show'] as const;
// The final states recordScheduledCallOutcome moves a started call to.
export const callOutcomes = ['completed', 'no_show'] as const;
// What a timeline entry records, and who caused it.
export const timelineEventTypes = ['created', 'rescheduled', 'assigned', 'updated', 'cancelled', 'completed', 'no_show'] as const;
export const actorTypes = ['client', 'system'] as const;
export type ScheduledCallStatus = (typeof callStatuses)[number];
export const finalStatuses: readonly ScheduledCallStatus[] = ['cancelled', 'completed', 'no_show'];

// A call's metadata: flat key-value pairs for the caller's own use (a CRM id, a campaign), bounded
// like Stripe's metadata, so what one call can hold of it is bounded.
export const METADATA_MAX_KEYS = 50;
export const METADATA_KEY_MAX_LENGTH = 40;
export const METADATA_VALUE_MAX_LENGTH = 500;
// Answers to booking questions, kept as given and in order.
export const ANSWERS_MAX = 30;
export const QUESTION_MAX_LENGTH = 300;
export const ANSWER_MAX_LENGTH = 2000;

const metadataValue = z.union([storableText(z.string().max(METADATA_VALUE_MAX_LENGTH)), z.number(), z.boolean()]);
export type MetadataValue = z.output<typeof metadataValue>;
export type CallMetadata = Record<string, MetadataValue>;

/** Keys 1 to 40 storable characters, at most 50 of them (a PATCH checks the count after merging). */
function metadataObject<V extends z.ZodType>(value: V) {
  return z.preprocess(refuseProtoKey('invalid_value', 'key __proto__ is not allowed'), z
    .record(z.string(), value)
    .superRefine((object, ctx) => {
      const keys = Object.keys(object);
      if (keys.length > METADATA_MAX_KEYS) {
        ctx.addIssue({ code: 'custom', path: [], message: `must have at most ${METADATA_MAX_KEYS} keys (has ${keys.length})`, params: { code: 'too_big' } });
      }
      for (const key of keys) {
        const problem =
          key.length === 0 || key.length > METADATA_KEY_MAX_LENGTH ? `key must be 1 to ${METADATA_KEY_MAX_LENGTH} characters` : unstorableText(key);
        if (problem) ctx.addIssue({ code: 'custom', path: [key], message: problem.startsWith('key') ? problem : `key ${problem}`, params: { code: 'invalid_value' } });
      }
    })
    .meta({ maxProperties: METADATA_MAX_KEYS, propertyNames: { minLength: 1, maxLength: METADATA_KEY_MAX_LENGTH, not: { const: '__proto__' } } }));
}

export const bookingAnswer = z.strictObject({
  question: text(QUESTION_MAX_LENGTH),
  // May be empty: an optional question left blank.
  answer: storableText(z.string().max(ANSWER_MAX_LENGTH)),
});
export type BookingAnswer = z.output<typeof bookingAnswer>;

export const schedulingFields = {
  id: z.uuid(),
  name: text(200),
  timezone: ianaTimeZone,
  workingHours: weeklyHoursSchema,
  exceptionKind: z.enum(exceptionKinds),
  /** Availability's candidate size, and the same bounds for a booked call. */
  durationMinutes: z.number().int().min(5).max(480),
  stepMinutes: z.number().int().min(1).max(1440),
  bufferMinutes: z.number().int().min(0).max(1440),
  guestName: text(200),
  guestPhone: z.string().trim().regex(phonePattern, phoneMessage),
  guestEmail: z.email().max(320),
  bookingSource: text(100),
  guestIntakeNotes: storableText(z.string().max(5000)),
  reason: storableText(z.string().trim().max(1000)),
  /** Stored as given: string (up to 500 characters), number or boolean values. */
  metadata: metadataObject(metadataValue),
  /** A PATCH merges it into the stored metadata: a null value removes its key. */
  metadataPatch: metadataObject(metadataValue.nullable()),
  answers: z.array(bookingAnswer).max(ANSWERS_MAX),
  /** A list filter: matched case-insensitively. Not trimmed, so the lengths the API document
   *  states are exactly the ones applied. */
  guestEmailFilter: storableText(z.string().min(1).max(320)),
  guestPhoneFilter: z.string().trim().regex(phonePattern, phoneMessage),
  status: z.enum(callStatuses),
  outcome: z.enum(callOutcomes),
  first: pageSizeValue,
  after: z.string().max(512),
};
const f = schedulingFields;

export const availabilityArgs = z.object({
  appId: z.uuid(),
  fromUtc: z.date(),
  toUtc: z.date(),
  durationMinutes: f.durationMinutes,
  agentId: optional(f.id),
  stepMinutes: optional(f.stepMinutes),
  bufferBeforeMinutes: optional(f.bufferMinutes),
  bufferAfterMinutes: optional(f.bufferMinutes),
  respectWorkingHours: optional(z.boolean()),
});
export type AvailabilityArgs = z.output<typeof availabilityArgs>;

export const createCallInput = z.object({
  scheduledAtUtc: z.date(),
  durationMinutes: f.durationMinutes,
  guestName: f.guestName,
  assignedAgentId: optional(f.id),
  guestPhone: nullable(f.guestPhone),
  guestEmail: nullable(f.guestEmail),
  guestTimezone: optional(f.timezone),
  bookingSource: optional(f.bookingSource),
  guestIntakeNotes: nullable(f.guestIntakeNotes),
  metadata: nullable(f.metadata),
  answers: nullable(f.answers),
});
export type CreateCallInput = z.output<typeof createCallInput>;

/**
 * PATCH: an absent field is unchanged. `null` clears what a call may lack (guestPhone, guestEmail,
 * guestIntakeNotes, metadata, answers) and is refused for what it always has (start, agent, name, time zone); a null
 * reason is no reason.
 */
export const updateCallInput = z.object({
  scheduledAtUtc: z.date().optional(),
  assignedAgentId: f.id.optional(),
  guestName: f.guestName.optional(),
  guestPhone: f.guestPhone.nullable().optional(),
  guestEmail: f.guestEmail.nullable().optional(),
  guestTimezone: f.timezone.optional(),
  guestIntakeNotes: f.guestIntakeNotes.nullable().optional(),
  metadata: f.metadataPatch.nullable().optional(),
  answers: f.answers.nullable().optional(),
  reason: optional(f.reason),
});
export type UpdateCallInput = z.output<typeof updateCallInput>;
export const editableFields = [
  'scheduledAtUtc', 'assignedAgentId', 'guestName', 'guestPhone', 'guestEmail', 'guestTimezone', 'guestIntakeNotes', 'metadata', 'answers',
] as const;

export const callListArgs = z.object({
  appId: z.uuid(),
  first: pageSize,
  after: optional(f.after),
  last: pageSize,
  before: optional(f.after),
  status: optional(f.status),
  agentId: optional(f.id),
  fromUtc: optional(z.date()),
  toUtc: optional(z.date()),
  guestEmail: optional(f.guestEmailFilter),
  // Compared by its digits, so +44 7700 900123 finds a call booked with +447700900123.
  guestPhone: optional(f.guestPhoneFilter.transform(phoneDigits)),
});
export type CallListArgs = z.output<typeof callListArgs>;

export const agentInput = z.object({
  id: optional(f.id),
  name: f.name,
  timezone: f.timezone,
  // Absent or null: no working hours (the agent offers no slots until it has some).
  workingHours: f.workingHours.nullish().transform((v) => v ?? {}),
});
export type AgentInput = z.output<typeof agentInput>;

/** The range an agent's exceptions or do-not-disturb windows are listed in; either end may be left open. */
export const windowRange = z.object({ fromUtc: optional(z.date()), toUtc: optional(z.date()) });
/** As the resolver receives it: an end left out or null is open. */
export type WindowRange = z.input<typeof windowRange>;

export const windowInput = z
  .object({ agentId: f.id, startUtc: z.date(), endUtc: z.date() })
  .refine((w) => w.endUtc > w.startUtc, { path: ['endUtc'], message: 'must be after startUtc', params: { code: 'invalid_value' } });
export const exceptionInput = z
  .object({ agentId: f.id, kind: f.exceptionKind, startUtc: z.date(), endUtc: z.date() })
  .refine((w) => w.endUtc > w.startUtc, { path: ['endUtc'], message: 'must be after startUtc', params: { code: 'invalid_value' } });
