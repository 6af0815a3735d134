import { AppError, validationFailed } from '../errors/app-error.js';
import type { RequestContext } from '../runtime.js';
import { loadCalendars } from './calendars.js';
import { countRange, loadPolicyScope } from './policy.service.js';
import { rulesOf } from './policy.js';
import type { AvailabilityArgs } from './fields.js';
import { availableSlots, candidateCount, explainSlots, type AgentCalendar, type SlotQuery } from './slots.js';

/** Grid starts × agents considered: above this a request is refused, so one stays cheap. */
export const MAX_CANDIDATES = 400;
const MINUTE_MS = 60_000;

const invalid = (field: string, message: string, code: 'invalid_value' | 'too_big' = 'invalid_value') =>
  validationFailed([{ field, code, message }], 'invalid_request');

/**
 * Validates the request and loads the calendars it considers in one query; the slots themselves
 * come from the pure engine (slots.ts), computed fresh every time, so a booking shows at once.
 */
async function resolveAvailabilityQuery(ctx: RequestContext, args: AvailabilityArgs): Promise<{ query: SlotQuery; calendars: AgentCalendar[] }> {
  if (!(args.toUtc > args.fromUtc)) throw invalid('toUtc', 'must be after fromUtc');
  const query: SlotQuery = {
    fromMs: args.fromUtc.getTime(),
    toMs: args.toUtc.getTime(),
    durationMinutes: args.durationMinutes,
    stepMinutes: args.stepMinutes ?? args.durationMinutes,
    bufferBeforeMinutes: args.bufferBeforeMinutes ?? 0,
    bufferAfterMinutes: args.bufferAfterMinutes ?? 0,
    respectWorkingHours: args.respectWorkingHours ?? true,
    nowMs: ctx.runtime.clock.now().getTime(),
  };
  const tooMany = (count: number) =>
    new AppError(
      'invalid_request',
      `The request yields ${count} candidate slots, more than ${MAX_CANDIDATES} (window, step and agents together): narrow the window, raise stepMinutes or pass agentId`,
      // The window is what a caller narrows first; the message names the other levers.
      { details: [{ field: 'toUtc', code: 'too_big', message: `the window yields ${count} candidate slots, more than ${MAX_CANDIDATES}` }] },
    );
  // One agent's grid alone over the limit needs no database round trip.
  const perAgent = candidateCount(query, 1);
  if (perAgent > MAX_CANDIDATES) throw tooMany(perAgent);
  // The app's booking policy and its agents' overrides apply here exactly as to a booking.
  const scope = await loadPolicyScope(ctx.runtime.database.db, args.appId);
  const calendars = await loadCalendars(ctx.runtime.database.db, {
    appId: args.appId,
    agentId: args.agentId,
    fromMs: query.fromMs - Math.max(query.bufferBeforeMinutes * MINUTE_MS, scope.maxBufferBeforeMs),
    toMs: query.toMs + Math.max(query.bufferAfterMinutes * MINUTE_MS, scope.maxBufferAfterMs),
    appRules: rulesOf(scope.app),
    ...countRange(scope, query.fromMs, query.toMs),
  });
  if (args.agentId && calendars.length === 0) throw invalid('agentId', 'is not an agent of this app');
  const total = perAgent * calendars.length;
  if (total > MAX_CANDIDATES) throw tooMany(total);
  return { query, calendars };
}

export async function availability(ctx: RequestContext, args: AvailabilityArgs) {
  const { query, calendars } = await resolveAvailabilityQuery(ctx, args);
  return { slots: availableSlots({ query, agents: calendars }) };
}

/** The same request, with every rejected candidate and why ("why is 10:00 not offered?"). */
export async function availabilityExplained(ctx: RequestContext, args: AvailabilityArgs) {
  const { query, calendars } = await resolveAvailabilityQuery(ctx, args);
  return explainSlots({ query, agents: calendars });
}
