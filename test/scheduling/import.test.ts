import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';
import { agent, agentIdOf, api, callIdOf, dndIdOf, everyDay, exceptionIdOf, importedCall, importRecords } from './fixtures.js';

const { server } = useServer();

const A1 = agentIdOf(1);

describe('import: agent, availability_exception, dnd, scheduled_call', () => {
  it('counts each type, upserts on id, and the records are what the API reads', async () => {
    const tenant = await server.tenant();
    const counts = await importRecords(server, tenant.appId, [
      agent(1, 'Europe/London', everyDay('09:00', '17:00'), 'Ada'),
      { type: 'availability_exception', id: exceptionIdOf(1), agent_id: A1, kind: 'blocked', start_utc: '2026-03-09T12:00:00Z', end_utc: '2026-03-09T13:00:00Z' },
      { type: 'dnd', id: dndIdOf(1), agent_id: A1, start_utc: '2026-03-09T16:00:00Z', end_utc: '2026-03-09T17:00:00Z' },
      importedCall(1, 1, '2026-03-09T10:00:00.000Z', 45),
      agent(1, 'Europe/London', everyDay('08:00', '16:00'), 'Ada Lovelace'),
    ]);
    expect(counts).toEqual({ agent: 2, availability_exception: 1, dnd: 1, scheduled_call: 1 });
    const a = api(server, tenant);
    const res = await a.gql(
      `query($app: UUID!, $agent: UUID!) { agent(appId: $app, id: $agent) { name timezone workingHours
        exceptions { id: exceptionId kind startUtc endUtc } dndWindows { id: windowId startUtc endUtc } } }`,
      { app: tenant.appId, agent: A1 },
    );
    expect(res.body.data.agent).toEqual({
      name: 'Ada Lovelace',
      timezone: 'Europe/London',
      workingHours: everyDay('08:00', '16:00'),
      exceptions: [{ id: exceptionIdOf(1), kind: 'blocked', startUtc: '2026-03-09T12:00:00.000Z', endUtc: '2026-03-09T13:00:00.000Z' }],
      dndWindows: [{ id: dndIdOf(1), startUtc: '2026-03-09T16:00:00.000Z', endUtc: '2026-03-09T17:00:00.000Z' }],
    });
    const got = await a.get(callIdOf(1));
    expect(got.body.data.call).toMatchObject({ id: callIdOf(1), duration_minutes: 45, booking_source: 'import', created_at: '2026-01-01T00:00:00.000Z' });
    expect(got.body.data.events).toMatchObject([{ event_type: 'created', actor_type: 'system', actor_id: 'import' }]);
    // Re-importing the call updates every column (multi-word ones too) and records it.
    await importRecords(server, tenant.appId, [importedCall(1, 1, '2026-03-09T11:00:00.000Z', 30, { guest_name: 'Renamed', guest_timezone: 'Asia/Tokyo' })]);
    const again = await a.get(callIdOf(1));
    expect(again.body.data.call).toMatchObject({ scheduled_at: '2026-03-09T11:00:00.000Z', duration_minutes: 30, guest_name: 'Renamed', guest_timezone: 'Asia/Tokyo' });
    expect(again.body.data.events.map((e: { event_type: string }) => e.event_type)).toEqual(['created', 'updated']);
  });

  const badLines: [string, object[], RegExp][] = [
    ['an unknown time zone', [agent(1, 'Europe/Nowhere', {})], /line 1: invalid agent: timezone/],
    ['working hours out of range', [agent(1, 'UTC', { mon: [['09:00', '25:00']] })], /line 1: invalid agent: working_hours\.mon\.0\.1/],
    ['an unknown weekday', [agent(1, 'UTC', { funday: [] })], /line 1: invalid agent/],
    ['an exception of an unknown kind', [agent(1, 'UTC', {}), { type: 'availability_exception', id: exceptionIdOf(2), agent_id: A1, kind: 'holiday', start_utc: '2026-03-09T12:00:00Z', end_utc: '2026-03-09T13:00:00Z' }], /line 2: invalid availability_exception: kind/],
    ['a window ending before it starts', [agent(1, 'UTC', {}), { type: 'dnd', id: dndIdOf(2), agent_id: A1, start_utc: '2026-03-09T12:00:00Z', end_utc: '2026-03-09T11:00:00Z' }], /line 2: invalid dnd: end_utc/],
    ['an exception of an agent not in the app', [{ type: 'availability_exception', id: exceptionIdOf(3), agent_id: agentIdOf(50), kind: 'blocked', start_utc: '2026-03-09T12:00:00Z', end_utc: '2026-03-09T13:00:00Z' }], /line 1: .*not in this app/],
    ['a call of an agent not in the app', [importedCall(5, 50, '2026-03-09T10:00:00.000Z')], /line 1: .*not in this app/],
    ['two scheduled calls of one agent that overlap', [agent(1, 'UTC', {}), importedCall(6, 1, '2026-03-09T10:00:00.000Z', 60), importedCall(7, 1, '2026-03-09T10:30:00.000Z', 60)], /line 3: .*overlaps another scheduled call/],
    ['a cancelled call without cancelled_at', [agent(1, 'UTC', {}), importedCall(8, 1, '2026-03-09T10:00:00.000Z', 30, { status: 'cancelled' })], /line 2: invalid scheduled_call: cancelled_at/],
    ['an agent override out of bounds', [{ ...agent(1, 'UTC', {}, 'A'), booking_overrides: { alignment_minutes: 7 } }], /line 1: invalid agent: booking_overrides\.alignment_minutes: must divide 1440/],
    ['an agent override of an unknown rule', [{ ...agent(1, 'UTC', {}, 'A'), booking_overrides: { assignment: 'round_robin' } }], /line 1: invalid agent: booking_overrides/],
    ['an assignment weight of 0', [{ ...agent(1, 'UTC', {}, 'A'), assignment_weight: 0 }], /line 1: invalid agent: assignment_weight/],
    ['a booking policy with an unknown strategy, after a good agent', [agent(1, 'UTC', {}), { type: 'booking_policy', assignment: 'random' }], /line 2: invalid booking_policy: assignment/],
    ['a booking policy horizon of 0 days', [{ type: 'booking_policy', horizon_days: 0 }], /line 1: invalid booking_policy: horizon_days/],
    ['a call with an unknown status', [agent(1, 'UTC', {}), importedCall(9, 1, '2026-03-09T10:00:00.000Z', 30, { status: 'booked' })], /line 2: invalid scheduled_call: status/],
  ];
  for (const [name, records, message] of badLines) {
    it(`refuses ${name}, naming the line, writing nothing`, async () => {
      const tenant = await server.tenant();
      await expect(importRecords(server, tenant.appId, records)).rejects.toThrow(message);
      const res = await api(server, tenant).gql(`query($app: UUID!) { agents(appId: $app) { id: agentId } scheduledCalls(appId: $app) { nodes { id: callId } } }`, { app: tenant.appId });
      expect(res.body.data).toEqual({ agents: [], scheduledCalls: { nodes: [] } });
    });
  }

  it('agent records carry overrides, priority and weight, a booking_policy record sets the app policy, in the one transaction', async () => {
    const tenant = await server.tenant();
    const counts = await importRecords(server, tenant.appId, [
      { type: 'booking_policy', minimum_notice_minutes: 60, alignment_minutes: 15, assignment: 'round_robin' },
      { ...agent(1, 'UTC', everyDay('09:00', '17:00'), 'Ada'), booking_overrides: { max_calls_per_day: 3, alignment_minutes: null }, assignment_priority: 4, assignment_weight: 250 },
      agent(2, 'UTC', everyDay('09:00', '17:00'), 'Bo'),
    ]);
    expect(counts).toEqual({ booking_policy: 1, agent: 2 });
    const query = `query($app: UUID!) { app(appId: $app) { bookingPolicy { assignment rules { minimumNoticeMinutes alignmentMinutes } } }
      agents(appId: $app) { id: agentId bookingOverrides assignmentPriority assignmentWeight bookingRules { maxCallsPerDay alignmentMinutes } } }`;
    const a = api(server, tenant);
    const res = await a.gql(query, { app: tenant.appId });
    expect(res.body.data.app.bookingPolicy).toEqual({ assignment: 'round_robin', rules: { minimumNoticeMinutes: 60, alignmentMinutes: 15 } });
    expect(res.body.data.agents).toEqual([
      { id: A1, bookingOverrides: { maxCallsPerDay: 3, alignmentMinutes: null }, assignmentPriority: 4, assignmentWeight: 250, bookingRules: { maxCallsPerDay: 3, alignmentMinutes: null } },
      { id: agentIdOf(2), bookingOverrides: {}, assignmentPriority: 2, assignmentWeight: 100, bookingRules: { maxCallsPerDay: null, alignmentMinutes: 15 } },
    ]);
    // An agent record without booking fields keeps the agent's; a policy record replaces the app's whole.
    await importRecords(server, tenant.appId, [agent(1, 'UTC', everyDay('10:00', '16:00'), 'Ada'), { type: 'booking_policy' }]);
    const again = await a.gql(query, { app: tenant.appId });
    expect(again.body.data.app.bookingPolicy).toEqual({ assignment: 'least_busy', rules: { minimumNoticeMinutes: 0, alignmentMinutes: null } });
    expect(again.body.data.agents[0]).toMatchObject({ bookingOverrides: { maxCallsPerDay: 3, alignmentMinutes: null }, assignmentPriority: 4, assignmentWeight: 250 });
  });

  it("refuses a call id of another app's call and leaves that call alone", async () => {
    const mine = await server.tenant();
    const theirs = await server.tenant();
    await importRecords(server, mine.appId, [agent(1, 'UTC', {}), importedCall(40, 1, '2026-03-09T10:00:00.000Z')]);
    await expect(importRecords(server, theirs.appId, [agent(1, 'UTC', {}), importedCall(40, 1, '2026-03-10T10:00:00.000Z', 30, { guest_name: 'Mallory' })])).rejects.toThrow(
      /another app/,
    );
    expect((await api(server, mine).get(callIdOf(40))).body.data.call).toMatchObject({ guest_name: 'Guest 40', scheduled_at: '2026-03-09T10:00:00.000Z' });
  });
});
