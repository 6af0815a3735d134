import { expandWorkingHours, offsetAt, type Interval, type WeeklyHours, type ZoneClock, zoneClock } from './working-hours.js';
import { isoInstant } from '../time/iso-instant.js';
import type { SlotRefusalCode } from '../errors/app-error.js';

/**
 * An agent's booking rules (the app's policy with the agent's overrides applied). Every rule
 * off (noBookingRules) is the engine without a policy.
 */
export interface BookingRules {
  /** A slot starts at least this many minutes after now; 0: any start. */
  minimumNoticeMinutes: number;
  /** A slot starts at most this many days (24 h each) after now; null: no limit. */
  horizonDays: number | null;
  /** Kept free before and after every booked call of the agent, on top of the query's buffers. */
  bufferBeforeMinutes: number;
  bufferAfterMinutes: number;
  /** At most this many calls (not cancelled) start on one local day / ISO week (Monday first) of the agent; null: no limit. */
  maxCallsPerDay: number | null;
  maxCallsPerWeek: number | null;
  /** Slots start on this grid of local minutes since midnight (15: :00, :15, :30, :45); null: any minute. */
  alignmentMinutes: number | null;
}

export const noBookingRules: BookingRules = {
  minimumNoticeMinutes: 0,
  horizonDays: null,
  bufferBeforeMinutes: 0,
  bufferAfterMinutes: 0,
  maxCallsPerDay: null,
  maxCallsPerWeek: null,
  alignmentMinutes: null,
};

export interface AgentCalendar {
  agentId: string;
  timezone: string;
  workingHours: WeeklyHours;
  /** `available_extra` exceptions. */
  availableExtra: Interval[];
  /** Scheduled calls, `blocked` exceptions and do-not-disturb windows, in any order. */
  busy: BusyInterval[];
  /** Absent: no rules (noBookingRules). */
  rules?: BookingRules;
  /**
   * Starts of the agent's calls that count toward its daily and weekly limits (every call not
   * cancelled, the one being rescheduled left out), over the local weeks the window touches.
   */
  callStarts?: number[];
}

/** What makes an interval busy, for explanations; the slot test itself ignores it. */
export const busyKinds = ['call', 'blocked', 'dnd'] as const;
export type BusyKind = (typeof busyKinds)[number];
export interface BusyInterval extends Interval {
  kind?: BusyKind;
  /** The call, exception or do-not-disturb window it comes from. */
  id?: string;
  /** A call's own buffers, kept with it when it was booked: it occupies [start − before, end + after). */
  bufferBeforeMs?: number;
  bufferAfterMs?: number;
}

export interface SlotQuery {
  fromMs: number;
  toMs: number;
  durationMinutes: number;
  stepMinutes: number;
  bufferBeforeMinutes: number;
  bufferAfterMinutes: number;
  respectWorkingHours: boolean;
  /** Now, for minimum notice and the horizon; absent: neither rule applies. */
  nowMs?: number;
}

export interface Slot {
  startUtc: string;
  endUtc: string;
  agentId: string;
}

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
// Candidates closer than this share one expansion of working hours (and one zone clock);
// farther apart, each group gets its own, so a sparse grid over years expands only a few days.
const SHARED_EXPANSION_GAP_MS = 7 * 24 * 60 * MINUTE_MS;

/**
 * Candidate starts are fromUtc + k·stepMinutes while start + duration <= toUtc; the number of
 * candidates is grid starts × agents considered, which the caller caps (MAX_CANDIDATES).
 */
export function candidateCount(
  { fromMs, toMs, durationMinutes, stepMinutes }: Pick<SlotQuery, 'fromMs' | 'toMs' | 'durationMinutes' | 'stepMinutes'>,
  agentCount: number,
): number {
  if (!(durationMinutes > 0 && stepMinutes > 0)) {
    throw new RangeError('durationMinutes and stepMinutes must be positive');
  }
  const room = toMs - fromMs - durationMinutes * MINUTE_MS;
  return room < 0 ? 0 : (Math.floor(room / (stepMinutes * MINUTE_MS)) + 1) * agentCount;
}

/** Candidate starts fromMs + k·stepMs for k < count, in milliseconds, with what a slot needs. */
interface Grid {
  fromMs: number;
  stepMs: number;
  count: number;
  durationMs: number;
  bufferBeforeMs: number;
  bufferAfterMs: number;
  respectWorkingHours: boolean;
  nowMs: number | undefined;
}

/**
 * Windows a candidate may lie in, sorted by start with the running maximum of their ends: some
 * window contains [s, e) iff the largest end among those starting by s reaches e. Not merged:
 * a slot must lie inside ONE available_extra exception (working hours come merged).
 */
interface WindowIndex {
  starts: number[];
  maxEnds: number[];
}

function indexWindows(windows: Interval[]): WindowIndex {
  const sorted = windows.filter((w) => w.startMs < w.endMs).sort((a, b) => a.startMs - b.startMs);
  const maxEnds: number[] = [];
  for (const { endMs } of sorted) maxEnds.push(Math.max(endMs, maxEnds[maxEnds.length - 1] ?? -Infinity));
  return { starts: sorted.map((w) => w.startMs), maxEnds };
}

function containsSpan(index: WindowIndex, s: number, e: number): boolean {
  let low = 0;
  let high = index.starts.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((index.starts[middle] as number) <= s) low = middle + 1;
    else high = middle;
  }
  return (index.maxEnds[low - 1] ?? -Infinity) >= e;
}

/**
 * Which of the grid's candidates are slots of this agent: [s, e) is a slot iff
 * (respectWorkingHours=false, or [s, e) lies inside one working-hours interval or one
 * available_extra exception), [s − bufferBefore, e + bufferAfter) overlaps none of the
 * agent's busy intervals (a call with its own buffers), and the agent's booking rules allow it.
 *
 * Intervals are half-open, so busy [b0, b1) overlaps candidate k iff
 * b0 − duration − bufferAfter < s_k < b1 + bufferBefore: a run of consecutive k. Marking each
 * run's ends in a difference array costs O(busy + candidates) per agent with no sorting, which
 * would dominate for many agents with many intervals.
 */
function slotsOfAgent(grid: Grid, agent: AgentCalendar, workingHours: Interval[], clock: () => ZoneClock): boolean[] {
  const runEdges = new Int32Array(grid.count + 1);
  const buffers = buffersOf(grid, agent);
  for (const busy of agent.busy) {
    const run = busyRun(grid, busy, buffers);
    if (run) {
      runEdges[run.first] = (runEdges[run.first] as number) + 1;
      runEdges[run.last + 1] = (runEdges[run.last + 1] as number) - 1;
    }
  }
  const inHours = inHoursTest(grid, agent, workingHours);
  const refusedByRules = rulesTest(grid, agent, clock);
  const isSlot: boolean[] = [];
  let conflicts = 0;
  for (let k = 0; k < grid.count; k++) {
    conflicts += runEdges[k] as number;
    isSlot.push(conflicts === 0 && inHours(k) && refusedByRules(k).length === 0);
  }
  return isSlot;
}

/** The candidate's buffers for this agent: the query's, or the agent's rules where larger. */
function buffersOf(grid: Grid, agent: AgentCalendar): { beforeMs: number; afterMs: number } {
  const rules = agent.rules ?? noBookingRules;
  return {
    beforeMs: Math.max(grid.bufferBeforeMs, rules.bufferBeforeMinutes * MINUTE_MS),
    afterMs: Math.max(grid.bufferAfterMs, rules.bufferAfterMinutes * MINUTE_MS),
  };
}

/**
 * The consecutive candidates k whose range overlaps a busy interval: with buffers (the
 * candidate's and the busy call's own), [s − bufferBefore, e + bufferAfter) against
 * [b0 − its bufferBefore, b1 + its bufferAfter); without, [s, e) against [b0, b1). Undefined
 * when none does.
 */
function busyRun(grid: Grid, busy: BusyInterval, buffers: { beforeMs: number; afterMs: number } | undefined): { first: number; last: number } | undefined {
  const { startMs, endMs } = busy;
  if (startMs >= endMs) return undefined; // an empty interval overlaps nothing
  const gapAfterMs = buffers ? buffers.afterMs + (busy.bufferBeforeMs ?? 0) : 0;
  const gapBeforeMs = buffers ? buffers.beforeMs + (busy.bufferAfterMs ?? 0) : 0;
  const afterMs = startMs - grid.durationMs - gapAfterMs - grid.fromMs;
  const beforeMs = endMs + gapBeforeMs - grid.fromMs;
  const first = Math.max(0, Math.floor(afterMs / grid.stepMs) + 1);
  const last = Math.min(grid.count - 1, Math.ceil(beforeMs / grid.stepMs) - 1);
  return first <= last ? { first, last } : undefined;
}

const NONE: readonly RejectionCode[] = [];
// How far around the grid the wall clock reaches: a local week and a day of offsets.
const COUNT_REACH_MS = 8 * DAY_MS;

/** The local day number (days since 1970-01-01 on the agent's wall clock) of an instant. */
const localDay = (clock: ZoneClock, utcMs: number) => Math.floor((utcMs + offsetAt(clock, utcMs) * MINUTE_MS) / DAY_MS);
// 1970-01-01 was a Thursday: shifting by 3 makes weeks run Monday to Sunday.
const localWeek = (day: number) => Math.floor((day + 3) / 7);

/**
 * The booking rules candidate k breaks, in a fixed order (empty: none). Notice and horizon
 * compare with now; alignment, daily and weekly limits read the agent's wall clock, so they
 * follow its zone across DST (a local day may last 23 or 25 hours).
 */
function rulesTest(grid: Grid, agent: AgentCalendar, clock: () => ZoneClock): (k: number) => readonly RejectionCode[] {
  const rules = agent.rules ?? noBookingRules;
  const now = grid.nowMs;
  const earliest = now !== undefined && rules.minimumNoticeMinutes > 0 ? now + rules.minimumNoticeMinutes * MINUTE_MS : -Infinity;
  const latest = now !== undefined && rules.horizonDays !== null ? now + rules.horizonDays * DAY_MS : Infinity;
  const { alignmentMinutes, maxCallsPerDay, maxCallsPerWeek } = rules;
  const limited = maxCallsPerDay !== null || maxCallsPerWeek !== null;
  if (earliest === -Infinity && latest === Infinity && alignmentMinutes === null && !limited) return () => NONE;
  const perDay = new Map<number, number>();
  const perWeek = new Map<number, number>();
  if (limited) {
    // A call more than a week from every candidate shares no local day or week with one.
    const fromMs = grid.fromMs - COUNT_REACH_MS;
    const toMs = grid.fromMs + grid.count * grid.stepMs + COUNT_REACH_MS;
    for (const start of agent.callStarts ?? []) {
      if (start < fromMs || start >= toMs) continue;
      const day = localDay(clock(), start);
      perDay.set(day, (perDay.get(day) ?? 0) + 1);
      perWeek.set(localWeek(day), (perWeek.get(localWeek(day)) ?? 0) + 1);
    }
  }
  return (k) => {
    const s = grid.fromMs + k * grid.stepMs;
    const codes: RejectionCode[] = [];
    if (s < earliest) codes.push('minimum_notice');
    if (s > latest) codes.push('beyond_horizon');
    if (alignmentMinutes !== null || limited) {
      const wallMs = s + offsetAt(clock(), s) * MINUTE_MS;
      if (alignmentMinutes !== null && (((wallMs % DAY_MS) + DAY_MS) % DAY_MS) % (alignmentMinutes * MINUTE_MS) !== 0) codes.push('misaligned');
      const day = Math.floor(wallMs / DAY_MS);
      if (maxCallsPerDay !== null && (perDay.get(day) ?? 0) >= maxCallsPerDay) codes.push('daily_limit');
      if (maxCallsPerWeek !== null && (perWeek.get(localWeek(day)) ?? 0) >= maxCallsPerWeek) codes.push('weekly_limit');
    }
    return codes.length === 0 ? NONE : codes;
  };
}

/** Whether candidate k lies inside one working-hours interval or one available_extra exception. */
function inHoursTest(grid: Grid, agent: AgentCalendar, workingHours: Interval[]): (k: number) => boolean {
  if (!grid.respectWorkingHours) return () => true;
  const working = indexWindows(workingHours);
  const availableExtra = indexWindows(agent.availableExtra);
  return (k) => {
    const s = grid.fromMs + k * grid.stepMs;
    const e = s + grid.durationMs;
    return containsSpan(working, s, e) || containsSpan(availableExtra, s, e);
  };
}

/** Groups of nearby candidates [s, s + duration), each expanded once per time zone. */
function candidateSpans(grid: Grid): Interval[] {
  const spans: Interval[] = [];
  for (let k = 0; k < grid.count; k++) {
    const startMs = grid.fromMs + k * grid.stepMs;
    const last = spans[spans.length - 1];
    if (last && startMs - last.endMs <= SHARED_EXPANSION_GAP_MS) last.endMs = startMs + grid.durationMs;
    else spans.push({ startMs, endMs: startMs + grid.durationMs });
  }
  return spans;
}

/**
 * Open slots of the given agents, sorted by startUtc then agentId, so a response is stable. The
 * caller checks candidateCount against its limit first, and passes each agent's busy intervals.
 */
export function availableSlots({ query, agents }: { query: SlotQuery; agents: AgentCalendar[] }): Slot[] {
  const { grid, agentsById, workingHoursOf, clockOf } = buildGrid(query, agents);
  const slotsByAgent = agentsById.map((agent) => ({
    agentId: agent.agentId,
    isSlot: slotsOfAgent(grid, agent, workingHoursOf(agent), clockOf(agent)),
  }));

  const slots: Slot[] = [];
  for (let k = 0; k < grid.count; k++) {
    let times: { startUtc: string; endUtc: string } | undefined;
    for (const { agentId, isSlot } of slotsByAgent) {
      if (!isSlot[k]) continue;
      times ??= candidateTimes(grid, k);
      // Fields spelled out: adding a property after a spread is slow in V8 in this hot loop.
      slots.push({ startUtc: times.startUtc, endUtc: times.endUtc, agentId });
    }
  }
  return slots;
}

/** The grid, the agents in agentId order (each once) and their working hours over the grid. */
function buildGrid(query: SlotQuery, agents: AgentCalendar[]) {
  const grid: Grid = {
    fromMs: query.fromMs,
    stepMs: query.stepMinutes * MINUTE_MS,
    count: candidateCount(query, 1),
    durationMs: query.durationMinutes * MINUTE_MS,
    bufferBeforeMs: query.bufferBeforeMinutes * MINUTE_MS,
    bufferAfterMs: query.bufferAfterMinutes * MINUTE_MS,
    respectWorkingHours: query.respectWorkingHours,
    nowMs: query.nowMs,
  };
  const spans = grid.respectWorkingHours && grid.count > 0 ? candidateSpans(grid) : [];
  const clocksByZone = new Map<string, ZoneClock[]>();
  const workingHoursOf = (agent: AgentCalendar) => {
    if (!grid.respectWorkingHours) return [];
    let clocks = clocksByZone.get(agent.timezone);
    if (!clocks) {
      clocks = spans.map((span) => zoneClock({ timezone: agent.timezone, fromMs: span.startMs, toMs: span.endMs }));
      clocksByZone.set(agent.timezone, clocks);
    }
    return clocks.flatMap((clock) => expandWorkingHours({ clock, hours: agent.workingHours }));
  };
  // Plain code-unit order, not localeCompare: the order must not depend on the server's locale.
  // The same agent listed twice counts once.
  const sorted = [...agents].sort((a, b) => (a.agentId < b.agentId ? -1 : a.agentId > b.agentId ? 1 : 0));
  const agentsById = sorted.filter((agent, i) => agent.agentId !== sorted[i - 1]?.agentId);
  // The wall clock of a zone over the grid and the calls the limits count, built once per zone and
  // only when some agent's rules read it (building one costs Intl calls).
  const rulesClocks = new Map<string, ZoneClock>();
  const clockOf = (agent: AgentCalendar) => () => {
    let clock = rulesClocks.get(agent.timezone);
    if (!clock) {
      clock = zoneClock({ timezone: agent.timezone, fromMs: grid.fromMs - COUNT_REACH_MS, toMs: grid.fromMs + grid.count * grid.stepMs + COUNT_REACH_MS });
      rulesClocks.set(agent.timezone, clock);
    }
    return clock;
  };
  return { grid, agentsById, workingHoursOf, clockOf };
}

const candidateTimes = (grid: Grid, k: number) => {
  const s = grid.fromMs + k * grid.stepMs;
  return { startUtc: isoInstant(new Date(s)), endUtc: isoInstant(new Date(s + grid.durationMs)) };
};

/** Why a candidate is not a slot. `id` names the call, exception or window responsible. */
export type RejectionCode = SlotRefusalCode;
export interface RejectionReason {
  code: RejectionCode;
  id?: string;
  /** For buffer_overlap: what the buffer runs into. */
  kind?: BusyKind;
}
export interface RejectedCandidate extends Slot {
  reasons: RejectionReason[];
}

const directReason: Record<BusyKind, RejectionCode> = { call: 'conflicts_call', blocked: 'blocked', dnd: 'do_not_disturb' };

/**
 * availableSlots with the candidates it rejects and why, in the same order (startUtc, then
 * agentId). The slots are exactly availableSlots' (the same slotsOfAgent decides them); the
 * reasons come from the same overlap runs and rule test: a busy interval overlapping [s, e)
 * itself is a conflict of its kind, one overlapping only the buffered ranges is buffer_overlap.
 */
export function explainSlots({ query, agents }: { query: SlotQuery; agents: AgentCalendar[] }): {
  slots: Slot[];
  rejected: RejectedCandidate[];
} {
  const { grid, agentsById, workingHoursOf, clockOf } = buildGrid(query, agents);
  const perAgent = agentsById.map((agent) => ({ agentId: agent.agentId, ...explainAgent(grid, agent, workingHoursOf(agent), clockOf(agent)) }));
  const slots: Slot[] = [];
  const rejected: RejectedCandidate[] = [];
  for (let k = 0; k < grid.count; k++) {
    const times = candidateTimes(grid, k);
    for (const { agentId, isSlot, reasons } of perAgent) {
      if (isSlot[k]) slots.push({ startUtc: times.startUtc, endUtc: times.endUtc, agentId });
      else rejected.push({ startUtc: times.startUtc, endUtc: times.endUtc, agentId, reasons: reasons[k]! });
    }
  }
  return { slots, rejected };
}

/** One agent's verdict on every candidate of the grid, with the reasons of each refusal. */
function explainAgent(grid: Grid, agent: AgentCalendar, workingHours: Interval[], clock: () => ZoneClock) {
  const reasons: RejectionReason[][] = Array.from({ length: grid.count }, () => []);
  const inHours = inHoursTest(grid, agent, workingHours);
  for (let k = 0; k < grid.count; k++) if (!inHours(k)) reasons[k]!.push({ code: 'outside_working_hours' });
  const buffers = buffersOf(grid, agent);
  for (const busy of agent.busy) {
    const buffered = busyRun(grid, busy, buffers);
    if (!buffered) continue;
    const direct = busyRun(grid, busy, undefined);
    const kind = busy.kind ?? 'call';
    for (let k = buffered.first; k <= buffered.last; k++) {
      const isDirect = direct !== undefined && k >= direct.first && k <= direct.last;
      const reason: RejectionReason = isDirect ? { code: directReason[kind] } : { code: 'buffer_overlap', kind };
      if (busy.id !== undefined) reason.id = busy.id;
      reasons[k]!.push(reason);
    }
  }
  const refusedByRules = rulesTest(grid, agent, clock);
  for (let k = 0; k < grid.count; k++) for (const code of refusedByRules(k)) reasons[k]!.push({ code });
  return { isSlot: slotsOfAgent(grid, agent, workingHours, clock), reasons };
}

/**
 * Why a booking or reschedule of this agent into [startMs, endMs) is refused, as
 * availabilityExplained would name it: the one candidate [startMs, endMs) through the same
 * per-agent test as availability, with no query buffers (the agent's own still apply). Empty
 * when it is bookable. The caller leaves the call being rescheduled out of agent.busy and
 * agent.callStarts.
 */
export function bookingRefusal({
  agent,
  startMs,
  endMs,
  nowMs,
  respectWorkingHours = true,
}: {
  agent: AgentCalendar;
  startMs: number;
  endMs: number;
  nowMs?: number;
  respectWorkingHours?: boolean;
}): RejectionReason[] {
  if (!(startMs < endMs)) return [{ code: 'outside_working_hours' }];
  const durationMs = endMs - startMs;
  const grid: Grid = { fromMs: startMs, stepMs: durationMs, count: 1, durationMs, bufferBeforeMs: 0, bufferAfterMs: 0, respectWorkingHours, nowMs };
  let clock: ZoneClock | undefined;
  const clockOf = () => (clock ??= zoneClock({ timezone: agent.timezone, fromMs: startMs - COUNT_REACH_MS, toMs: endMs + COUNT_REACH_MS }));
  const workingHours = respectWorkingHours
    ? expandWorkingHours({ clock: zoneClock({ timezone: agent.timezone, fromMs: startMs, toMs: endMs }), hours: agent.workingHours })
    : [];
  const { isSlot, reasons } = explainAgent(grid, agent, workingHours, clockOf);
  return isSlot[0] ? [] : reasons[0]!;
}

/** Whether a booking or reschedule into [startMs, endMs) is allowed: bookingRefusal finds nothing. */
export function isSlotAvailable(options: Parameters<typeof bookingRefusal>[0]): boolean {
  return bookingRefusal(options).length === 0;
}
