import { and, count, eq, gte, inArray, lt, ne, sql } from 'drizzle-orm';
import { apps } from '../apps/tables.js';
import type { Tx } from '../db/client.js';
import { keysetList } from '../db/keyset.js';
import { DEADLOCK_DETECTED, EXCLUSION_VIOLATION, pgErrorCode } from '../db/raw.js';
import { AppError, conflict, notFound, validationFailed } from '../errors/app-error.js';
import type { RequestContext } from '../runtime.js';
import { agentExists, liveAgentCount, lockAgents } from './agents.service.js';
import { loadCalendars } from './calendars.js';
import { editableFields, finalStatuses, METADATA_MAX_KEYS, type CallListArgs, type CreateCallInput, type ScheduledCallStatus, type UpdateCallInput } from './fields.js';
import { assignmentOrder } from './assignment.js';
import type { LoadedCalendar } from './calendars.js';
import { rulesOf } from './policy.js';
import { countRange, loadPolicyScope, type PolicyScope } from './policy.service.js';
import { bookingRefusal, noBookingRules, type RejectionCode, type RejectionReason } from './slots.js';
import { guestEmailKey, guestPhoneKey, scheduledCalls, type ScheduledCallRow } from './tables.js';
import { answersOrNone, mergeMetadata, metadataOrNone, sameAnswers, sameMetadata } from './guest-details.js';
import { actorOf, appendEvents, cancelPendingReminders, planReminders, type NewEvent } from './timeline.js';
import { writeTransaction } from '../db/idempotency.js';

const MINUTE_MS = 60_000;
const invalid = (field: string, message: string) => validationFailed([{ field, code: 'invalid_value', message }], 'invalid_request');
const slotTaken = () => conflict('The requested slot is not available');
const DAY_MS = 24 * 60 * MINUTE_MS;

// The message beside each refusal code in a 409's details; the code is the reason availabilityExplained gives.
const refusalMessages: Record<RejectionCode, string> = {
  outside_working_hours: "is outside the agent's working hours and available_extra windows",
  conflicts_call: 'overlaps another scheduled call of the agent',
  buffer_overlap: "is within the buffer kept around the agent's calls, exceptions or do-not-disturb windows",
  blocked: 'overlaps a blocked window of the agent',
  do_not_disturb: 'overlaps a do-not-disturb window of the agent',
  minimum_notice: 'is sooner than the minimum notice of the booking policy',
  beyond_horizon: 'is further ahead than the booking horizon of the booking policy',
  misaligned: 'is not on the start-time grid of the booking policy',
  daily_limit: 'the agent has as many calls that local day as the booking policy allows',
  weekly_limit: 'the agent has as many calls that local week as the booking policy allows',
};

/** A 409 naming each distinct reason as a code in `details`, on scheduledAtUtc (the slot asked for). */
function refused(reasons: RejectionReason[], message = 'The requested slot is not available'): AppError {
  const codes = [...new Set(reasons.map((r) => r.code))];
  if (codes.length === 0) codes.push('conflicts_call');
  return new AppError('conflict', `${message}: ${codes.join(', ')}`, {
    details: codes.map((code) => ({ field: 'scheduledAtUtc', code, message: refusalMessages[code] })),
  });
}
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

/**
 * One agent's calendar around [startMs, endMs): busy intervals as far as any buffer reaches, the
 * call starts its limits count, and its rules; `exceptCallId` left out (the call being moved).
 */
async function calendarsAround(
  tx: Tx,
  scope: PolicyScope,
  where: { appId: string; agentId?: string; startMs: number; endMs: number; exceptCallId?: string; padMs?: number },
): Promise<LoadedCalendar[]> {
  const pad = where.padMs ?? 0;
  return loadCalendars(tx, {
    appId: where.appId,
    agentId: where.agentId,
    fromMs: where.startMs - Math.max(pad, scope.maxBufferBeforeMs),
    toMs: where.endMs + Math.max(pad, scope.maxBufferAfterMs),
    excludeCallId: where.exceptCallId,
    appRules: rulesOf(scope.app),
    ...countRange(scope, where.startMs, where.endMs),
  });
}

/**
 * Why this agent cannot take [startMs, endMs): the engine's booking decision (slots.ts), the same
 * per-agent test availability runs, with the agent's rules. Empty when it can.
 */
async function refusalFor(tx: Tx, scope: PolicyScope, appId: string, agentId: string, startMs: number, endMs: number, nowMs: number, exceptCallId?: string) {
  const [calendar] = await calendarsAround(tx, scope, { appId, agentId, startMs, endMs, exceptCallId });
  if (!calendar) return [{ code: 'conflicts_call' as const }];
  return bookingRefusal({ agent: calendar, startMs, endMs, nowMs });
}

/** The range a call keeps with the agent's buffers, or nulls when it has none. */
function bufferedRange(calendar: LoadedCalendar | undefined, startMs: number, endMs: number) {
  const rules = calendar?.rules ?? noBookingRules;
  if (rules.bufferBeforeMinutes === 0 && rules.bufferAfterMinutes === 0) return { bufferedFrom: null, bufferedUntil: null };
  return {
    bufferedFrom: new Date(startMs - rules.bufferBeforeMinutes * MINUTE_MS),
    bufferedUntil: new Date(endMs + rules.bufferAfterMinutes * MINUTE_MS),
  };
}

/**
 * Books or moves a call of one agent under that agent's lock: the decision and the write see
 * every booking committed before, so limits hold under concurrency; the exclusion constraint on
 * buffered ranges holds overlaps and buffers even against writers that take no lock.
 */
async function decideAndWrite<T>(
  tx: Tx,
  scope: PolicyScope,
  slot: { appId: string; agentId: string; lockAgentIds: string[]; startMs: number; endMs: number; nowMs: number; exceptCallId?: string },
  write: (sp: Tx, buffered: ReturnType<typeof bufferedRange>) => Promise<T>,
): Promise<T> {
  const { appId, agentId, startMs, endMs, nowMs, exceptCallId } = slot;
  try {
    return await guarded(tx, appId, slot.lockAgentIds, async (sp) => {
      const [calendar] = await calendarsAround(sp, scope, { appId, agentId, startMs, endMs, exceptCallId });
      const reasons = calendar ? bookingRefusal({ agent: calendar, startMs, endMs, nowMs }) : [{ code: 'conflicts_call' as const }];
      if (reasons.length > 0) throw refused(reasons);
      return write(sp, bufferedRange(calendar, startMs, endMs));
    });
  } catch (error) {
    if (!(error instanceof AppError && error.type === 'conflict' && !error.details)) throw error;
    // Lost a race at the constraint: the winner is committed now, so the engine names the reason.
    throw refused(await refusalFor(tx, scope, appId, agentId, startMs, endMs, nowMs, exceptCallId));
  }
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
 * Books a call into an available slot (409 otherwise, with the engine's reasons). Without
 * assignedAgentId the agents free for the slot are ordered by the app's assignment strategy
 * (assignment.ts); if a concurrent booking takes the first, the next one is tried.
 */
export async function createScheduledCall(ctx: RequestContext, appId: string, input: CreateCallInput): Promise<ScheduledCallRow> {
  const now = ctx.runtime.clock.now();
  assertFuture(input.scheduledAtUtc, now);
  const startMs = input.scheduledAtUtc.getTime();
  const endMs = startMs + input.durationMinutes * MINUTE_MS;
  return writeTransaction(ctx, async (tx) => {
    const [app] = await tx.select({ timezone: apps.timezone }).from(apps).where(eq(apps.id, appId)).limit(1);
    if (!app) throw notFound('App');
    const scope = await loadPolicyScope(tx, appId);
    let candidates: string[];
    if (input.assignedAgentId) {
      if (!(await agentExists(tx, appId, input.assignedAgentId))) throw invalid('assignedAgentId', 'is not an agent of this app');
      candidates = [input.assignedAgentId];
    } else {
      candidates = await freeAgentsInOrder(tx, scope, appId, startMs, endMs, now);
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
        const slot = { appId, agentId, lockAgentIds: [agentId], startMs, endMs, nowMs: now.getTime() };
        const [call] = await decideAndWrite(tx, scope, slot, (sp, buffered) =>
          sp.insert(scheduledCalls).values({ ...values, ...buffered, assignedAgentId: agentId }).returning(),
        );
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

// round_robin counts each agent's calls booked over this many days before now.
const ROUND_ROBIN_PERIOD_MS = 30 * DAY_MS;

/**
 * Agents (with working hours) free for [startMs, endMs) by the engine's booking decision, in the
 * order of the app's assignment strategy; 409 with every agent's reasons when none is free.
 */
async function freeAgentsInOrder(tx: Tx, scope: PolicyScope, appId: string, startMs: number, endMs: number, now: Date): Promise<string[]> {
  // least_busy counts calls within 12 hours either side of the slot.
  const calendars = await calendarsAround(tx, scope, { appId, startMs, endMs, padMs: DAY_MS / 2 });
  const refusals = calendars.map((agent) => ({ agent, reasons: bookingRefusal({ agent, startMs, endMs, nowMs: now.getTime() }) }));
  const free = refusals.filter((r) => r.reasons.length === 0).map((r) => r.agent);
  if (free.length === 0) throw refused(refusals.flatMap((r) => r.reasons), 'No agent is available for the requested slot');
  const callsSoFar = scope.app.assignment === 'round_robin' ? await bookedSince(tx, appId, free.map((c) => c.agentId), now.getTime() - ROUND_ROBIN_PERIOD_MS) : new Map<string, number>();
  return assignmentOrder({
    strategy: scope.app.assignment,
    candidates: free.map((c) => ({
      agentId: c.agentId,
      priority: c.priority,
      weight: c.weight,
      callsSoFar: callsSoFar.get(c.agentId) ?? 0,
      callsNearby: c.busy.filter((b) => b.kind === 'call' && b.endMs > startMs - DAY_MS / 2 && b.startMs < endMs + DAY_MS / 2).length,
    })),
  });
}

/** Calls (not cancelled) booked for each agent since sinceMs. */
async function bookedSince(tx: Tx, appId: string, agentIds: string[], sinceMs: number): Promise<Map<string, number>> {
  const rows = await tx
    .select({ agentId: scheduledCalls.assignedAgentId, n: count() })
    .from(scheduledCalls)
    .where(
      and(
        eq(scheduledCalls.appId, appId),
        inArray(scheduledCalls.assignedAgentId, agentIds),
        ne(scheduledCalls.status, 'cancelled'),
        gte(scheduledCalls.createdAt, new Date(sinceMs)),
      ),
    )
    .groupBy(scheduledCalls.assignedAgentId);
  return new Map(rows.map((r) => [r.agentId, Number(r.n)]));
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
 * transaction: a final state is 409; a new time or agent must be an available slot (the
 * engine's booking decision, this call left out; 409 with its reasons otherwise); one event per kind of change
 * (`rescheduled`, `assigned`, `updated`), each carrying `reason`; a time change re-plans the
 * pending reminders. Fields given with their current value change nothing and emit nothing.
 */
export async function updateScheduledCall(ctx: RequestContext, appId: string, id: string, input: UpdateCallInput): Promise<ScheduledCallRow> {
  if (!editableFields.some((field) => input[field] !== undefined)) {
    const wanted = `send at least one of ${editableFields.join(', ')}`;
    // The body as a whole is what falls short: its detail names no field of it (REST '', GraphQL `input`).
    throw new AppError('invalid_request', `No editable field: ${wanted}`, { details: [{ field: '', code: 'required', message: wanted }] });
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

    const update = (sp: Tx, extra: Partial<ScheduledCallRow>) =>
      sp
        .update(scheduledCalls)
        .set({ ...changes, ...extra, updatedAt: now })
        .where(ofApp(appId, id))
        .returning();
    // A new time or agent must be a slot by the engine's booking decision (this call left out),
    // and takes the agent's buffers; both agents are locked when it moves: the old one's row is
    // being replaced, which its writers wait on.
    const [row] =
      timeChanged || agentChanged
        ? await decideAndWrite(
            tx,
            await loadPolicyScope(tx, appId),
            { appId, agentId, lockAgentIds: [call.assignedAgentId, agentId], startMs: startAt.getTime(), endMs: endAt.getTime(), nowMs: now.getTime(), exceptCallId: call.id },
            (sp, buffered) => update(sp, buffered),
          )
        : await guarded(tx, appId, [call.assignedAgentId], (sp) => update(sp, {}));
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

/**
 * The video call serving a scheduled call ended, inside that end's transaction: a call still
 * `scheduled` becomes completed with its timeline and log event; any other status is left as it
 * is (the ending itself is never refused for the booking's sake). Returns whether it moved.
 */
export async function completeServedCall(tx: Tx, ctx: RequestContext, appId: string, id: string, now: Date): Promise<boolean> {
  const [call] = await tx.select().from(scheduledCalls).where(ofApp(appId, id)).for('update');
  if (!call || call.status !== 'scheduled') return false;
  const [row] = await tx.update(scheduledCalls).set({ status: 'completed', updatedAt: now }).where(ofApp(appId, id)).returning();
  await cancelPendingReminders(tx, id, now);
  await appendEvents(tx, row!, actorOf(ctx), [{ eventType: 'completed', payload: { video_call: 'ended' } }], now);
  return true;
}
