import { createLogger } from '../../src/log.js';
import { openDatabase } from '../../src/db/client.js';
import { loadCalendars } from '../../src/scheduling/calendars.js';
import { availableSlots, type BookingRules, type SlotQuery } from '../../src/scheduling/slots.js';
import { AVAILABILITY_QUERY, PATCH_CALLS, patchCalls } from '../scheduling-data.js';
import type { ComputeResult, Dataset, FanoutScenario, HttpRequest, Scenario, ScenarioContext, SustainedScenario } from '../types.js';

const MINUTE_MS = 60_000;
const schedulingHeaders = (ctx: ScenarioContext, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${ctx.schedulingToken}`, ...extra });

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

// Every booking rule on (the limits near the calendars' own load of a call every two hours): the engine's worst case.
const EVERY_RULE: BookingRules = {
  minimumNoticeMinutes: 60,
  horizonDays: 30,
  bufferBeforeMinutes: 15,
  bufferAfterMinutes: 15,
  maxCallsPerDay: 12,
  maxCallsPerWeek: 80,
  alignmentMinutes: 15,
};

/**
 * The pure engine on the calendars the service loads for the same request, with every booking
 * rule on: `loadCalendars` once (timed too, as detail), then `availableSlots` many times; the
 * median is the compute time.
 */
async function engineTime(dataset: Dataset): Promise<ComputeResult> {
  const database = await openDatabase(
    { DATABASE_URL: dataset.databaseUrl, DATA_DIR: dataset.dataDir ?? '', DB_POOL_MAX: 1, DB_PREPARE: true },
    createLogger('warn', 2),
  );
  try {
    const q = AVAILABILITY_QUERY;
    const query: SlotQuery = {
      fromMs: Date.parse(q.fromUtc),
      toMs: Date.parse(q.toUtc),
      durationMinutes: q.durationMinutes,
      stepMinutes: q.stepMinutes,
      bufferBeforeMinutes: q.bufferBeforeMinutes,
      bufferAfterMinutes: q.bufferAfterMinutes,
      respectWorkingHours: true,
      // A day before the window: notice and horizon are evaluated, neither empties it.
      nowMs: Date.parse(q.fromUtc) - 24 * 60 * MINUTE_MS,
    };
    const bufferMs = (minutes: number) => Math.max(minutes, EVERY_RULE.bufferBeforeMinutes, EVERY_RULE.bufferAfterMinutes) * MINUTE_MS;
    const calendarQuery = {
      appId: dataset.appId,
      fromMs: query.fromMs - bufferMs(query.bufferBeforeMinutes),
      toMs: query.toMs + bufferMs(query.bufferAfterMinutes),
      appRules: EVERY_RULE,
      // The call starts the daily and weekly limits count, as availability loads them.
      countFromMs: query.fromMs - 8 * 24 * 60 * MINUTE_MS,
      countToMs: query.toMs + 8 * 24 * 60 * MINUTE_MS,
    };
    const loads: number[] = [];
    let agents = await loadCalendars(database.db, calendarQuery);
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      agents = await loadCalendars(database.db, calendarQuery);
      loads.push(performance.now() - t);
    }
    const busy = agents.reduce((n, a) => n + a.busy.length, 0);
    let slots = availableSlots({ query, agents });
    for (let i = 0; i < 200; i++) availableSlots({ query, agents }); // warm-up (JIT)
    const runs: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const t = performance.now();
      slots = availableSlots({ query, agents });
      runs.push(performance.now() - t);
    }
    return {
      label: 'engine compute (availableSlots, every booking rule on, in-process)',
      runs: runs.length,
      medianMs: median(runs),
      p99Ms: percentile(runs, 99),
      targetMs: 5,
      detail:
        `${agents.length} agents, ${busy} busy intervals and ${agents.reduce((n, a) => n + (a.callStarts?.length ?? 0), 0)} counted call starts loaded, ${slots.length} slots of 400 candidates; ` +
        `loadCalendars (the one SQL query) median ${median(loads).toFixed(2)} ms over ${loads.length}`,
    };
  } finally {
    await database.close();
  }
}

export const availabilityWorstCase: Scenario = {
  name: 'availability_worst_case',
  title: 'Availability worst case: 400 candidates (8 starts × 50 agents), busy calendars, buffers, across a DST change (REST)',
  connections: 8,
  request: (ctx) => ({
    method: 'GET',
    path: `/api/v1/video/${ctx.dataset.appId}/availability?${new URLSearchParams(Object.entries(AVAILABILITY_QUERY).map(([k, v]) => [k, String(v)]))}`,
    headers: schedulingHeaders(ctx),
  }),
  compute: engineTime,
  noFloor: 'the work is the service\'s own JS slot engine (its compute is timed in process)',
};

/** PATCH bodies rotating over every call but the last (sse_fanout's own), alternating each call's two private times. */
const rotatingCalls = () => patchCalls().slice(0, PATCH_CALLS - 1);

const patch = (ctx: ScenarioContext, id: string, body: unknown): HttpRequest => ({
  method: 'PATCH',
  path: `/api/v1/video/${ctx.dataset.otherAppId}/scheduled-calls/${id}`,
  headers: schedulingHeaders(ctx, { 'content-type': 'application/json' }),
  body: JSON.stringify(body),
});

export const patchReschedule: Scenario = {
  name: 'patch_reschedule',
  title: 'PATCH reschedule to a free slot, rotating over 1,999 calls (REST)',
  connections: 8,
  noFloor: 'a transactional write (row lock, exclusion constraint, events, reminders, NOTIFY)',
  // Checked once before measuring: the first call to its B time.
  request: (ctx) => {
    const [first] = rotatingCalls();
    return patch(ctx, first!.id, { scheduledAtUtc: first!.b, reason: 'bench' });
  },
  // Pass 1 moves every call to B, pass 2 back to A: each call's times are its own, so no 409.
  rotate: (ctx) => {
    const calls = rotatingCalls();
    return [...calls.map((c) => patch(ctx, c.id, { scheduledAtUtc: c.b, reason: 'bench' })), ...calls.map((c) => patch(ctx, c.id, { scheduledAtUtc: c.a, reason: 'bench' }))];
  },
};

/** N graphql-sse subscriptions to one app's events, one PATCH a round, time until every one has it. */
function fanoutOf(name: string, subscribers: number, targetMs: number): FanoutScenario {
  return {
    kind: 'fanout',
    name,
    title: `SSE fan-out: ${subscribers.toLocaleString('en')} graphql-sse subscriptions to scheduledCallEvents, one PATCH, time until every one has the event`,
    subscribers,
    rounds: Number(process.env.BENCH_SSE_ROUNDS ?? 5),
    targetMs,
    subscription: (ctx) => ({
      query: 'subscription Fanout($app: UUID!) { scheduledCallEvents(appId: $app) { eventId callId eventType payload } }',
      variables: { app: ctx.dataset.otherAppId },
    }),
    call: (ctx) => {
      const last = patchCalls()[PATCH_CALLS - 1]!;
      return { path: `/api/v1/video/${ctx.dataset.otherAppId}/scheduled-calls/${last.id}`, times: [last.a, last.b] };
    },
  };
}

export const sseFanout = fanoutOf('sse_fanout', Number(process.env.BENCH_SSE_SUBSCRIBERS ?? 1000), 250);

/** Ten times the subscribers, a looser bound: every one within a second. */
export const sseFanout10k = fanoutOf('sse_fanout_10k', 10_000, 1000);

export const sseSustained: SustainedScenario = {
  kind: 'sustained',
  name: 'sse_sustained',
  title: 'SSE under sustained writes: 1,000 EventSource-style subscribers (GET, access_token) to scheduledCallEvents while events are written at a steady rate',
  subscribers: Number(process.env.BENCH_SSE_SUBSCRIBERS ?? 1000),
  rate: Number(process.env.BENCH_SSE_RATE ?? 10),
  seconds: Number(process.env.BENCH_SSE_SECONDS ?? 20),
  subscription: (ctx) => ({
    query: 'subscription Sustained($app: UUID!) { scheduledCallEvents(appId: $app) { eventId callId eventType payload } }',
    variables: { app: ctx.dataset.otherAppId },
  }),
  // sse_fanout's call: the two never run at once.
  call: (ctx) => sseFanout.call(ctx),
};
