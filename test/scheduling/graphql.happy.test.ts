import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';
import { agent, api, callIdOf, codeOf, everyDay, futureDay, importedCall, importRecords } from './fixtures.js';

const { server } = useServer();

describe('GraphQL: agents, hours, exceptions and DND', () => {
  it('saveAgent, setAgentWorkingHours, exceptions and DND windows shape availability', async () => {
    const tenant = await server.tenant();
    const a = api(server, tenant);
    const saved = await a.gql(
      `mutation($app: UUID!) { saveAgent(appId: $app, input: { name: "Bea", timezone: "Asia/Kathmandu", workingHours: { mon: [["09:00", "10:00"]] } }) { id: agentId name timezone workingHours } }`,
      { app: tenant.appId },
    );
    expect(saved.body.errors).toBeUndefined();
    const id = saved.body.data.saveAgent.id;
    expect(saved.body.data.saveAgent).toMatchObject({ name: 'Bea', timezone: 'Asia/Kathmandu', workingHours: { mon: [['09:00', '10:00']] } });
    // Kathmandu is UTC+05:45: 09:00-10:00 local is 03:15-04:15Z.
    const slots = async () =>
      (await a.availability({ fromUtc: '2026-03-09T00:00:00Z', toUtc: '2026-03-09T12:00:00Z', durationMinutes: 30, stepMinutes: 15 })).body.data.slots.map(
        (s: { startUtc: string }) => s.startUtc.slice(11, 16),
      );
    expect(await slots()).toEqual(['03:15', '03:30', '03:45']);
    const hours = await a.gql(`mutation($app: UUID!, $id: UUID!) { setAgentWorkingHours(appId: $app, agentId: $id, workingHours: { mon: [["10:00", "11:00"]] }) { workingHours } }`, {
      app: tenant.appId,
      id,
    });
    expect(hours.body.data.setAgentWorkingHours.workingHours).toEqual({ mon: [['10:00', '11:00']] });
    expect(await slots()).toEqual(['04:15', '04:30', '04:45']);
    const blocked = await a.gql(
      `mutation($app: UUID!, $id: UUID!) { addAvailabilityException(appId: $app, agentId: $id, kind: blocked, startUtc: "2026-03-09T04:30:00Z", endUtc: "2026-03-09T04:45:00Z") { id: exceptionId kind } }`,
      { app: tenant.appId, id },
    );
    expect(await slots()).toEqual(['04:45']);
    const dnd = await a.gql(`mutation($app: UUID!, $id: UUID!) { addDndWindow(appId: $app, agentId: $id, startUtc: "2026-03-09T05:00:00Z", endUtc: "2026-03-09T05:15:00Z") { id: windowId } }`, {
      app: tenant.appId,
      id,
    });
    expect(await slots()).toEqual([]);
    await a.gql(`mutation($app: UUID!, $id: UUID!) { removeAvailabilityException(appId: $app, id: $id) { id: exceptionId } }`, { app: tenant.appId, id: blocked.body.data.addAvailabilityException.id });
    await a.gql(`mutation($app: UUID!, $id: UUID!) { removeDndWindow(appId: $app, id: $id) { id: windowId } }`, { app: tenant.appId, id: dnd.body.data.addDndWindow.id });
    expect(await slots()).toEqual(['04:15', '04:30', '04:45']);
    const deleted = await a.gql(`mutation($app: UUID!, $id: UUID!) { deleteAgent(appId: $app, id: $id) { id: agentId } }`, { app: tenant.appId, id });
    expect(deleted.body.data.deleteAgent.id).toBe(id);
    expect(await slots()).toEqual([]);
  });
});

describe('GraphQL: scheduled calls', () => {
  it('scheduledCall agrees with the REST get; mutations mirror REST', async () => {
    const tenant = await server.tenant();
    const a = api(server, tenant);
    await importRecords(server, tenant.appId, [agent(1, 'UTC', everyDay('00:00', '24:00'))]);
    const created = await a.gql(
      `mutation($app: UUID!, $at: DateTime!) { createScheduledCall(appId: $app, input: { scheduledAtUtc: $at, durationMinutes: 20, guestName: "Cy" }) { id: callId status } }`,
      { app: tenant.appId, at: futureDay(30, 9).toISOString() },
    );
    const id = created.body.data.createScheduledCall.id;
    const updated = await a.gql(
      `mutation($app: UUID!, $id: UUID!, $at: DateTime!) { updateScheduledCall(appId: $app, id: $id, input: { scheduledAtUtc: $at, guestEmail: "cy@example.com", reason: "r" }) { scheduledAt guestEmail } }`,
      { app: tenant.appId, id, at: futureDay(30, 11).toISOString() },
    );
    expect(updated.body.data.updateScheduledCall).toEqual({ scheduledAt: futureDay(30, 11).toISOString(), guestEmail: 'cy@example.com' });
    const graph = await a.gql(
      `query($app: UUID!, $id: UUID!) { scheduledCall(appId: $app, id: $id) { id: callId appId assignedAgentId bookingSource guestName guestPhone guestEmail guestTimezone
        guestIntakeNotes metadata answers { question answer } scheduledAt durationMinutes appTimezone status createdAt events { id: eventId eventType actorType actorId payload createdAt } } }`,
      { app: tenant.appId, id },
    );
    const rest = (await a.get(id)).body.data;
    const { events, ...call } = graph.body.data.scheduledCall;
    const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    expect(Object.fromEntries(Object.entries(call).map(([k, v]) => [snake(k), v]))).toEqual(rest.call);
    expect(events.map((e: Record<string, unknown>) => Object.fromEntries(Object.entries(e).map(([k, v]) => [snake(k), v])))).toEqual(rest.events);
    const cancelled = await a.gql(`mutation($app: UUID!, $id: UUID!) { cancelScheduledCall(appId: $app, id: $id, reason: "done") { status cancellationReason cancelledAt } }`, {
      app: tenant.appId,
      id,
    });
    expect(cancelled.body.data.cancelScheduledCall).toMatchObject({ status: 'cancelled', cancellationReason: 'done' });
    const conflict = await a.gql(`mutation($app: UUID!, $id: UUID!) { updateScheduledCall(appId: $app, id: $id, input: { guestName: "Z" }) { id: callId } }`, { app: tenant.appId, id });
    expect(codeOf(conflict)).toBe('conflict');
    const empty = await a.gql(`mutation($app: UUID!, $id: UUID!) { updateScheduledCall(appId: $app, id: $id, input: {}) { id: callId } }`, { app: tenant.appId, id });
    expect(codeOf(empty)).toBe('invalid_request');
  });

  it('recordScheduledCallOutcome: only once started, only from scheduled, final afterwards', async () => {
    const tenant = await server.tenant();
    const a = api(server, tenant);
    await importRecords(server, tenant.appId, [agent(1, 'UTC', everyDay('00:00', '24:00')), importedCall(2, 1, '2026-03-09T10:00:00.000Z')]);
    const future = (await a.create({ scheduledAtUtc: futureDay(31, 9).toISOString(), durationMinutes: 30, guestName: 'F' })).body.data.call.id;
    const outcome = (id: string, value: string) =>
      a.gql(`mutation($app: UUID!, $id: UUID!, $o: ScheduledCallOutcome!) { recordScheduledCallOutcome(appId: $app, id: $id, outcome: $o) { status events { eventType } } }`, {
        app: tenant.appId,
        id,
        o: value,
      });
    expect(codeOf(await outcome(future, 'completed'))).toBe('conflict');
    expect(codeOf(await outcome(callIdOf(2), 'done'))).toBe('invalid_request');
    const done = await outcome(callIdOf(2), 'no_show');
    expect(done.body.data.recordScheduledCallOutcome).toEqual({ status: 'no_show', events: [{ eventType: 'created' }, { eventType: 'no_show' }] });
    expect(codeOf(await outcome(callIdOf(2), 'completed'))).toBe('conflict');
    expect((await a.patch(callIdOf(2), { guestName: 'X' })).status).toBe(409);
  });

  it('a page of calls with their timelines takes a constant number of statements (DataLoader)', async () => {
    const tenant = await server.tenant();
    const a = api(server, tenant);
    await importRecords(server, tenant.appId, [
      agent(1, 'UTC', everyDay('00:00', '24:00')),
      ...Array.from({ length: 40 }, (_, i) => importedCall(500 + i, 1, new Date(Date.UTC(2026, 2, 1, 0, i * 40)).toISOString())),
    ]);
    const statementsFor = async (first: number) => {
      const before = server.runtime.database.queries.count;
      const res = await a.gql(`query($app: UUID!, $n: Int) { scheduledCalls(appId: $app, first: $n) { nodes { id: callId events { eventType } } } }`, { app: tenant.appId, n: first });
      expect(res.body.data.scheduledCalls.nodes).toHaveLength(first);
      return server.runtime.database.queries.count - before;
    };
    await statementsFor(1); // the token's first request (on PGlite its auth answer is then kept in memory)
    const small = await statementsFor(3);
    const large = await statementsFor(40);
    expect(large).toBe(small);
    expect(large).toBeLessThanOrEqual(3);
  });

  it("every edge of a calls page carries its cursor: after a middle edge's come the calls after it", async () => {
    const tenant = await server.tenant();
    const a = api(server, tenant);
    await importRecords(server, tenant.appId, [
      agent(1, 'UTC', everyDay('00:00', '24:00')),
      ...Array.from({ length: 5 }, (_, i) => importedCall(600 + i, 1, new Date(Date.UTC(2026, 2, 2, 9 + i)).toISOString())),
    ]);
    const page = async (after?: string) =>
      (await a.gql(`query($app: UUID!, $after: String) { scheduledCalls(appId: $app, first: 10, after: $after) { edges { cursor node { id: callId } } } }`, { app: tenant.appId, after }))
        .body.data.scheduledCalls.edges as { cursor: string; node: { id: string } }[];
    const all = await page();
    expect(all.map((e) => e.node.id)).toEqual([600, 601, 602, 603, 604].map(callIdOf));
    expect((await page(all[1]!.cursor)).map((e) => e.node.id)).toEqual([602, 603, 604].map(callIdOf));
  });
});
