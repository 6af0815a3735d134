import { expandWorkingHours, type Interval, type WeeklyHours, type ZoneClock, zoneClock } from './working-hours.js';
import { isoInstant } from '../time/iso-instant.js';

export interface AgentCalendar {
  agentId: string;
  timezone: string;
  workingHours: WeeklyHours;
  /** `available_extra` exceptions. */
  availableExtra: Interval[];
  /** Scheduled calls, `blocked` exceptions and do-not-disturb windows, in any order. */
  busy: BusyInterval[];
}

/** What makes an interval busy, for explanations; the slot test itself ignores it. */
export type BusyKind = 'call' | 'blocked' | 'dnd';
export interface BusyInterval extends Interval {
  kind?: BusyKind;
  /** The call, exception or do-not-disturb window it comes from. */
  id?: string;
}

export interface SlotQuery {
  fromMs: number;
  toMs: number;
  durationMinutes: number;
  stepMinutes: number;
  bufferBeforeMinutes: number;
  bufferAfterMinutes: number;
  respectWorkingHours: boolean;
}

export interface Slot {
  startUtc: string;
  endUtc: string;
  agentId: string;
}

const MINUTE_MS = 60_000;
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
 * available_extra exception) and [s − bufferBefore, e + bufferAfter) overlaps none of the
 * agent's busy intervals.
 *
 * Intervals are half-open, so busy [b0, b1) overlaps candidate k iff
 * b0 − duration − bufferAfter < s_k < b1 + bufferBefore: a run of consecutive k. Marking each
 * run's ends in a difference array costs O(busy + candidates) per agent with no sorting, which
 * would dominate for many agents with many intervals.
 */
function slotsOfAgent(grid: Grid, agent: AgentCalendar, workingHours: Interval[]): boolean[] {
  const runEdges = new Int32Array(grid.count + 1);
  for (const busy of agent.busy) {
    const run = busyRun(grid, busy, true);
    if (run) {
      runEdges[run.first] = (runEdges[run.first] as number) + 1;
      runEdges[run.last + 1] = (runEdges[run.last + 1] as number) - 1;
    }
  }
  const inHours = inHoursTest(grid, agent, workingHours);
  const isSlot: boolean[] = [];
  let conflicts = 0;
  for (let k = 0; k < grid.count; k++) {
    conflicts += runEdges[k] as number;
    isSlot.push(conflicts === 0 && inHours(k));
  }
  return isSlot;
}

/**
 * The consecutive candidates k whose range overlaps a busy interval: with buffers,
 * [s − bufferBefore, e + bufferAfter); without, [s, e). Undefined when none does.
 */
function busyRun(grid: Grid, { startMs, endMs }: Interval, withBuffers: boolean): { first: number; last: number } | undefined {
  if (startMs >= endMs) return undefined; // an empty interval overlaps nothing
  const afterMs = startMs - grid.durationMs - (withBuffers ? grid.bufferAfterMs : 0) - grid.fromMs;
  const beforeMs = endMs + (withBuffers ? grid.bufferBeforeMs : 0) - grid.fromMs;
  const first = Math.max(0, Math.floor(afterMs / grid.stepMs) + 1);
  const last = Math.min(grid.count - 1, Math.ceil(beforeMs / grid.stepMs) - 1);
  return first <= last ? { first, last } : undefined;
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
  const { grid, agentsById, workingHoursOf } = buildGrid(query, agents);
  const slotsByAgent = agentsById.map((agent) => ({
    agentId: agent.agentId,
    isSlot: slotsOfAgent(grid, agent, workingHoursOf(agent)),
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
  return { grid, agentsById, workingHoursOf };
}

const candidateTimes = (grid: Grid, k: number) => {
  const s = grid.fromMs + k * grid.stepMs;
  return { startUtc: isoInstant(new Date(s)), endUtc: isoInstant(new Date(s + grid.durationMs)) };
};

/** Why a candidate is not a slot. `id` names the call, exception or window responsible. */
export type RejectionCode = 'outside_working_hours' | 'conflicts_call' | 'buffer_overlap' | 'blocked' | 'do_not_disturb';
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
 * reasons come from the same overlap runs: a busy interval overlapping [s, e) itself is a
 * conflict of its kind, one overlapping only the buffered range is buffer_overlap.
 */
export function explainSlots({ query, agents }: { query: SlotQuery; agents: AgentCalendar[] }): {
  slots: Slot[];
  rejected: RejectedCandidate[];
} {
  const { grid, agentsById, workingHoursOf } = buildGrid(query, agents);
  const perAgent = agentsById.map((agent) => {
    const workingHours = workingHoursOf(agent);
    const reasons: RejectionReason[][] = Array.from({ length: grid.count }, () => []);
    const inHours = inHoursTest(grid, agent, workingHours);
    for (let k = 0; k < grid.count; k++) if (!inHours(k)) reasons[k]!.push({ code: 'outside_working_hours' });
    for (const busy of agent.busy) {
      const buffered = busyRun(grid, busy, true);
      if (!buffered) continue;
      const direct = busyRun(grid, busy, false);
      const kind = busy.kind ?? 'call';
      for (let k = buffered.first; k <= buffered.last; k++) {
        const isDirect = direct !== undefined && k >= direct.first && k <= direct.last;
        const reason: RejectionReason = isDirect ? { code: directReason[kind] } : { code: 'buffer_overlap', kind };
        if (busy.id !== undefined) reason.id = busy.id;
        reasons[k]!.push(reason);
      }
    }
    return { agentId: agent.agentId, isSlot: slotsOfAgent(grid, agent, workingHours), reasons };
  });
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

/**
 * Whether a booking or reschedule into [startMs, endMs) is allowed: the slot test without buffers
 * (a booking or PATCH into an unavailable slot is 409). The caller leaves the call being
 * rescheduled out of agent.busy.
 */
export function isSlotAvailable({
  agent,
  startMs,
  endMs,
  respectWorkingHours = true,
}: {
  agent: AgentCalendar;
  startMs: number;
  endMs: number;
  respectWorkingHours?: boolean;
}): boolean {
  if (!(startMs < endMs)) return false;
  const durationMs = endMs - startMs;
  const grid: Grid = {
    fromMs: startMs,
    stepMs: durationMs,
    count: 1,
    durationMs,
    bufferBeforeMs: 0,
    bufferAfterMs: 0,
    respectWorkingHours,
  };
  const workingHours = respectWorkingHours
    ? expandWorkingHours({
        clock: zoneClock({ timezone: agent.timezone, fromMs: startMs, toMs: endMs }),
        hours: agent.workingHours,
      })
    : [];
  return slotsOfAgent(grid, agent, workingHours)[0] === true;
}
