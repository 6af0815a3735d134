import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorEnvelope, gql, request, type JsonResponse } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { agent, agentIdOf, api, everyDay, importRecords } from '../scheduling/fixtures.js';

// Dates and instants at the edges of the calendar, through the real server (REST and GraphQL):
// an impossible day (February 30) is refused instead of rolling over into March, and years
// outside 1900..9998 (which PostgreSQL or JavaScript cannot print once a duration, buffer or
// range is added) are a 400 naming the field, never a 500.

const { server, tenant } = useServer({ tenant: true });
let a: ReturnType<typeof api>;
beforeAll(async () => {
  a = api(server, tenant);
  await importRecords(server, tenant.appId, [agent(1, 'Pacific/Kiritimati', everyDay('00:00', '24:00'))]);
});

const analytics = (path: string) => request(`${server.url}/api/v1/analytics/${tenant.appId}${path}`, { token: tenant.accessToken });
const search = (json: unknown) => request(`${server.url}/api/v1/analytics/${tenant.appId}/campaigns/search`, { token: tenant.accessToken, json });

function expectRefused(res: JsonResponse, type: 'validation_error' | 'invalid_request', field: string, message: RegExp) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expectErrorEnvelope(res.body, type);
  expect(res.body.error.details[0]).toMatchObject({ field, message: expect.stringMatching(message) });
}

const CALENDAR = /real calendar/;
const RANGE = /between 1900-01-01 and 9998-12-31/;

describe('analytics dates (validation_error)', () => {
  it('days: February 30 and 29 in a common year, year 0000 and 9999', async () => {
    expectRefused(await analytics('/messages?startDate=2026-02-30'), 'validation_error', 'startDate', CALENDAR);
    expectRefused(await analytics('/messages?endDate=2027-02-29'), 'validation_error', 'endDate', CALENDAR);
    expectRefused(await analytics('/messages?endDate=9999-12-31'), 'validation_error', 'endDate', RANGE);
    expectRefused(await analytics('/campaigns?startDate=0000-01-01'), 'validation_error', 'startDate', RANGE);
    expect((await analytics('/messages?startDate=2028-02-29&endDate=9998-12-31')).status).toBe(200);
  });

  it('metrics instants: no roll-over, no year the range cannot end in', async () => {
    expectRefused(await analytics('/metrics/daily?startDate=2026-02-30T00:00:00Z'), 'validation_error', 'startDate', CALENDAR);
    expectRefused(await analytics('/metrics/summary?endDate=2026-04-31T00:00:00Z'), 'validation_error', 'endDate', CALENDAR);
    expectRefused(await analytics('/metrics/daily?startDate=2026-03-01T24:00:00Z'), 'validation_error', 'startDate', CALENDAR);
    expectRefused(await analytics('/metrics/daily?startDate=9999-12-31T00:00:00Z'), 'validation_error', 'startDate', RANGE);
    const both = await analytics('/metrics/summary?startDate=0000-01-01T00:00:00Z&endDate=0000-02-01T00:00:00Z');
    expectRefused(both, 'validation_error', 'startDate', RANGE);
    expect(both.body.error.details.map((d: { field: string }) => d.field)).toEqual(['startDate', 'endDate']);
    // The offset counts: 23:00 at -05:00 on the last accepted day is already in year 9999.
    expectRefused(await analytics('/metrics/daily?endDate=9998-12-31T23:00:00-05:00'), 'validation_error', 'endDate', RANGE);
  });

  it('the last accepted month, in the zone furthest ahead, ends on a real day', async () => {
    const res = await analytics('/metrics/daily?startDate=9998-12-01T00:00:00Z&endDate=9998-12-31T23:59:59Z&timezone=Pacific/Kiritimati');
    expect(res.status).toBe(200);
    expect(res.body.data.at(-1).date).toBe('9999-01-01');
    const summary = await analytics('/metrics/summary?startDate=1900-01-01T00:00:00Z&endDate=1900-01-31T00:00:00Z');
    expect(summary.status).toBe(200);
    // A start alone runs until now: from the first accepted year that is over 400 days.
    expectRefused(await analytics('/metrics/summary?startDate=1900-01-01T00:00:00Z'), 'validation_error', 'startDate', /at most 400 days/);
  });

  it('campaigns/search: filter dates, a filter that is not an object, lists that are not arrays', async () => {
    expectRefused(await search({ filter: { startDate: '2026-02-30T00:00:00Z' } }), 'validation_error', 'filter.startDate', CALENDAR);
    expectRefused(await search({ filter: { endDate: '0000-01-01T00:00:00Z' } }), 'validation_error', 'filter.endDate', RANGE);
    for (const filter of [[{ name: 'x' }], 5, 'active', true]) {
      expectRefused(await search({ filter }), 'validation_error', 'filter', /must be an object/);
    }
    expectRefused(await search({ filter: { status: 'active' } }), 'validation_error', 'filter.status', /array/);
    expectRefused(await search({ filter: { tags: 'spring' } }), 'validation_error', 'filter.tags', /array/);
    expectRefused(await search({ filter: { status: ['bogus'] } }), 'validation_error', 'filter.status.0', /expected one of/);
    expect((await search({ filter: null })).status).toBe(200);
    expect((await search({ filter: { status: ['active', 'paused'], tags: [] } })).status).toBe(200);
  });

  it('GET campaigns: status is one value, named `status` when refused', async () => {
    expectRefused(await analytics('/campaigns?status=bogus'), 'validation_error', 'status', /expected one of/);
    expectRefused(await analytics('/campaigns?status=active,paused'), 'validation_error', 'status', /expected one of/);
    expect((await analytics('/campaigns?status=active')).status).toBe(200);
    expect((await analytics('/campaigns?status=')).status).toBe(200);
  });
});

describe('scheduling instants and text (invalid_request)', () => {
  const A1 = agentIdOf(1);
  const booking = (scheduledAtUtc: string, extra: object = {}) => ({ scheduledAtUtc, durationMinutes: 480, guestName: 'Ann Lee', assignedAgentId: A1, ...extra });

  it('availability: impossible days and out-of-range years; buffers at the last accepted instant work', async () => {
    const window = { durationMinutes: 30, agentId: A1 };
    expectRefused(await a.availability({ ...window, fromUtc: '2027-02-29T00:00:00Z', toUtc: '2027-03-01T01:00:00Z' }), 'invalid_request', 'fromUtc', CALENDAR);
    expectRefused(await a.availability({ ...window, fromUtc: '2027-03-01T00:00:00Z', toUtc: '2027-03-01T00:60:00Z' }), 'invalid_request', 'toUtc', CALENDAR);
    const old = await a.availability({ ...window, fromUtc: '0000-01-01T00:00:00Z', toUtc: '0000-01-01T02:00:00Z' });
    expect(old.status).toBe(400);
    expect(old.body.error.details.map((d: { field: string }) => d.field)).toEqual(['fromUtc', 'toUtc']);
    const late = await a.availability({ ...window, fromUtc: '9998-12-31T23:00:00Z', toUtc: '9998-12-31T23:59:00Z', bufferAfterMinutes: 1440, bufferBeforeMinutes: 1440 });
    expect(late.status).toBe(200);
    expect(late.body.data.slots[0]).toEqual({ startUtc: '9998-12-31T23:00:00.000Z', endUtc: '9998-12-31T23:30:00.000Z', agentId: A1 });
    const early = await a.availability({ ...window, fromUtc: '1900-01-01T00:00:00Z', toUtc: '1900-01-01T01:00:00Z', bufferBeforeMinutes: 1440, respectWorkingHours: false });
    expect(early.status).toBe(200);
    expect(early.body.data.slots).toHaveLength(2);
  });

  it('POST and PATCH: refused instants book nothing; the last accepted one books and reads back', async () => {
    expectRefused(await a.create(booking('2027-02-29T10:00:00Z')), 'invalid_request', 'scheduledAtUtc', CALENDAR);
    expectRefused(await a.create(booking('9999-12-31T23:50:00Z')), 'invalid_request', 'scheduledAtUtc', RANGE);
    expect((await a.list()).body.data).toHaveLength(0);
    const created = await a.create(booking('9998-12-31T23:50:00Z'));
    expect(created.status).toBe(201);
    const id = created.body.data.call.id as string;
    expect((await a.get(id)).body.data.call.scheduled_at).toBe('9998-12-31T23:50:00.000Z');
    expectRefused(await a.patch(id, { scheduledAtUtc: '9998-12-31T20:00:00-05:00' }), 'invalid_request', 'scheduledAtUtc', RANGE);
    expectRefused(await a.patch(id, { scheduledAtUtc: '2028-02-30T10:00:00Z' }), 'invalid_request', 'scheduledAtUtc', CALENDAR);
    expect((await a.get(id)).body.data.call.scheduled_at).toBe('9998-12-31T23:50:00.000Z');
    expectRefused(await a.list('?fromUtc=0000-01-01T00:00:00Z'), 'invalid_request', 'fromUtc', RANGE);
  });

  it('a NUL character in any text field is invalid_request naming the field, and stores nothing', async () => {
    expectRefused(await a.create(booking('2030-01-07T10:00:00Z', { guestName: 'Ann\u0000Lee' })), 'invalid_request', 'guestName', /NUL/);
    expectRefused(await a.create(booking('2030-01-07T10:00:00Z', { bookingSource: 'web\u0000' })), 'invalid_request', 'bookingSource', /NUL/);
    expectRefused(await a.create(booking('2030-01-07T10:00:00Z', { guestIntakeNotes: '\u0000' })), 'invalid_request', 'guestIntakeNotes', /NUL/);
    const created = await a.create(booking('2030-01-07T10:00:00Z'));
    expect(created.status).toBe(201);
    const id = created.body.data.call.id as string;
    expectRefused(await a.patch(id, { reason: 'moved\u0000' }), 'invalid_request', 'reason', /NUL/);
    expectRefused(await a.patch(id, { guestName: '\u0000' }), 'invalid_request', 'guestName', /NUL/);
    expect((await a.get(id)).body.data.events).toHaveLength(1);
  });
});

describe('GraphQL variables', () => {
  it('a refused DateTime or UUID variable is validation_error with the variable as the field', async () => {
    const query = 'query Q($from: DateTime, $app: UUID!) { dailyMetrics(appId: $app, startDate: $from) { date } }';
    const cases = [
      { from: '2026-02-30T00:00:00Z', field: 'from', message: CALENDAR },
      { from: '9999-12-31T00:00:00Z', field: 'from', message: RANGE },
      { from: '2026-02-28', field: 'from', message: /ISO 8601/ },
    ];
    for (const { from, field, message } of cases) {
      const res = await gql(server.url, tenant.accessToken, query, { from, app: tenant.appId });
      expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'validation_error', details: [{ field, message: expect.stringMatching(message) }] });
    }
    const badApp = await gql(server.url, tenant.accessToken, query, { app: 'nope' });
    expect(badApp.body.errors?.[0]?.extensions).toMatchObject({ code: 'validation_error', details: [{ field: 'app', code: 'invalid_format' }] });
  });

  it('a booking through GraphQL with an impossible day books nothing', async () => {
    const res = await a.gql(
      'mutation M($app: UUID!, $at: DateTime!) { createScheduledCall(appId: $app, input: { scheduledAtUtc: $at, durationMinutes: 30, guestName: "Ann" }) { id: callId } }',
      { app: tenant.appId, at: '2031-02-29T10:00:00Z' },
    );
    // Scheduling's REST paths answer invalid_request for bad input, and so does its GraphQL.
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_request', details: [{ field: 'at' }] });
    expect((await a.list('?fromUtc=2031-01-01T00:00:00Z&toUtc=2032-01-01T00:00:00Z')).body.data).toHaveLength(0);
  });
});
