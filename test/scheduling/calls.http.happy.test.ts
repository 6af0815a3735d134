import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { scheduledCallReminders } from '../../src/scheduling/tables.js';
import { expectErrorEnvelope } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { agentIdOf, booking, futureDay, tenantSetUp } from './fixtures.js';

const { server } = useServer();

const A1 = agentIdOf(1);
const A2 = agentIdOf(2);

const setUp = tenantSetUp(server);


const reminders = async (callId: string) =>
  (await server.runtime.database.db.select().from(scheduledCallReminders).where(eq(scheduledCallReminders.callId, callId)))
    .map((r) => ({ kind: r.kind, dueAt: r.dueAt.toISOString(), status: r.status }))
    .sort((x, y) => (x.dueAt + x.status < y.dueAt + y.status ? -1 : 1));

describe('POST /video/{appId}/scheduled-calls', () => {
  it('201 with the full record; a created event by the client; reminders 24 h and 15 min before', async () => {
    const { tenant, a } = await setUp();
    const start = futureDay(5, 15);
    const res = await a.create(
      booking(start, { assignedAgentId: A2, guestPhone: '+447700900123', guestEmail: 'ann@example.com', guestTimezone: 'Europe/Paris', bookingSource: 'web', guestIntakeNotes: 'Wants a demo' }),
    );
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['data']);
    const call = res.body.data.call;
    expect(call).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      app_id: tenant.appId,
      assigned_agent_id: A2,
      booking_source: 'web',
      guest_name: 'Ann Lee',
      guest_phone: '+447700900123',
      guest_email: 'ann@example.com',
      guest_timezone: 'Europe/Paris',
      guest_intake_notes: 'Wants a demo',
      metadata: null,
      answers: null,
      scheduled_at: start.toISOString(),
      duration_minutes: 30,
      app_timezone: 'UTC',
      status: 'scheduled',
      created_at: expect.any(String),
    });
    const got = await a.get(call.id);
    expect(got.status).toBe(200);
    expect(Object.keys(got.body)).toEqual(['data']);
    expect(got.body.data.call).toEqual(call);
    expect(got.body.data.events).toEqual([
      {
        id: expect.any(String),
        event_type: 'created',
        actor_type: 'client',
        actor_id: tenant.clientId,
        payload: { scheduled_at: start.toISOString(), assigned_agent_id: A2 },
        created_at: call.created_at,
      },
    ]);
    expect(await reminders(call.id)).toEqual([
      { kind: '24h', dueAt: new Date(start.getTime() - 86_400_000).toISOString(), status: 'pending' },
      { kind: '15m', dueAt: new Date(start.getTime() - 900_000).toISOString(), status: 'pending' },
    ]);
  });

  it('defaults: source api, guest time zone of the app; without assignedAgentId the least busy free agent', async () => {
    const { a } = await setUp();
    const start = futureDay(6, 10);
    const first = await a.create(booking(start));
    expect(first.status).toBe(201);
    expect(first.body.data.call).toMatchObject({ assigned_agent_id: A1, booking_source: 'api', guest_timezone: 'UTC', guest_phone: null });
    // Agent 1 is busy now: the same slot goes to agent 2; a third booking finds nobody.
    expect((await a.create(booking(start))).body.data.call.assigned_agent_id).toBe(A2);
    const none = await a.create(booking(start));
    expect(none.status).toBe(409);
    expectErrorEnvelope(none.body, 'conflict');
    // Later that day agent 1 has one call and agent 2 one: a tie goes to the lower id; then the less busy.
    expect((await a.create(booking(futureDay(6, 12)))).body.data.call.assigned_agent_id).toBe(A1);
    expect((await a.create(booking(futureDay(6, 13)))).body.data.call.assigned_agent_id).toBe(A2);
  });
});

describe('GET /video/{appId}/scheduled-calls (list)', () => {
  it('in (scheduled_at, id) order with filters and a cursor that walks every row once', async () => {
    const { a } = await setUp();
    const made: string[] = [];
    for (const hour of [14, 9, 11, 16, 10]) {
      made.push((await a.create(booking(futureDay(9, hour), { assignedAgentId: hour % 2 === 0 ? A2 : A1 }))).body.data.call.id);
    }
    const page1 = await a.list('?limit=2');
    expect(page1.status).toBe(200);
    expect(page1.body.pagination).toEqual({ limit: 2, hasMore: true, nextCursor: expect.any(String) });
    const seen = page1.body.data.map((c: { scheduled_at: string }) => c.scheduled_at);
    let cursor = page1.body.pagination.nextCursor;
    while (cursor) {
      const next = await a.list(`?limit=2&cursor=${cursor}`);
      seen.push(...next.body.data.map((c: { scheduled_at: string }) => c.scheduled_at));
      cursor = next.body.pagination.nextCursor;
    }
    expect(seen).toEqual([9, 10, 11, 14, 16].map((h) => futureDay(9, h).toISOString()));
    const agent2 = await a.list(`?agentId=${A2}`);
    expect(agent2.body.data.map((c: { assigned_agent_id: string }) => c.assigned_agent_id)).toEqual([A2, A2, A2]);
    const window = await a.list(`?fromUtc=${futureDay(9, 10).toISOString()}&toUtc=${futureDay(9, 14).toISOString()}`);
    expect(window.body.data).toHaveLength(2);
    await a.cancel(made[0]!);
    const cancelled = await a.list('?status=cancelled');
    expect(cancelled.body.data.map((c: { id: string }) => c.id)).toEqual([made[0]]);
    expect(cancelled.body.data[0]).toHaveProperty('cancelled_at');
  });
});

describe('PATCH /video/{appId}/scheduled-calls/{id} (call states)', () => {
  it('a time change: rescheduled {from, to, reason}; reminders re-planned; response id, scheduled_at, status', async () => {
    const { tenant, a } = await setUp();
    const start = futureDay(10, 10);
    const id = (await a.create(booking(start, { assignedAgentId: A1 }))).body.data.call.id;
    const later = futureDay(11, 15);
    const res = await a.patch(id, { scheduledAtUtc: later.toISOString(), reason: 'guest asked' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { call: { id, scheduled_at: later.toISOString(), status: 'scheduled' } } });
    const { events } = (await a.get(id)).body.data;
    expect(events.map((e: { event_type: string }) => e.event_type)).toEqual(['created', 'rescheduled']);
    expect(events[1]).toMatchObject({
      actor_type: 'client',
      actor_id: tenant.clientId,
      payload: { from: start.toISOString(), to: later.toISOString(), reason: 'guest asked' },
    });
    const planned = await reminders(id);
    expect(planned.filter((r) => r.status === 'pending')).toEqual([
      { kind: '24h', dueAt: new Date(later.getTime() - 86_400_000).toISOString(), status: 'pending' },
      { kind: '15m', dueAt: new Date(later.getTime() - 900_000).toISOString(), status: 'pending' },
    ]);
    expect(planned.filter((r) => r.status === 'cancelled')).toHaveLength(2);
  });

  it('reassignment emits assigned; guest fields emit updated {fields}; both with the reason; null clears phone and email', async () => {
    const { a } = await setUp();
    const id = (await a.create(booking(futureDay(10, 12), { assignedAgentId: A1, guestPhone: '+15550001111', guestEmail: 'a@example.com' }))).body.data.call.id;
    const res = await a.patch(id, { assignedAgentId: A2, guestName: 'Ann B. Lee', guestPhone: null, guestEmail: null, guestTimezone: 'Asia/Kathmandu', guestIntakeNotes: 'VIP', reason: 'coverage' });
    expect(res.status).toBe(200);
    const { call, events } = (await a.get(id)).body.data;
    expect(call).toMatchObject({ assigned_agent_id: A2, guest_name: 'Ann B. Lee', guest_phone: null, guest_email: null, guest_timezone: 'Asia/Kathmandu', guest_intake_notes: 'VIP' });
    expect(events.slice(1).map((e: { event_type: string; payload: unknown }) => [e.event_type, e.payload])).toEqual([
      ['assigned', { from: A1, to: A2, reason: 'coverage' }],
      ['updated', { fields: ['guest_name', 'guest_phone', 'guest_email', 'guest_timezone', 'guest_intake_notes'], reason: 'coverage' }],
    ]);
    // The same values again change nothing and emit nothing.
    expect((await a.patch(id, { guestName: 'Ann B. Lee' })).status).toBe(200);
    expect((await a.get(id)).body.data.events).toHaveLength(3);
  });
});

describe('DELETE /video/{appId}/scheduled-calls/{id}', () => {
  it('soft-cancels with the body reason; a repeat returns the row unchanged; reminders cancelled; one cancelled event', async () => {
    const { a } = await setUp();
    const id = (await a.create(booking(futureDay(14, 10)))).body.data.call.id;
    const res = await a.cancel(id, { json: { reason: 'guest is ill' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { call: { id, status: 'cancelled', cancelled_at: expect.any(String), cancellation_reason: 'guest is ill' } } });
    const again = await a.cancel(id, { query: '?reason=second%20try' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
    const { call, events } = (await a.get(id)).body.data;
    expect(call).toMatchObject({ status: 'cancelled', cancelled_at: res.body.data.call.cancelled_at, cancellation_reason: 'guest is ill' });
    expect(events.map((e: { event_type: string; payload: unknown }) => [e.event_type, e.payload])).toEqual([
      ['created', expect.any(Object)],
      ['cancelled', { reason: 'guest is ill' }],
    ]);
    expect((await reminders(id)).map((r) => r.status)).toEqual(['cancelled', 'cancelled']);
    // The row is kept, and its slot is free again.
    expect((await a.create(booking(futureDay(14, 10), { assignedAgentId: call.assigned_agent_id }))).status).toBe(201);
  });

  it('the reason may come as a query parameter; without one it is empty', async () => {
    const { a } = await setUp();
    const first = (await a.create(booking(futureDay(15, 10)))).body.data.call.id;
    expect((await a.cancel(first, { query: '?reason=no%20longer%20needed' })).body.data.call.cancellation_reason).toBe('no longer needed');
    const second = (await a.create(booking(futureDay(15, 11)))).body.data.call.id;
    expect((await a.cancel(second)).body.data.call.cancellation_reason).toBe('');
  });

  it('a guest time zone written in another case is stored in the zone database spelling', async () => {
    const { a } = await setUp();
    const id = (await a.create(booking(futureDay(15, 20), { guestTimezone: 'europe/london' }))).body.data.call.id;
    expect((await a.get(id)).body.data.call.guest_timezone).toBe('Europe/London');
    expect((await a.patch(id, { guestTimezone: 'america/new_york' })).status).toBe(200);
    expect((await a.get(id)).body.data.call.guest_timezone).toBe('America/New_York');
  });

  it("an empty reason in the query leaves the body's reason in force", async () => {
    const { a } = await setUp();
    const id = (await a.create(booking(futureDay(15, 18)))).body.data.call.id;
    const res = await a.cancel(id, { query: '?reason=', json: { reason: 'body wins when the query is empty' } });
    expect(res.status).toBe(200);
    expect(res.body.data.call.cancellation_reason).toBe('body wins when the query is empty');
    // A non-empty query reason still wins over the body's.
    const other = (await a.create(booking(futureDay(15, 19)))).body.data.call.id;
    expect((await a.cancel(other, { query: '?reason=from%20query', json: { reason: 'from body' } })).body.data.call.cancellation_reason).toBe('from query');
  });
});
