import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Queryable, Tx } from '../db/client.js';
import { writeTransaction, type WriteContext } from '../db/idempotency.js';
import { rowsOf } from '../db/raw.js';
import { notFound } from '../errors/app-error.js';
import type { RequestContext } from '../runtime.js';
import type { AssignmentStrategy } from './assignment.js';
import { appPolicyOf, defaultAppPolicy, defaultPriority, defaultWeight, overridesOf, type AgentBookingPolicyInput, type AppPolicy, type BookingPolicyInput } from './policy.js';
import { agents, bookingPolicies, type AgentRow } from './tables.js';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** The app's policy and what its agents' overrides need of a calendar load. */
export interface PolicyScope {
  app: AppPolicy;
  /** The largest buffers any agent of the app has: busy intervals are loaded this far around a window. */
  maxBufferBeforeMs: number;
  maxBufferAfterMs: number;
  /** Whether any agent has a daily or weekly limit, and a weekly one: call starts are loaded around the window. */
  anyLimit: boolean;
  anyWeeklyLimit: boolean;
}

interface PolicyScopeRow {
  minimum_notice_minutes: number | null;
  horizon_days: number | null;
  buffer_before_minutes: number | null;
  buffer_after_minutes: number | null;
  max_calls_per_day: number | null;
  max_calls_per_week: number | null;
  alignment_minutes: number | null;
  assignment: AssignmentStrategy | null;
  agents_before: number | null;
  agents_after: number | null;
  agents_daily: boolean | null;
  agents_weekly: boolean | null;
}

/** One query: the app's policy row (or the defaults) and a summary of its agents' overrides. */
export async function loadPolicyScope(db: Queryable, appId: string): Promise<PolicyScope> {
  const ofAgents = (what: ReturnType<typeof sql>) => sql`(select ${what} from agents a where a.app_id = ${appId}::uuid and a.deleted_at is null)`;
  const [row] = rowsOf<PolicyScopeRow>(
    await db.execute(sql`
      select p.minimum_notice_minutes, p.horizon_days, p.buffer_before_minutes, p.buffer_after_minutes,
        p.max_calls_per_day, p.max_calls_per_week, p.alignment_minutes, p.assignment,
        ${ofAgents(sql`max((a.booking_policy->>'bufferBeforeMinutes')::int)`)} as agents_before,
        ${ofAgents(sql`max((a.booking_policy->>'bufferAfterMinutes')::int)`)} as agents_after,
        ${ofAgents(sql`bool_or(a.booking_policy->>'maxCallsPerDay' is not null)`)} as agents_daily,
        ${ofAgents(sql`bool_or(a.booking_policy->>'maxCallsPerWeek' is not null)`)} as agents_weekly
      from (select ${appId}::uuid as app_id) x left join booking_policies p on p.app_id = x.app_id`),
  );
  const app: AppPolicy =
    row?.assignment == null
      ? defaultAppPolicy
      : {
          minimumNoticeMinutes: row.minimum_notice_minutes ?? 0,
          horizonDays: row.horizon_days,
          bufferBeforeMinutes: row.buffer_before_minutes ?? 0,
          bufferAfterMinutes: row.buffer_after_minutes ?? 0,
          maxCallsPerDay: row.max_calls_per_day,
          maxCallsPerWeek: row.max_calls_per_week,
          alignmentMinutes: row.alignment_minutes,
          assignment: row.assignment,
        };
  const anyWeeklyLimit = app.maxCallsPerWeek !== null || row?.agents_weekly === true;
  return {
    app,
    maxBufferBeforeMs: Math.max(app.bufferBeforeMinutes, Number(row?.agents_before ?? 0)) * MINUTE_MS,
    maxBufferAfterMs: Math.max(app.bufferAfterMinutes, Number(row?.agents_after ?? 0)) * MINUTE_MS,
    anyLimit: anyWeeklyLimit || app.maxCallsPerDay !== null || row?.agents_daily === true,
    anyWeeklyLimit,
  };
}

/**
 * The range whose call starts the limits count for candidates in [fromMs, toMs): every local
 * day (or week) those candidates fall in, whatever the agent's zone (offsets stay within a day).
 */
export function countRange(scope: PolicyScope, fromMs: number, toMs: number): { countFromMs?: number; countToMs?: number } {
  if (!scope.anyLimit) return {};
  const padMs = (scope.anyWeeklyLimit ? 8 : 2) * DAY_MS;
  return { countFromMs: fromMs - padMs, countToMs: toMs + padMs };
}

/** What the policy writes need of a request: the CLI runs them without one. */
export type PolicyContext = Pick<RequestContext, 'runtime'> & WriteContext;

export async function getBookingPolicy(ctx: Pick<RequestContext, 'runtime'>, appId: string): Promise<AppPolicy> {
  return (await loadPolicyScope(ctx.runtime.database.db, appId)).app;
}

/** Replaces the app's policy whole: a rule left out is off. */
export async function setBookingPolicy(ctx: PolicyContext, appId: string, input: BookingPolicyInput): Promise<AppPolicy> {
  const now = ctx.runtime.clock.now();
  return writeTransaction(ctx, (tx) => writeBookingPolicy(tx, appId, input, now));
}

/** setBookingPolicy inside a transaction the caller holds (the import's). */
export async function writeBookingPolicy(tx: Tx, appId: string, input: BookingPolicyInput, now: Date): Promise<AppPolicy> {
  const policy = appPolicyOf(input);
  await tx
    .insert(bookingPolicies)
    .values({ appId, ...policy, updatedAt: now })
    .onConflictDoUpdate({ target: bookingPolicies.appId, set: { ...policy, updatedAt: now } });
  return policy;
}

/** Replaces an agent's own rules and round-robin settings whole. */
export async function setAgentBookingPolicy(ctx: PolicyContext, appId: string, agentId: string, input: AgentBookingPolicyInput): Promise<AgentRow> {
  return writeTransaction(ctx, async (tx) => {
    const [row] = await tx
      .update(agents)
      .set({
        bookingPolicy: overridesOf(input),
        assignmentPriority: input.priority ?? defaultPriority,
        assignmentWeight: input.weight ?? defaultWeight,
        updatedAt: ctx.runtime.clock.now(),
      })
      .where(and(eq(agents.appId, appId), eq(agents.id, agentId), isNull(agents.deletedAt)))
      .returning();
    if (!row) throw notFound('Agent');
    return row;
  });
}
