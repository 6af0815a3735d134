import { and, asc, count, eq, gt, inArray, isNull, lt, sql } from 'drizzle-orm';
import DataLoader from 'dataloader';
import type { z } from 'zod';
import type { Queryable, Tx } from '../db/client.js';
import { FOREIGN_KEY_VIOLATION, pgErrorCode } from '../db/raw.js';
import { conflict, notFound, validationFailed } from '../errors/app-error.js';
import { loader, type RequestContext } from '../runtime.js';
import type { AgentInput, exceptionInput, windowInput, WindowRange } from './fields.js';
import { agents, availabilityExceptions, dndWindows, scheduledCalls, type AgentRow, type AvailabilityExceptionRow, type DndWindowRow } from './tables.js';
import type { WeeklyHours } from './working-hours.js';
import { writeTransaction } from '../db/idempotency.js';

// Agents' calendars: the members who take calls, their weekly hours, exceptions and DND windows,
// managed through GraphQL mutations.

/** An agent of the app that was not deleted (a deleted one stays only for the calls that name it). */
const liveAgent = (appId: string, agentId: string) => and(eq(agents.appId, appId), eq(agents.id, agentId), isNull(agents.deletedAt));

/** Seeds the hash of an agent's lock key, apart from any other advisory lock of the database. */
const AGENT_LOCK_SEED = 7_190_411;

/**
 * Takes the transaction lock of each agent, in one order. Every write that books an agent, or
 * deletes one, holds it: a booking and a deletion of one agent run one after the other.
 */
export async function lockAgents(tx: Tx, appId: string, agentIds: readonly string[]): Promise<void> {
  for (const agentId of [...new Set(agentIds)].sort()) {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${appId}::text || '/' || ${agentId}::text, ${AGENT_LOCK_SEED}::bigint))`);
  }
}

export async function agentExists(db: Queryable, appId: string, agentId: string): Promise<boolean> {
  const [row] = await db.select({ id: agents.id }).from(agents).where(liveAgent(appId, agentId)).limit(1);
  return row !== undefined;
}

/** How many of these agents are live (not deleted): under lockAgents, a booking checks its agents are still there. */
export async function liveAgentCount(db: Queryable, appId: string, agentIds: readonly string[]): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(agents)
    .where(and(eq(agents.appId, appId), inArray(agents.id, [...new Set(agentIds)]), isNull(agents.deletedAt)));
  return row?.n ?? 0;
}

export async function listAgents(ctx: RequestContext, appId: string): Promise<AgentRow[]> {
  return ctx.runtime.database.db
    .select()
    .from(agents)
    .where(and(eq(agents.appId, appId), isNull(agents.deletedAt)))
    .orderBy(asc(agents.name), asc(agents.id));
}

export async function getAgent(ctx: RequestContext, appId: string, agentId: string): Promise<AgentRow> {
  const [row] = await ctx.runtime.database.db.select().from(agents).where(liveAgent(appId, agentId)).limit(1);
  if (!row) throw notFound('Agent');
  return row;
}

/** Creates an agent, or replaces the name, zone and hours of the agent with this id (a deleted one comes back). */
export async function saveAgent(ctx: RequestContext, appId: string, input: AgentInput): Promise<AgentRow> {
  const now = ctx.runtime.clock.now();
  const values = { appId, name: input.name, timezone: input.timezone, workingHours: input.workingHours, updatedAt: now };
  const [row] = await writeTransaction(ctx, (tx) =>
    tx
      .insert(agents)
      .values({ ...values, ...(input.id ? { id: input.id } : {}), createdAt: now })
      // Saving the id of a deleted agent brings it back (its calls on record name it still).
      .onConflictDoUpdate({ target: [agents.appId, agents.id], set: { ...values, deletedAt: null } })
      .returning(),
  );
  return row!;
}

export async function setWorkingHours(ctx: RequestContext, appId: string, agentId: string, hours: WeeklyHours): Promise<AgentRow> {
  return writeTransaction(ctx, async (tx) => {
    const [row] = await tx
      .update(agents)
      .set({ workingHours: hours, updatedAt: ctx.runtime.clock.now() })
      .where(liveAgent(appId, agentId))
      .returning();
    // Thrown inside the transaction: a miss leaves an Idempotency-Key unapplied (nothing stored).
    if (!row) throw notFound('Agent');
    return row;
  });
}

/**
 * Deletes an agent with its exceptions and DND windows. One with a call still `scheduled` is 409
 * (reassign, cancel or record the outcome first). One whose calls on record are all final is
 * kept as deleted (deletedAt), for those calls name it; one with no calls at all is removed.
 */
export async function deleteAgent(ctx: RequestContext, appId: string, agentId: string): Promise<AgentRow> {
  try {
    return await writeTransaction(ctx, async (tx) => {
      await lockAgents(tx, appId, [agentId]);
      const [agent] = await tx.select({ id: agents.id }).from(agents).where(liveAgent(appId, agentId)).for('update');
      if (!agent) throw notFound('Agent');
      const [calls] = await tx
        .select({ total: count(), scheduled: sql<number>`count(*) filter (where ${scheduledCalls.status} = 'scheduled')`.mapWith(Number) })
        .from(scheduledCalls)
        .where(and(eq(scheduledCalls.appId, appId), eq(scheduledCalls.assignedAgentId, agentId)));
      if ((calls?.scheduled ?? 0) > 0) throw conflict('The agent has scheduled calls: reassign or cancel them, or record their outcome, first');
      if ((calls?.total ?? 0) === 0) {
        const [removed] = await tx.delete(agents).where(liveAgent(appId, agentId)).returning();
        return removed!;
      }
      const ofAgent = <T extends typeof availabilityExceptions | typeof dndWindows>(table: T) => and(eq(table.appId, appId), eq(table.agentId, agentId));
      await tx.delete(availabilityExceptions).where(ofAgent(availabilityExceptions));
      await tx.delete(dndWindows).where(ofAgent(dndWindows));
      const now = ctx.runtime.clock.now();
      const [kept] = await tx.update(agents).set({ deletedAt: now, updatedAt: now }).where(liveAgent(appId, agentId)).returning();
      return kept!;
    });
  } catch (error) {
    // A call written without the agent's lock (the importer) between the check and the delete.
    if (pgErrorCode(error) === FOREIGN_KEY_VIOLATION) throw conflict('The agent has scheduled calls on record: reassign them first');
    throw error;
  }
}

async function requireAgent(db: Queryable, appId: string, agentId: string) {
  if (!(await agentExists(db, appId, agentId))) {
    throw validationFailed([{ field: 'agentId', code: 'invalid_value', message: 'is not an agent of this app' }], 'invalid_request');
  }
}

export async function addAvailabilityException(
  ctx: RequestContext,
  appId: string,
  input: z.output<typeof exceptionInput>,
): Promise<AvailabilityExceptionRow> {
  await requireAgent(ctx.runtime.database.db, appId, input.agentId);
  const [row] = await writeTransaction(ctx, (tx) =>
    tx
      .insert(availabilityExceptions)
      .values({ appId, agentId: input.agentId, kind: input.kind, startAt: input.startUtc, endAt: input.endUtc })
      .returning(),
  );
  return row!;
}

export async function removeAvailabilityException(ctx: RequestContext, appId: string, id: string): Promise<AvailabilityExceptionRow> {
  return writeTransaction(ctx, async (tx) => {
    const [row] = await tx
      .delete(availabilityExceptions)
      .where(and(eq(availabilityExceptions.appId, appId), eq(availabilityExceptions.id, id)))
      .returning();
    if (!row) throw notFound('Availability exception');
    return row;
  });
}

export async function addDndWindow(ctx: RequestContext, appId: string, input: z.output<typeof windowInput>): Promise<DndWindowRow> {
  await requireAgent(ctx.runtime.database.db, appId, input.agentId);
  const [row] = await writeTransaction(ctx, (tx) =>
    tx.insert(dndWindows).values({ appId, agentId: input.agentId, startAt: input.startUtc, endAt: input.endUtc }).returning(),
  );
  return row!;
}

export async function removeDndWindow(ctx: RequestContext, appId: string, id: string): Promise<DndWindowRow> {
  return writeTransaction(ctx, async (tx) => {
    const [row] = await tx
      .delete(dndWindows)
      .where(and(eq(dndWindows.appId, appId), eq(dndWindows.id, id)))
      .returning();
    if (!row) throw notFound('Do-not-disturb window');
    return row;
  });
}


const key = (appId: string, agentId: string, range: WindowRange) =>
  JSON.stringify([appId, agentId, range.fromUtc?.toISOString() ?? null, range.toUtc?.toISOString() ?? null]);

/**
 * An agent's exceptions or DND windows overlapping an optional range, batched for a list of
 * agents (one query per distinct range and table).
 */
function windowsLoader<Row extends { agentId: string; startAt: Date }>(
  ctx: RequestContext,
  name: string,
  table: typeof availabilityExceptions | typeof dndWindows,
) {
  return loader(
    ctx,
    `scheduling.${name}`,
    () =>
      new DataLoader<{ appId: string; agentId: string; range: WindowRange }, Row[], string>(
        async (keys) => {
          const first = keys[0]!;
          const rows = (await ctx.runtime.database.db
            .select()
            .from(table)
            .where(
              and(
                eq(table.appId, first.appId),
                inArray(table.agentId, [...new Set(keys.map((k) => k.agentId))]),
                first.range.fromUtc ? gt(table.endAt, first.range.fromUtc) : undefined,
                first.range.toUtc ? lt(table.startAt, first.range.toUtc) : undefined,
              ),
            )
            .orderBy(asc(table.startAt), asc(table.id))) as unknown as Row[];
          return keys.map((k) => rows.filter((r) => r.agentId === k.agentId));
        },
        { cacheKeyFn: (k) => key(k.appId, k.agentId, k.range) },
      ),
  );
}

// A DataLoader batches keys of one tick; keys of different ranges go to loaders of their own.
export const exceptionsOf = (ctx: RequestContext, appId: string, agentId: string, range: WindowRange) =>
  windowsLoaderFor<AvailabilityExceptionRow>(ctx, 'exceptions', availabilityExceptions, appId, range).load({ appId, agentId, range });
export const dndWindowsOf = (ctx: RequestContext, appId: string, agentId: string, range: WindowRange) =>
  windowsLoaderFor<DndWindowRow>(ctx, 'dnd', dndWindows, appId, range).load({ appId, agentId, range });

function windowsLoaderFor<Row extends { agentId: string; startAt: Date }>(
  ctx: RequestContext,
  name: string,
  table: typeof availabilityExceptions | typeof dndWindows,
  appId: string,
  range: WindowRange,
) {
  return windowsLoader<Row>(ctx, `${name}:${key(appId, '', range)}`, table);
}
