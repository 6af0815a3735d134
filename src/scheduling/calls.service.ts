import { and, eq, gte, lt, sql } from 'drizzle-orm';
import { apps } from '../apps/tables.js';
import type { Tx } from '../db/client.js';
import { keysetList } from '../db/keyset.js';
import { DEADLOCK_DETECTED, EXCLUSION_VIOLATION, pgErrorCode } from '../db/raw.js';
import { AppError, conflict, notFound, validationFailed } from '../errors/app-error.js';
import type { RequestContext } from '../runtime.js';
import { agentExists, liveAgentCount, lockAgents } from './agents.service.js';
import { loadCalendars } from './calendars.js';
import { editableFields, finalStatuses, METADATA_MAX_KEYS, type CallListArgs, type CreateCallInput, type ScheduledCallStatus, type UpdateCallInput } from './fields.js';
import { isSlotAvailable, type AgentCalendar } from './slots.js';
import { guestEmailKey, guestPhoneKey, scheduledCalls, type ScheduledCallRow } from './tables.js';
import { answersOrNone, mergeMetadata, metadataOrNone, sameAnswers, sameMetadata } from './guest-details.js';
import { actorOf, appendEvents, cancelPendingReminders, planReminders, type NewEvent } from './timeline.js';
import { writeTransaction } from '../db/idempotency.js';

const MINUTE_MS = 60_000;
const invalid = (field: string, message: string) => validationFailed([{ field, code: 'invalid_value', message }], 'invalid_request');
const slotTaken = () => conflict('The requested slot is not available');
const ofApp = (appId: string, id: string) => and(eq(scheduledCalls.appId, appId), eq(scheduledCalls.id, id));

// Ordered by (scheduled_at, id) ascending: the upcoming calls first.
const list = keysetList({
  name: 'scheduled_calls',
  table: scheduledCalls,
  appId: scheduledCalls.appId,
  at: scheduledCalls.scheduledAt,
  atOf: (row) => row.scheduledAt,
  id: scheduledCalls.id,
  direction: 'asc',
  cursorError: 'invalid_request',
});

export async function getScheduledCall(ctx: RequestContext, appId: string, id: string): Promise<ScheduledCallRow> {
  const [row] = await ctx.runtime.database.db.select().from(scheduledCalls).where(ofApp(appId, id)).limit(1);
  // Another app's call is not_found, exactly like an unknown id, so other tenants' ids are not revealed.
  if (!row) throw notFound('Scheduled call');
  return row;
}

/** An app's calls in (scheduled_at, id) order: the upcoming ones first when fromUtc is now. */
export async function listScheduledCalls(ctx: RequestContext, args: CallListArgs) {
  return list.page(ctx.runtime.database.db, ctx.runtime.keys.cursorKeys, args, [
    args.status ? eq(scheduledCalls.status, args.status) : undefined,
    args.agentId ? eq(scheduledCalls.assignedAgentId, args.agentId) : undefined,
    args.fromUtc ? gte(scheduledCalls.scheduledAt, args.fromUtc) : undefined,
    args.toUtc ? lt(scheduledCalls.scheduledAt, args.toUtc) : undefined,
    // Written as the guest indexes are (tables.ts), so these filters are index scans.
    args.guestEmail ? sql`${guestEmailKey(scheduledCalls.guestEmail)} = ${guestEmailKey(sql`${args.guestEmail}::text`)}` : undefined,
    args.guestPhone ? sql`${guestPhoneKey(scheduledCalls.guestPhone)} = ${args.guestPhone}` : undefined,
  ]);
}

/** The slot test (slots.ts) without buffers, for one agent, leaving `exceptCallId` out. */
async function agentIsFree(tx: Tx, appId: string, agentId: string, startMs: number, endMs: number, exceptCallId?: string) {
  const [calendar] = await loadCalendars(tx, { appId, agentId, fromMs: startMs, toMs: endMs, excludeCallId: exceptCallId });
  return calendar !== undefined && isSlotAvailable({ agent: calendar, startMs, endMs });
}

/**
 * Runs an insert or update that may collide with a concurrent booking: the loser gets 409.
 *
 * On PostgreSQL, writers of overlapping calls of one agent must not meet at the exclusion
 * constraint itself: each would find the other's uncommitted row there and wait for it, and the
 * server breaks that cycle only after deadlock_timeout (1 s) by failing one of them with
 * deadlock_detected (seen in CI: 8 parallel creates over two agents, 6 answered 500). So the
 * write first takes a transaction lock on each agent it touches, in one order: writers of one
 * agent queue there, and the next one's write sees the previous one committed (a violation:
 * 409) or gone (its write goes in). The locks are taken in the savepoint, so a write that fails
 * releases them before the next candidate agent is tried; one that succeeds keeps them to commit.
 * A deadlock left over (a writer that takes no lock, the importer) is answered 409 too.
 */
async function guarded<T>(tx: Tx, appId: string, agentIds: string[], write: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    // A savepoint, so that on PostgreSQL the transaction stays usable after the error.
    return await tx.transaction(async (sp) => {
      await lockAgents(sp, appId, agentIds);
      // An agent deleted since it was checked (deleteAgent takes the same lock): not bookable.
      if ((await liveAgentCount(sp, appId, agentIds)) < new Set(agentIds).size) throw slotTaken();
      return write(sp);
    });
  } catch (error) {
    const code = pgErrorCode(error);
    if (code === EXCLUSION_VIOLATION || code === DEADLOCK_DETECTED) throw slotTaken();
    throw error;
  }
}

function assertFuture(at: Date, now: Date) {
  if (!(at.getTime() > now.getTime())) throw invalid('scheduledAtUtc', 'must be in the future');
}

/**
 * Books a call into an available slot (409 otherwise). Without
 * assignedAgentId the least busy available agent that day is picked (then by id); if a
 * concurrent booking takes that agent first, the next one is tried.
 */
export async function createScheduledCall(ctx: RequestContext, appId: string, input: CreateCallInput): Promise<ScheduledCallRow> {
  const now = ctx.runtime.clock.now();
  assertFuture(input.scheduledAtUtc, now);
  const startMs = input.scheduledAtUtc.getTime();
  const endMs = startMs + input.durationMinutes * MINUTE_MS;
  return writeTransaction(ctx, async (tx) => {
    const [app] = await tx.select({ timezone: apps.timezone }).from(apps).where(eq(apps.id, appId)).limit(1);
    if (!app) throw notFound('App');
    let candidates: string[];
    if (input.assignedAgentId) {
      if (!(await agentExists(tx, appId, input.assignedAgentId))) throw invalid('assignedAgentId', 'is not an agent of this app');
      if (!(await agentIsFree(tx, appId, input.assignedAgentId, startMs, endMs))) throw slotTaken();
      candidates = [input.assignedAgentId];
    } else {
      candidates = await freeAgentsByLoad(tx, appId, startMs, endMs);
      if (candidates.length === 0) throw conflict('No agent is available for the requested slot');
    }
    const values = {
      appId,
      bookingSource: input.bookingSource ?? 'api',
      guestName: input.guestName,
      guestPhone: input.guestPhone,
      guestEmail: input.guestEmail,
      guestTimezone: input.guestTimezone ?? app.timezone,
      guestIntakeNotes: input.guestIntakeNotes,
      metadata: metadataOrNone(input.metadata),
      answers: answersOrNone(input.answers),
      scheduledAt: input.scheduledAtUtc,
      endsAt: new Date(endMs),
      durationMinutes: input.durationMinutes,
      appTimezone: app.timezone,
      status: 'scheduled',
      createdAt: now,
      updatedAt: now,
    };
    for (const [i, agentId] of candidates.entries()) {
      try {
        const [call] = await guarded(tx, appId, [agentId], (sp) => sp.insert(scheduledCalls).values({ ...values, assignedAgentId: agentId }).returning());
        await appendEvents(tx, call!, actorOf(ctx), [
          { eventType: 'created', payload: { scheduled_at: call!.scheduledAt.toISOString(), assigned_agent_id: agentId } },
        ], now);
        await planReminders(tx, call!, now);
        return call!;
      } catch (error) {
        const last = i === candidates.length - 1;
        if (last || !(error instanceof AppError && error.type === 'conflict')) throw error;
      }
    }
    throw slotTaken();
  });
}

/** Agents (with working hours) free for [startMs, endMs), the fewest calls that day first. */
async function freeAgentsByLoad(tx: Tx, appId: string, startMs: number, endMs: number): Promise<string[]> {
  const dayMs = 24 * 60 * MINUTE_MS;
  const calendars = await loadCalendars(tx, { appId, fromMs: startMs - dayMs / 2, toMs: endMs + dayMs / 2 });
  const load = (c: AgentCalendar) => c.busy.filter((b) => b.kind === 'call').length;
  return calendars
    .filter((agent) => isSlotAvailable({ agent, startMs, endMs }))
    .sort((a, b) => load(a) - load(b) || (a.agentId < b.agentId ? -1 : a.agentId > b.agentId ? 1 : 0))
    .map((c) => c.agentId);
}

async function lockCall(tx: Tx, appId: string, id: string): Promise<ScheduledCallRow> {
  const [call] = await tx.select().from(scheduledCalls).where(ofApp(appId, id)).for('update');
  if (!call) throw notFound('Scheduled call');
  return call;
}

const isFinal = (status: string) => finalStatuses.includes(status as ScheduledCallStatus);
const finalConflict = (call: ScheduledCallRow) => conflict(`The call is ${call.status}, a final state: it cannot be changed`);

// PATCH body names of the record's fields, for the `updated` event's payload.
const recordField: Record<string, string> = {
  guestName: 'guest_name',
  guestPhone: 'guest_phone',
  guestEmail: 'guest_email',
  guestTimezone: 'guest_timezone',
  guestIntakeNotes: 'guest_intake_notes',
};

/**
 * PATCH /video/{appId}/scheduled-calls/{id}, in one
 * transaction: a final state is 409; a new time or agent must be an available slot (the slot
 * test without buffers, this call left out; 409 otherwise); one event per kind of change
 * (`rescheduled`, `assigned`, `updated`), each carrying `reason`; a time change re-plans the
 * pending reminders. Fields given with their current value change nothing and emit nothing.
 */
export async function updateScheduledCall(ctx: RequestContext, appId: string, id: string, input: UpdateCallInput): Promise<ScheduledCallRow> {
  if (!editableFields.some((field) => input[field] !== undefined)) {
    throw new AppError('invalid_request', `No editable field: send at least one of ${editableFields.join(', ')}`);
  }
  const now = ctx.runtime.clock.now();
  return writeTransaction(ctx, async (tx) => {
    const call = await lockCall(tx, appId, id);
    if (isFinal(call.status)) throw finalConflict(call);
    const startAt = input.scheduledAtUtc ?? call.scheduledAt;
    const agentId = input.assignedAgentId ?? call.assignedAgentId;
    const timeChanged = startAt.getTime() !== call.scheduledAt.getTime();
    const agentChanged = agentId !== call.assignedAgentId;
    if (timeChanged) assertFuture(startAt, now);
    if (agentChanged && !(await agentExists(tx, appId, agentId))) throw invalid('assignedAgentId', 'is not an agent of this app');
    const endAt = new Date(startAt.getTime() + call.durationMinutes * MINUTE_MS);
    if ((timeChanged || agentChanged) && !(await agentIsFree(tx, appId, agentId, startAt.getTime(), endAt.getTime(), call.id))) {
      throw slotTaken();
    }

    const changes: Partial<ScheduledCallRow> = {};
    const updated: string[] = [];
    for (const field of ['guestName', 'guestPhone', 'guestEmail', 'guestTimezone', 'guestIntakeNotes'] as const) {
      const value = input[field];
      if (value !== undefined && value !== call[field]) {
        Object.assign(changes, { [field]: value });
        updated.push(recordField[field]!);
      }
    }
    if (input.metadata !== undefined) {
      const { metadata, tooMany } = mergeMetadata(call.metadata, input.metadata);
      if (tooMany) {
        throw validationFailed([{ field: 'metadata', code: 'too_big', message: `would have ${tooMany} keys with this change; a call keeps at most ${METADATA_MAX_KEYS}` }], 'invalid_request');
      }
      if (!sameMetadata(metadata, call.metadata)) {
        changes.metadata = metadata;
        updated.push('metadata');
      }
    }
    if (input.answers !== undefined && !sameAnswers(answersOrNone(input.answers), call.answers)) {
      changes.answers = answersOrNone(input.answers);
      updated.push('answers');
    }
    const events: NewEvent[] = [];
    const withReason = (payload: Record<string, unknown>) => (input.reason === undefined ? payload : { ...payload, reason: input.reason });
    if (timeChanged) {
      Object.assign(changes, { scheduledAt: startAt, endsAt: endAt });
      events.push({ eventType: 'rescheduled', payload: withReason({ from: call.scheduledAt.toISOString(), to: startAt.toISOString() }) });
    }
    if (agentChanged) {
      changes.assignedAgentId = agentId;
      events.push({ eventType: 'assigned', payload: withReason({ from: call.assignedAgentId, to: agentId }) });
    }
    if (updated.length > 0) events.push({ eventType: 'updated', payload: withReason({ fields: updated }) });
    if (events.length === 0) return call;

    // Both agents when it moves: the old one's row is being replaced, which its writers wait on.
    const [row] = await guarded(tx, appId, [call.assignedAgentId, agentId], (sp) =>
      sp
        .update(scheduledCalls)
        .set({ ...changes, updatedAt: now })
        .where(ofApp(appId, id))
        .returning(),
    );
    await appendEvents(tx, row!, actorOf(ctx), events, now);
    if (timeChanged) {
      await cancelPendingReminders(tx, row!.id, now);
      await planReminders(tx, row!, now);
    }
    return row!;
  });
}

/**
 * DELETE soft-cancels (the row is kept), sets cancelled_at and cancellation_reason,
 * cancels pending reminders and appends `cancelled`; a repeat returns the row unchanged.
 * Completed and no-show calls are final and cannot be cancelled (409).
 */
export async function cancelScheduledCall(ctx: RequestContext, appId: string, id: string, given: string | undefined): Promise<ScheduledCallRow> {
  const now = ctx.runtime.clock.now();
  // An empty reason is no reason: null in the row and in the event.
  const reason = given || null;
  return writeTransaction(ctx, async (tx) => {
    const call = await lockCall(tx, appId, id);
    if (call.status === 'cancelled') return call;
    if (isFinal(call.status)) throw finalConflict(call);
    const [row] = await tx
      .update(scheduledCalls)
      .set({ status: 'cancelled', cancelledAt: now, cancellationReason: reason, updatedAt: now })
      .where(ofApp(appId, id))
      .returning();
    await cancelPendingReminders(tx, id, now);
    await appendEvents(tx, row!, actorOf(ctx), [{ eventType: 'cancelled', payload: { reason } }], now);
    return row!;
  });
}

/**
 * Moves into `completed` and `no_show` (the guest did not show): only from `scheduled`, and only once
 * the call has started. Pending reminders are cancelled; the outcome is a timeline event.
 */
export async function recordCallOutcome(
  ctx: RequestContext,
  appId: string,
  id: string,
  outcome: 'completed' | 'no_show',
  reason: string | undefined,
): Promise<ScheduledCallRow> {
  const now = ctx.runtime.clock.now();
  return writeTransaction(ctx, async (tx) => {
    const call = await lockCall(tx, appId, id);
    if (isFinal(call.status)) throw finalConflict(call);
    if (call.scheduledAt > now) throw conflict(`The call starts at ${call.scheduledAt.toISOString()}: its outcome can be recorded once it has started`);
    const [row] = await tx.update(scheduledCalls).set({ status: outcome, updatedAt: now }).where(ofApp(appId, id)).returning();
    await cancelPendingReminders(tx, id, now);
    await appendEvents(tx, row!, actorOf(ctx), [{ eventType: outcome, payload: reason === undefined ? {} : { reason } }], now);
    return row!;
  });
}
