import { and, eq, getTableColumns, inArray, isNotNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Tx } from '../db/client.js';
import { EXCLUSION_VIOLATION, excludedSet, FOREIGN_KEY_VIOLATION, pgErrorCode } from '../db/raw.js';
import { storableText } from '../validation/storable.js';
import type { ImportType } from '../importer/ndjson.js';
import { recordEvents, type Actor } from '../events/log.js';
import { callRecord as callResource } from '../webhooks/outbox.js';
import { callStatuses, exceptionKinds, instant, schedulingFields as f } from './fields.js';
import { agents, availabilityExceptions, dndWindows, scheduledCalls } from './tables.js';
import { cancelPendingReminders, planReminders } from './timeline.js';
import { answersOrNone, metadataOrNone } from './guest-details.js';
import { agentBookingPolicyInput, bookingPolicyInput, defaultPriority, defaultWeight, overridesOf, snakeCaseShape, type BookingPolicyInput } from './policy.js';
import { writeBookingPolicy } from './policy.service.js';

// `agent`, `booking_policy`, `availability_exception`, `dnd` and `scheduled_call` NDJSON
// records, snake_case, upserted on `id` inside the import's one transaction. Agents come
// before the records that name them (the importer writes in file order across types).

const nullable = <S extends z.ZodType>(schema: S) => schema.nullish().transform((v) => v ?? null);
const after = (start: string, end: string) => (w: Record<string, unknown>) => (w[end] as Date) > (w[start] as Date);
const endAfterStart = { path: ['end_utc'], message: 'must be after start_utc', params: { code: 'invalid_value' } };

const { priority, weight, ...agentRules } = agentBookingPolicyInput.shape;
const agentRecord = z.strictObject({
  id: f.id,
  name: f.name,
  timezone: f.timezone,
  working_hours: f.workingHours,
  // As setAgentBookingPolicy takes them; giving any of the three replaces all three.
  booking_overrides: z.strictObject(snakeCaseShape(agentRules)).optional(),
  assignment_priority: priority,
  assignment_weight: weight,
});

// The app's policy, as setBookingPolicy takes it, replaced whole.
const bookingPolicyRecord = z.strictObject(snakeCaseShape(bookingPolicyInput.shape));

const exceptionRecord = z
  .strictObject({ id: f.id, agent_id: f.id, kind: z.enum(exceptionKinds), start_utc: instant, end_utc: instant })
  .refine(after('start_utc', 'end_utc'), endAfterStart);

const dndRecord = z.strictObject({ id: f.id, agent_id: f.id, start_utc: instant, end_utc: instant }).refine(after('start_utc', 'end_utc'), endAfterStart);

// A scheduled call's full record. Imported history may lie in the past and last longer than a
// bookable slot; only `scheduled` calls take part in the no-double-booking constraint.
const callRecord = z
  .strictObject({
    id: f.id,
    app_id: z.uuid().optional(),
    assigned_agent_id: f.id,
    booking_source: f.bookingSource.default('import'),
    guest_name: f.guestName,
    // Imported as given (history need not match today's formats), but storable.
    guest_phone: nullable(storableText(z.string().max(40))),
    guest_email: nullable(storableText(z.string().max(320))),
    guest_timezone: f.timezone,
    guest_intake_notes: nullable(f.guestIntakeNotes),
    // Bounded as a booking's are; `{}` and `[]` are stored as none (null).
    metadata: nullable(f.metadata),
    answers: nullable(f.answers),
    scheduled_at: instant,
    duration_minutes: z.number().int().min(1).max(24 * 60),
    app_timezone: f.timezone,
    status: z.enum(callStatuses),
    created_at: instant.optional(),
    cancelled_at: nullable(instant),
    // '' (how older exports say none) is stored as null, as none is everywhere.
    cancellation_reason: storableText(z.string().max(1000)).nullish().transform((v) => v || null),
  })
  .refine((c) => (c.status === 'cancelled') === (c.cancelled_at !== null), {
    path: ['cancelled_at'],
    message: 'is required for a cancelled call and only for one',
    params: { code: 'invalid_value' },
  });


/** Database refusals named in the import's line error. */
async function explained<T>(what: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const code = pgErrorCode(error);
    if (code === FOREIGN_KEY_VIOLATION) throw new Error(`${what} names an agent that is not in this app (import agents first)`);
    if (code === EXCLUSION_VIOLATION) throw new Error(`${what} overlaps another scheduled call of the same agent`);
    throw error;
  }
}

/**
 * An agent deleted with calls on record (deletedAt) is kept only for those calls: exceptions,
 * DND windows and scheduled (not final) calls naming it are refused, as for an unknown agent.
 * Importing the agent record again brings it back. Checked after the rows are written: their
 * foreign-key check waits for a deleteAgent holding the agent's row (FOR UPDATE) to commit, so
 * this later statement sees its deletion; a deleteAgent that comes second waits for the import
 * and then sees its scheduled calls (409).
 */
async function refuseDeletedAgents(tx: Tx, appId: string, what: string, agentIds: string[]): Promise<void> {
  if (agentIds.length === 0) return;
  const [deleted] = await tx
    .select({ id: agents.id })
    .from(agents)
    .where(and(eq(agents.appId, appId), inArray(agents.id, [...new Set(agentIds)]), isNotNull(agents.deletedAt)))
    .limit(1);
  if (deleted) throw new Error(`${what} names agent ${deleted.id}, which was deleted (import the agent again first)`);
}

type AgentRecord = z.output<typeof agentRecord>;
const carriesPolicy = (r: AgentRecord) => r.booking_overrides !== undefined || r.assignment_priority !== undefined || r.assignment_weight !== undefined;

/** From the record's snake_case rule names back to the policy's. */
const camelCaseRules = (rules: Record<string, unknown>) => Object.fromEntries(Object.entries(rules).map(([name, v]) => [name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()), v]));

export const agentImport: ImportType<typeof agentRecord> = {
  type: 'agent',
  schema: agentRecord,
  async write(tx, appId, records, now) {
    // A record without booking fields leaves an existing agent's untouched. Runs of records
    // with and without them are written in file order, so the later record of an id wins.
    for (let start = 0; start < records.length; ) {
      const withPolicy = carriesPolicy(records[start]!);
      let end = start + 1;
      while (end < records.length && carriesPolicy(records[end]!) === withPolicy) end++;
      const run = records.slice(start, end);
      start = end;
      const base = (r: AgentRecord) => ({ appId, id: r.id, name: r.name, timezone: r.timezone, workingHours: r.working_hours, createdAt: now, updatedAt: now });
      // deletedAt too: importing a deleted agent again brings it back.
      const columns = ['name', 'timezone', 'workingHours', 'updatedAt', 'deletedAt'] as const;
      if (!withPolicy) {
        await tx.insert(agents).values(run.map(base)).onConflictDoUpdate({ target: [agents.appId, agents.id], set: excludedSet(agents, columns) });
        continue;
      }
      await tx
        .insert(agents)
        .values(
          run.map((r) => ({
            ...base(r),
            bookingPolicy: overridesOf(camelCaseRules(r.booking_overrides ?? {})),
            assignmentPriority: r.assignment_priority ?? defaultPriority,
            assignmentWeight: r.assignment_weight ?? defaultWeight,
          })),
        )
        .onConflictDoUpdate({ target: [agents.appId, agents.id], set: excludedSet(agents, [...columns, 'bookingPolicy', 'assignmentPriority', 'assignmentWeight']) });
    }
  },
};

/** `booking_policy`: the app's policy; the last record of a file is the one in force. */
export const bookingPolicyImport: ImportType<typeof bookingPolicyRecord> = {
  type: 'booking_policy',
  schema: bookingPolicyRecord,
  async write(tx, appId, records, now) {
    const last = records.at(-1);
    if (last) await writeBookingPolicy(tx, appId, camelCaseRules(last) as BookingPolicyInput, now);
  },
};

export const availabilityExceptionImport: ImportType<typeof exceptionRecord> = {
  type: 'availability_exception',
  schema: exceptionRecord,
  write: async (tx, appId, records) => {
    await explained('availability_exception', () =>
      tx
        .insert(availabilityExceptions)
        .values(records.map((r) => ({ appId, id: r.id, agentId: r.agent_id, kind: r.kind, startAt: r.start_utc, endAt: r.end_utc })))
        .onConflictDoUpdate({ target: [availabilityExceptions.appId, availabilityExceptions.id], set: excludedSet(availabilityExceptions, ['agentId', 'kind', 'startAt', 'endAt']) }),
    );
    await refuseDeletedAgents(tx, appId, 'availability_exception', records.map((r) => r.agent_id));
  },
};

export const dndImport: ImportType<typeof dndRecord> = {
  type: 'dnd',
  schema: dndRecord,
  write: async (tx, appId, records) => {
    await explained('dnd', () =>
      tx
        .insert(dndWindows)
        .values(records.map((r) => ({ appId, id: r.id, agentId: r.agent_id, startAt: r.start_utc, endAt: r.end_utc })))
        .onConflictDoUpdate({ target: [dndWindows.appId, dndWindows.id], set: excludedSet(dndWindows, ['agentId', 'startAt', 'endAt']) }),
    );
    await refuseDeletedAgents(tx, appId, 'dnd', records.map((r) => r.agent_id));
  },
};

const callColumns = [
  'assignedAgentId', 'bookingSource', 'guestName', 'guestPhone', 'guestEmail', 'guestTimezone', 'guestIntakeNotes', 'metadata', 'answers',
  'scheduledAt', 'endsAt', 'durationMinutes', 'appTimezone', 'status', 'cancelledAt', 'cancellationReason', 'createdAt', 'updatedAt',
] as const;

/**
 * Upsert on id (unique across apps: an id of another app's call is refused). A new call gets a
 * `created` timeline event by the system, a re-imported one an `updated` event; the reminders
 * of a `scheduled` call are (re-)planned.
 */
async function writeCalls(tx: Tx, appId: string, records: z.output<typeof callRecord>[], now: Date): Promise<void> {
  const rows = records.map((r) => ({
    id: r.id,
    appId,
    assignedAgentId: r.assigned_agent_id,
    bookingSource: r.booking_source,
    guestName: r.guest_name,
    guestPhone: r.guest_phone,
    guestEmail: r.guest_email,
    guestTimezone: r.guest_timezone,
    guestIntakeNotes: r.guest_intake_notes,
    metadata: metadataOrNone(r.metadata),
    answers: answersOrNone(r.answers),
    scheduledAt: r.scheduled_at,
    endsAt: new Date(r.scheduled_at.getTime() + r.duration_minutes * 60_000),
    durationMinutes: r.duration_minutes,
    appTimezone: r.app_timezone,
    status: r.status,
    cancelledAt: r.cancelled_at,
    cancellationReason: r.cancellation_reason,
    createdAt: r.created_at ?? now,
    updatedAt: now,
  }));
  const written = await explained('scheduled_call', () =>
    tx
      .insert(scheduledCalls)
      .values(rows)
      .onConflictDoUpdate({ target: scheduledCalls.id, set: excludedSet(scheduledCalls, callColumns), setWhere: sql`${scheduledCalls.appId} = excluded.app_id` })
      .returning({ ...getTableColumns(scheduledCalls), inserted: sql<boolean>`(xmax = 0)` }),
  );
  if (written.length < rows.length) throw new Error('an id of this batch belongs to a scheduled call of another app');
  await refuseDeletedAgents(tx, appId, 'scheduled_call', records.filter((r) => r.status === 'scheduled').map((r) => r.assigned_agent_id));
  // Each call's timeline entry is its event in the app event log, as for any other writer, but
  // without webhooks: a million imported calls must not become a million deliveries.
  const actor: Actor = { actorType: 'system', actorId: 'import' };
  await recordEvents(
    tx,
    appId,
    actor,
    written.map(({ inserted, ...call }) => ({
      type: inserted ? 'scheduled_call.created' : 'scheduled_call.updated',
      resource: callResource(call),
      subjectId: call.id,
      details: inserted ? { scheduled_at: call.scheduledAt.toISOString(), assigned_agent_id: call.assignedAgentId } : { fields: ['import'] },
    })),
    now,
    { webhooks: false },
  );
  for (const call of written) {
    if (!call.inserted) await cancelPendingReminders(tx, call.id, now);
    if (call.status === 'scheduled') await planReminders(tx, { appId, id: call.id, scheduledAt: call.scheduledAt }, now);
  }
}

export const scheduledCallImport: ImportType<typeof callRecord> = { type: 'scheduled_call', schema: callRecord, write: writeCalls };
