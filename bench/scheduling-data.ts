/**
 * The scheduling part of a bench dataset, seeded through `npm run cli -- import --app ID -`
 * (NDJSON on stdin, the importer's record types) as a separate cached step on top of the messages
 * dataset: bumping SCHEDULING_VERSION re-imports it (records are upserted on id) without
 * reseeding a million messages.
 *
 * - Big app: 50 agents in eight IANA zones with working hours (some past midnight), and busy
 *   calendars over 2027-03-13..16 (the US DST change, 2027-03-14): a 30-minute call every two
 *   hours, a 45-minute blocked exception every twelve hours and a 20-minute do-not-disturb
 *   window every eight hours, each agent at its own offsets. The availability scenario asks for
 *   8 grid starts × 50 agents = 400 candidates across the change.
 * - Second app: 20 agents working 24 hours in UTC and PATCH_CALLS scheduled calls in 2030, each
 *   with two private target times (A, B) no other call uses: rescheduling between them always
 *   finds a free slot, so PATCH answers 200, not 409.
 */
import type { Dataset } from './types.js';

export const SCHEDULING_VERSION = 1;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();
/** Deterministic RFC 4122-shaped ids: a type prefix and a counter. */
const uuid = (prefix: string, n: number) => `${prefix}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

// ---- availability (big app) ----------------------------------------------------------------

export const AVAILABILITY_AGENTS = 50;
const ZONES = ['America/New_York', 'America/Chicago', 'America/Los_Angeles', 'Europe/London', 'Europe/Berlin', 'Asia/Tokyo', 'Australia/Sydney', 'Asia/Kolkata'];
const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const everyDay = (intervals: [string, string][]) => Object.fromEntries(DAYS.map((d) => [d, intervals]));
const HOURS = [
  everyDay([['06:00', '12:00'], ['13:00', '22:00']]),
  everyDay([['20:00', '08:00']]), // a night shift, past midnight
  { ...everyDay([['09:00', '17:00']]), sat: [['00:00', '24:00']], sun: [['00:00', '24:00']] },
  everyDay([['00:00', '03:00'], ['05:00', '24:00']]),
];
const CALENDAR_FROM = Date.parse('2027-03-13T00:00:00Z');
const CALENDAR_TO = Date.parse('2027-03-16T00:00:00Z');

/** 8 grid starts (90-minute step, 30-minute calls) from 03:00Z to 13:30Z on 2027-03-14, across the US DST change. */
export const AVAILABILITY_QUERY = {
  fromUtc: '2027-03-14T03:00:00.000Z',
  toUtc: '2027-03-14T14:00:00.000Z',
  durationMinutes: 30,
  stepMinutes: 90,
  bufferBeforeMinutes: 10,
  bufferAfterMinutes: 10,
};

function availabilityRecords(): object[] {
  const records: object[] = [];
  for (let i = 0; i < AVAILABILITY_AGENTS; i++) {
    const agentId = uuid('b0000001', i);
    const timezone = ZONES[i % ZONES.length]!;
    records.push({ type: 'agent', id: agentId, name: `Bench agent ${i}`, timezone, working_hours: HOURS[i % HOURS.length] });
    const every = (stepMs: number, offsetMs: number, fn: (startMs: number, n: number) => void) => {
      let n = 0;
      for (let t = CALENDAR_FROM + offsetMs; t < CALENDAR_TO; t += stepMs) fn(t, n++);
    };
    every(2 * HOUR, ((i * 17) % 90) * MINUTE, (t, n) =>
      records.push({
        type: 'scheduled_call',
        id: uuid('b0000002', i * 1000 + n),
        assigned_agent_id: agentId,
        guest_name: `Guest ${i}-${n}`,
        guest_timezone: 'Europe/London',
        scheduled_at: iso(t),
        duration_minutes: 30,
        app_timezone: 'America/New_York',
        status: 'scheduled',
      }),
    );
    every(12 * HOUR, ((i * 37) % 720) * MINUTE, (t, n) =>
      records.push({ type: 'availability_exception', id: uuid('b0000003', i * 1000 + n), agent_id: agentId, kind: 'blocked', start_utc: iso(t), end_utc: iso(t + 45 * MINUTE) }),
    );
    every(8 * HOUR, ((i * 53) % 480) * MINUTE, (t, n) =>
      records.push({ type: 'dnd', id: uuid('b0000004', i * 1000 + n), agent_id: agentId, start_utc: iso(t), end_utc: iso(t + 20 * MINUTE) }),
    );
  }
  return records;
}

// ---- PATCH reschedule (second app) ---------------------------------------------------------

const PATCH_AGENTS = 20;
export const PATCH_CALLS = 2000;
const PATCH_BASE = Date.parse('2030-01-07T00:00:00Z');

/** Call c belongs to agent c % 20 and owns the two hours from PATCH_BASE + 2h·floor(c / 20): A at the start, B one hour later. */
export function patchCalls(): { id: string; a: string; b: string }[] {
  return Array.from({ length: PATCH_CALLS }, (_, c) => {
    const start = PATCH_BASE + Math.floor(c / PATCH_AGENTS) * 2 * HOUR;
    return { id: uuid('b0000006', c), a: iso(start), b: iso(start + HOUR) };
  });
}

function patchRecords(): object[] {
  const records: object[] = [];
  for (let a = 0; a < PATCH_AGENTS; a++) {
    records.push({ type: 'agent', id: uuid('b0000005', a), name: `Bench 24h agent ${a}`, timezone: 'UTC', working_hours: everyDay([['00:00', '24:00']]) });
  }
  patchCalls().forEach((call, c) =>
    records.push({
      type: 'scheduled_call',
      id: call.id,
      assigned_agent_id: uuid('b0000005', c % PATCH_AGENTS),
      guest_name: `Patch guest ${c}`,
      guest_timezone: 'UTC',
      scheduled_at: call.a,
      duration_minutes: 30,
      app_timezone: 'UTC',
      status: 'scheduled',
    }),
  );
  return records;
}

export const ndjson = (records: object[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** What the cached step adds to a dataset. */
export type SchedulingState = NonNullable<Dataset['scheduling']>;

export const schedulingImports = (dataset: Pick<Dataset, 'appId' | 'otherAppId'>) => [
  { appId: dataset.appId, body: ndjson(availabilityRecords()) },
  { appId: dataset.otherAppId, body: ndjson(patchRecords()) },
];
