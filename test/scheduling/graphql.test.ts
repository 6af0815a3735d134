import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { agent, agentIdOf, api, callIdOf, everyDay, futureDay, importedCall, importRecords } from './fixtures.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const codeOf = (res: { body: { errors?: { extensions?: Record<string, any> }[] } }) => res.body.errors?.[0]?.extensions?.code;

describe('GraphQL: agents, hours, exceptions and DND', () => {
  it('saveAgent, setAgentWorkingHours, exceptions and DND windows shape availability', async () => {
    const tenant = await server.tenant();
    const a = api(server, tenant);
    const saved = await a.gql(
      `mutation($app: UUID!) { saveAgent(appId: $app, input: { name: "Bea", timezone: "Asia/Kathmandu", workingHours: { mon: [["09:00", "10:00"]] } }) { id name timezone workingHours } }`,
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
      `mutation($app: UUID!, $id: UUID!) { addAvailabilityException(appId: $app, agentId: $id, kind: blocked, startUtc: "2026-03-09T04:30:00Z", endUtc: "2026-03-09T04:45:00Z") { id kind } }`,
      { app: tenant.appId, id },
    );
    expect(await slots()).toEqual(['04:45']);
    const dnd = await a.gql(`mutation($app: UUID!, $id: UUID!) { addDndWindow(appId: $app, agentId: $id, startUtc: "2026-03-09T05:00:00Z", endUtc: "2026-03-09T05:15:00Z") { id } }`, {
      app: tenant.appId,
      id,
    });
    expect(await slots()).toEqual([]);
    await a.gql(`mutation($app: UUID!, $id: UUID!) { removeAvailabilityException(appId: $app, id: $id) { id } }`, { app: tenant.appId, id: blocked.body.data.addAvailabilityException.id });
    await a.gql(`mutation($app: UUID!, $id: UUID!) { removeDndWindow(appId: $app, id: $id) { id } }`, { app: tenant.appId, id: dnd.body.data.addDndWindow.id });
    expect(await slots()).toEqual(['04:15', '04:30', '04:45']);
    const deleted = await a.gql(`mutation($app: UUID!, $id: UUID!) { deleteAgent(appId: $app, id: $id) { id } }`, { app: tenant.appId, id });
    expect(deleted.body.data.deleteAgent.id).toBe(id);
    expect(await slots()).toEqual([]);
  });

  it('bad input is invalid_request with field paths; unknown ids not_found; an agent with calls cannot be deleted', async () => {
    const tenant = await server.tenant();
    const a = api(server, tenant);
    await importRecords(server, tenant.appId, [agent(1, 'UTC', {}), importedCall(1, 1, '2026-03-09T10:00:00.000Z')]);
    const badZone = await a.gql(`mutation($app: UUID!) { saveAgent(appId: $app, input: { name: "X", timezone: "Moon/Base" }) { id } }`, { app: tenant.appId });
    expect(codeOf(badZone)).toBe('invalid_request');
    expect(badZone.body.errors![0]!.extensions!.details).toEqual([{ field: 'input.timezone', code: 'invalid_value', message: 'must be an IANA time zone' }]);
    const badHours = await a.gql(`mutation($app: UUID!, $id: UUID!) { setAgentWorkingHours(appId: $app, agentId: $id, workingHours: { mon: [["9am", "5pm"]] }) { id } }`, {
      app: tenant.appId,
      id: agentIdOf(1),
    });
    expect(codeOf(badHours)).toBe('invalid_request');
    expect(badHours.body.errors![0]!.extensions!.details.map((d: { field: string }) => d.field)).toEqual(['workingHours.mon.0.0', 'workingHours.mon.0.1']);
    const reversed = await a.gql(
      `mutation($app: UUID!, $id: UUID!) { addDndWindow(appId: $app, agentId: $id, startUtc: "2026-03-09T05:00:00Z", endUtc: "2026-03-09T04:00:00Z") { id } }`,
      { app: tenant.appId, id: agentIdOf(1) },
    );
    expect(reversed.body.errors![0]!.extensions).toMatchObject({ code: 'invalid_request', details: [{ field: 'endUtc' }] });
    const noAgent = await a.gql(
      `mutation($app: UUID!, $id: UUID!) { addDndWindow(appId: $app, agentId: $id, startUtc: "2026-03-09T03:00:00Z", endUtc: "2026-03-09T04:00:00Z") { id } }`,
      { app: tenant.appId, id: agentIdOf(9) },
    );
    expect(codeOf(noAgent)).toBe('invalid_request');
    expect(codeOf(await a.gql(`query($app: UUID!, $id: UUID!) { agent(appId: $app, id: $id) { id } }`, { app: tenant.appId, id: agentIdOf(9) }))).toBe('not_found');
    expect(codeOf(await a.gql(`mutation($app: UUID!, $id: UUID!) { deleteAgent(appId: $app, id: $id) { id } }`, { app: tenant.appId, id: agentIdOf(1) }))).toBe('conflict');
  });

  it('scheduling:read cannot change calendars; another app cannot read them', async () => {
    const tenant = await server.tenant();
    const reader = await (await server.client({ apps: [tenant.appId], scopes: ['scheduling:read'] })).token();
    const a = api(server, tenant);
    const res = await a.gql(`mutation($app: UUID!) { saveAgent(appId: $app, input: { name: "X", timezone: "UTC" }) { id } }`, { app: tenant.appId }, reader);
    expect(codeOf(res)).toBe('forbidden');
    const stranger = await server.tenant();
    expect(codeOf(await a.gql(`query($app: UUID!) { agents(appId: $app) { id } }`, { app: tenant.appId }, stranger.accessToken))).toBe('forbidden');
  });
});

describe('GraphQL: scheduled calls', () => {
  it('scheduledCall agrees with the REST get; mutations mirror REST', async () => {
    const tenant = await server.tenant();
    const a = api(server, tenant);
    await importRecords(server, tenant.appId, [agent(1, 'UTC', everyDay('00:00', '24:00'))]);
    const created = await a.gql(
      `mutation($app: UUID!, $at: DateTime!) { createScheduledCall(appId: $app, input: { scheduledAtUtc: $at, durationMinutes: 20, guestName: "Cy" }) { id status } }`,
      { app: tenant.appId, at: futureDay(30, 9).toISOString() },
    );
    const id = created.body.data.createScheduledCall.id;
    const updated = await a.gql(
      `mutation($app: UUID!, $id: UUID!, $at: DateTime!) { updateScheduledCall(appId: $app, id: $id, input: { scheduledAtUtc: $at, guestEmail: "cy@example.com", reason: "r" }) { scheduledAt guestEmail } }`,
      { app: tenant.appId, id, at: futureDay(30, 11).toISOString() },
    );
    expect(updated.body.data.updateScheduledCall).toEqual({ scheduledAt: futureDay(30, 11).toISOString(), guestEmail: 'cy@example.com' });
    const graph = await a.gql(
      `query($app: UUID!, $id: UUID!) { scheduledCall(appId: $app, id: $id) { id appId assignedAgentId bookingSource guestName guestPhone guestEmail guestTimezone
        guestIntakeNotes scheduledAt durationMinutes appTimezone status createdAt events { id eventType actorType actorId payload createdAt } } }`,
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
    const conflict = await a.gql(`mutation($app: UUID!, $id: UUID!) { updateScheduledCall(appId: $app, id: $id, input: { guestName: "Z" }) { id } }`, { app: tenant.appId, id });
    expect(codeOf(conflict)).toBe('conflict');
    const empty = await a.gql(`mutation($app: UUID!, $id: UUID!) { updateScheduledCall(appId: $app, id: $id, input: {}) { id } }`, { app: tenant.appId, id });
    expect(codeOf(empty)).toBe('invalid_request');
  });

  it("what the service refuses (a past start, an unknown agent) names the field under input, as the input's own checks do", async () => {
    const tenant = await server.tenant();
    const a = api(server, tenant);
    await importRecords(server, tenant.appId, [agent(1, 'UTC', everyDay('00:00', '24:00'))]);
    const detailsOf = (res: { body: { errors?: { message: string; extensions?: Record<string, any> }[] } }) => ({
      code: res.body.errors?.[0]?.extensions?.code,
      fields: res.body.errors?.[0]?.extensions?.details?.map((d: { field: string }) => d.field),
      message: res.body.errors?.[0]?.message,
    });
    const create = (input: string, at: string) =>
      a.gql(`mutation($app: UUID!, $at: DateTime!) { createScheduledCall(appId: $app, input: { scheduledAtUtc: $at, durationMinutes: 20, guestName: "Cy"${input} }) { id } }`, {
        app: tenant.appId,
        at,
      });
    expect(detailsOf(await create('', '2020-01-01T10:00:00Z'))).toEqual({
      code: 'invalid_request',
      fields: ['input.scheduledAtUtc'],
      message: 'Invalid input: input.scheduledAtUtc: must be in the future',
    });
    const stranger = '"00000000-0000-4000-8000-000000000001"';
    expect(detailsOf(await create(`, assignedAgentId: ${stranger}`, futureDay(30, 9).toISOString()))).toMatchObject({ fields: ['input.assignedAgentId'] });
    const id = (await create('', futureDay(30, 9).toISOString())).body.data.createScheduledCall.id;
    const moved = await a.gql(`mutation($app: UUID!, $id: UUID!) { updateScheduledCall(appId: $app, id: $id, input: { assignedAgentId: ${stranger} }) { id } }`, {
      app: tenant.appId,
      id,
    });
    expect(detailsOf(moved)).toMatchObject({ code: 'invalid_request', fields: ['input.assignedAgentId'] });
    // REST names the body's own paths.
    const rest = await a.create({ scheduledAtUtc: '2020-01-01T10:00:00Z', durationMinutes: 20, guestName: 'Cy' });
    expect(rest.status).toBe(400);
    expect(rest.body.error.details.map((d: { field: string }) => d.field)).toEqual(['scheduledAtUtc']);
    expect(rest.body.error.message).toBe('Invalid input: scheduledAtUtc: must be in the future');
  });

  it('recordScheduledCallOutcome: only once started, only from scheduled, final afterwards', async () => {
    const tenant = await server.tenant();
    const a = api(server, tenant);
    await importRecords(server, tenant.appId, [agent(1, 'UTC', everyDay('00:00', '24:00')), importedCall(2, 1, '2026-03-09T10:00:00.000Z')]);
    const future = (await a.create({ scheduledAtUtc: futureDay(31, 9).toISOString(), durationMinutes: 30, guestName: 'F' })).body.data.call.id;
    const outcome = (id: string, value: string) =>
      a.gql(`mutation($app: UUID!, $id: UUID!, $o: String!) { recordScheduledCallOutcome(appId: $app, id: $id, outcome: $o) { status events { eventType } } }`, {
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
      const res = await a.gql(`query($app: UUID!, $n: Int) { scheduledCalls(appId: $app, first: $n) { nodes { id events { eventType } } } }`, { app: tenant.appId, n: first });
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
      (await a.gql(`query($app: UUID!, $after: String) { scheduledCalls(appId: $app, first: 10, after: $after) { edges { cursor node { id } } } }`, { app: tenant.appId, after }))
        .body.data.scheduledCalls.edges as { cursor: string; node: { id: string } }[];
    const all = await page();
    expect(all.map((e) => e.node.id)).toEqual([600, 601, 602, 603, 604].map(callIdOf));
    expect((await page(all[1]!.cursor)).map((e) => e.node.id)).toEqual([602, 603, 604].map(callIdOf));
  });
});
